#!/usr/bin/env bats
# run: create + start; in the foreground it waits, forwards signals and
# exits with the container's status; --detach; --pid-file; `run bundle/`.

load helpers

# run_fg [run flags...]: foreground `run` of $BUNDLE as $CID.
run_fg() {
	run_nohang runtime run --bundle "$BUNDLE" "$@" "$CID"
}

@test "run returns the container's exit status" {
	local code
	for code in 0 1 3 42 255; do
		set_cmd "echo out-$code; exit $code"
		run_fg
		[ "$status" -eq "$code" ] || fail "exit $code: run returned $status: $output"
		assert_line "out-$code"
	done
}

@test "run passes stdin, stdout and stderr through" {
	set_cmd 'read line; echo "got $line"; echo to-stderr >&2'
	run bash -c 'echo hello | "$0" --root "$1" run --bundle "$2" "$3" 2>"$4"' \
		"$RUNTIME" "$ROOT" "$BUNDLE" "$CID" "$BATS_TEST_TMPDIR/stderr"
	assert_success
	assert_output "got hello"
	grep -qx to-stderr "$BATS_TEST_TMPDIR/stderr"
}

@test "run: the container is gone after a foreground run" {
	set_args true
	run_fg
	assert_success
	run runtime state "$CID"
	assert_failure 1
	[ -z "$(test_state_dirs)" ]
}

@test "run exits 128+signal when the container is killed (KILL from outside)" {
	set_args sleep 3600
	runtime run --bundle "$BUNDLE" "$CID" </dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	local run_pid=$!
	wait_for_state "$CID" running
	runtime kill "$CID" KILL
	local rc=0
	wait "$run_pid" || rc=$?
	assert_equal "$rc" 137
}

@test "run exits 128+signal when the process dies of a signal (TERM, no pid ns)" {
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	set_cmd 'kill -TERM $$; sleep 10'
	run_fg
	assert_equal "$status" 143
}

@test "run forwards signals to the container" {
	bind_out_dir
	set_cmd 'trap "echo got-USR1 >>/out/sig" USR1; trap "echo got-TERM >>/out/sig; exit 7" TERM; echo ready >/out/ready; while :; do sleep 0.1; done'
	# Not through the runtime() function: $! must be the runtime itself.
	"$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID" </dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	local run_pid=$!
	wait_for_file "$OUT/ready"
	kill -USR1 "$run_pid"
	wait_for_file "$OUT/sig" got-USR1
	kill -TERM "$run_pid"
	local rc=0
	wait "$run_pid" || rc=$?
	assert_equal "$rc" 7
	grep -qx got-TERM "$OUT/sig"
}

@test "run --detach returns at once with the container running" {
	bind_out_dir
	set_cmd 'echo up >/out/up; exec sleep 3600'
	run_detached "$CID"
	wait_for_file "$OUT/up"
	assert_equal "$(state_field "$CID" status)" running
	local pid
	pid="$(state_field "$CID" pid)"
	proc_alive "$pid"
}

@test "run --detach: status stopped after the process exits, delete cleans up" {
	set_args true
	run_detached "$CID"
	wait_for_state "$CID" stopped
	run runtime delete "$CID"
	assert_success
	[ -z "$(test_state_dirs)" ]
}

@test "run -d is --detach" {
	run_nohang_to "$(container_log "$CID")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run -d --bundle "$BUNDLE" "$CID"
	assert_success
	assert_equal "$(state_field "$CID" status)" running
}

@test "run --pid-file holds the container pid" {
	run_detached "$CID" --pid-file "$BATS_TEST_TMPDIR/pidfile"
	[ -s "$BATS_TEST_TMPDIR/pidfile" ]
	local pid
	pid="$(cat "$BATS_TEST_TMPDIR/pidfile")"
	assert_equal "$pid" "$(state_field "$CID" pid)"
	# ... and it is the process running the container's program.
	assert_equal "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "sleep 3600 "
}

@test "run --pid-file with a relative path" {
	cd "$BATS_TEST_TMPDIR"
	run_detached "$CID" --pid-file rel.pid
	assert_equal "$(cat "$BATS_TEST_TMPDIR/rel.pid")" "$(state_field "$CID" pid)"
}

