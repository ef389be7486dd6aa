#!/usr/bin/env bats
# run.tinyrun.init=true: tinyrun-init (runtime/init/init.c) as the
# container's PID 1, and why a process ended (run --result, events' exit
# event: runtime/container/result.h). tinyrun only.

load helpers

setup() {
	tr_setup
	is_runc && skip "tinyrun's own annotation"
	update_config '.annotations["run.tinyrun.init"] = "true"'
	bind_out_dir
}

# run_result: helpers.bash
# result_is REASON EXITCODE SIGNAL: the fields of $result (null for none)
result_is() {
	assert_equal "$(jq -r .reason <<<"$result")" "$1"
	assert_equal "$(jq -r .exitCode <<<"$result")" "$2"
	assert_equal "$(jq -r .signal <<<"$result")" "$3"
}

# Does the libseccomp tinyrun links know syscall NAME? (its --debug says
# which names it drops)
scmp_knows() {
	local log="$BATS_TEST_TMPDIR/probe.log"
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --debug --root "$ROOT" create --bundle "$BUNDLE" "$CID-probe" \
		</dev/null >"$log" 2>&1 3>&- 4>&-
	runtime delete --force "$CID-probe" >/dev/null 2>&1
	! grep -q "unknown syscall \"$1\"" "$log"
}

# The default profile's seccomp section in $BUNDLE/config.json.
add_default_seccomp() {
	mkdir -p "$BATS_TEST_TMPDIR/spec"
	runtime spec --seccomp default --bundle "$BATS_TEST_TMPDIR/spec" >/dev/null
	update_config '.linux.seccomp = $s[0].linux.seccomp' --slurpfile s "$BATS_TEST_TMPDIR/spec/config.json"
}

@test "init: tinyrun-init is PID 1, the task PID 2; orphans are reparented to it and reaped" {
	# the orphan (a subshell's child) outlives its parent, then exits: a
	# zombie unless PID 1 reaps it
	set_cmd 'echo $$ >/out/task; tr "\0" " " </proc/1/cmdline >/out/cmdline
		(sleep 0.3 & echo $! >/out/orphan); o=$(cat /out/orphan)
		grep PPid /proc/$o/status >/out/ppid; sleep 1
		for s in /proc/[0-9]*/stat; do read -r p c st rest <$s; echo "$p $st"; done >/out/states; exit 0'
	run_result
	assert_success
	assert_equal "$(cat "$OUT/task")" 2
	[[ "$(cat "$OUT/cmdline")" == "tinyrun-init "*" /bin/sh sh -c "* ]]
	assert_equal "$(awk '{print $2}' "$OUT/ppid")" 1
	run cat "$OUT/states"
	refute_output --partial " Z"
	refute_line --regexp "^$(cat "$OUT/orphan") "
	result_is exit 0 null
}

@test "init: without the annotation the task is PID 1 itself" {
	update_config 'del(.annotations["run.tinyrun.init"])'
	set_cmd 'echo $$ >/out/task'
	run_result
	assert_success
	assert_equal "$(cat "$OUT/task")" 1
}

@test "init: a signal from tinyrun kill is forwarded to the task" {
	set_cmd 'trap "echo TERM >/out/sig; exit 3" TERM; echo >/out/ready; while :; do sleep 0.05; done'
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" --bundle "$BUNDLE" \
		"$CID" </dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	local run_pid=$!
	wait_for_file "$OUT/ready"
	runtime kill "$CID" TERM
	wait "$run_pid" || status=$?
	assert_equal "${status:-0}" 3
	assert_equal "$(cat "$OUT/sig")" TERM
	result="$(cat "$OUT/result.json")"
	result_is exit 3 null
}

