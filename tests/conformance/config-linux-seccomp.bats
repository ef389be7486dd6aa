#!/usr/bin/env bats
# config-linux.md: Seccomp, The Container Process State (listenerPath)

load helpers

# every x86_64 syscall libseccomp 2.5 knows, except the ones the tests probe
# (getcwd getpgid getppid getpriority) and a few dangerous ones
ALLOW_SYSCALLS="_sysctl accept accept4 access acct add_key adjtimex afs_syscall alarm arch_prctl bind bpf brk capget capset chdir chmod chown chroot clock_adjtime clock_getres clock_gettime clock_nanosleep clock_settime clone clone3 close close_range connect copy_file_range creat create_module dup dup2 dup3 epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait epoll_wait_old eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64 fallocate fanotify_init fanotify_mark fchdir fchmod fchmodat fchown fchownat fcntl fdatasync fgetxattr flistxattr flock fork fremovexattr fsconfig fsetxattr fsmount fsopen fspick fstat fstatfs fsync ftruncate futex futex_waitv futimesat get_kernel_syms get_mempolicy get_robust_list get_thread_area getcpu getdents getdents64 getegid geteuid getgid getgroups getitimer getpeername getpgrp getpid getpmsg getrandom getresgid getresuid getrlimit getrusage getsid getsockname getsockopt gettid gettimeofday getuid getxattr inotify_add_watch inotify_init inotify_init1 inotify_rm_watch io_cancel io_destroy io_getevents io_pgetevents io_setup io_submit io_uring_enter io_uring_register io_uring_setup ioctl ioperm iopl ioprio_get ioprio_set kcmp keyctl kill landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lgetxattr link linkat listen listxattr llistxattr lookup_dcookie lremovexattr lseek lsetxattr lstat madvise mbind membarrier memfd_create memfd_secret migrate_pages mincore mkdir mkdirat mknod mknodat mlock mlock2 mlockall mmap modify_ldt mount mount_setattr move_mount move_pages mprotect mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedsend mq_unlink mremap msgctl msgget msgrcv msgsnd msync munlock munlockall munmap name_to_handle_at nanosleep newfstatat nfsservctl open open_by_handle_at open_tree openat openat2 pause perf_event_open pidfd_getfd pidfd_open pidfd_send_signal pipe pipe2 pivot_root pkey_alloc pkey_free pkey_mprotect poll ppoll prctl pread64 preadv preadv2 prlimit64 process_madvise process_mrelease process_vm_readv process_vm_writev pselect6 ptrace putpmsg pwrite64 pwritev pwritev2 query_module quotactl quotactl_fd read readahead readlink readlinkat readv recvfrom recvmmsg recvmsg remap_file_pages removexattr rename renameat renameat2 request_key restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_tgsigqueueinfo sched_get_priority_max sched_get_priority_min sched_getaffinity sched_getattr sched_getparam sched_getscheduler sched_rr_get_interval sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield seccomp security select semctl semget semop semtimedop sendfile sendmmsg sendmsg sendto set_mempolicy set_mempolicy_home_node set_robust_list set_thread_area set_tid_address setdomainname setfsgid setfsuid setgid setgroups sethostname setitimer setns setpgid setpriority setregid setresgid setresuid setreuid setrlimit setsid setsockopt settimeofday setuid setxattr shmat shmctl shmdt shmget shutdown sigaltstack signalfd signalfd4 socket socketpair splice stat statfs statx swapoff swapon symlink symlinkat sync sync_file_range syncfs sysfs sysinfo syslog tee tgkill time timer_create timer_delete timer_getoverrun timer_gettime timer_settime timerfd_create timerfd_gettime timerfd_settime times tkill truncate tuxcall umask umount2 uname unlink unlinkat unshare uselib userfaultfd ustat utime utimensat utimes vfork vhangup vmsplice vserver wait4 waitid write writev"

seccomp() { cfg '.linux.seccomp = $s' --argjson s "$1"; }
# rule NAME ACTION [EXTRA-JSON]
rule() { local x=${3:-"{}"}; jq -cn --arg n "$1" --arg a "$2" --argjson x "$x" '{names: [$n], action: $a} + $x'; }
allow_list() { jq -cn --arg l "$ALLOW_SYSCALLS" '{names: ($l | split(" ")), action: "SCMP_ACT_ALLOW"}'; }

# refused: the configuration must not produce a running program
refused() {
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "the runtime ran the container" >&2; return 1; }
}

# ----------------------------------------------------------------- actions --

@test "config-linux.md/seccomp: MUST apply the filter to the container process" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check status:Seccomp
	run_ct
	expect_eq "$(val status:Seccomp)" 2 "seccomp mode"
}

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_ERRNO with the default errnoRet EPERM" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check sys:getcwd sys:getppid
	run_ct
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=EPERM" getcwd
	expect_match "$(val sys:getppid)" 'errno=0$' "getppid (not filtered)"
}

@test "config-linux.md/seccomp: MUST return errnoRet for SCMP_ACT_ERRNO" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO '{"errnoRet": 33}')]}"
	check sys:getcwd
	run_ct
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=EDOM" getcwd
}

