#!/usr/bin/env bats
# issue 31 §2: `run --result FILE` and events' last line as one versioned
# document (runtime/container/result.h, oci/events.h): its keys, the usage a
# real task makes observable, the reasons not-started, infrastructure-failure
# and ancestor-oom, and the file checked before the task starts and written
# atomically (runtime/container/result_file.h). The cgroup v1 cases run on
# this hybrid host; the v2 ones in a vm-run guest that runs this same file
# (guest_setup_file, as tests/cgroups-v2.bats does). tinyrun only.

load helpers

setup_file() {
	guest_setup_file sandbox-result.bats 900 v2
}

setup() {
	tr_setup
	is_runc && skip "tinyrun's own --result"
	update_config '.annotations["run.tinyrun.init"] = "true"'
	bind_out_dir
	RES="$BATS_TEST_TMPDIR/res"
	mkdir -p "$RES"
	CGPARENT=""
}

teardown() {
	local d
	[[ -n "${RO_MNT:-}" ]] && umount "$RO_MNT" 2>/dev/null
	tr_teardown_parent
	tr_teardown
}

# the parent cgroup a test made ($CGPARENT), in every hierarchy, once empty
tr_teardown_parent() {
	local d
	[[ -n "$CGPARENT" ]] || return 0
	for d in /sys/fs/cgroup$CGPARENT /sys/fs/cgroup/*$CGPARENT; do
		[[ -d "$d" ]] || continue
		"$RUNTIME" --root "$ROOT" delete --force "$CID" >/dev/null 2>&1 || true
		rmdir "$d" 2>/dev/null || true
	done
}

# run_result [OPTIONS...]: `run --result $RES/r.json` in the foreground; sets $status and $result
run_result() {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$RES/r.json" "$@" \
		--bundle "$BUNDLE" "$CID"
	result="$(cat "$RES/r.json" 2>/dev/null)"
}

field() {
	jq -r "$1" <<<"$result"
}

# Under a parent limited to 32 MiB: the task without a limit of its own is
# killed by the parent's (ancestor-oom); with its own 16 MiB, by its own (oom-kill).
ancestor_then_own_oom() {
	set_args tail /dev/zero
	run_result
	assert_equal "$status" 137
	assert_equal "$(field .reason)" ancestor-oom
	[[ "$(field .oomKills)" -ge 1 ]]
	update_config '.linux.resources.memory = {"limit": 16777216, "swap": 16777216}'
	run_result
	assert_equal "$status" 137
	assert_equal "$(field .reason)" oom-kill
}

@test "result: a versioned document: today's keys, a usage object with every figure, clean-up done" {
	set_cmd 'sleep 0.3; exit 3'
	run_result
	assert_equal "$status" 3
	assert_equal "$(field .version)" 1
	assert_equal "$(field '[.reason, .exitCode, .signal, .status, .oomKills, .pidsLimitHits] | @tsv')" \
		"$(printf 'exit\t3\t\t3\t0\t0')"
	assert_equal "$(field '.usage | keys_unsorted | join(" ")')" \
		"wallMs cpuUserMs cpuSystemMs cpuSource memoryPeakBytes pidsPeak cpuThrottledUsec oomKills pidsLimitHits voluntaryContextSwitches involuntaryContextSwitches stdoutBytes stderrBytes stdoutTruncated stderrTruncated cleanupSucceeded"
	# the task slept 0.3 s: its wall time is at least that, and it blocked (voluntary switches)
	[[ "$(field .usage.wallMs)" -ge 300 && "$(field .usage.wallMs)" -lt 10000 ]]
	[[ "$(field .usage.voluntaryContextSwitches)" -ge 1 ]]
	assert_equal "$(field .usage.cpuSource)" cgroup
	assert_equal "$(field .usage.cleanupSucceeded)" true
	assert_equal "$(field 'has("error")')" false
	# the same document is events' last line: tests/init.bats "events: an exit event ..."
}

@test "result: usage: a task that allocates 50 MiB has memoryPeakBytes >= 50 MiB; a spinner's CPU is user time" {
	# dd's buffer of 50 MiB, every page written by the read from /dev/zero
	set_cmd 'dd if=/dev/zero of=/dev/null bs=52428800 count=1 2>/dev/null'
	run_result
	assert_success
	[[ "$(field .usage.memoryPeakBytes)" -ge 52428800 ]]
	# a bounded amount of work in user space
	set_cmd 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
	run_result
	assert_success
	[[ "$(field .usage.memoryPeakBytes)" -lt 52428800 ]]
	[[ "$(field .usage.cpuUserMs)" -gt 0 ]]
	[[ "$(field .usage.cpuUserMs)" -gt "$(field .usage.cpuSystemMs)" ]]
}

@test "result: usage: 20 forked processes give pidsPeak >= 20 (pids.peak, where the kernel has it); a quota throttles" {
	update_config '.linux.resources.cpu = {"quota": 10000, "period": 100000}'
	set_cmd 'for i in $(seq 20); do sleep 0.5 & done; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; wait'
	run_result
	assert_success
	if [[ -f "$(cg_file pids pids.peak pids.peak /)" ]] || ls /sys/fs/cgroup/pids/*/pids.peak >/dev/null 2>&1; then
		[[ "$(field .usage.pidsPeak)" -ge 20 ]]
	else
		assert_equal "$(field .usage.pidsPeak)" null
	fi
	# 10 ms of CPU a 100 ms period for more work than that: throttled
	[[ "$(field .usage.cpuThrottledUsec)" -gt 0 ]]
}

