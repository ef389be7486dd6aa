#!/usr/bin/env bats
# kill: signals by name and number reach the container (its traps write a
# file), KILL stops it, invalid signals are refused, --all reaches every
# process of the container.

load helpers

# A container whose init traps HUP USR1 USR2 TERM INT and appends the name to
# /out/sig; it writes /out/ready once the traps are set.
start_trapper() {
	bind_out_dir
	local s traps=""
	for s in HUP USR1 USR2 TERM INT; do
		traps+="trap 'echo $s >>/out/sig' $s; "
	done
	set_cmd "$traps echo ready >/out/ready; while :; do sleep 0.1; done"
	# a shell cannot trap a signal ignored when it started: a test run in
	# the background (SIGINT ignored) would hand that down to the container
	run_nohang_to "$(container_log "$CID")" env --default-signal=HUP,INT,TERM,USR1,USR2 \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	record_container_pid "$CID"
	wait_for_file "$OUT/ready"
}

@test "kill delivers a named signal: USR1" {
	start_trapper
	run runtime kill "$CID" USR1
	assert_success
	wait_for_file "$OUT/sig" USR1
	assert_equal "$(state_field "$CID" status)" running
}

@test "kill delivers a named signal with the SIG prefix: SIGUSR2" {
	start_trapper
	run runtime kill "$CID" SIGUSR2
	assert_success
	wait_for_file "$OUT/sig" USR2
}

@test "kill delivers a numeric signal: 1 (HUP)" {
	start_trapper
	run runtime kill "$CID" 1
	assert_success
	wait_for_file "$OUT/sig" HUP
}

@test "kill delivers a numeric signal: 10 (USR1)" {
	start_trapper
	run runtime kill "$CID" 10
	assert_success
	wait_for_file "$OUT/sig" USR1
}

@test "kill without a signal sends TERM" {
	start_trapper
	run runtime kill "$CID"
	assert_success
	wait_for_file "$OUT/sig" TERM
}

@test "signals arrive in order: INT then HUP" {
	start_trapper
	runtime kill "$CID" INT
	wait_for_file "$OUT/sig" INT
	runtime kill "$CID" HUP
	wait_for_file "$OUT/sig" HUP
	assert_equal "$(tr '\n' ' ' <"$OUT/sig")" "INT HUP "
}

@test "kill KILL stops the container" {
	run_detached "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run runtime kill "$CID" KILL
	assert_success
	wait_for_state "$CID" stopped
	wait_for_exit "$pid"
}

@test "kill SIGKILL and 9 work too" {
	run_detached "$CID"
	run runtime kill "$CID" SIGKILL
	assert_success
	wait_for_state "$CID" stopped

	run_detached "$CID-2"
	run runtime kill "$CID-2" 9
	assert_success
	wait_for_state "$CID-2" stopped
}

@test "kill on a created container: KILL stops it before it ever ran" {
	bind_out_dir
	set_cmd 'echo ran >/out/ran'
	create_container "$CID"
	run runtime kill "$CID" KILL
	assert_success
	wait_for_state "$CID" stopped
	[ ! -e "$OUT/ran" ]
}

@test "kill on a created container: TERM and HUP stop it too (a pid-namespace init gets only the signals it handles)" {
	bind_out_dir
	set_cmd 'echo ran >/out/ran'
	local sig
	for sig in TERM HUP; do
		create_container "$CID"
		run runtime kill "$CID" "$sig"
		assert_success
		wait_for_state "$CID" stopped
		run runtime delete "$CID"
		assert_success
	done
	[ ! -e "$OUT/ran" ]
	# once started the program runs with nothing caught (execve reset it)
	set_cmd 'exec grep SigCgt /proc/self/status >/out/ran'
	create_container "$CID"
	run runtime start "$CID"
	assert_success
	wait_for_file "$OUT/ran" SigCgt
	assert_equal "$(cat "$OUT/ran")" $'SigCgt:\t0000000000000000'
}

@test "invalid signals are refused with exit 1; the container is untouched" {
	start_trapper
	local sig
	for sig in NOSUCH SIGFOO 999 -5 1x; do
		run runtime kill "$CID" "$sig"
		[ "$status" -eq 1 ] || fail "signal '$sig': status $status: $output"
		[ -n "$output" ] || fail "signal '$sig': no message"
	done
	assert_equal "$(state_field "$CID" status)" running
	[ ! -e "$OUT/sig" ]
}

