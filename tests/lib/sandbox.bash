# shellcheck shell=bash
# What the sandbox suites share (tests/sandbox*.bats, after `load helpers`):
# the profile's bundle in a lease range no host user has; needs $TEST_CACHE and
# $TOKEN (tests/helpers.bash).

# A lease range no host user has (this machine's users stay below 100000,
# and /etc/subuid is empty) unless the suite set its own; each test has its
# own --root, so its own leases.
: "${RANGE_FIRST:=1900000000}"
: "${RANGE_LAST:=1900065535}"

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