@test "run of a missing program fails and leaves nothing behind" {
	set_args /no/such/program
	run_fg
	assert_failure
	assert_output --partial /no/such/program
	assert_no_leftovers
}

@test "run bundle/: the path is the bundle, the id comes from its name" {
	is_runc && skip "tinyrun extension: runc takes the argument as an id"
	local b="$BATS_TEST_TMPDIR/$CID-b"
	BUNDLE="$b" make_bundle "$b"
	BUNDLE="$b" set_cmd 'echo in-path-form; exit 5'
	run_nohang runtime run "$b/"
	assert_equal "$status" 5
	assert_line in-path-form
}

@test "run --detach bundle/: prints the derived id, unique when taken" {
	is_runc && skip "tinyrun extension: runc takes the argument as an id"
	local b="$BATS_TEST_TMPDIR/$CID-b" id1 id2
	BUNDLE="$b" make_bundle "$b"
	cd "$BATS_TEST_TMPDIR"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach "./$CID-b"
	assert_success
	id1="$(tail -n1 <<<"$output")"
	[[ "$id1" == "$CID-b"* ]]
	assert_equal "$(state_field "$id1" status)" running
	assert_equal "$(state_field "$id1" bundle)" "$b"

	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach "$b"/
	assert_success
	id2="$(tail -n1 <<<"$output")"
	[[ "$id2" == "$CID-b"* ]]
	[ "$id1" != "$id2" ]
	assert_equal "$(state_field "$id2" status)" running
}

@test "run --id ID bundle/: names the container" {
	is_runc && skip "tinyrun extension"
	local b="$BATS_TEST_TMPDIR/$CID-b"
	BUNDLE="$b" make_bundle "$b"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --id "$CID-named" "$b/"
	assert_success
	assert_equal "$(state_field "$CID-named" status)" running
	assert_equal "$(state_field "$CID-named" bundle)" "$b"
}

@test "run --keep: the stopped container stays, with its cgroup, until delete" {
	set_cmd 'exit 3'
	run_nohang runtime run --keep --bundle "$BUNDLE" "$CID"
	assert_failure 3
	assert_equal "$(state_field "$CID" status)" stopped
	# the container's cgroup (its path holds the id) is still there
	[ -n "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "$CID" 2>/dev/null)" ] || fail "no cgroup left for $CID"
	run runtime delete "$CID"
	assert_success
	run runtime state "$CID"
	assert_failure 1
	[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "$CID" 2>/dev/null)" ] || fail "cgroup left after delete"
}

@test "run ID --detach --bundle DIR: options after the container id" {
	set_args sleep 3600
	run_nohang_to "$(container_log "$CID")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run "$CID" --detach --bundle "$BUNDLE"
	assert_success
	record_container_pid "$CID"
	assert_equal "$(state_field "$CID" status)" running
}