@test "kill --all signals every process of the container" {
	bind_out_dir
	# Two children that trap USR1 (and exit), plus init.
	set_cmd 'for n in 1 2; do sh -c "trap \"echo child-$n >>/out/sig; exit 0\" USR1; echo $n >>/out/ready; while :; do sleep 0.1; done" & done; trap "echo init >>/out/sig" USR1; while :; do sleep 0.1; done'
	run_detached "$CID"
	wait_for_file "$OUT/ready" 2
	wait_for_file "$OUT/ready" 1
	run runtime kill --all "$CID" USR1
	assert_success
	wait_for_file "$OUT/sig" child-1
	wait_for_file "$OUT/sig" child-2
	wait_for_file "$OUT/sig" init
}

@test "kill --all KILL leaves no process of the container" {
	set_cmd 'sleep 3600 & sleep 3600 & exec sleep 3600'
	run_detached "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run runtime kill --all "$CID" KILL
	assert_success
	wait_for_state "$CID" stopped
	run runtime delete "$CID"
	assert_success
	assert_no_leftovers
}

# three_pids ID: the pids of ID's cgroup (ps), once there are three of them.
three_pids() {
	local i out=""
	for ((i = 0; i < 100; i++)); do
		out="$(runtime ps --format json "$1" | jq -r '.[]')"
		[ "$(wc -w <<<"$out")" -ge 3 ] && break
		sleep 0.05
	done
	echo "$out"
}

@test "kill KILL without a pid namespace of its own kills every process of the container, even once the init is gone (as runc)" {
	# the init's death ends no namespace here: killing only it would leave
	# the rest running in the container's cgroup
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	set_cmd 'sleep 3600 & sleep 3600 & exec sleep 3600'
	run_detached "$CID"
	local pids init p
	pids="$(three_pids "$CID")"
	run runtime kill "$CID" KILL
	assert_success
	for p in $pids; do wait_for_exit "$p"; done
	wait_for_state "$CID" stopped
	run runtime delete "$CID"
	assert_success

	# the init killed from outside first: the container is stopped, the
	# others still run in its cgroup; kill KILL still reaches them
	CID="$CID-2"
	run_detached "$CID"
	pids="$(three_pids "$CID")"
	init="$(state_field "$CID" pid)"
	kill -9 "$init"
	wait_for_exit "$init"
	run runtime kill "$CID" KILL
	assert_success
	for p in $pids; do wait_for_exit "$p"; done
	run runtime delete "$CID"
	assert_success
	assert_no_leftovers
}

@test "kill -a is --all" {
	set_cmd 'sleep 3600 & exec sleep 3600'
	run_detached "$CID"
	run runtime kill -a "$CID" KILL
	assert_success
	wait_for_state "$CID" stopped
}

@test "kill 0 checks the container: 0 while it runs, 'container not running' once stopped" {
	start_trapper
	run runtime kill "$CID" 0
	assert_success
	assert_equal "$(state_field "$CID" status)" running
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	run runtime kill "$CID" 0
	assert_failure 1
	# containerd's shim and podman match this text (runc's ErrNotRunning)
	assert_output --partial "container not running"
}

@test "kill --all on a stopped container succeeds, as runc (nothing left to signal)" {
	set_args true
	create_container "$CID"
	runtime start "$CID"
	wait_for_state "$CID" stopped
	run runtime kill --all "$CID" 0
	assert_success
	run runtime kill -a "$CID" KILL
	assert_success
	assert_equal "$(state_field "$CID" status)" stopped
}

@test "kill of a missing container: 'does not exist' (containerd maps it to not found)" {
	run runtime kill "$CID-missing" KILL
	assert_failure 1
	assert_output --partial "does not exist"
}

@test "kill: options after the container id (kill ID SIGNAL --all)" {
	set_cmd 'sleep 3600 & exec sleep 3600'
	run_detached "$CID"
	run runtime kill "$CID" KILL --all
	assert_success
	wait_for_state "$CID" stopped
}

@test "kill KILL of a paused container stops it (the cgroup is thawed)" {
	set_args sleep 3600
	run_detached "$CID"
	runtime pause "$CID"
	assert_equal "$(state_field "$CID" status)" paused
	run runtime kill "$CID" KILL
	assert_success
	wait_for_state "$CID" stopped
}
