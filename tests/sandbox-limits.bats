#!/usr/bin/env bats
# shellcheck disable=SC2154 # $result: run_result (helpers.bash)
# The time limits (issue 31 §1; runtime/sandbox/limits.h): run.tinyrun.wall-time,
# run.tinyrun.request-deadline and run.tinyrun.cpu-time, enforced by
# tinyrun-init (the sandbox profile) for run, run -d and create/start, or by a
# foreground run without it; reasons `timeout` and `cpu-time`. Every test
# asserts what the task did not get to do (a marker it would have printed at
# its natural end) and why it ended (the result, the exit-status record: the
# status first, the limit last).
# The cgroup v2 cases (cpu.stat) are in sandbox-limits-v2.bats.

load helpers

# result_is REASON SIGNAL STATUS: the fields of $result
result_is() {
	assert_equal "$(jq -r .reason <<<"$result")" "$1"
	assert_equal "$(jq -r .signal <<<"$result")" "$2"
	assert_equal "$(jq -r .status <<<"$result")" "$3"
}

# A task spread over 4 processes, each under RLIMIT_CPU's 1 s (0.8 s each,
# 3.2 s together); spread_stopped: run_result says it was stopped at cpu-time 1
SPREAD='for i in 1 2 3 4; do checker spin:0.8 & done; wait; echo all-done'
spread_stopped() {
	assert_equal "$status" 137
	refute_output --partial "spin:0.8=ok"
	refute_output --partial all-done
	result_is cpu-time SIGKILL 137
}

# the task that sleeps for 100 s: wall_timed_out: run_result says it ended at its deadline
SLEEPER='echo started; sleep 100; echo natural-end'
wall_timed_out() {
	assert_equal "$status" 137
	assert_line started
	refute_output --partial natural-end
	result_is timeout SIGKILL 137
	[ ! -e "$ROOT/$CID" ]
}

# no_runtime_alive: no tinyrun process of this test (its token in the
# environment) is left: only the container's and the subreaper's
no_runtime_alive() {
	local p
	for p in $(test_pids); do
		[[ "$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -1)" != "$RUNTIME" ]] ||
			fail "a runtime process is alive: $p $(tr '\0' ' ' <"/proc/$p/cmdline")"
	done
}

# procs_of ID N: the pids in ID's cgroup once there are at least N (10 s)
procs_of() {
	local file i
	file="$(cg_file pids cgroup.procs cgroup.procs "/tinyrun/$1")"
	for ((i = 0; i < 200; i++)); do
		[[ "$(wc -l <"$file" 2>/dev/null)" -ge "$2" ]] && { cat "$file"; return 0; }
		sleep 0.05
	done
	echo "fewer than $2 processes in $file" >&2
	return 1
}

setup() {
	tr_setup
	mkdir -p "$OUT"
}

@test "sandbox limits: a sleep 100 task with wall-time 1 ends with reason timeout, run exits 137" {
	sandbox_bundle "$BUNDLE" --wall-time 1
	set_cmd "$SLEEPER"
	run_result
	wall_timed_out
}

@test "sandbox limits: at the deadline no process of the task is left: not one that ignores SIGTERM, left the session or was double-forked" {
	sandbox_bundle "$BUNDLE" --wall-time 2
	# shellcheck disable=SC2016
	set_cmd 'trap "" TERM HUP; setsid sh -c "trap \"\" TERM HUP; sleep 1000" & (sh -c "trap \"\" TERM HUP; sleep 1000" &); echo spawned; sleep 100; echo natural-end'
	local log="$BATS_TEST_TMPDIR/run.log" pids p starts=()
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --keep --result "$OUT/result.json" --bundle "$BUNDLE" "$CID" \
		</dev/null >"$log" 2>&1 3>&- 4>&- &
	local run_pid=$!
	wait_for_file "$log" spawned
	# the init, the task, its two sleepers (one in a session of its own, one
	# an orphan of the init) and the task's sleep
	pids="$(procs_of "$CID" 5)"
	for p in $pids; do starts+=("$p $(proc_start_time "$p")"); done
	wait "$run_pid" || status=$?
	assert_equal "${status:-0}" 137
	for p in "${starts[@]}"; do
		! proc_alive "${p% *}" "${p#* }" || fail "process ${p% *} of the task outlived its deadline"
	done
	run cat "$log"
	refute_output --partial natural-end
	assert_equal "$(jq -r .reason "$OUT/result.json")" timeout
	runtime delete "$CID"
}

