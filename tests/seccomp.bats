#!/usr/bin/env bats
# linux.seccomp: what the kernel does to the container's syscalls, the notify
# listener, and the shipped profiles (tinyrun spec --seccomp default|strict).

load helpers

# seccomp_rules 'RULES-JSON' [DEFAULT-ACTION]: .linux.seccomp with these syscalls.
seccomp_rules() {
	update_config '.linux.seccomp = {"defaultAction": $dflt, "syscalls": $rules}' \
		--argjson rules "$1" --arg dflt "${2:-SCMP_ACT_ALLOW}"
}

# use_profile NAME: .linux.seccomp as `tinyrun spec --seccomp NAME` writes it.
use_profile() {
	local dir="$BATS_TEST_TMPDIR/spec-$1"
	mkdir -p "$dir"
	"$REPO_DIR/tinyrun" spec --seccomp "$1" --bundle "$dir"
	update_config '.linux.seccomp = $p[0].linux.seccomp' --slurpfile p "$dir/config.json"
}

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
}

@test "SCMP_ACT_ERRNO without errnoRet: EPERM" {
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]'
	set_cmd 'mkdir /tmp/d; echo rc=$?; grep ^Seccomp: /proc/self/status'
	run_ctr
	assert_success
	assert_output --partial "Operation not permitted"
	assert_output --partial "rc=1"
	assert_output --regexp $'Seccomp:\t2'
}

@test "errnoRet 38: ENOSYS" {
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]'
	set_cmd 'mkdir /tmp/d; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "Function not implemented"
}

@test "defaultAction SCMP_ACT_ERRNO with defaultErrnoRet" {
	# the default profile with EACCES for what it does not list, and mkdir unlisted
	use_profile default
	update_config '.linux.seccomp.defaultErrnoRet = 13 | .linux.seccomp.syscalls[0].names -= ["mkdir", "mkdirat"]'
	set_cmd 'mkdir /tmp/d; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "Permission denied"
	assert_output --partial "rc=1"
}

@test "SCMP_ACT_KILL_PROCESS: the process dies by SIGSYS, its parent goes on" {
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_KILL_PROCESS"}]'
	set_cmd '/bin/mkdir /tmp/d; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "rc=159"
}

@test "run: a container killed by SIGSYS is a policy violation, exit 159" {
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_KILL_PROCESS"}]'
	set_args mkdir /tmp/d
	run_ctr
	assert_equal "$status" 159
	is_runc || assert_output --partial "$CID: policy violation: killed by SIGSYS"
}

@test "argument filter: personality(PER_LINUX32) denied, personality(PER_LINUX) allowed" {
	seccomp_rules '[{"names": ["personality"], "action": "SCMP_ACT_ERRNO",
		"args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]}]'
	set_cmd 'linux64 echo linux64-ok; linux32 echo linux32-ran; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "linux64-ok"
	refute_output --partial "linux32-ran"
	assert_output --partial "Operation not permitted"
}

