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
	assert_line "readdir:/data=secret"   # names can be listed below /, no file opens
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

@test "landlock: run.tinyrun.landlock adds r:/data to the sandbox: read, but no write where the mount is rw; the task cannot undo it" {
	sandbox_bundle
	bind_host_dir
	update_config '.annotations["run.tinyrun.landlock"] = "r:/data"'
	set_args checker read:/data/secret readdir:/data write:/data/new write:/data/secret
	run_result
	assert_success
	assert_line "read:/data/secret=ok 7"
	assert_line "readdir:/data=secret"
	assert_line "write:/data/new=ERR:EACCES"
	assert_line "write:/data/secret=ERR:EACCES"
	assert_equal "$(cat "$HOSTDIR/secret")" secret
	[[ ! -e "$HOSTDIR/new" ]]
	# a second ruleset granting everything below / only narrows the first
	sandbox_bundle
	bind_host_dir
	set_args landlock-probe widen /data/secret
	run_result
	assert_failure 1
	assert_line "restrict=ok"
	assert_line "read=ERR:EACCES"
}

@test "landlock: run.tinyrun.landlock on a plain bundle: a host bind and the rootfs outside its rules are denied" {
	bind_host_dir
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/bin;r:/etc,/proc;rw:/tmp" | .root.readonly = false'
	set_args checker read:/data/secret read:/etc/passwd write:/etc/x write:/tmp/f exec:/bin/true readdir:/root read:/proc/self/status
	run_result
	assert_success
	assert_line "read:/data/secret=ERR:EACCES"
	assert_line --regexp "^read:/etc/passwd=ok [0-9]+"
	assert_line "write:/etc/x=ERR:EACCES"
	assert_line "write:/tmp/f=ok"
	assert_line "exec:/bin/true=ok 0"
	assert_line "readdir:/root=ERR:EACCES"
	assert_line --regexp "^read:/proc/self/status=ok [0-9]+"
	[[ ! -e "$BUNDLE/rootfs/etc/x" ]]
	assert_equal "$(jq -r .landlockAbi "$OUT/result.json")" "$KERNEL_ABI"
	# without the annotation: no fence, no key in the result
	update_config 'del(.annotations["run.tinyrun.landlock"])'
	run_result
	assert_success
	assert_line "read:/data/secret=ok 7"
	assert_equal "$(jq -r 'has("landlockAbi")' "$OUT/result.json")" false
}

@test "landlock: a sandbox reaches no abstract unix socket of another request, even in one network namespace" {
	(( KERNEL_ABI >= 6 )) || skip "Landlock ABI $KERNEL_ABI: no scoping (6)"
	local name="tinyrun-test-$TOKEN" a="$BATS_TEST_TMPDIR/a"
	# request A listens; both requests in the host's network namespace (widened on purpose)
	sandbox_bundle
	update_config 'del(.linux.namespaces[] | select(.type == "network"))'
	mkdir -p "$a" && cp -a "$BUNDLE/." "$a/"
	BUNDLE="$a" set_args landlock-probe listen "$name" 60
	BUNDLE="$a" run_detached "$CID-a"
	wait_for_file "$(container_log "$CID-a")" listening
	# the host (no Landlock) gets through: the socket is there
	run "$PROBE" connect "$name"
	assert_output "connect=ok"
	set_args landlock-probe connect "$name"
	run_result
	assert_failure 1
	assert_line "connect=ERR:EPERM"
}

@test "landlock: scope:signal: a task in the host's pid namespace cannot signal a host process" {
	(( KERNEL_ABI >= 6 )) || skip "Landlock ABI $KERNEL_ABI: no scoping (6)"
	sleep 60 &
	local victim=$!
	record_pid "$victim"
	update_config 'del(.linux.namespaces[] | select(.type == "pid"))'
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/bin;scope:signal"'
	set_args landlock-probe kill "$victim"
	run_result
	kill "$victim"
	assert_failure 1
	assert_line "kill=ERR:EPERM"
	# without the scope the same kill goes through (SIGCONT: harmless)
	sleep 60 &
	victim=$!
	record_pid "$victim"
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/bin"'
	set_args landlock-probe kill "$victim"
	run_result
	kill "$victim"
	assert_success
	assert_line "kill=ok"
}

@test "landlock: a bad run.tinyrun.landlock is refused naming it, before anything exists" {
	local v
	for v in "" "r" ":/x" "q:/x" "rr:/x" "r:x" "r:/a/../b" "r:/a/./b" "r:/a/" "r:/a,,/b" "r:/a," "r:/a;" ";r:/a" \
		"r:/a;;w:/b" "scope:bogus" "scope:" "r w:/a"; do
		update_config '.annotations["run.tinyrun.landlock"] = $v' --arg v "$v"
		run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
		assert_failure 1
		assert_output --partial 'config.json: .annotations["run.tinyrun.landlock"]: '
		assert_equal "$(ls "$ROOT")" ""
	done
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/" | .process.noNewPrivileges = false'
	run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.annotations["run.tinyrun.landlock"]: needs .process.noNewPrivileges: true'
	# a path missing in the container fails the start, naming it
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/bin,/nonexistent" | .process.noNewPrivileges = true'
	set_args true
	run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure
	assert_output --partial "Landlock: open /nonexistent: No such file or directory"
}

@test "landlock: a kernel without Landlock: a warning, landlockAbi 0, and the sandbox still runs" {
	build_static "$TESTS_DIR/lib/nosys.c"
	sandbox_bundle
	bind_host_dir
	set_args checker read:/data/secret write:/workspace/f
	mkdir -p "$OUT"
	run_nohang "$TEST_LIB_BIN/subreaper" "$TEST_LIB_BIN/nosys" landlock_create_ruleset -- \
		"$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --regexp "^tinyrun: warning: Landlock: not in this kernel .*: the container runs without it"
	assert_line "read:/data/secret=ok 7"
	assert_line "write:/workspace/f=ok"
	assert_equal "$(jq -r .landlockAbi "$OUT/result.json")" 0
}

@test "landlock: tinyrun exec into a fenced container runs under the same rules" {
	bind_host_dir
	update_config '.annotations["run.tinyrun.landlock"] = "rx:/bin;r:/etc"'
	set_args sleep 3600
	run_detached "$CID"
	run_nohang "$RUNTIME" --root "$ROOT" exec "$CID" checker read:/data/secret read:/etc/passwd
	assert_success
	assert_line "read:/data/secret=ERR:EACCES"
	assert_line --regexp "^read:/etc/passwd=ok [0-9]+"
	# the sandbox's derived rules too
	sandbox_bundle
	bind_host_dir
	set_args sleep 3600
	run_detached "$CID-s"
	run_nohang "$RUNTIME" --root "$ROOT" exec "$CID-s" checker read:/data/secret write:/workspace/f
	assert_success
	assert_line "read:/data/secret=ERR:EACCES"
	assert_line "write:/workspace/f=ok"
	# events' exit event says the ABI too
	timeout 20 "$RUNTIME" --root "$ROOT" events --interval 100ms "$CID-s" >"$BATS_TEST_TMPDIR/events" 2>&1 </dev/null 3>&- 4>&- &
	local events=$!
	wait_for_file "$BATS_TEST_TMPDIR/events" stats
	"$RUNTIME" --root "$ROOT" kill "$CID-s" KILL
	wait "$events"
	assert_equal "$(tail -n 1 "$BATS_TEST_TMPDIR/events" | jq -r '.type, .data.landlockAbi' | tr '\n' ' ')" "exit $KERNEL_ABI "
}
