#!/usr/bin/env bats
# --pidfd-socket PATH on create, run and exec (runc 1.2): a pidfd of the
# container's process arrives over the unix socket as one SCM_RIGHTS message
# ("standard" for the init, "setns" for an exec'd process, as runc sends
# them). tests/lib/pidfd-recv.c is the manager: it checks with the kernel
# that the fd is a pidfd (fdinfo's Pid:) and signals through it.

load helpers

setup() {
	tr_setup
	build_static "$TESTS_DIR/lib/pidfd-recv.c"
	SOCK="$BATS_TEST_TMPDIR/pidfd.sock"
}

# recv_start [SIGNAL]: the receiver in the background, until its socket is there.
recv_start() {
	"$TEST_LIB_BIN/pidfd-recv" "$SOCK" "$@" >"$BATS_TEST_TMPDIR/recv.out" 2>&1 </dev/null 3>&- 4>&- &
	RECV_PID=$!
	wait_for_file "$SOCK"
}

# recv_result: wait for the receiver; its output in $output.
recv_result() {
	local rc=0
	wait "$RECV_PID" || rc=$?
	output="$(cat "$BATS_TEST_TMPDIR/recv.out")"
	mapfile -t lines <"$BATS_TEST_TMPDIR/recv.out"
	[[ $rc -eq 0 ]] || { echo "pidfd-recv failed ($rc): $output" >&2; return 1; }
}

@test "create --pidfd-socket: a pidfd of the init, signalled through it before start" {
	recv_start 9
	create_container "$CID" --pidfd-socket "$SOCK" --pid-file "$BATS_TEST_TMPDIR/pid"
	recv_result
	assert_line --index 0 "standard $(cat "$BATS_TEST_TMPDIR/pid")"
	assert_line --index 1 signalled
	# the KILL sent through the pidfd reached the container's init
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "run -d --pidfd-socket: the pidfd refers to the running init" {
	set_cmd 'sleep 3600'
	recv_start 9
	run_detached "$CID" --pidfd-socket "$SOCK" --pid-file "$BATS_TEST_TMPDIR/pid"
	recv_result
	assert_line --index 0 "standard $(cat "$BATS_TEST_TMPDIR/pid")"
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "exec --pidfd-socket: a pidfd of the exec'd process, not of the init" {
	set_cmd 'sleep 3600'
	run_detached "$CID"
	local init tag pid
	init="$(state_field "$CID" pid)"
	recv_start 9
	run_nohang runtime exec -d --pidfd-socket "$SOCK" "$CID" sleep 2000
	assert_success
	recv_result
	read -r tag pid <<<"${lines[0]}"
	assert_equal "$tag" setns
	assert_line --index 1 signalled
	[[ "$pid" =~ ^[0-9]+$ && "$pid" != "$init" ]]
	record_pid "$pid"
	# the KILL through the pidfd ended the exec'd process, the init runs on
	wait_for_exit "$pid"
	assert_equal "$(state_field "$CID" status)" running
	proc_alive "$init"
	# a foreground exec: the pidfd names it while it runs (it sleeps until
	# the receiver's KILL through the pidfd ends it: exec's status is 137)
	recv_start 9
	run_nohang runtime exec --pidfd-socket "$SOCK" "$CID" sleep 2000
	assert_failure 137
	recv_result
	read -r tag pid <<<"${lines[0]}"
	assert_equal "$tag" setns
	assert_line --index 1 signalled
	[[ "$pid" =~ ^[0-9]+$ && "$pid" != "$init" ]]
	proc_alive "$init"
}

@test "--pidfd-socket to a path nobody listens on: create fails, nothing left" {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" \
		--pidfd-socket "$BATS_TEST_TMPDIR/nobody.sock" "$CID"
	assert_failure
	assert_output --partial "--pidfd-socket $BATS_TEST_TMPDIR/nobody.sock"
	[[ -z "$(ls "$ROOT")" ]]
}

# A manager whose listener never accepts, its backlog full: connect() would
# block for good with the state dir locked (the init made, waiting). runc
# fails at once (EAGAIN); we give up after a few seconds: exit 1, the option
# named, and the init, cgroup and state dir undone (teardown checks them).
@test "--pidfd-socket to a listener that never accepts: create fails in bounded time naming the option, nothing left" {
	SOCK="$BATS_TEST_TMPDIR/stuck.sock"
	python3 "$TESTS_DIR/lib/unix-listener.py" stuck "$SOCK" </dev/null >/dev/null 2>&1 3>&- 4>&- &
	local listener=$!
	wait_for_file "$SOCK"
	run_nohang timeout 30 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" \
		--pidfd-socket "$SOCK" "$CID"
	[ "$status" -ne 124 ] || fail "create still waiting on the pidfd socket after 30 s"
	assert_failure 1
	assert_output --partial "--pidfd-socket $SOCK: the listener accepted no connection"
	[[ -z "$(ls "$ROOT")" ]]
	kill "$listener"
	wait "$listener" || true
}

@test "exec -d --pidfd-socket to a listener that never accepts: fails in bounded time, no exec'd process left" {
	set_cmd 'sleep 3600'
	run_detached "$CID"
	SOCK="$BATS_TEST_TMPDIR/stuck.sock"
	python3 "$TESTS_DIR/lib/unix-listener.py" stuck "$SOCK" </dev/null >/dev/null 2>&1 3>&- 4>&- &
	local listener=$!
	wait_for_file "$SOCK"
	run_nohang timeout 30 "$RUNTIME" --root "$ROOT" exec -d --pidfd-socket "$SOCK" "$CID" sleep 2000
	[ "$status" -ne 124 ] || fail "exec still waiting on the pidfd socket after 30 s"
	assert_failure
	assert_output --partial "--pidfd-socket $SOCK: the listener accepted no connection"
	assert_equal "$(state_field "$CID" status)" running
	run runtime ps "$CID"
	refute_output --partial 2000
	kill "$listener"
	wait "$listener" || true
}