@test "init: the task cannot kill, stop or signal its init" {
	# SIGKILL/SIGSTOP from inside: dropped by the kernel; the rest: blocked
	# and dropped by the init (sender inside the namespace): never forwarded
	# back to the task either
	set_cmd 'trap "echo forwarded >/out/sig" TERM INT HUP USR1
		for s in KILL STOP TERM INT HUP USR1 CONT; do kill -$s 1 || echo "kill $s failed" >>/out/err; done
		sleep 0.3; grep State /proc/1/status >/out/state; exit 5'
	run_result
	assert_equal "$status" 5
	[[ ! -e "$OUT/sig" ]]
	[[ ! -e "$OUT/err" ]]
	run cat "$OUT/state"
	assert_output --regexp 'State:[[:space:]]+S'
	result_is exit 5 null
}

@test "init: /proc/1/exe is a sealed memfd, never the host's tinyrun, even with CAP_SYS_PTRACE" {
	local all="CAP_AUDIT_WRITE,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SYS_PTRACE"
	set_caps "$all" "$all" "$all" "" "$all"
	set_cmd 'readlink /proc/1/exe >/out/link; md5sum </proc/1/exe >/out/sum
		{ echo x >>/proc/1/exe; } 2>/dev/null && echo writable >/out/w; exit 0'
	run_result
	assert_success
	run cat "$OUT/link"
	assert_output --regexp '^/memfd:tinyrun-init'
	[[ "$(cat "$OUT/sum")" != "$(md5sum <"$RUNTIME")" ]]
	[[ ! -e "$OUT/w" ]]
}

@test "init: without CAP_SYS_PTRACE the task cannot even read /proc/1/exe (non-dumpable init)" {
	set_cmd 'readlink /proc/1/exe >/out/link 2>/dev/null; readlink /proc/1/fd/* >/out/fds 2>/dev/null
		cat /proc/1/environ >/out/env 2>/dev/null; exit 0'
	run_result
	assert_success
	[[ ! -s "$OUT/link" ]]
	[[ ! -s "$OUT/fds" ]]
	[[ ! -s "$OUT/env" ]]
}

@test "init: exit statuses: exit N, killed by N (told apart from exit 128+N)" {
	set_cmd 'exit 7'
	run_result
	assert_equal "$status" 7
	result_is exit 7 null
	assert_equal "$(jq -r .status <<<"$result")" 7

	set_cmd 'kill -KILL $$'
	run_result
	assert_equal "$status" 137
	result_is signal null SIGKILL

	set_cmd 'exit 137'
	run_result
	assert_equal "$status" 137
	result_is exit 137 null
}

@test "init: the annotation needs a new pid namespace, and \"true\" or \"false\"" {
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial 'run.tinyrun.init'
	assert_output --partial 'needs a new pid namespace'
	update_config '.annotations["run.tinyrun.init"] = "yes"'
	run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial 'run.tinyrun.init: expected "true" or "false"'
}

@test "init: its resident memory is at most 256 KiB" {
	run_detached "$CID"
	local init_pid rss
	init_pid="$(state_field "$CID" pid)"
	rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$init_pid/status")"
	echo "tinyrun-init VmRSS: $rss kB" >&3
	[[ "$(readlink "/proc/$init_pid/exe")" == "/memfd:tinyrun-init"* ]]
	[[ "$rss" -le 256 ]]
}

@test "result: every syscall the default profile kills ends with policy-violation" {
	build_static "$TESTS_DIR/lib/sysnr.c"
	cp "$TEST_LIB_BIN/sysnr" "$BUNDLE/rootfs/bin/sysnr"
	add_default_seccomp
	local names name args
	names="$(jq -r '.linux.seccomp.syscalls[] | select(.action == "SCMP_ACT_KILL_PROCESS" or .action == "SCMP_ACT_KILL"
		or .action == "SCMP_ACT_KILL_THREAD") | .names[]' "$BUNDLE/config.json" | sort -u)"
	[[ -n "$names" ]]
	for name in $names; do
		# a name this libseccomp does not know gets no rule: the default
		# action (an errno) denies it, nothing kills (the profile's concern)
		if [[ "$name" == open_tree_attr ]] && ! scmp_knows "$name"; then
			echo "$name: unknown to this libseccomp, skipped"
			continue
		fi
		case $name in   # the kill rule's arguments
		clone) args=(0x7E020000) ;;   # every namespace flag
		mknod) args=(0 0x2000) ;;     # S_IFCHR
		mknodat) args=(0 0 0x6000) ;; # S_IFBLK
		*) args=(0) ;;
		esac
		set_args /bin/sysnr "$name" "${args[@]}"
		run_result
		echo "$name: status $status, $result"
		assert_equal "$status" 159
		result_is policy-violation null SIGSYS
	done
	# and an allowed syscall is not one
	set_args /bin/sysnr getpid
	run_result
	assert_success
	result_is exit 0 null
}