@test "result: not-started, with the error, for a program that does not exist and for a failing createRuntime hook" {
	set_args /no/such/program
	run_result
	assert_failure 1
	assert_equal "$(field .reason)" not-started
	[[ "$(field .error)" == *"/no/such/program"* ]]
	assert_equal "$(field .status)" null
	set_args sh -c 'touch /out/ran'
	update_config '.hooks.createRuntime = [{"path": "/bin/sh", "args": ["sh", "-c", "echo hook-said-no >&2; exit 7"]}]'
	run_result
	assert_failure 1
	assert_equal "$(field .reason)" not-started
	[[ "$(field .error)" == *createRuntime* ]]
	[[ ! -e "$OUT/ran" ]]
}

@test "result: a --result path that cannot be written is refused before the task runs, nothing left behind" {
	set_cmd 'touch /out/ran'
	run_result_at() {
		run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$1" --bundle "$BUNDLE" "$CID"
	}
	run_result_at "$RES/no-such-dir/r.json"
	assert_failure 1
	assert_output "tinyrun: --result: $RES/no-such-dir/r.json: its directory $RES/no-such-dir: No such file or directory"
	run_result_at "$RES"
	assert_failure 1
	assert_output --partial "tinyrun: --result: $RES: "
	# a read-only directory
	RO_MNT="$RES/ro"
	mkdir -p "$RO_MNT"
	mount --bind "$RO_MNT" "$RO_MNT" && mount -o remount,bind,ro "$RO_MNT"
	run_result_at "$RO_MNT/r.json"
	assert_failure 1
	assert_output --partial "tinyrun: --result: $RO_MNT/r.json: cannot write in its directory: Read-only file system"
	# the task never ran, and no state dir is left
	[[ ! -e "$OUT/ran" ]]
	run ls -A "$ROOT"
	assert_output ""
	run ls -A "$RES"
	assert_output "ro"
}

@test "result: written atomically: a new file renamed over the old one, never through a symlink planted there" {
	set_cmd 'exit 0'
	echo '{"old":true}' >"$RES/r.json"
	local before
	before="$(stat -c %i "$RES/r.json")"
	run_result
	assert_success
	assert_equal "$(field .reason)" exit
	# a new inode: the old file was never truncated and rewritten in place
	[[ "$(stat -c %i "$RES/r.json")" != "$before" ]]
	# no temporary file is left beside it
	run ls -A "$RES"
	assert_output "r.json"
	# a symlink at the name is replaced, its target untouched
	echo victim >"$BATS_TEST_TMPDIR/victim"
	rm "$RES/r.json"
	ln -s "$BATS_TEST_TMPDIR/victim" "$RES/r.json"
	run_result
	assert_success
	assert_equal "$(cat "$BATS_TEST_TMPDIR/victim")" victim
	[[ -f "$RES/r.json" && ! -L "$RES/r.json" ]]
	assert_equal "$(field .reason)" exit
}

