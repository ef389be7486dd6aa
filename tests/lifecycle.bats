#!/usr/bin/env bats
# create / start / state / delete: the lifecycle of runtime.md, as observed
# from outside (state JSON, /proc) and from inside (files the container writes).

load helpers

@test "create leaves the container created, blocked before exec" {
	bind_out_dir
	set_cmd 'echo started >/out/started; sleep 3600'
	create_container "$CID"

	run runtime state "$CID"
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" created
	# Not exec'd yet: the user's program has not run.
	[ ! -e "$OUT/started" ]
}

@test "state prints the spec's fields: ociVersion id status pid bundle" {
	create_container "$CID"

	run runtime state "$CID"
	assert_success
	jq -e . <<<"$output" >/dev/null
	assert_equal "$(jq -r .ociVersion <<<"$output")" "$(jq -r .ociVersion "$BUNDLE/config.json")"
	assert_equal "$(jq -r .id <<<"$output")" "$CID"
	assert_equal "$(jq -r .status <<<"$output")" created
	assert_equal "$(jq -r .bundle <<<"$output")" "$BUNDLE"
	local pid
	pid="$(jq -r .pid <<<"$output")"
	[[ "$pid" =~ ^[0-9]+$ && "$pid" -gt 1 ]]
	# The pid is a live process in the container's own pid namespace.
	[ -d "/proc/$pid" ]
	[ "$(readlink "/proc/$pid/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
}

@test "state: bundle is absolute even when create got a relative path" {
	cd "$BATS_TEST_TMPDIR"
	run_nohang_to "$(container_log "$CID")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle bundle "$CID"
	assert_success
	assert_equal "$(state_field "$CID" bundle)" "$BUNDLE"
}

@test "start runs the process: status running, program observed" {
	bind_out_dir
	set_cmd 'echo started >/out/started; exec sleep 3600'
	create_container "$CID"
	local pid
	pid="$(state_field "$CID" pid)"

	run runtime start "$CID"
	assert_success
	wait_for_file "$OUT/started"
	assert_equal "$(state_field "$CID" status)" running
	# Same process, now running the configured program.
	assert_equal "$(state_field "$CID" pid)" "$pid"
	# The state's pid is the process that ran the program (and then exec'd sleep).
	local i
	for ((i = 0; i < 100; i++)); do
		[[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" == "sleep 3600 " ]] && break
		sleep 0.05
	done
	assert_equal "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "sleep 3600 "
}

@test "start: the process's stdout is the create caller's stdout" {
	set_cmd 'echo hello-from-container'
	create_container "$CID"
	run runtime start "$CID"
	assert_success
	wait_for_file "$(container_log "$CID")" hello-from-container
}

@test "process exits: status stopped, state still readable" {
	set_args true
	create_container "$CID"
	run runtime start "$CID"
	assert_success
	wait_for_state "$CID" stopped
	run runtime state "$CID"
	assert_success
	assert_equal "$(jq -r .id <<<"$output")" "$CID"
}

@test "delete removes the state: state fails, no state dir, not listed" {
	set_args true
	create_container "$CID"
	runtime start "$CID"
	wait_for_state "$CID" stopped

	run runtime delete "$CID"
	assert_success
	run runtime state "$CID"
	assert_failure 1
	is_runc || assert_output --partial "$CID"
	[ -z "$(test_state_dirs)" ]
	run runtime list -q
	assert_success
	[[ $'\n'"$output"$'\n' != *$'\n'"$CID"$'\n'* ]]
}

@test "delete of a created container kills its process" {
	create_container "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run runtime delete "$CID"
	assert_success
	wait_for_exit "$pid"
	[ -z "$(test_state_dirs)" ]
}

@test "delete refuses a running container; --force kills and removes it" {
	create_container "$CID"
	runtime start "$CID"
	local pid
	pid="$(state_field "$CID" pid)"

	run runtime delete "$CID"
	assert_failure 1
	[ -n "$output" ]
	assert_equal "$(state_field "$CID" status)" running
	proc_alive "$pid"

	run runtime delete --force "$CID"
	assert_success
	wait_for_exit "$pid"
	run runtime state "$CID"
	assert_failure 1
}

@test "delete --regex (crun): every container whose id matches, unanchored; the others stay" {
	local a1="${CID}-ra1" a2="${CID}-ra2" b="${CID}-rb" p1 p2 pb
	set_cmd 'exec sleep 1000'
	run_detached "$a1"
	run_detached "$a2"
	run_detached "$b"
	p1="$(state_field "$a1" pid)" p2="$(state_field "$a2" pid)" pb="$(state_field "$b" pid)"
	# running and no --force: each one refused, status 1, all still there
	run runtime delete --regex 'r[a]'
	assert_failure 1
	assert_output --partial "\"$a1\": it is running"
	assert_output --partial "\"$a2\": it is running"
	proc_alive "$p1"
	run runtime delete -f -r 'ra[0-9]$'
	assert_success
	wait_for_exit "$p1"
	wait_for_exit "$p2"
	proc_alive "$pb"
	run runtime list -q
	assert_output "$b"
	run runtime delete --regex '('
	assert_failure 1
	assert_output --partial 'invalid regular expression'
	run runtime delete -f "$b"
	assert_success
	wait_for_exit "$pb"
}

@test "a duplicate id fails with exit 1 and leaves the first untouched" {
	create_container "$CID"
	local pid
	pid="$(state_field "$CID" pid)"

	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	is_runc || assert_output --partial "$CID"

	assert_equal "$(state_field "$CID" status)" created
	assert_equal "$(state_field "$CID" pid)" "$pid"
	runtime start "$CID"
	assert_equal "$(state_field "$CID" status)" running
}

@test "valid ids: letters digits _ + - . are accepted" {
	local id="${CID}_A+b-c.9"
	create_container "$id"
	assert_equal "$(state_field "$id" id)" "$id"
}

@test "a 250-character id is accepted" {
	local id="$CID" 
	while ((${#id} < 250)); do id+=x; done
	create_container "$id"
	assert_equal "$(state_field "$id" id)" "$id"
}

@test "a 1024-character id is accepted" {
	is_runc && skip "runc keeps the id as a directory name: at most NAME_MAX (255)"
	local id="$CID"
	while ((${#id} < 1024)); do id+=x; done
	create_container "$id"
	assert_equal "$(state_field "$id" id)" "$id"
}

@test "invalid ids are rejected with exit 1 and nothing created" {
	local long="$CID" id
	while ((${#long} < 1025)); do long+=x; done
	for id in "a/b$CID" "a b$CID" "$CID:x" "$CID*" '.' '..' "$long" "$CID\$x" "é$CID"; do
		run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$id"
		[ "$status" -eq 1 ] || fail "id '$id' not rejected: status $status: $output"
		[ -n "$output" ] || fail "id '$id': no message"
	done
	[ -z "$(test_state_dirs)" ]
}

@test "an empty id is rejected" {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" ""
	assert_failure 1
	[ -n "$output" ]
}

@test "an id with a leading dot is rejected" {
	is_runc && skip "runc accepts ids starting with a dot"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" ".$CID"
	assert_failure 1
	[ -n "$output" ]
	[ -z "$(test_state_dirs)" ]
}

@test "start twice fails with exit 1; the container keeps running" {
	create_container "$CID"
	run runtime start "$CID"
	assert_success
	run runtime start "$CID"
	assert_failure 1
	[ -n "$output" ]
	assert_equal "$(state_field "$CID" status)" running
}

@test "start on a stopped container fails with exit 1" {
	set_args true
	create_container "$CID"
	runtime start "$CID"
	wait_for_state "$CID" stopped
	run runtime start "$CID"
	assert_failure 1
	[ -n "$output" ]
}

@test "operations on a missing container fail with exit 1 naming the id" {
	local cmd
	for cmd in state start delete "kill" pause resume ps update events; do
		run runtime $cmd "$CID-missing"
		[ "$status" -eq 1 ] || fail "$cmd: status $status: $output"
		# containerd and podman match runc's "does not exist"
		[[ "$output" == *"does not exist"* ]] || fail "$cmd: no 'does not exist': $output"
		is_runc || [[ "$output" == *"$CID-missing"* ]] || fail "$cmd: message does not name the id: $output"
	done
}

@test "kill on a stopped container fails with exit 1" {
	set_args true
	create_container "$CID"
	runtime start "$CID"
	wait_for_state "$CID" stopped
	run runtime kill "$CID" KILL
	assert_failure 1
	assert_output --partial "container not running"
}

@test "commands without the id argument fail with exit 1" {
	local cmd
	for cmd in create start state kill delete; do
		run runtime $cmd
		[ "$status" -eq 1 ] || fail "$cmd: status $status: $output"
		[ -n "$output" ] || fail "$cmd: no message"
	done
}

@test "--pid-file on create holds the container pid" {
	create_container "$CID" --pid-file "$BATS_TEST_TMPDIR/pidfile"
	[ -s "$BATS_TEST_TMPDIR/pidfile" ]
	assert_equal "$(cat "$BATS_TEST_TMPDIR/pidfile")" "$(state_field "$CID" pid)"
}

@test "two containers from one bundle are independent" {
	create_container "$CID"
	create_container "$CID-2"
	runtime start "$CID-2"
	assert_equal "$(state_field "$CID" status)" created
	assert_equal "$(state_field "$CID-2" status)" running
	run runtime delete --force "$CID-2"
	assert_success
	assert_equal "$(state_field "$CID" status)" created
}

@test "delete ID --force: options after the container id" {
	set_args sleep 3600
	create_container "$CID"
	run runtime start "$CID"
	assert_success
	run runtime delete "$CID" --force
	assert_success
	run runtime state "$CID"
	assert_failure 1
	[ ! -d "$ROOT/$CID" ]
}

@test "create ID --bundle DIR: options after the container id" {
	set_args true
	run_nohang_to "$(container_log "$CID")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create "$CID" --bundle "$BUNDLE"
	assert_success
	record_container_pid "$CID"
	assert_equal "$(state_field "$CID" status)" created
	assert_equal "$(state_field "$CID" bundle)" "$BUNDLE"
}

@test "pause of a stopped container: 'container not running'; resume of a running one: 'container not paused'" {
	set_args sleep 3600
	run_detached "$CID"
	run runtime resume "$CID"
	assert_failure 1
	assert_output --partial "container not paused"
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	run runtime pause "$CID"
	assert_failure 1
	assert_output --partial "container not running"
}