@test "sandbox limits: run -d and create/start: the init ends the task at its deadline with no runtime process alive; the clock starts at start" {
	sandbox_bundle "$BUNDLE" --wall-time 1
	set_cmd "$SLEEPER"
	run_detached "$CID"
	no_runtime_alive
	wait_for_state "$CID" stopped
	assert_equal "$(awk '{print $1, $NF}' "$ROOT/$CID/exit-status")" "9 timeout"
	run cat "$(container_log "$CID")"
	assert_line started
	refute_output --partial natural-end
	runtime delete "$CID"

	# create/start: created for longer than the wall time, the task still runs
	create_container "$CID-2"
	sleep 1.5
	runtime start "$CID-2"
	no_runtime_alive
	wait_for_state "$CID-2" stopped
	assert_equal "$(awk '{print $1, $NF}' "$ROOT/$CID-2/exit-status")" "9 timeout"
	run cat "$(container_log "$CID-2")"
	assert_line started
	refute_output --partial natural-end
	runtime delete "$CID-2"
}

@test "sandbox limits: a request's deadline holds across its tasks; a task started after it does not run" {
	local a="$BATS_TEST_TMPDIR/task-a" b="$BATS_TEST_TMPDIR/task-b" log="$BATS_TEST_TMPDIR/a.log"
	sandbox_bundle "$BUNDLE" --request-key --request-deadline 5
	set_cmd 'echo holder; sleep 100; echo natural-end'
	run_detached "$CID"
	[[ "$(cat "$ROOT/$CID/request-deadline")" =~ ^[0-9]+$ ]]
	# two tasks, each with the default wall time (900 s): the request's is sooner
	sandbox_bundle "$a" --request "$CID"
	cp "$BUNDLE/request.key" "$a/request.key"
	BUNDLE="$a" set_cmd 'echo a-started; sleep 100; echo natural-end'
	sandbox_bundle "$b" --request "$CID"
	cp "$BUNDLE/request.key" "$b/request.key"
	BUNDLE="$b" set_cmd 'echo b-started; sleep 100; echo natural-end'
	BUNDLE="$b" create_container "$CID-b" --bundle "$b"
	BUNDLE="$a" run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/a.json" \
		--bundle "$a" "$CID-a"
	assert_equal "$status" 137
	assert_line a-started
	refute_output --partial natural-end
	assert_equal "$(jq -r .reason "$OUT/a.json")" timeout
	# the request's first container ended at the deadline too
	wait_for_state "$CID" stopped
	assert_equal "$(awk '{print $1, $NF}' "$ROOT/$CID/exit-status")" "9 timeout"
	# b, created before the deadline, started after it: its program never runs
	runtime start "$CID-b"
	wait_for_state "$CID-b" stopped
	assert_equal "$(awk '{print $1, $NF}' "$ROOT/$CID-b/exit-status")" "9 timeout"
	run cat "$(container_log "$CID-b")"
	refute_output --partial b-started
	runtime delete "$CID-b"
	runtime delete "$CID"
}

@test "sandbox limits: a CPU spinner with cpu-time 1 ends with reason cpu-time (RLIMIT_CPU soft 1, hard 2)" {
	sandbox_bundle "$BUNDLE" --cpu-time 1
	set_args checker rlimit:CPU spin:5
	run_result
	# RLIMIT_CPU's SIGXCPU or the usage check's SIGKILL, whichever came first
	[[ "$status" == 152 || "$status" == 137 ]]
	assert_line "rlimit:CPU=1 2"
	refute_output --partial "spin:5=ok"
	assert_equal "$(jq -r .reason <<<"$result")" cpu-time
}

@test "sandbox limits: a task that spreads its CPU over 4 processes is stopped by its cgroup's usage, not only RLIMIT_CPU" {
	sandbox_bundle "$BUNDLE" --cpu-time 1
	set_cmd "$SPREAD"
	run_result
	spread_stopped
}

@test "sandbox limits: without the init a foreground run enforces wall-time and cpu-time itself, on the whole cgroup" {
	# the plain bundle: no tinyrun-init, its own pid namespace
	update_config '.annotations["run.tinyrun.wall-time"] = "1"'
	set_cmd "trap '' TERM HUP; setsid sh -c \"trap '' TERM HUP; sleep 1000\" & $SLEEPER"
	run_result
	wall_timed_out

	update_config 'del(.annotations["run.tinyrun.wall-time"]) | .annotations["run.tinyrun.cpu-time"] = "1"'
	set_cmd "$SPREAD"
	run_result
	spread_stopped
}