@test "SCMP_CMP_MASKED_EQ: open with O_CREAT denied, plain open allowed" {
	# value is the mask, valueTwo the expected bits (O_CREAT = 0100)
	seccomp_rules '[
		{"names": ["openat"], "action": "SCMP_ACT_ERRNO",
		 "args": [{"index": 2, "value": 64, "valueTwo": 64, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["open"], "action": "SCMP_ACT_ERRNO",
		 "args": [{"index": 1, "value": 64, "valueTwo": 64, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["creat"], "action": "SCMP_ACT_ERRNO"}]'
	set_cmd 'head -1 /etc/passwd; touch /tmp/new; [ -e /tmp/new ] && echo created || echo absent'
	run_ctr
	assert_success
	assert_line --index 0 "root:x:0:0:root:/root:/bin/sh"
	assert_output --partial "Operation not permitted"
	assert_line "absent"
}

@test "unknown syscall names are skipped and named in --debug" {
	seccomp_rules '[{"names": ["no_such_syscall", "mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]'
	set_cmd 'mkdir /tmp/d; echo rc=$?'
	run_nohang runtime --debug run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --partial "rc=1"
	assert_output --partial "no_such_syscall"
}

@test "an unknown action, operator, architecture or flag is a clear error" {
	local bad
	for bad in \
		'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_BOGUS"}]}' \
		'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_BOGUS"}]}]}' \
		'{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_BOGUS"]}' \
		'{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_BOGUS"]}'; do
		update_config '.linux.seccomp = $s' --argjson s "$bad"
		run_nohang runtime run --bundle "$BUNDLE" "$CID"
		assert_failure
		is_runc && continue
		assert_output --partial "BOGUS"
		assert_output --partial "seccomp"
	done
}

@test "flags: SECCOMP_FILTER_FLAG_LOG and SPEC_ALLOW are accepted" {
	is_runc && skip "runc 1.1 has no seccomp flags"
	update_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
		"flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"],
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}'
	set_cmd 'mkdir /tmp/d; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "rc=1"
}

# A seccomp agent: takes the containerProcessState and the notify fd from
# listenerPath, saves the JSON, answers every mkdir with EXDEV.
build_agent() {
	AGENT="$BATS_TEST_TMPDIR/agent"
	cat >"$AGENT.c" <<'EOF'
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[65536], ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c, fd = -1;
	ssize_t n, total = 0;
	if (argc != 3) return 2;
	strncpy(a.sun_path, argv[1], sizeof(a.sun_path) - 1);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) || (c = accept(s, NULL, NULL)) < 0) return 3;
	n = recvmsg(c, &m, 0);
	if (n > 0 && CMSG_FIRSTHDR(&m)) memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	/* up to the end of the JSON object (runc 1.1 keeps the connection open) */
	int depth = 0, in_str = 0, esc = 0, done = 0;
	while (n > 0 && !done) {
		for (ssize_t i = total; i < total + n && !done; i++) {
			char ch = buf[i];
			if (in_str) { if (esc) esc = 0; else if (ch == '\\') esc = 1; else if (ch == '"') in_str = 0; }
			else if (ch == '"') in_str = 1;
			else if (ch == '{') depth++;
			else if (ch == '}' && --depth == 0) done = 1;
		}
		total += n;
		if (!done) n = read(c, buf + total, sizeof(buf) - 1 - total);
	}
	buf[total] = 0;
	FILE *f = fopen(argv[2], "w");
	fprintf(f, "%s\n", buf);
	fclose(f);
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) return 0;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.error = -EXDEV;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}
EOF
	gcc -O2 -o "$AGENT" "$AGENT.c"
}

# start_agent SOCK SAVED: the agent listening on SOCK (its pid in agent_pid)
start_agent() {
	build_agent
	"$AGENT" "$1" "$2" &
	agent_pid=$!
	record_pid "$agent_pid"
	wait_for_file "$1"
}

@test "SCMP_ACT_NOTIFY: the listener gets the state and the fd, and answers the syscall" {
	local sock="$BATS_TEST_TMPDIR/agent.sock" saved="$BATS_TEST_TMPDIR/agent.json" agent_pid
	start_agent "$sock" "$saved"
	update_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
		"listenerPath": $sock, "listenerMetadata": "meta-data",
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_NOTIFY"}]}' --arg sock "$sock"
	set_cmd 'mkdir /tmp/d; echo rc=$?'
	run_ctr
	# the agent ends when the container does (or never got the fd)
	kill "$agent_pid" 2>/dev/null || true
	wait "$agent_pid" 2>/dev/null || true
	assert_success
	assert_output --partial "Invalid cross-device link"
	run jq -r '[.ociVersion != null, .fds[0], .metadata, .state.id, (.pid > 0)] | @tsv' "$saved"
	assert_output "$(printf 'true\tseccompFd\tmeta-data\t%s\ttrue' "$CID")"
}

@test "listenerPath without a notify rule: the agent still gets the state and a listener fd (crun)" {
	local sock="$BATS_TEST_TMPDIR/agent.sock" saved="$BATS_TEST_TMPDIR/agent.json" agent_pid
	start_agent "$sock" "$saved"
	update_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
		"listenerPath": $sock, "listenerMetadata": "no-rules"}' --arg sock "$sock"
	# nothing is notified: mkdir is not the agent's (no EXDEV)
	set_cmd 'mkdir /dev/shm/d && echo made'
	run_ctr
	kill "$agent_pid" 2>/dev/null || true
	wait "$agent_pid" 2>/dev/null || true
	assert_success
	assert_output made
	run jq -r '[.fds[0], .metadata, .state.id] | @tsv' "$saved"
	assert_output "$(printf 'seccompFd\tno-rules\t%s' "$CID")"
}

