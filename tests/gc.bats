#!/usr/bin/env bats
# Crash safety of create and `tinyrun gc` (runtime/container/gc.h): a
# SIGKILLed create leaves no running child, and what it left on disk (state
# dir, cgroups in every hierarchy) is found and removed; a live container is
# never touched. tinyrun only.

load helpers

setup() {
	tr_setup
	is_runc && skip "tinyrun's own command"
	bind_out_dir
}

# A createRuntime hook that records its pid and blocks until the test lets
# it go: create is then stopped in its middle, after the cgroups exist.
blocking_hook() {
	cat >"$BATS_TEST_TMPDIR/hook.sh" <<HOOK
#!/bin/sh
echo \$\$ >"$OUT/hook.pid"
while [ ! -e "$OUT/hook.go" ]; do sleep 0.05; done
HOOK
	chmod +x "$BATS_TEST_TMPDIR/hook.sh"
	update_config '.hooks.createRuntime = [{"path": $p}]' --arg p "$BATS_TEST_TMPDIR/hook.sh"
}

# crash_create ID: start create of ID, wait until it is blocked in the hook,
# SIGKILL that tinyrun; the hook is let go afterwards. Sets $child (the
# container's child process, from the state dir's record).
crash_create() {
	local id="$1" pid
	"$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$id" </dev/null >"$BATS_TEST_TMPDIR/create.log" 2>&1 3>&- 4>&- &
	pid=$!
	record_pid "$pid"
	wait_for_file "$OUT/hook.pid"
	record_pid "$(cat "$OUT/hook.pid")"
	child="$(awk '{print $1}' "$ROOT/$id/init")"
	record_pid "$child"
	# mid-create: no state.json yet, cgroups made
	[[ ! -e "$ROOT/$id/state.json" ]]
	[[ -n "$(test_cgroups)" ]]
	proc_alive "$child"
	kill -9 "$pid"
	wait "$pid" || true
	touch "$OUT/hook.go"
	wait_for_exit "$(cat "$OUT/hook.pid")"
}

@test "gc: a create SIGKILLed in its middle leaves no child; gc removes its state and its cgroups in every hierarchy" {
	blocking_hook
	crash_create "$CID"
	# the child died with its creator (PR_SET_PDEATHSIG)
	wait_for_exit "$child"
	# what the crash left: the state at "creating", the cgroups
	assert_equal "$(state_field "$CID" status)" creating
	local n
	n="$(test_cgroups | wc -l)"
	echo "cgroups left by the crash: $n" >&3
	[[ "$n" -ge 1 ]]
	run runtime gc
	assert_success
	assert_output "$CID"
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(test_cgroups)" ""
	run runtime state "$CID"
	assert_failure
	# nothing more to do
	run runtime gc
	assert_success
	assert_output ""
}

# The child waiting for the hooks' answer sees the socket's EOF: what it says
# on the create's stderr is what happened, never the sync protocol's numbers.
# A time namespace: the init is forked into it and has no parent-death
# signal, so it always lives to say it (without one it may, a race).
@test "gc: a create SIGKILLed in a createRuntime hook: the init says its runtime exited and that gc cleans up" {
	blocking_hook
	update_config '.linux.namespaces += [{"type": "time"}]'
	crash_create "$CID"
	wait_for_exit "$child"
	run cat "$BATS_TEST_TMPDIR/create.log"
	refute_output --partial "expected message"
	assert_output --partial "tinyrun: the runtime that was creating the container exited before it was done: the container is not created (tinyrun gc removes what it left)"
	run runtime gc
	assert_output "$CID"
	assert_equal "$(test_cgroups)" ""
}

@test "gc: a create SIGKILLed while its child runs a createContainer hook: the child dies with it (parent-death signal)" {
	# the child waits for its hook, not on the sync socket: only the
	# parent-death signal tells it. The hook's host pid: the shell's own
	# /proc/self/stat, still the host's procfs before pivot_root.
	cat >"$BATS_TEST_TMPDIR/hook.sh" <<HOOK
#!/bin/sh
read -r pid rest </proc/self/stat
echo \$pid >"$OUT/hook.pid"
while [ ! -e "$OUT/hook.go" ]; do sleep 0.05; done
HOOK
	chmod +x "$BATS_TEST_TMPDIR/hook.sh"
	update_config '.hooks.createContainer = [{"path": $p}]' --arg p "$BATS_TEST_TMPDIR/hook.sh"
	"$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID" </dev/null >"$BATS_TEST_TMPDIR/create.log" 2>&1 3>&- 4>&- &
	local pid=$!
	record_pid "$pid"
	wait_for_file "$OUT/hook.pid"
	record_pid "$(cat "$OUT/hook.pid")"
	child="$(awk '{print $1}' "$ROOT/$CID/init")"
	record_pid "$child"
	kill -9 "$pid"
	wait "$pid" || true
	# not let go yet: the child (and with it its pid namespace) must die now
	wait_for_exit "$child"
	wait_for_exit "$(cat "$OUT/hook.pid")"
	touch "$OUT/hook.go"
	run runtime gc
	assert_output "$CID"
	assert_equal "$(test_cgroups)" ""
}