@test "config-linux.md/seccomp: MUST apply defaultAction SCMP_ACT_ERRNO with defaultErrnoRet" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 99, \"syscalls\": [$(allow_list)]}"
	check sys:getcwd echo:alive
	run_ct
	expect_eq "$(val sys:getcwd) $(val echo:alive)" "ret=-1 errno=EADDRNOTAVAIL alive" "getcwd, program"
}

@test "config-linux.md/seccomp: MUST default defaultErrnoRet to EPERM" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [$(allow_list)]}"
	check sys:getcwd
	run_ct
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=EPERM" getcwd
}

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_ALLOW rules" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [$(allow_list), $(rule getcwd SCMP_ACT_ALLOW)]}"
	check sys:getcwd sys:getppid
	run_ct
	expect_match "$(val sys:getcwd)" 'errno=0$' "getcwd (allowed)"
	expect_eq "$(val sys:getppid)" "ret=-1 errno=EPERM" "getppid (default action)"
}

# kill_action ACTION
kill_action() {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd "$1")]}"
	check echo:before sys:getcwd echo:after
	run_ct
	expect_eq "$(val echo:before)" before
	[ -z "$(val echo:after)" ] || { echo "the process survived the filtered syscall" >&2; false; }
}

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_KILL" { kill_action SCMP_ACT_KILL; }
@test "config-linux.md/seccomp: MUST apply SCMP_ACT_KILL_PROCESS" { kill_action SCMP_ACT_KILL_PROCESS; }
@test "config-linux.md/seccomp: MUST apply SCMP_ACT_KILL_THREAD" { kill_action SCMP_ACT_KILL_THREAD; }

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_TRAP (SIGSYS)" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_TRAP)]}"
	check sys:getcwd echo:after
	run_ct
	grep -qx 'signal=SIGSYS' "$T/$ID.out"
	expect_eq "$(val echo:after)" after
}

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_TRACE (ENOSYS without a tracer)" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_TRACE)]}"
	check sys:getcwd
	run_ct
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=ENOSYS" getcwd
}

@test "config-linux.md/seccomp: MUST apply SCMP_ACT_LOG (the syscall is allowed)" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [$(allow_list), $(rule getcwd SCMP_ACT_LOG)]}"
	check sys:getcwd
	run_ct
	expect_match "$(val sys:getcwd)" 'errno=0$' getcwd
}

@test "config-linux.md/seccomp: MUST apply a rule to every name it lists" {
	seccomp '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getcwd", "getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 33}]}'
	check sys:getcwd sys:getppid
	run_ct
	expect_eq "$(val sys:getcwd), $(val sys:getppid)" "ret=-1 errno=EDOM, ret=-1 errno=EDOM"
}

@test "config-linux.md/seccomp: MUST accept the architectures list" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"], \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check sys:getcwd
	run_ct
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=EPERM" getcwd
}

# ----------------------------------------------------------- argument ops --

# op_test OP VALUE [VALUETWO] MATCHING NONMATCHING: getpgid(arg) fails with EDOM when the rule matches
op_test() {
	local arg
	if [ $# -eq 5 ]; then
		arg=$(jq -cn --arg op "$1" --argjson v "$2" --argjson v2 "$3" '{args: [{index: 0, value: $v, valueTwo: $v2, op: $op}], errnoRet: 33}')
		shift
	else
		arg=$(jq -cn --arg op "$1" --argjson v "$2" '{args: [{index: 0, value: $v, op: $op}], errnoRet: 33}')
	fi
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getpgid SCMP_ACT_ERRNO "$arg")]}"
	check "sys:getpgid:$3" "sys:getpgid:$4"
	run_ct
	expect_eq "$(val "sys:getpgid:$3")" "ret=-1 errno=EDOM" "getpgid($3), matching"
	expect_eq "$(val "sys:getpgid:$4")" "ret=-1 errno=ESRCH" "getpgid($4), not matching"
}

@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_EQ" { op_test SCMP_CMP_EQ 500 500 501; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_NE" { op_test SCMP_CMP_NE 500 501 500; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_LT" { op_test SCMP_CMP_LT 500 499 500; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_LE" { op_test SCMP_CMP_LE 500 500 501; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_GT" { op_test SCMP_CMP_GT 500 501 500; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_GE" { op_test SCMP_CMP_GE 500 500 499; }
@test "config-linux.md/seccomp: MUST apply the argument operator SCMP_CMP_MASKED_EQ with valueTwo" { op_test SCMP_CMP_MASKED_EQ 255 16 272 273; }

# ------------------------------------------------------------ valid values --

@test "config-linux.md/seccomp: MUST generate an error for errnoRet on an action without errno" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [$(allow_list), $(rule getcwd SCMP_ACT_ALLOW '{"errnoRet": 33}')]}"
	check echo:ran
	refused
}

@test "config-linux.md/seccomp: MUST generate an error for defaultErrnoRet on a defaultAction without errno" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultErrnoRet\": 33, \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check echo:ran
	refused
}

