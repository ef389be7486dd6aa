#!/usr/bin/env bats
# process.terminal and exec -t as a person meets them: a pty relayed by a
# foreground run/exec, input EOF, Ctrl-C, a caller that goes away. The
# caller's own terminal is made by script(1) (util-linux).

load helpers

SIGS_CMD='echo "sigs $(grep ^SigBlk: /proc/self/status | cut -f2) $(grep ^SigIgn: /proc/self/status | cut -f2)"'
NO_SIGS="sigs 0000000000000000 0000000000000000"

# in_terminal CMD...: CMD on a new terminal (script's), its input from stdin.
in_terminal() {
	script -qefc "$(printf '%q ' "$@")" /dev/null
}

# run_with_input INPUT CMD...: like run_nohang, with INPUT on a pipe as stdin.
run_with_input() {
	local input="$1" log="$BATS_TEST_TMPDIR/input.$((++NOHANG_SEQ)).log"
	shift
	if printf '%s' "$input" | timeout -k 2 20 "$@" >"$log" 2>&1 3>&- 4>&-; then status=0; else status=$?; fi
	output="$(cat "$log")"
}

@test "terminal run, stdin a pipe: the container reads the input, then EOF, and the run ends" {
	is_runc && skip "runc run with process.terminal needs the caller's /dev/tty (open /dev/tty: ENXIO)"
	update_config '.process.terminal = true'
	set_args sh
	run_with_input $'echo hi-$((6 * 7))\n' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	[ "$status" -ne 124 ] || fail "still running at EOF of its input: $output"
	assert_success
	assert_output --partial hi-42
	run runtime state "$CID"
	assert_failure
}

@test "terminal run and exec -t: output to a pipe keeps the program's newlines (no CR, as runc), to a terminal gets CR LF" {
	update_config '.process.terminal = true'
	# foreground run, stdout a file: the bytes the program wrote
	set_args printf 'a\nb\n'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	[ "$output" = $'a\nb' ] || fail "run to a pipe: $(printf '%q' "$output")"
	# stdout a terminal: the pty's usual CR LF reaches it
	run_nohang in_terminal "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID" </dev/null
	assert_success
	# (script(1) may echo a ^@ of its own between the lines once its stdin is at EOF)
	[[ "$output" == *$'a\r\n'*$'b\r'* ]] || fail "run on a terminal: $(printf '%q' "$output")"
	# exec -t with stdout a pipe, the same as run
	update_config '.process.terminal = false'
	set_args sleep 100
	run_detached "$CID"
	run_nohang runtime exec -t "$CID" printf 'a\nb\n'
	assert_success
	[ "$output" = $'a\nb' ] || fail "exec -t to a pipe: $(printf '%q' "$output")"
	# set before the program starts: exec's child does not wait for the runtime, whose
	# setting once lost the race (a\r\nb\r under load). strace holds every recvmsg, the
	# runtime's receipt of the pty, 300 ms: the program has written by then.
	is_runc && return 0
	run_nohang strace -f -qq -o /dev/null -e trace=recvmsg -e inject=recvmsg:delay_enter=300000 \
		"$RUNTIME" --root "$ROOT" exec -t "$CID" printf 'a\nb\n'
	assert_success
	[ "$output" = $'a\nb' ] || fail "exec -t to a pipe, the runtime slow: $(printf '%q' "$output")"
}

@test "terminal run, stdin /dev/null or a partial line: EOF reaches the container" {
	is_runc && skip "runc run with process.terminal needs the caller's /dev/tty (open /dev/tty: ENXIO)"
	update_config '.process.terminal = true'
	set_args cat
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	[ "$status" -ne 124 ] || fail "cat still runs with stdin /dev/null"
	assert_success
	# no newline at the end: one EOF for the partial line, one for the end
	run_with_input 'no-newline' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	[ "$status" -ne 124 ] || fail "cat still runs at EOF of its input: $output"
	assert_success
	assert_output --partial no-newline
}

@test "terminal run: when nobody reads its output any more, the container is hung up and deleted" {
	update_config '.process.terminal = true'
	set_cmd "trap '' PIPE; while :; do echo y; done"
	local st=0
	timeout -k 2 20 bash -c '"$@" </dev/null 2>/dev/null | head -n 1 >/dev/null' _ \
		"$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID" 3>&- 4>&- || st=$?
	[ "$st" -ne 124 ] || fail "run still going after its reader left"
	run runtime state "$CID"
	assert_failure
}

@test "terminal run and exec -t: no signal blocked or ignored in the process" {
	update_config '.process.terminal = true'
	set_cmd "$SIGS_CMD"
	run_nohang in_terminal "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --partial "$NO_SIGS"
	set_args sleep 3600
	update_config '.process.terminal = false'
	run_detached "$CID"
	run_nohang in_terminal "$RUNTIME" --root "$ROOT" exec -t "$CID" sh -c "$SIGS_CMD"
	assert_success
	assert_output --partial "$NO_SIGS"
}

@test "exec -t ID sh: Ctrl-C stops the foreground command, Ctrl-D ends the shell" {
	run_detached "$CID"
	local log="$BATS_TEST_TMPDIR/tty.log" st=0
	{
		sleep 1
		printf 'sleep 100\n'
		sleep 1
		printf '\003'
		sleep 0.5
		printf 'echo after-$((6 * 7))\n'
		sleep 1
		printf '\004'
	} | timeout -k 2 20 script -qefc "$(printf '%q ' "$RUNTIME" --root "$ROOT" exec -t "$CID" sh)" /dev/null \
		>"$log" 2>&1 3>&- 4>&- || st=$?
	[ "$st" -ne 124 ] || fail "exec -t still running: $(cat "$log")"
	grep -q 'after-42' "$log" || fail "sleep not stopped by ^C: $(cat "$log")"
}