@test "result: policy-violation also without the init (the task is PID 1 and dies of SIGSYS)" {
	build_static "$TESTS_DIR/lib/sysnr.c"
	cp "$TEST_LIB_BIN/sysnr" "$BUNDLE/rootfs/bin/sysnr"
	add_default_seccomp
	update_config 'del(.annotations["run.tinyrun.init"])'
	set_args /bin/sysnr unshare 0x10000000
	run_result
	assert_equal "$status" 159
	result_is policy-violation null SIGSYS
}

@test "result: an OOM ends with oom-kill, a fork bomb with pids-limit (v1 memory and pids controllers)" {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]] && skip "the v1 case; cgroups-v2 runs in the guest"
	update_config '.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
	set_args tail /dev/zero
	run_result
	assert_equal "$status" 137
	result_is oom-kill null SIGKILL
	[[ "$(jq -r .oomKills <<<"$result")" -ge 1 ]]

	update_config 'del(.linux.resources.memory) | .linux.resources.pids = {"limit": 10}'
	set_cmd 'while :; do sleep 100 & done'
	run_result
	assert_failure
	assert_equal "$(jq -r .reason <<<"$result")" pids-limit
	[[ "$(jq -r .pidsLimitHits <<<"$result")" -ge 1 ]]
	assert_equal "$(jq -r .oomKills <<<"$result")" 0
}

@test "result: a plain exit under the same limits is an exit, not a limit" {
	update_config '.linux.resources.memory = {"limit": 33554432, "swap": 33554432} | .linux.resources.pids = {"limit": 10}'
	set_cmd 'exit 4'
	run_result
	assert_equal "$status" 4
	result_is exit 4 null
	assert_equal "$(jq -r .oomKills <<<"$result")" 0
	assert_equal "$(jq -r .pidsLimitHits <<<"$result")" 0
}

@test "events: an exit event says why the process ended" {
	set_cmd 'while [ ! -e /out/go ]; do sleep 0.05; done; kill -TERM $$'
	create_container "$CID"
	runtime start "$CID"
	"$RUNTIME" --root "$ROOT" events --interval 200ms "$CID" </dev/null >"$OUT/events" 2>&1 3>&- 4>&- &
	local ev=$!
	# events is watching once it holds the container's cgroup open
	wait_for_state "$CID" running
	sleep 0.2
	touch "$OUT/go"
	wait "$ev"
	run tail -1 "$OUT/events"
	assert_equal "$(jq -r .type <<<"$output")" exit
	assert_equal "$(jq -r .data.reason <<<"$output")" signal
	assert_equal "$(jq -r .data.signal <<<"$output")" SIGTERM
	assert_equal "$(jq -r .data.status <<<"$output")" 143
	# the same versioned document as run --result (sandbox-result.bats), with the
	# init's record: the task's wall time (it waited >= 0.2 s for go) and its rusage
	assert_equal "$(jq -r .data.version <<<"$output")" 1
	[[ "$(jq -r .data.usage.wallMs <<<"$output")" -ge 200 ]]
	[[ "$(jq -r .data.usage.voluntaryContextSwitches <<<"$output")" -ge 1 ]]
	assert_equal "$(jq -r .data.usage.cleanupSucceeded <<<"$output")" null
	runtime delete "$CID"
}