@test "gc: leaves a running container, a created one and a create in progress alone" {
	create_container "$CID-created"
	run_detached "$CID-running"
	update_config '.process.args = ["true"]'
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --keep --bundle "$BUNDLE" "$CID-stopped"
	assert_success
	blocking_hook
	"$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID-creating" </dev/null >"$BATS_TEST_TMPDIR/c.log" 2>&1 3>&- 4>&- &
	local creator=$!
	record_pid "$creator"
	wait_for_file "$OUT/hook.pid"
	record_pid "$(cat "$OUT/hook.pid")"

	run runtime gc
	assert_success
	assert_output ""
	assert_equal "$(state_field "$CID-created" status)" created
	assert_equal "$(state_field "$CID-running" status)" running
	assert_equal "$(state_field "$CID-stopped" status)" stopped
	[[ -e "$ROOT/$CID-creating/creator" ]]
	local pid
	pid="$(state_field "$CID-running" pid)"
	proc_alive "$pid"
	grep -q "$CID-running" "/proc/$pid/cgroup"

	touch "$OUT/hook.go"
	wait "$creator"
	assert_equal "$(state_field "$CID-creating" status)" created
	record_container_pid "$CID-creating"
}

@test "gc: the creator's pid must be the same process (start time), not just a live pid" {
	blocking_hook
	crash_create "$CID"
	wait_for_exit "$child"
	# the creator record now names a live process, but not the one that made it
	echo "$$ 1" >"$ROOT/$CID/creator"
	run runtime gc
	assert_output "$CID"
	[[ ! -e "$ROOT/$CID" ]]
	# and the real one (our shell, with its start time) is left alone
	blocking_hook
	rm -f "$OUT/hook.pid" "$OUT/hook.go"
	crash_create "$CID-2"
	wait_for_exit "$child"
	echo "$$ $(proc_start_time $$)" >"$ROOT/$CID-2/creator"
	run runtime gc
	assert_output ""
	[[ -d "$ROOT/$CID-2" ]]
	echo "1 1" >"$ROOT/$CID-2/creator"
	run runtime gc "$CID-2"
	assert_output "$CID-2"
	assert_equal "$(test_cgroups)" ""
}

@test "gc: create of the same id cleans the dead half-made one and succeeds" {
	blocking_hook
	crash_create "$CID"
	wait_for_exit "$child"
	update_config 'del(.hooks)'
	create_container "$CID"
	assert_equal "$(state_field "$CID" status)" created
	runtime delete --force "$CID"
	assert_equal "$(test_cgroups)" ""
}

@test "gc: delete --force of a half-made container removes its cgroups too" {
	blocking_hook
	crash_create "$CID"
	wait_for_exit "$child"
	[[ -n "$(test_cgroups)" ]]
	runtime delete --force "$CID"
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(test_cgroups)" ""
}

# A state.json that cannot be read (cut short; larger than the 64 MiB a state
# may be: read up to that and no further) makes no container: gc removes it
# as a half-made one, from its records (init, cgroup), while a sound one
# beside it is left alone.
@test "gc: containers whose state.json is truncated or huge are removed with their init and cgroups; a sound one stays" {
	set_cmd 'exec sleep 3600'
	run_detached "$CID-cut"
	run_detached "$CID-huge"
	run_detached "$CID-sound"
	local cut huge sound
	cut="$(state_field "$CID-cut" pid)"
	huge="$(state_field "$CID-huge" pid)"
	sound="$(state_field "$CID-sound" pid)"
	truncate -s 10 "$ROOT/$CID-cut/state.json"
	truncate -s 8G "$ROOT/$CID-huge/state.json"
	# ulimit -v: an uncapped reader fails here instead of taking the memory
	run_nohang bash -c 'ulimit -v 1048576; exec "$@"' _ "$RUNTIME" --root "$ROOT" gc
	assert_success
	[[ -n "$output" ]] || fail "gc removed nothing"
	assert_line "$CID-cut"
	assert_line "$CID-huge"
	refute_line "$CID-sound"
	[[ ! -e "$ROOT/$CID-cut" && ! -e "$ROOT/$CID-huge" ]]
	wait_for_exit "$cut"
	wait_for_exit "$huge"
	[[ -z "$(test_cgroups | grep -e "$CID-cut" -e "$CID-huge")" ]] || fail "cgroups left: $(test_cgroups)"
	proc_alive "$sound"
	assert_equal "$(state_field "$CID-sound" status)" running
	runtime delete --force "$CID-sound"
}

# The records are read O_NONBLOCK: a FIFO in place of one (a broken --root)
# is read as empty, never waited on for a writer that does not come.
@test "gc: FIFOs in place of a half-made container's records do not block it; it is removed" {
	mkdir "$ROOT/$CID"
	local f
	for f in creator init cgroup uid-lease; do mkfifo "$ROOT/$CID/$f"; done
	run_nohang timeout 30 "$RUNTIME" --root "$ROOT" gc
	[ "$status" -ne 124 ] || fail "gc blocked on a FIFO record"
	assert_success
	assert_output "$CID"
	[[ ! -e "$ROOT/$CID" ]]
	# a FIFO scratch record: no path, a warning, the dir stays (not a hang)
	mkdir "$ROOT/$CID"
	mkfifo "$ROOT/$CID/scratch"
	run_nohang timeout 30 "$RUNTIME" --root "$ROOT" gc
	[ "$status" -ne 124 ] || fail "gc blocked on a FIFO scratch record"
	assert_output --partial "the scratch record is not a path"
	rm -rf "${ROOT:?}/$CID"
}
