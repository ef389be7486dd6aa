# shellcheck shell=bash
# What the sandbox suites share (tests/sandbox.bats, tests/sandbox-isolation.bats):
# needs $RANGE_FIRST, $RANGE_LAST (the suite's lease range), $TEST_CACHE and
# $TOKEN (tests/helpers.bash).

# sandbox_bundle [DIR [SPEC OPTIONS...]]: DIR (default $BUNDLE) with `spec
# --sandbox`'s config, the test's range and token.
sandbox_bundle() {
	local dir="${1:-$BUNDLE}"
	[[ -d "$dir/rootfs" ]] || { mkdir -p "$dir" && cp -al "$TEST_CACHE/rootfs" "$dir/rootfs"; }
	rm -f "$dir/config.json" "$dir/request.key"
	"$RUNTIME" spec --sandbox -b "$dir" "${@:2}"
	BUNDLE="$dir" update_config '.annotations["run.tinyrun.userns.range"] = $r | .process.env += [$t]' \
		--arg r "$RANGE_FIRST-$RANGE_LAST" --arg t "TINYRUN_TEST_TOKEN=$TOKEN"
}