# --- a detached terminal: the pty goes to a console socket ----------------

# crun's detach-tty case: process.terminal with --detach and a console
# socket; the process runs on the pty, exits, and the state says so.
@test "terminal + run --detach --console-socket: the pty reaches the socket; once the process exits the state is stopped and delete leaves nothing" {
	update_config '.process.terminal = true'
	bind_out_dir
	set_cmd 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-tty; echo "out-$((6 * 7))"; while [ ! -e /out/go ]; do sleep 0.05; done'
	recv_tty run
	run_detached "$CID" --console-socket "$SOCK"
	assert_equal "$(state_field "$CID" status)" running
	local pid
	pid="$(state_field "$CID" pid)"
	touch "$OUT/go"
	wait_for_exit "$pid"
	wait_for_state "$CID" stopped
	assert_equal "$(state_field "$CID" pid)" 0
	wait "$RECV_PID"
	run cat "$TTY_OUT"
	assert_line /dev/pts/0
	assert_line all-tty
	assert_line out-42
	run runtime list -q
	assert_output "$CID"
	runtime delete "$CID"
	run runtime state "$CID"
	assert_failure
}

@test "terminal + create --console-socket, start: the program runs on the pty, exits, state stopped, delete" {
	update_config '.process.terminal = true'
	set_cmd 'tty; echo started-on-pty'
	recv_tty create
	create_container "$CID" --console-socket "$SOCK"
	assert_equal "$(state_field "$CID" status)" created
	runtime start "$CID"
	wait_for_state "$CID" stopped
	wait "$RECV_PID"
	run cat "$TTY_OUT"
	assert_line /dev/pts/0
	assert_line started-on-pty
	runtime delete "$CID"
	run runtime state "$CID"
	assert_failure
}

# unix_listener MODE: tests/lib/unix-listener.py MODE on $SOCK in the
# background (LISTENER_PID), its output in $BATS_TEST_TMPDIR/listener.out.
unix_listener() {
	SOCK="$BATS_TEST_TMPDIR/$1.sock"
	python3 "$TESTS_DIR/lib/unix-listener.py" "$1" "$SOCK" >"$BATS_TEST_TMPDIR/listener.out" 2>&1 </dev/null 3>&- 4>&- &
	LISTENER_PID=$!
	wait_for_file "$SOCK"
}

# The message that carries the pty master holds the master's name and nothing
# else, as runc's SendRawFd(socket, pty.Name(), fd): "/dev/pts/ptmx" (runc
# 1.2.8+, which opens it there as we do; runc before: "/dev/ptmx"), no NUL,
# no header before it.
@test "terminal + create --console-socket: the message holds exactly the master's name, as runc sends it" {
	update_config '.process.terminal = true'
	unix_listener recv
	create_container "$CID" --console-socket "$SOCK"
	wait_for_file "$BATS_TEST_TMPDIR/listener.out" '^tty='
	run cat "$BATS_TEST_TMPDIR/listener.out"
	if is_runc; then
		assert_line --index 0 --regexp "^b'/dev/(pts/)?ptmx'$"
	else
		assert_line --index 0 "b'/dev/pts/ptmx'"
	fi
	assert_line --index 1 fds=1
	assert_line --index 2 tty=True
	runtime delete --force "$CID"
	wait "$LISTENER_PID"
}

# A listener that never accepts, its backlog full: connect() would block for
# good, with the container's state dir locked. runc fails at once (EAGAIN);
# we wait a few seconds, then fail the same way: exit 1, the option named,
# nothing left (teardown checks state dir, cgroup, processes).
@test "terminal + create --console-socket to a listener that never accepts: fails in bounded time naming the option, nothing left" {
	update_config '.process.terminal = true'
	unix_listener stuck
	run_nohang timeout 30 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" \
		--console-socket "$SOCK" "$CID"
	[ "$status" -ne 124 ] || fail "create still waiting on the console socket after 30 s"
	assert_failure 1
	assert_output --partial "$SOCK"   # runc: "dial unix SOCK: connect: ..."
	is_runc || assert_output --partial "--console-socket $SOCK: the listener accepted no connection"
	run runtime state "$CID"
	assert_failure
	kill "$LISTENER_PID"
	wait "$LISTENER_PID" || true
}

@test "terminal + exec -t -d --console-socket to a listener that never accepts: fails in bounded time, the container runs on" {
	set_cmd 'sleep 3600'
	run_detached "$CID"
	unix_listener stuck
	run_nohang timeout 30 "$RUNTIME" --root "$ROOT" exec -t -d --console-socket "$SOCK" "$CID" sleep 2000
	[ "$status" -ne 124 ] || fail "exec still waiting on the console socket after 30 s"
	assert_failure
	assert_output --partial "$SOCK"   # runc: "dial unix SOCK: connect: ..."
	is_runc || assert_output --partial "--console-socket $SOCK: the listener accepted no connection"
	assert_equal "$(state_field "$CID" status)" running
	# no exec'd process left behind in the container
	run runtime ps "$CID"
	refute_output --partial 2000
	kill "$LISTENER_PID"
	wait "$LISTENER_PID" || true
}

@test "terminal + run --detach without --console-socket fails naming the console socket, nothing left" {
	update_config '.process.terminal = true'
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$CID"
	assert_failure
	assert_output --regexp 'console.socket'
	run runtime state "$CID"
	assert_failure
}