@test "sandbox limits: bad values, a detached run without the init and a task's own request deadline are refused, nothing left" {
	local key value
	# shellcheck disable=SC2016
	for key in wall-time cpu-time request-deadline; do
		for value in -1 0 0.000 abc "" 1.2345 1e3 " 1" 2592000.001 99999999999999999999; do
			update_config '.annotations["run.tinyrun." + $k] = $v' --arg k "$key" --arg v "$value"
			run_nohang runtime run --bundle "$BUNDLE" "$CID"
			assert_failure 1
			assert_output --partial "config.json: .annotations[\"run.tinyrun.$key\"]: expected seconds, 0.001 to 2592000"
			[ ! -e "$ROOT/$CID" ]
		done
		update_config 'del(.annotations["run.tinyrun." + $k])' --arg k "$key"
	done
	# nobody would enforce it: create and run -d without the init
	update_config '.annotations["run.tinyrun.wall-time"] = "2592000"'
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial 'config.json: .annotations["run.tinyrun.wall-time"]: needs "run.tinyrun.init": "true" with create and run --detach'
	run_nohang runtime run -d --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.annotations["run.tinyrun.wall-time"]: needs "run.tinyrun.init"'
	[ ! -e "$ROOT/$CID" ]
	# a task has its request's deadline
	sandbox_bundle "$BUNDLE" --request "$CID-req"
	update_config '.annotations["run.tinyrun.request-deadline"] = "5"'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "config.json: .annotations[\"run.tinyrun.request-deadline\"]: a task of a request has its request's deadline"
	[ ! -e "$ROOT/$CID" ]
}

@test "sandbox limits: spec --sandbox and bundle tinyaws --sandbox write the limits with their defaults; bad flags write nothing" {
	local dir="$BATS_TEST_TMPDIR/spec" ann
	mkdir -p "$dir"
	runtime spec --sandbox -b "$dir"
	ann="$(jq -c '.annotations | {w: .["run.tinyrun.wall-time"], c: .["run.tinyrun.cpu-time"], d: .["run.tinyrun.request-deadline"]}' "$dir/config.json")"
	assert_equal "$ann" '{"w":"900","c":"900","d":null}'
	rm "$dir/config.json"
	runtime spec --sandbox --wall-time 2.5 --cpu-time 0.75 --request-deadline 60 --request-key -b "$dir"
	ann="$(jq -c '.annotations | {w: .["run.tinyrun.wall-time"], c: .["run.tinyrun.cpu-time"], d: .["run.tinyrun.request-deadline"]}' "$dir/config.json")"
	assert_equal "$ann" '{"w":"2.5","c":"0.75","d":"60"}'
	rm "$dir/config.json" "$dir/request.key"
	run runtime spec --sandbox --wall-time 0 -b "$dir"
	assert_failure 1
	assert_output --partial 'spec: --wall-time: expected seconds, 0.001 to 2592000 (at most 3 decimals), got "0"'
	run runtime spec --cpu-time 1 -b "$dir"
	assert_failure 1
	assert_output --partial "--cpu-time needs --sandbox"
	run runtime spec --sandbox --request x --request-deadline 1 -b "$dir"
	assert_failure 1
	assert_output --partial "--request-deadline: a task of a request has its request's deadline"
	[ ! -e "$dir/config.json" ]

	# bundle tinyaws --sandbox: the same transform
	local image="$BATS_TEST_TMPDIR/image" out="$BATS_TEST_TMPDIR/job"
	cp -al "$TEST_CACHE/rootfs" "$image"
	runtime bundle tinyaws "$image" -o "$out" --sandbox --wall-time 3 -- true
	ann="$(jq -c '.annotations | {w: .["run.tinyrun.wall-time"], c: .["run.tinyrun.cpu-time"]}' "$out/config.json")"
	assert_equal "$ann" '{"w":"3","c":"900"}'
	run runtime bundle tinyaws "$image" -o "$out-2" --sandbox --cpu-time abc -- true
	assert_failure 1
	assert_output --partial 'bundle: --cpu-time: expected seconds'
	[ ! -e "$out-2" ]
	run runtime bundle tinyaws "$image" -o "$out-2" --wall-time 1 -- true
	assert_failure 1
	assert_output --partial "--wall-time needs --sandbox"
	[ ! -e "$out-2" ]
}
