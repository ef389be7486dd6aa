#!/usr/bin/env bats
# config.md: Process (terminal, consoleSize, cwd, env, args), POSIX process
# (rlimits), Linux process (capabilities, noNewPrivileges, oomScoreAdj,
# scheduler, ioPriority, apparmorProfile, selinuxLabel), User.

load helpers

# create_tty [ID]: create with a console socket; the pty output goes to $T/ID.out
create_tty() {
	local id=${1:-$ID} sock=$T/console.sock
	echo "$id" >>"$T/.ids"
	"$CHECKER" recvtty "$sock" "$T/$id.out" </dev/null >>"$T/bg.log" 2>&1 3>&- &
	TTY_PID=$!
	track_pid "$TTY_PID"
	local i
	for ((i = 0; i < 200; i++)); do [ -S "$sock" ] && break; sleep 0.01; done
	rt create --bundle "$B" --console-socket "$sock" --pid-file "$T/$id.pid" "$id" </dev/null >"$T/$id.create.out" 2>"$T/$id.err"
}
run_tty() {
	create_tty || { echo "create failed: $(cat "$T/$ID.err")" >&2; return 1; }
	start
	wait_stopped
	delete
	wait "$TTY_PID" || true
}

# ------------------------------------------------------------------ terminal --

@test "config.md/process: MUST attach a pseudoterminal to the standard streams when terminal is true" {
	cfg '.process.terminal = true'
	check isatty:0 isatty:1 isatty:2
	run_tty
	expect_match "$(val isatty:0)" '^yes ' stdin
	expect_match "$(val isatty:1)" '^yes ' stdout
	expect_match "$(val isatty:2)" '^yes ' stderr
}

@test "config.md/process: MUST NOT attach a terminal when terminal is false" {
	cfg '.process.terminal = false'
	check isatty:0 isatty:1 isatty:2
	run_ct
	expect_eq "$(val isatty:0) $(val isatty:1) $(val isatty:2)" "no no no" "isatty of 0 1 2"
}

@test "config.md/process: MUST NOT attach a terminal when terminal is unset (default false)" {
	cfg 'del(.process.terminal)'
	check isatty:1
	run_ct
	expect_eq "$(val isatty:1)" no "isatty of stdout"
}

@test "config.md/process: MUST set consoleSize on the terminal" {
	cfg '.process.terminal = true | .process.consoleSize = {"height": 25, "width": 81}'
	check winsize:1
	run_tty
	expect_eq "$(val winsize:1)" "25 81" "rows and columns"
}

@test "config.md/process: MUST ignore consoleSize when terminal is false" {
	cfg '.process.terminal = false | .process.consoleSize = {"height": 25, "width": 81}'
	check isatty:1 echo:ran
	run_ct
	expect_eq "$(val isatty:1) $(val echo:ran)" "no ran"
}

# ----------------------------------------------------------------------- cwd --

@test "config.md/process: MUST set the working directory to cwd" {
	mkdir -p "$B/rootfs/work/dir"
	cfg '.process.cwd = "/work/dir"'
	check cwd
	run_ct
	expect_eq "$(val cwd)" /work/dir cwd
}

@test "config.md/process: MUST generate an error for a relative cwd (cwd MUST be absolute)" {
	cfg '.process.cwd = "tmp"'
	check cwd
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val cwd)" ] || { echo "program ran with cwd $(val cwd)" >&2; false; }
	fi
}

# ----------------------------------------------------------------- env, args --

@test "config.md/process: MUST set env as the process environment" {
	cfg '.process.env = ["PATH=/bin", "A=1", "SPACES=a b  c", "EQUALS=x=y", "EMPTY=", "HOME=/home"]'
	check env
	run_ct
	expect_eq "$(vals env | tr '\n' '|')" "PATH=/bin|A=1|SPACES=a b  c|EQUALS=x=y|EMPTY=|HOME=/home|" environment
}

@test "config.md/process: MUST run args with execvp argv semantics" {
	cfg '.process.args = ["/bin/checker", "echo:two words", "echo:", "echo:*"]'
	run_ct
	expect_eq "$(out_of | tr '\n' '|')" "echo:two words=two words|echo:=|echo:*=*|" output
}