@test "default profile: busybox sh workloads run, unshare and mount die by SIGSYS" {
	use_profile default
	assert_equal "$(jq -r .linux.seccomp.defaultErrnoRet "$BUNDLE/config.json")" 38
	set_cmd 'echo ok; ls / >/dev/null && echo ls-ok; echo a b | wc -w;
		unshare -m true; echo unshare=$?;
		mount -t tmpfs none /mnt; echo mount=$?;
		nsenter -t 1 -n true; echo nsenter=$?'
	run_ctr
	assert_success
	assert_line "ok"
	assert_line "ls-ok"
	assert_line "2"
	assert_line "unshare=159"
	assert_line "mount=159"
	assert_line "nsenter=159"
}

@test "default profile: a syscall neither allowed nor denied fails with ENOSYS" {
	use_profile default
	# syslog(2) is not in the profile: busybox dmesg reports ENOSYS
	set_cmd 'dmesg; echo rc=$?'
	run_ctr
	assert_success
	assert_output --partial "Function not implemented"
}

@test "strict profile: builtins run, fork is refused" {
	use_profile strict
	set_cmd 'echo before; /bin/true; echo after'
	run_ctr
	assert_line "before"
	assert_output --partial "can't fork"
	refute_line "after"
}

# A static probe: clone3 and syscall 1000 (neither named in the profile),
# getppid (older than every named syscall, not named), and a thread (glibc
# tries clone3 first and falls back to clone only on ENOSYS).
build_enosys_probe() {
	cat >"$BATS_TEST_TMPDIR/probe.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static void *thread(void *a) { return a; }
static const char *res(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }
int main(void)
{
	pthread_t t;
	printf("clone3=%s\n", res(syscall(435, NULL, 0)));
	printf("sys1000=%s\n", res(syscall(1000, 0, 0, 0)));
	printf("getppid=%s\n", res(syscall(SYS_getppid)));
	int e = pthread_create(&t, NULL, thread, NULL);
	printf("thread=%s\n", e ? strerrorname_np(e) : (pthread_join(t, NULL), "ok"));
	return 0;
}
C
	gcc -O2 -static -pthread -o "$BUNDLE/rootfs/probe" "$BATS_TEST_TMPDIR/probe.c"
}

@test "syscalls newer than every one the profile names get ENOSYS, so glibc falls back from clone3 (as runc)" {
	build_enosys_probe
	seccomp_rules '[{"action": "SCMP_ACT_ALLOW", "names": ["execve", "brk", "arch_prctl", "set_tid_address",
		"set_robust_list", "rseq", "prlimit64", "mmap", "munmap", "mprotect", "madvise", "readlink",
		"readlinkat", "getrandom", "uname", "write", "writev", "exit", "exit_group", "newfstatat", "fstat",
		"ioctl", "clone", "futex", "rt_sigprocmask", "rt_sigaction", "sched_yield", "gettid", "getpid"]}]' \
		SCMP_ACT_ERRNO
	set_args /probe
	run_ctr
	assert_success
	assert_line "clone3=ENOSYS"
	assert_line "sys1000=ENOSYS"
	assert_line "getppid=EPERM"
	assert_line "thread=ok"
}

@test "create/start without noNewPrivileges: a filter (loaded as root) that denies openat2 still lets the start wait through" {
	# runtime-tools' default profile: an allow-list with EPERM for the rest,
	# no openat2; without noNewPrivileges the filter goes in before the exec
	# fifo is reopened through the container's /proc
	use_profile default
	update_config '.process.noNewPrivileges = false | del(.linux.seccomp.defaultErrnoRet) |
		.linux.seccomp.syscalls |= map(.names -= ["openat2"])'
	set_cmd 'echo started; grep ^Seccomp: /proc/self/status'
	create_container "$CID"
	run_nohang runtime start "$CID"
	assert_success
	wait_for_state "$CID" stopped
	run cat "$(container_log "$CID")"
	assert_line "started"
	assert_line --regexp $'^Seccomp:\t2$'
}

