#!/usr/bin/env bats
# NOTIFY_SOCKET (sd_notify) through the runtime, as runc and crun relay it:
# runtime/container/notify.h. The caller's socket is `checker notify-recv`,
# which appends every datagram it gets to $GOT, each followed by "--".

load helpers

setup() {
	tr_setup
	unset NOTIFY_SOCKET
	SOCK="$BATS_TEST_TMPDIR/host.sock"
	GOT="$BATS_TEST_TMPDIR/got"
	RECV_PID=
}

teardown() {
	[[ -n "$RECV_PID" ]] && kill "$RECV_PID" 2>/dev/null
	unset NOTIFY_SOCKET
	tr_teardown
}

# recv_start [ADDRESS]: the caller's notify socket (default $SOCK), in the background.
recv_start() {
	local addr="${1:-$SOCK}"
	"$TEST_LIB_BIN/checker" notify-recv "$addr" "$GOT" </dev/null >/dev/null 2>&1 3>&- 4>&- &
	RECV_PID=$!
	[[ "$addr" == @* ]] && { sleep 0.2; return 0; }
	wait_for_file "$SOCK"
}

# ready_later: the container sends READY=1 a second after it started, once
# /out/before-ready exists; NOTIFY_SOCKET is exported (create, start, run -d).
ready_later() {
	bind_out_dir
	recv_start
	set_args checker sleep:1 touch:/out/before-ready notify:READY=1 pause
	export NOTIFY_SOCKET="$SOCK"
}

# got_wait: until the caller's socket got the runtime's two datagrams, READY=1 and
# MAINPID=N (up to 5 s); what it got in $output.
got_wait() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q '^MAINPID=' "$GOT" 2>/dev/null && break
		sleep 0.05
	done
	output="$(cat "$GOT" 2>/dev/null)"
}

@test "NOTIFY_SOCKET: run relays READY=1 with its own MAINPID and nothing the container wrote; the socket is read-only at the caller's path" {
	recv_start
	set_args checker env "mount:$SOCK" "readdir:$SOCK" "notify:STATUS=starting" \
		'notify:READY=1\nMAINPID=1\nSTATUS=forged'
	run_nohang env NOTIFY_SOCKET="$SOCK" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "env=NOTIFY_SOCKET=$SOCK/notify"
	assert_line --regexp "^mount:$SOCK=.* opts=ro,nosuid,nodev,noexec[, ]"
	assert_line "readdir:$SOCK=notify"
	assert_line 'notify:READY=1\nMAINPID=1\nSTATUS=forged=ok'
	got_wait
	# built by the runtime: READY=1, then a MAINPID that is not the container's claim
	[[ "$output" =~ ^READY=1$'\n'--$'\n'MAINPID=([0-9]+)$'\n'--$ ]] || { echo "got: $output"; false; }
	[[ "${BASH_REMATCH[1]}" != 1 ]]
	refute_output --partial STATUS
}

@test "NOTIFY_SOCKET: start returns once the container sent READY=1, with the container's init as MAINPID" {
	ready_later
	create_container "$CID"
	[[ -d "$ROOT/$CID/notify" ]]
	run_nohang runtime_timeout 30 start "$CID"
	assert_success
	# start waited: what the container did before READY=1 is done
	[[ -e "$OUT/before-ready" ]]
	got_wait
	assert_output "READY=1
--
MAINPID=$(state_field "$CID" pid)
--"
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
	[[ ! -e "$ROOT/$CID" ]]
}

@test "NOTIFY_SOCKET: after READY=1 the socket closes, so a program that goes on sending is not blocked" {
	recv_start
	local a=(checker notify:READY=1 sleep:1) i
	# more datagrams than a unix socket queues (net.unix.max_dgram_qlen, 10 by default)
	for ((i = 0; i < 40; i++)); do a+=(notify:WATCHDOG=1); done
	set_args "${a[@]}" echo:done
	run_nohang timeout -k 5 30 env NOTIFY_SOCKET="$SOCK" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line echo:done=done
	assert_line notify:WATCHDOG=1=ERR:ECONNREFUSED
	got_wait
	refute_output --partial WATCHDOG
}

@test "NOTIFY_SOCKET: start and run -d return when the container exits without READY=1" {
	recv_start
	set_args checker sleep:1 exit:0
	export NOTIFY_SOCKET="$SOCK"
	create_container "$CID"
	run_nohang runtime_timeout 30 start "$CID"
	assert_success
	wait_for_state "$CID" stopped
	runtime delete "$CID"
	run_detached "$CID-d"
	wait_for_state "$CID-d" stopped
	runtime delete "$CID-d"
	[[ ! -s "$GOT" ]]
}

@test "NOTIFY_SOCKET: run -d returns once the container sent READY=1" {
	ready_later
	run_detached "$CID"
	[[ -e "$OUT/before-ready" ]]
	got_wait
	assert_output "READY=1
--
MAINPID=$(state_field "$CID" pid)
--"
}

@test "NOTIFY_SOCKET: a user namespace whose root cannot enter --root still reaches the socket" {
	map_userns
	chmod 0700 "$ROOT"
	recv_start
	set_args checker notify:READY=1
	run_nohang env NOTIFY_SOCKET="$SOCK" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output 'notify:READY=1=ok'
	got_wait
	assert_output --regexp '^READY=1'
}

@test "NOTIFY_SOCKET: an abstract address; the container's socket is /run/notify/notify" {
	local name="@tinyrun-test-$TOKEN"
	recv_start "$name"
	set_args checker env notify:READY=1
	run_nohang env NOTIFY_SOCKET="$name" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line env=NOTIFY_SOCKET=/run/notify/notify
	assert_line 'notify:READY=1=ok'
	got_wait
	assert_output --regexp '^READY=1'
}

@test "without NOTIFY_SOCKET: no variable, no socket, no notify dir" {
	set_args checker env readdir:/run
	create_container "$CID"
	[[ ! -e "$ROOT/$CID/notify" ]]
	runtime start "$CID"
	wait_for_state "$CID" stopped
	run cat "$(container_log "$CID")"
	refute_output --partial NOTIFY_SOCKET
	assert_line readdir:/run=
	runtime delete "$CID"
}