@test "config.md/process: MUST search PATH for args[0] like execvp" {
	cfg '.process.args = ["checker", "echo:found"] | .process.env = ["PATH=/nothing:/bin"]'
	run_ct
	expect_eq "$(val echo:found)" found
}

@test "config.md/process: MUST generate an error when args is empty (at least one entry REQUIRED)" {
	cfg '.process.args = []'
	if create; then
		run start
		[ "$status" -ne 0 ]
	fi
}

@test "config.md/process: MUST generate an error when args[0] cannot be executed" {
	cfg '.process.args = ["/no/such/program"]'
	if create; then
		run start
		[ "$status" -ne 0 ]
	fi
}

# ------------------------------------------------------------------- rlimits --

# rlimit_test TYPE SOFT HARD
rlimit_test() {
	cfg '.process.rlimits = [{"type": $t, "soft": ($s | tonumber), "hard": ($h | tonumber)}]' --arg t "RLIMIT_$1" --arg s "$2" --arg h "$3"
	check "rlimit:$1"
	run_ct
	expect_eq "$(val "rlimit:$1")" "$2 $3" "RLIMIT_$1 soft hard"
}

@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_AS" { rlimit_test AS 1073741824 2147483648; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_CORE" { rlimit_test CORE 1024 2048; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_CPU" { rlimit_test CPU 100 200; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_DATA" { rlimit_test DATA 1073741824 2147483648; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_FSIZE" { rlimit_test FSIZE 1048576 2097152; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_LOCKS" { rlimit_test LOCKS 100 200; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_MEMLOCK" { rlimit_test MEMLOCK 65536 131072; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_MSGQUEUE" { rlimit_test MSGQUEUE 8192 16384; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_NICE" { rlimit_test NICE 0 0; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_NOFILE" { rlimit_test NOFILE 512 1024; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_NPROC" { rlimit_test NPROC 500 1000; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_RSS" { rlimit_test RSS 1073741824 2147483648; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_RTPRIO" { rlimit_test RTPRIO 0 0; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_RTTIME" { rlimit_test RTTIME 1000000 2000000; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_SIGPENDING" { rlimit_test SIGPENDING 100 200; }
@test "config.md/posix-process: MUST set rlim_cur and rlim_max of RLIMIT_STACK" { rlimit_test STACK 8388608 16777216; }

@test "config.md/posix-process: MUST set several rlimits at once" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200}, {"type": "RLIMIT_CORE", "soft": 0, "hard": 0}]'
	check rlimit:NOFILE rlimit:CORE
	run_ct
	expect_eq "$(val rlimit:NOFILE), $(val rlimit:CORE)" "100 200, 0 0" rlimits
}

@test "config.md/posix-process: MUST raise a hard limit above the runtime's own when privileged" {
	need_cap CAP_SYS_RESOURCE
	local hard
	hard=$(ulimit -Hn)
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 1024, "hard": ($h | tonumber)}]' --arg h "$((hard + 1000))"
	check rlimit:NOFILE
	run_ct
	expect_eq "$(val rlimit:NOFILE)" "1024 $((hard + 1000))"
}

@test "config.md/posix-process: MUST generate an error for an rlimit type that maps to no kernel interface" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NO_SUCH_THING", "soft": 1, "hard": 1}]'
	check echo:ran
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val echo:ran)" ] || { echo "program ran" >&2; false; }
	fi
}

@test "config.md/posix-process: MUST generate an error for duplicated rlimit types" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200}, {"type": "RLIMIT_NOFILE", "soft": 300, "hard": 400}]'
	check echo:ran
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val echo:ran)" ] || { echo "program ran" >&2; false; }
	fi
}

@test "config.md/posix-process: MUST generate an error for an rlimit that cannot be applied (soft above hard)" {
	cfg '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 2000, "hard": 1000}]'
	check echo:ran
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val echo:ran)" ] || { echo "program ran" >&2; false; }
	fi
}

# -------------------------------------------------------------- capabilities --