@test "without noNewPrivileges a filter that denies getcwd still runs the container (runtime-tools' linux_seccomp)" {
	# the filter goes in as root, before the cwd check of CVE-2024-21626;
	# only ENOENT from getcwd means "outside the root", as in runc
	seccomp_rules '[{"names": ["getcwd"], "action": "SCMP_ACT_ERRNO"}]'
	update_config '.process.noNewPrivileges = false | .process.cwd = "/tmp"'
	set_cmd 'echo started; grep ^Seccomp: /proc/self/status; /bin/pwd -P; echo pwd=$?'
	run_ctr
	assert_success
	assert_line "started"
	assert_line --regexp $'^Seccomp:\t2$'
	assert_line "pwd=1"
}

@test "SCMP_ACT_NOTIFY on write is refused before the container starts (as runc)" {
	update_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/nonexistent.sock",
		"syscalls": [{"names": ["write"], "action": "SCMP_ACT_NOTIFY"}]}'
	run_ctr
	assert_failure
	assert_output --partial "SCMP_ACT_NOTIFY cannot be used for the write syscall"
	[[ ! -e "$ROOT/$CID" ]]
}

# dockerd gives every runc-compatible runtime one --root: a root holds
# container state only. Compiled filters go to a cache of their own
# (/run/tinyrun-cache for root, $XDG_RUNTIME_DIR/tinyrun-cache otherwise),
# reused by the same build, and a cache another user could write is not used.
@test "the compiled seccomp cache lives outside --root: the root is empty after delete, runc list sees nothing" {
	is_runc && skip "tinyrun's cache"
	local cache=/run/tinyrun-cache marker="$BATS_TEST_TMPDIR/marker" errno=$((1000 + RANDOM % 2000))
	# a profile of this test's own (errnoRet), so its cache file is new
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": '"$errno"'}]'
	set_cmd 'mkdir /tmp/d 2>/dev/null; echo rc=$?'
	touch "$marker"
	run_ctr
	assert_success
	assert_line rc=1
	[ -z "$(ls -A "$ROOT")" ] || fail "left in --root: $(ls -A "$ROOT")"
	run /usr/sbin/runc --root "$ROOT" list -q
	assert_success
	assert_output ""
	[ "$(stat -c '%a %u' "$cache")" = "700 0" ]
	local files
	files="$(find "$cache" -maxdepth 1 -name '*.bpf' -newer "$marker")"
	[ -n "$files" ] || fail "no cache file written in $cache"
	# the second run of the same profile reads it (nothing new written)
	touch "$marker"
	sleep 0.01
	run_ctr
	assert_success
	assert_line rc=1
	[ -z "$(find "$cache" -maxdepth 1 -name '*.bpf' -newer "$marker")" ] || fail "compiled again"
	[ -z "$(ls -A "$ROOT")" ]
}

@test "rootless: the seccomp cache is \$XDG_RUNTIME_DIR/tinyrun-cache, unused when others can write it" {
	local uid=4242 xdg="$BATS_TEST_TMPDIR/xdg" state="$BATS_TEST_TMPDIR/rootless-state"
	rm "$BUNDLE/config.json"
	runtime spec --rootless --bundle "$BUNDLE"
	update_config '.process.terminal = false | .process.args = ["sh", "-c", "mkdir /tmp/d 2>/dev/null; echo rc=$?"]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 4242, "size": 1}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 4242, "size": 1}]'
	seccomp_rules '[{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]'
	chown -R "$uid:$uid" "$BUNDLE"
	local d="$BUNDLE"
	while [[ "$d" != / ]]; do chmod o+x "$d"; d="$(dirname "$d")"; done
	mkdir -p "$state" "$xdg"
	chown "$uid:$uid" "$state" "$xdg"
	chmod 700 "$xdg"
	rootless_run() {
		run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups env XDG_RUNTIME_DIR="$xdg" \
			"$RUNTIME" --debug --root "$state" run --bundle "$BUNDLE" "$CID"
	}
	rootless_run
	assert_success
	assert_line rc=1
	[ "$(stat -c '%a %u' "$xdg/tinyrun-cache")" = "700 $uid" ]
	[ -n "$(find "$xdg/tinyrun-cache" -name '*.bpf')" ]
	[ -z "$(ls -A "$state")" ] || fail "left in --root: $(ls -A "$state")"
	chmod 777 "$xdg/tinyrun-cache"
	rootless_run
	assert_success
	assert_line rc=1
	assert_output --partial "tinyrun-cache not used: writable by group or others"
	[ -z "$(ls -A "$state")" ]
}