# podman --network none: the runtime's new network namespace. As runc and
# crun, `lo` is up in it, so a server on 127.0.0.1 can be reached.
@test "run: lo is up in a network namespace the runtime creates; a loopback server answers" {
	set_cmd 'cat /sys/class/net/lo/operstate; ip -o link show lo; ip -o addr show lo
		nc -l -p 8123 -e echo served & sleep 0.3; nc 127.0.0.1 8123 </dev/null; kill $! 2>/dev/null; wait'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line unknown
	assert_output --regexp 'lo: <LOOPBACK,UP,LOWER_UP>'
	assert_output --partial 'inet 127.0.0.1/8'
	assert_line served
}
# held_at_clone CMD [FLAGS...]: start `CMD FLAGS... --pidfd-socket` of $CID
# under a subreaper, held in its connect to that socket (connect-hold) with
# the container's init cloned and waiting for it (not yet exec'd). Sets
# RT_PID (the runtime), INIT_PID (its child), HOLD_PID and CMD_PID (the
# background jobs). release_held lets it go on and waits for it.
held_at_clone() {
	local sock="$BATS_TEST_TMPDIR/hold.sock" pidf="$BATS_TEST_TMPDIR/rt.pid" i
	rm -f "$sock" "$pidf"
	"$TEST_LIB_BIN/connect-hold" "$sock" </dev/null >"$BATS_TEST_TMPDIR/hold.log" 2>&1 3>&- 4>&- &
	HOLD_PID=$!
	for ((i = 0; i < 200; i++)); do [[ -S "$sock" ]] && break; sleep 0.05; done
	[[ -S "$sock" ]] || fail "connect-hold did not listen"
	"$TEST_LIB_BIN/subreaper" sh -c 'echo $$ >"$0"; exec "$@"' "$pidf" \
		"$RUNTIME" --root "$ROOT" "$@" --pidfd-socket "$sock" --bundle "$BUNDLE" "$CID" \
		</dev/null >"$(container_log "$CID")" 2>&1 3>&- 4>&- &
	CMD_PID=$!
	RT_PID="" INIT_PID=""
	for ((i = 0; i < 200; i++)); do
		[[ -z "$RT_PID" && -s "$pidf" ]] && RT_PID=$(cat "$pidf")
		[[ -n "$RT_PID" ]] && INIT_PID=$(cat /proc/"$RT_PID"/task/*/children 2>/dev/null | tr -d ' ')
		[[ -n "$INIT_PID" ]] && return 0
		sleep 0.05
	done
	fail "no container init under the runtime ($RT_PID): $(cat "$(container_log "$CID")")"
}

release_held() {
	kill -USR1 "$HOLD_PID"
	wait "$HOLD_PID" || fail "connect-hold: $(cat "$BATS_TEST_TMPDIR/hold.log")"
	wait "$CMD_PID" || fail "the runtime failed: $(cat "$(container_log "$CID")")"
	record_container_pid "$CID"
}

# The init used to share the runtime's memory until its execve (clone3
# CLONE_VM, removed): the runtime's environment, log state and oom_score_adj
# were the init's. From its clone on it has an address space of its own.
@test "run and create: the container's init never shares the runtime's memory (kcmp KCMP_VM, before its execve)" {
	is_runc && skip "tinyrun's process model"
	local cmd self argv mm
	build_static "$TESTS_DIR/lib/connect-hold.c"
	build_static "$TESTS_DIR/lib/kcmp-vm.c"
	set_args sleep 100
	for cmd in "run --detach" create; do
		# shellcheck disable=SC2086 # the command and its flag
		held_at_clone $cmd
		# the kernel answers about these processes (one is one address space with itself)
		self=$("$TEST_LIB_BIN/kcmp-vm" "$RT_PID" "$RT_PID")
		# the init is still tinyrun, not yet sleep: held before its execve
		argv=$(tr '\0' ' ' <"/proc/$INIT_PID/cmdline")
		mm=$("$TEST_LIB_BIN/kcmp-vm" "$RT_PID" "$INIT_PID") || mm="kcmp failed"
		release_held
		assert_equal "$self" shared
		[[ "$argv" != *sleep* ]] || fail "the init had exec'd: $argv"
		assert_equal "$mm" apart
		assert_equal "$(state_field "$CID" pid)" "$INIT_PID"
		runtime delete --force "$CID"
	done
}

@test "run: the foreground runtime keeps its own oom_score_adj while the container has its own" {
	is_runc && skip "tinyrun's process model"
	local own run_pid rc=0
	own=$(cat /proc/self/oom_score_adj)
	update_config '.process.oomScoreAdj = 500'
	bind_out_dir
	set_cmd 'cat /proc/self/oom_score_adj >/out/ctr; while :; do sleep 1; done'
	"$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID" </dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	run_pid=$!
	wait_for_file "$OUT/ctr" 500
	assert_equal "$(cat "/proc/$run_pid/oom_score_adj")" "$own"
	runtime kill "$CID" KILL
	wait "$run_pid" || rc=$?
	assert_equal "$rc" 137
}

@test "run and create: the runtime's errors reach its --log file (the init forgets it for itself only)" {
	is_runc && skip "tinyrun's process model"
	local cmd log="$BATS_TEST_TMPDIR/log.json"
	set_args /nonexistent
	for cmd in run create; do
		rm -f "$log"
		run_nohang "$RUNTIME" --root "$ROOT" --log "$log" --log-format json \
			"$cmd" --bundle "$BUNDLE" "$CID"
		assert_failure 1
		run jq -r 'select(.level == "error") | .msg' "$log"
		assert_output --partial /nonexistent
		[ -z "$(test_state_dirs)" ]
	done
}