# with noNewPrivileges (base config) execve cannot raise the permitted set, and
# for uid 0 the effective set becomes the permitted set
caps_cfg() {
	cfg '.process.noNewPrivileges = true'
	cfg '.process.capabilities = {"bounding": $b, "effective": $e, "permitted": $p, "inheritable": $i, "ambient": $a}' \
		--argjson b "$1" --argjson e "$2" --argjson p "$3" --argjson i "$4" --argjson a "$5"
}

@test "config.md/linux-process: MUST keep exactly the effective capabilities listed" {
	caps_cfg '["CAP_CHOWN","CAP_KILL","CAP_NET_RAW"]' '["CAP_CHOWN","CAP_NET_RAW"]' '["CAP_CHOWN","CAP_NET_RAW"]' '[]' '[]'
	check status:CapEff
	run_ct
	expect_eq "$(val status:CapEff)" "$(cap_mask CAP_CHOWN CAP_NET_RAW)" CapEff
}

@test "config.md/linux-process: MUST keep exactly the bounding capabilities listed" {
	caps_cfg '["CAP_CHOWN","CAP_SYS_ADMIN"]' '[]' '[]' '[]' '[]'
	check status:CapBnd
	run_ct
	expect_eq "$(val status:CapBnd)" "$(cap_mask CAP_CHOWN CAP_SYS_ADMIN)" CapBnd
}

@test "config.md/linux-process: MUST keep exactly the inheritable capabilities listed" {
	caps_cfg '["CAP_CHOWN","CAP_KILL"]' '["CAP_KILL"]' '["CAP_CHOWN","CAP_KILL"]' '["CAP_CHOWN"]' '[]'
	check status:CapInh
	run_ct
	expect_eq "$(val status:CapInh)" "$(cap_mask CAP_CHOWN)" CapInh
}

@test "config.md/linux-process: MUST keep exactly the permitted capabilities listed" {
	caps_cfg '["CAP_CHOWN","CAP_KILL","CAP_FOWNER"]' '["CAP_KILL"]' '["CAP_KILL","CAP_FOWNER"]' '[]' '[]'
	check status:CapPrm
	run_ct
	expect_eq "$(val status:CapPrm)" "$(cap_mask CAP_KILL CAP_FOWNER)" CapPrm
}

@test "config.md/linux-process: MUST keep exactly the ambient capabilities listed" {
	caps_cfg '["CAP_NET_BIND_SERVICE","CAP_KILL"]' '["CAP_NET_BIND_SERVICE","CAP_KILL"]' '["CAP_NET_BIND_SERVICE","CAP_KILL"]' '["CAP_NET_BIND_SERVICE","CAP_KILL"]' '["CAP_NET_BIND_SERVICE"]'
	check status:CapAmb
	run_ct
	expect_eq "$(val status:CapAmb)" "$(cap_mask CAP_NET_BIND_SERVICE)" CapAmb
}

@test "config.md/linux-process: MUST keep ambient capabilities effective for a non-root user" {
	cfg '.process.user = {"uid": 1000, "gid": 1000}'
	caps_cfg '["CAP_NET_BIND_SERVICE"]' '["CAP_NET_BIND_SERVICE"]' '["CAP_NET_BIND_SERVICE"]' '["CAP_NET_BIND_SERVICE"]' '["CAP_NET_BIND_SERVICE"]'
	check status:CapEff status:CapAmb ids
	run_ct
	expect_eq "$(val status:CapEff) $(val status:CapAmb)" "$(cap_mask CAP_NET_BIND_SERVICE) $(cap_mask CAP_NET_BIND_SERVICE)" "CapEff CapAmb"
	expect_match "$(val ids)" '^uid=1000 ' ids
}

@test "config.md/linux-process: MUST keep no capability when every set is empty" {
	caps_cfg '[]' '[]' '[]' '[]' '[]'
	check status:CapEff status:CapPrm status:CapBnd status:CapInh status:CapAmb
	run_ct
	expect_eq "$(val status:CapEff) $(val status:CapPrm) $(val status:CapBnd) $(val status:CapInh) $(val status:CapAmb)" \
		"0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000" "capability sets"
}

