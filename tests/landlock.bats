#!/usr/bin/env bats
# Landlock as the container's second fence (issue 31 §4, SPEC-NOTES
# "Landlock"): the sandbox profile's ruleset derived from its mounts, and
# run.tinyrun.landlock for any bundle. Each test widens what the mount (or
# network, pid) namespace lets the task reach and shows that Landlock alone
# still denies it, from inside real containers.

load helpers

RANGE_FIRST=1900000000
RANGE_LAST=1900065535

# sandbox_bundle: $BUNDLE with `spec --sandbox`'s config, the test's lease
# range, and /bin/landlock-probe in its image.
sandbox_bundle() {
	rm -f "$BUNDLE/config.json"
	"$RUNTIME" spec --sandbox -b "$BUNDLE"
	update_config '.annotations["run.tinyrun.userns.range"] = $r | .process.env += [$t]' \
		--arg r "$RANGE_FIRST-$RANGE_LAST" --arg t "TINYRUN_TEST_TOKEN=$TOKEN"
}

# host_dir: $HOSTDIR, a host directory with a secret, readable and writable
# by anyone (so only Landlock stands between the task and it), bound at /data.
bind_host_dir() {
	HOSTDIR="$BATS_TEST_TMPDIR/hostdir"
	mkdir -p "$HOSTDIR"
	echo secret >"$HOSTDIR/secret"
	chmod 0777 "$HOSTDIR" "$BATS_TEST_TMPDIR"
	chmod 0666 "$HOSTDIR/secret"
	update_config '.mounts += [{"destination": "/data", "type": "bind", "source": $s, "options": ["rbind", "rw"]}]' \
		--arg s "$HOSTDIR"
}

# run_result [run options]: `run --result $OUT/result.json` in the foreground
run_result() {
	mkdir -p "$OUT"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" \
		--bundle "$BUNDLE" "$@" "$CID"
}

setup() {
	tr_setup
	build_static "$TESTS_DIR/lib/landlock-probe.c"
	PROBE="$TEST_LIB_BIN/landlock-probe"
	cp "$PROBE" "$BUNDLE/rootfs/bin/landlock-probe"
	KERNEL_ABI="$("$PROBE" abi)"
	(( KERNEL_ABI > 0 )) || skip "no Landlock in this kernel"
}

teardown() {
	tr_teardown
}

@test "landlock: the sandbox denies a host directory bound into it; its own paths work; the init execs; landlockAbi" {
	sandbox_bundle
	bind_host_dir
	set_args checker read:/data/secret readdir:/data write:/data/new read:/etc/passwd write:/workspace/f \
		write:/tmp/f exec:/bin/true read:/dev/null write:/dev/null read:/dev/urandom read:/proc/self/status \
		read:/sys pid
	run_result
	assert_success
	assert_line "read:/data/secret=ERR:EACCES"
	assert_line "readdir:/data=ERR:EACCES"
	assert_line "write:/data/new=ERR:EACCES"
	assert_line --regexp "^read:/etc/passwd=ok [0-9]+"
	assert_line "write:/workspace/f=ok"
	assert_line "write:/tmp/f=ok"
	assert_line "exec:/bin/true=ok 0"
	assert_line "read:/dev/null=ok 0"
	assert_line "write:/dev/null=ok"
	assert_line --regexp "^read:/dev/urandom=ok [0-9]+"
	assert_line --regexp "^read:/proc/self/status=ok [0-9]+"
	assert_line "pid=2"   # under tinyrun-init, which Landlock let exec
	[[ ! -e "$HOSTDIR/new" ]]
	assert_equal "$(jq -r '.landlockAbi, .reason' "$OUT/result.json" | tr '\n' ' ')" "$KERNEL_ABI exit "
}