@test "config-linux.md/seccomp: MUST generate an error for a rule with no names (names MUST have one entry)" {
	seccomp '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": [], "action": "SCMP_ACT_ERRNO"}]}'
	check echo:ran
	refused
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown seccomp action" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getcwd SCMP_ACT_NO_SUCH)]}"
	check echo:ran
	refused
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown seccomp defaultAction" {
	seccomp '{"defaultAction": "SCMP_ACT_NO_SUCH"}'
	check echo:ran
	refused
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown seccomp operator" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$(rule getpgid SCMP_ACT_ERRNO '{"args": [{"index": 0, "value": 1, "op": "SCMP_CMP_NO_SUCH"}]}')]}"
	check echo:ran
	refused
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown seccomp architecture" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_NO_SUCH\"], \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check echo:ran
	refused
}

@test "config-linux.md/seccomp: MUST NOT accept listenerMetadata without listenerPath" {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerMetadata\": \"meta\", \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check echo:ran
	refused
}

# ------------------------------------------------------------------- flags --

# flag_test FLAG: MAY (runtimes choose their subset of valid values)
flag_test() {
	seccomp "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"$1\"], \"syscalls\": [$(rule getcwd SCMP_ACT_ERRNO)]}"
	check sys:getcwd
	create || skip "runtime does not support $1: $(tail -1 "$T/$ID.err")"
	start
	wait_stopped
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=EPERM" getcwd
}

@test "config-linux.md/seccomp: MAY support the flag SECCOMP_FILTER_FLAG_TSYNC" { flag_test SECCOMP_FILTER_FLAG_TSYNC; }
@test "config-linux.md/seccomp: MAY support the flag SECCOMP_FILTER_FLAG_LOG" { flag_test SECCOMP_FILTER_FLAG_LOG; }
@test "config-linux.md/seccomp: MAY support the flag SECCOMP_FILTER_FLAG_SPEC_ALLOW" { flag_test SECCOMP_FILTER_FLAG_SPEC_ALLOW; }
@test "config-linux.md/seccomp: MAY support the flag SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV" { flag_test SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV; }

# ------------------------------------------------- listenerPath / NOTIFY --

# notify_run [METADATA]: an agent on $T/agent.sock; the container hits SCMP_ACT_NOTIFY on getcwd
notify_run() {
	local meta=${1:-}
	bg "$CHECKER" seccomp-agent "$T/agent.sock" "$T/agent.json"
	local i
	for ((i = 0; i < 200; i++)); do [ -S "$T/agent.sock" ] && break; sleep 0.01; done
	seccomp "$(jq -cn --arg p "$T/agent.sock" --arg m "$meta" --argjson r "$(rule getcwd SCMP_ACT_NOTIFY)" \
		'{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $p, syscalls: [$r]} + (if $m == "" then {} else {listenerMetadata: $m} end)')"
	check sys:getcwd
	create || return 1
	NOTIFY_PID=$(ct_pid)
	start
	wait_stopped
	for ((i = 0; i < 200; i++)); do [ -s "$T/agent.json.meta" ] && break; sleep 0.01; done
}

@test "config-linux.md/seccomp: MUST send the container process state to listenerPath for SCMP_ACT_NOTIFY" {
	notify_run
	jq -e --arg id "$ID" '.state.id == $id and (.ociVersion | type) == "string"' "$T/agent.json" || { cat "$T/agent.json" >&2; false; }
}

@test "config-linux.md/seccomp: MUST send the seccomp fd with SCM_RIGHTS named seccompFd in fds" {
	notify_run
	jq -e '.fds == ["seccompFd"]' "$T/agent.json" || { cat "$T/agent.json" >&2; false; }
	grep -qx 'nfds=1' "$T/agent.json.meta"
}

@test "config-linux.md/container-process-state: MUST send file descriptors only in the first sendmsg" {
	notify_run
	grep -qx 'fds_in_later_msg=0' "$T/agent.json.meta"
}

@test "config-linux.md/container-process-state: MUST give the container process pid as seen by the runtime" {
	notify_run
	expect_eq "$(jq .pid "$T/agent.json")" "$NOTIFY_PID" "pid"
}

@test "config-linux.md/seccomp: MUST send listenerMetadata as metadata" {
	notify_run "MKNOD=/dev/null;conformance"
	expect_eq "$(jq -r .metadata "$T/agent.json")" "MKNOD=/dev/null;conformance" metadata
}

@test "config-linux.md/seccomp: MUST hand over a working seccomp notify fd" {
	notify_run
	expect_eq "$(val sys:getcwd)" "ret=-1 errno=ENOMSG" "getcwd answered by the agent"
}

@test "config-linux.md/seccomp: MUST generate an error if sending to listenerPath fails" {
	seccomp "$(jq -cn --arg p "$T/no-agent.sock" --argjson r "$(rule getcwd SCMP_ACT_NOTIFY)" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $p, syscalls: [$r]}')"
	check echo:ran
	refused
}