@test "config.md/linux-process: SHOULD NOT fail for a capability the kernel does not know (logged as a warning)" {
	caps_cfg '["CAP_KILL","CAP_NO_SUCH_CAP"]' '["CAP_KILL","CAP_NO_SUCH_CAP"]' '["CAP_KILL","CAP_NO_SUCH_CAP"]' '[]' '[]'
	check status:CapEff
	run_ct
	expect_eq "$(val status:CapEff)" "$(cap_mask CAP_KILL)" CapEff
}

@test "config.md/linux-process: SHOULD NOT fail for a capability that cannot be granted (logged as a warning)" {
	local missing=
	if ! (((0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24) & 1)); then missing=CAP_SYS_RESOURCE; fi
	[ -n "$missing" ] || skip "the runtime can grant every capability here (it holds CAP_SYS_RESOURCE)"
	caps_cfg '["CAP_KILL","'"$missing"'"]' '["CAP_KILL","'"$missing"'"]' '["CAP_KILL","'"$missing"'"]' '[]' '[]'
	check status:CapEff
	run_ct
	expect_eq "$(val status:CapEff)" "$(cap_mask CAP_KILL)" CapEff
}

# --------------------------------------------------------- noNewPrivileges --

@test "config.md/linux-process: MUST set no_new_privs when noNewPrivileges is true" {
	cfg '.process.noNewPrivileges = true'
	check nnp status:NoNewPrivs
	run_ct
	expect_eq "$(val nnp) $(val status:NoNewPrivs)" "1 1" no_new_privs
}

@test "config.md/linux-process: MUST NOT set no_new_privs when noNewPrivileges is false" {
	[ "$(awk '/^NoNewPrivs/ {print $2}' /proc/self/status)" = 0 ] || skip "the test process already has no_new_privs"
	cfg '.process.noNewPrivileges = false'
	check nnp
	run_ct
	expect_eq "$(val nnp)" 0 no_new_privs
}

# ------------------------------------------------------------- oomScoreAdj --

@test "config.md/linux-process: MUST set oom_score_adj to oomScoreAdj" {
	cfg '.process.oomScoreAdj = 123'
	check oom
	run_ct
	expect_eq "$(val oom)" 123 oom_score_adj
}

@test "config.md/linux-process: MUST set oom_score_adj to a negative oomScoreAdj" {
	need_cap CAP_SYS_RESOURCE
	cfg '.process.oomScoreAdj = -17'
	check oom
	run_ct
	expect_eq "$(val oom)" -17 oom_score_adj
}

@test "config.md/linux-process: MUST NOT change oom_score_adj when oomScoreAdj is not set" {
	cfg 'del(.process.oomScoreAdj)'
	check oom
	echo "$ID" >>"$T/.ids"
	(echo 234 >/proc/self/oom_score_adj && exec timeout 60 "$RUNTIME" --root "$ROOT" create --bundle "$B" --pid-file "$T/$ID.pid" "$ID" </dev/null >"$T/$ID.out" 2>"$T/$ID.err" 3>&-)
	start
	wait_stopped
	expect_eq "$(val oom)" 234 oom_score_adj
}

# --------------------------------------------------------------- scheduler --

@test "config.md/linux-process: MUST apply the scheduler policy (SCHED_BATCH)" {
	cfg '.process.scheduler = {"policy": "SCHED_BATCH"}'
	check sched
	run_ct
	expect_match "$(val sched)" '^policy=SCHED_BATCH ' sched
}

@test "config.md/linux-process: MUST apply the scheduler policy (SCHED_IDLE)" {
	cfg '.process.scheduler = {"policy": "SCHED_IDLE"}'
	check sched
	run_ct
	expect_match "$(val sched)" '^policy=SCHED_IDLE ' sched
}

@test "config.md/linux-process: MUST apply the scheduler nice value" {
	cfg '.process.scheduler = {"policy": "SCHED_OTHER", "nice": 7}'
	check sched
	run_ct
	expect_match "$(val sched)" '^policy=SCHED_OTHER priority=0 nice=7 ' sched
}