# An agent that lets every notified syscall go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE),
# as runc's seccompagent does for the syscalls it does not handle.
build_continue_agent() {
	CAGENT="$BATS_TEST_TMPDIR/cagent"
	cat >"$CAGENT.c" <<'EOF2'
#include <linux/seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[65536], ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c, fd = -1;
	if (argc != 2) return 2;
	strncpy(a.sun_path, argv[1], sizeof(a.sun_path) - 1);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) || (c = accept(s, NULL, NULL)) < 0) return 3;
	if (recvmsg(c, &m, 0) <= 0 || !CMSG_FIRSTHDR(&m)) return 4;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) return 0;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}
EOF2
	gcc -O2 -o "$CAGENT" "$CAGENT.c"
}

# notify_profile SOCK NNP NAMES-JSON: runc's scmp_act_notify_template.
notify_profile() {
	update_config '.process.noNewPrivileges = ($nnp == "true")
		| .linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": $sock,
			"listenerMetadata": "bar", "syscalls": [{"names": $names, "action": "SCMP_ACT_NOTIFY"}]}' \
		--arg sock "$1" --arg nnp "$2" --argjson names "$3"
}

# runc's seccomp-notify.bats: with the agent answering, syscalls the runtime
# itself makes after the filter is in (close, read, openat, execve) go on
# and the run ends, with noNewPrivileges false (filter loaded early) and true.
@test "SCMP_ACT_NOTIFY on close/read/openat/execve with an answering agent: the run ends (both noNewPrivileges)" {
	build_continue_agent
	local nnp sock
	for nnp in false true; do
		sock="$BATS_TEST_TMPDIR/cagent-$nnp.sock"
		"$CAGENT" "$sock" &
		local agent_pid=$!
		record_pid "$agent_pid"
		wait_for_file "$sock"
		notify_profile "$sock" "$nnp" '["execve", "openat", "open", "read", "close"]'
		set_cmd 'echo ran-$((6*7))'
		run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
		kill "$agent_pid" 2>/dev/null || true
		wait "$agent_pid" 2>/dev/null || true
		assert_success
		assert_line ran-42
	done
}

# With no agent listening (no socket; a socket nobody accepts on), run fails
# at once, in runc's words, and leaves nothing.
@test "SCMP_ACT_NOTIFY with no agent listening: run fails at once naming the seccomp agent" {
	local sock="$BATS_TEST_TMPDIR/none.sock"
	notify_profile "$sock" false '["mkdir", "mkdirat"]'
	set_args true
	run_nohang timeout -k 2 10 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "failed to connect with seccomp agent"
	assert_output --partial "$sock"
	assert_no_leftovers
	# a socket file whose listener is gone: ECONNREFUSED, not a wait
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock"
	run_nohang timeout -k 2 10 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "failed to connect with seccomp agent"
	assert_output --partial "Connection refused"
	assert_no_leftovers
}

# runc: killing the agent does not block the container's notified syscalls
# (no copy of the notify fd stays in the runtime): they fail with ENOSYS.
@test "SCMP_ACT_NOTIFY: once the agent is gone, notified syscalls fail with ENOSYS instead of hanging" {
	build_continue_agent
	local sock="$BATS_TEST_TMPDIR/cagent.sock"
	"$CAGENT" "$sock" &
	local agent_pid=$!
	record_pid "$agent_pid"
	wait_for_file "$sock"
	notify_profile "$sock" false '["mkdir", "mkdirat"]'
	set_cmd 'while [ ! -e /tmp/go ]; do sleep 0.1; done 2>/dev/null; mkdir /tmp/d; echo rc=$?'
	run_detached "$CID"
	kill "$agent_pid"
	wait "$agent_pid" 2>/dev/null || true
	touch "$BUNDLE/rootfs/tmp/go"
	wait_for_state "$CID" stopped
	run cat "$(container_log "$CID")"
	assert_output --partial "Function not implemented"
	assert_output --partial "rc=1"
	runtime delete "$CID"
}