@test "result: infrastructure-failure when the container's cgroup is lost under the task (v1 memory hierarchy)" {
	on_cgroup2 && skip "the v1 case"
	local cg="/sys/fs/cgroup/memory/tinyrun/$CID" p
	set_cmd 'while [ ! -e /out/go ]; do sleep 0.05; done'
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$RES/r.json" --bundle "$BUNDLE" "$CID" \
		</dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	local pid=$!
	# (cgroupfs files have no size: read the list, not -s)
	for ((i = 0; i < 200; i++)); do [[ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ]] && break; sleep 0.05; done
	# someone else moves the processes out and removes the cgroup
	# (a `sleep 0.05` of the loop may end, or start, meanwhile: again until it
	# is empty; moving a pid that has just exited fails, which is fine)
	for ((i = 0; i < 100; i++)); do
		while read -r p; do
			echo "$p" >/sys/fs/cgroup/memory/tinyrun/cgroup.procs 2>/dev/null || true
		done <"$cg/cgroup.procs"
		rmdir "$cg" 2>/dev/null && break
	done
	[[ ! -e "$cg" ]]
	touch "$OUT/go"
	wait "$pid" || true
	result="$(cat "$RES/r.json")"
	assert_equal "$(field .reason)" infrastructure-failure
	[[ "$(field .error)" == *"cgroup is gone"*"No such file or directory"* ]]
	assert_equal "$(field .exitCode)" 0
}

@test "result: infrastructure-failure, with the error, when a poststart hook fails under the started task" {
	set_cmd 'touch /out/ran; sleep 5'
	# the hook fails once the task has run (else the kill may come first)
	update_config '.hooks.poststart = [{"path": "/bin/sh", "args": ["sh", "-c", $s]}]' \
		--arg s "for i in \$(seq 500); do [ -e '$OUT/ran' ] && break; sleep 0.01; done; exit 9"
	run_result
	assert_failure 1
	[[ -e "$OUT/ran" ]]
	assert_equal "$(field .reason)" infrastructure-failure
	[[ "$(field .error)" == *poststart* ]]
	assert_equal "$(field .usage.cleanupSucceeded)" true
}

@test "result: ancestor-oom when a parent cgroup's limit kills the task, oom-kill for its own (v1: its own limit reached or not)" {
	on_cgroup2 && skip "the v1 case; the v2 one runs in the guest"
	CGPARENT="/tinyrun/$CID-parent"
	local m="/sys/fs/cgroup/memory$CGPARENT"
	mkdir -p "$m"
	echo 33554432 >"$m/memory.limit_in_bytes"
	[[ -f "$m/memory.memsw.limit_in_bytes" ]] && echo 33554432 >"$m/memory.memsw.limit_in_bytes"
	update_config '.linux.cgroupsPath = $p' --arg p "$CGPARENT/ctr"
	ancestor_then_own_oom
}

@test "result v2: ancestor-oom (memory.events oom of a parent), oom-kill for its own; memory.peak; pids.peak or null" {
	if ! on_cgroup2; then guest_verdict; return; fi
	CGPARENT="/tinyrun-test-$TOKEN"
	local p="/sys/fs/cgroup$CGPARENT"
	mkdir -p "$p"
	echo "+memory +pids +cpu" >"$p/cgroup.subtree_control" 2>/dev/null || true
	echo 33554432 >"$p/memory.max"
	echo 0 >"$p/memory.swap.max" 2>/dev/null || true
	update_config '.linux.cgroupsPath = $p' --arg p "$CGPARENT/$CID"
	ancestor_then_own_oom
	# memory.peak (5.19+), pids.peak where the kernel has it
	echo max >"$p/memory.max"
	update_config 'del(.linux.resources.memory)'
	set_cmd 'dd if=/dev/zero of=/dev/null bs=52428800 count=1 2>/dev/null; for i in $(seq 20); do sleep 0.5 & done; wait'
	run_result
	assert_success
	[[ "$(field .usage.memoryPeakBytes)" -ge 52428800 ]]
	if [[ -f "$p/pids.peak" ]]; then
		[[ "$(field .usage.pidsPeak)" -ge 20 ]]
	else
		assert_equal "$(field .usage.pidsPeak)" null
	fi
	[[ "$(field .usage.cpuUserMs)" != null ]]
	assert_equal "$(field .usage.cleanupSucceeded)" true
}