@test "config.md/linux-process: MUST apply the scheduler flags (SCHED_FLAG_RESET_ON_FORK)" {
	cfg '.process.scheduler = {"policy": "SCHED_BATCH", "flags": ["SCHED_FLAG_RESET_ON_FORK"]}'
	check sched
	run_ct
	expect_match "$(val sched)" 'policy=SCHED_BATCH .*reset_on_fork=1' sched
}

@test "config.md/linux-process: MUST generate an error for an unknown scheduler policy" {
	cfg '.process.scheduler = {"policy": "SCHED_NO_SUCH"}'
	check echo:ran
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val echo:ran)" ] || { echo "program ran" >&2; false; }
	fi
}

# --------------------------------------------------------------- ioPriority --

@test "config.md/linux-process: MUST apply ioPriority (IOPRIO_CLASS_BE)" {
	cfg '.process.ioPriority = {"class": "IOPRIO_CLASS_BE", "priority": 3}'
	check ioprio
	run_ct
	expect_eq "$(val ioprio)" "class=2 prio=3" ioprio
}

@test "config.md/linux-process: MUST apply ioPriority (IOPRIO_CLASS_IDLE)" {
	cfg '.process.ioPriority = {"class": "IOPRIO_CLASS_IDLE", "priority": 7}'
	check ioprio
	run_ct
	expect_match "$(val ioprio)" '^class=3 ' ioprio
}

@test "config.md/linux-process: MUST apply ioPriority (IOPRIO_CLASS_RT)" {
	cfg '.process.ioPriority = {"class": "IOPRIO_CLASS_RT", "priority": 1}'
	check ioprio
	run_ct
	expect_eq "$(val ioprio)" "class=1 prio=1" ioprio
}

@test "config.md/linux-process: MUST generate an error for an unknown ioPriority class" {
	cfg '.process.ioPriority = {"class": "IOPRIO_CLASS_NO_SUCH", "priority": 1}'
	check echo:ran
	if create; then
		start || true
		wait_stopped || true
		[ -z "$(val echo:ran)" ] || { echo "program ran" >&2; false; }
	fi
}

# ------------------------------------------------------------------ LSMs --

@test "config.md/linux-process: MUST apply apparmorProfile" {
	need_apparmor
	cfg '.process.apparmorProfile = "unconfined"'
	check file:/proc/self/attr/current
	run_ct
	expect_match "$(val file:/proc/self/attr/current)" unconfined
}

@test "config.md/linux-process: MUST apply selinuxLabel" {
	need_selinux
	cfg '.process.selinuxLabel = "system_u:system_r:container_t:s0:c1,c2"'
	check file:/proc/self/attr/current
	run_ct
	expect_match "$(val file:/proc/self/attr/current)" 'container_t'
}

# ---------------------------------------------------------------------- user --

@test "config.md/posix-user: MUST run the process with uid and gid" {
	cfg '.process.user = {"uid": 1000, "gid": 1001}'
	check ids
	run_ct
	expect_match "$(val ids)" '^uid=1000 gid=1001 euid=1000 egid=1001 ' ids
}

@test "config.md/posix-user: MUST add additionalGids to the process" {
	cfg '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [5, 1002, 1003]}'
	check ids
	run_ct
	local groups
	groups=$(val ids | sed 's/.*groups=//' | tr , '\n' | sort -n | tr '\n' ,)
	expect_match "$groups" '^(1000,)?5,1002,1003,$|^5,(1000,)?1002,1003,$|^5,1000,1002,1003,$' groups
}

@test "config.md/posix-user: MUST set the umask" {
	cfg '.process.user.umask = 23'
	check umask
	run_ct
	expect_eq "$(val umask)" 0027 umask
}

@test "config.md/posix-user: SHOULD NOT change the caller's umask when umask is unspecified" {
	cfg 'del(.process.user.umask)'
	check umask
	echo "$ID" >>"$T/.ids"
	(umask 0077 && exec timeout 60 "$RUNTIME" --root "$ROOT" create --bundle "$B" --pid-file "$T/$ID.pid" "$ID" </dev/null >"$T/$ID.out" 2>"$T/$ID.err" 3>&-)
	start
	wait_stopped
	expect_eq "$(val umask)" 0077 umask
}
