#!/usr/bin/env bats
# The sandbox's acceptance suite (issue 31 §6), after Faber's attack families.
# Its core: for every shipped seccomp profile, one probe per rule, name,
# argument condition and architecture, GENERATED at test time from the
# profile `spec --sandbox` writes (tests/lib/seccomp-plan.py), made as a raw
# syscall by a task in a real sandbox (tests/lib/sysprobe.c), each expecting
# the declared action; a syscall in no rule and one newer than every one the
# profile could name get the default action (ENOSYS); an x32 number kills.
# A rule added to a profile gets its probe without a line here.
#
# The other families, and where they are tested:
#   submitted paths       tinyaws.bats (a seed reached through a symlink, or
#                         holding a device node, is refused: no host file is
#                         copied). The runtime resolves nothing inside a
#                         workspace for a task: a joining task gets the
#                         request's /workspace as its tmpfs mount root, opened
#                         RESOLVE_NO_SYMLINKS and checked (rootfs/sandbox/minimal.c
#                         clone_shared); on a read-only root, that mount point
#                         cannot be renamed, exchanged or replaced (EROFS), so
#                         a symlink or renameat2 race inside the workspace has
#                         nothing of the runtime's to steer
#   root and mounts       sandbox.bats (/, /dev, /etc exactly the profile's; /sys
#                         empty; no cgroupfs; image dirs read-only), hostile.bats
#   identity              sandbox.bats (leased uid, no capability, no group,
#                         setuid/setgroups/map rewriting fail), userns.bats
#   process visibility    sandbox.bats (/proc shows the task's own only; tasks
#                         of one request do not share a pid namespace)
#   fds                   sandbox.bats (only 0-2), run.bats, security.bats
#   network               sandbox.bats (loopback only)
#   memory/pids           sandbox.bats (limits), init.bats (oom-kill, pids-limit)
#   CPU, wall time, I/O floods, rlimits, disk: the limits' own suites (issue 31 §1)
#   lifecycle             sandbox.bats (requests, keys, leases), gc.bats
# Here: syscalls (the generated probes, SIGSYS handlers, threads, x32), the
# calls the profile denies end the task as policy-violation, and ordinary
# programs still run under both profiles.

load helpers

# A lease range of its own (sandbox.bats uses 1900000000-).
RANGE_FIRST=1920000000
RANGE_LAST=1920065535
PLAN="$TESTS_DIR/lib/seccomp-plan.py"

setup() {
	tr_setup
	is_runc && skip "tinyrun's sandbox profile"
	build_static "$TESTS_DIR/lib/sysprobe.c" -pthread -lseccomp
	mkdir -p "$BUNDLE/rootfs/usr/probe" "$OUT"
	cp "$TEST_LIB_BIN/sysprobe" "$BUNDLE/rootfs/usr/probe/sysprobe"
	"$TEST_LIB_BIN/sysprobe" list >"$BATS_TEST_TMPDIR/syscalls"
	RESULT_SEQ=0
}

# probe_bundle [SPEC OPTIONS...]: $BUNDLE with `spec --sandbox`'s config (the
# prober in its /usr/probe), this file's lease range and token.
probe_bundle() {
	rm -f "$BUNDLE/config.json"
	"$RUNTIME" spec --sandbox -b "$BUNDLE" "$@"
	update_config '.annotations["run.tinyrun.userns.range"] = $r | .process.env += [$t]' \
		--arg r "$RANGE_FIRST-$RANGE_LAST" --arg t "TINYRUN_TEST_TOKEN=$TOKEN"
}

# make_plan NAME: $OUT/NAME.plan, the probes of the profile in $BUNDLE's
# config.json, also in the task's /usr/probe
make_plan() {
	python3 "$PLAN" plan "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/syscalls" >"$OUT/$1.plan"
	cp "$OUT/$1.plan" "$BUNDLE/rootfs/usr/probe/$1.plan"
}

# probe_task ID NAME [in-process]: every probe of NAME.plan made in the
# running task ID, results in $OUT/NAME.ID.out. A probe that ended the
# prober's process (no fork under strict: it probes in itself) is said by
# `exec`'s status, and the next `exec` goes on from the following probe.
probe_task() {
	local id="$1" plan="$2" out="$OUT/$2.$1.out" part="$OUT/part" start=0 st last n
	: >"$out"
	for ((n = 0; n < 2000; n++)); do
		st=0
		runtime_timeout 300 exec "$id" /usr/probe/sysprobe run "/usr/probe/$plan.plan" "$start" ${3:-} \
			</dev/null >"$part" 2>&1 || st=$?
		grep -v ' calling$' "$part" >>"$out" || true   # none when the first probe ended it
		grep -qx done "$part" && return 0
		last="$(awk '$2 == "calling" {id = $1} END {print id}' "$part")"
		if [[ -z "$last" ]] || grep -q "^$last [^c]" "$part"; then
			echo "prober ended outside a probe (status $st, from $start):" >&2
			cat "$part" >&2
			return 1
		fi
		if ((st == 159)); then
			echo "$last sigsys" >>"$out"
		elif ((st > 128)); then
			echo "$last signal=$((st - 128))" >>"$out"
		else
			echo "$last exit=$st" >>"$out"
		fi
		start=$((last + 1))
	done
	return 1
}

# start_task ID [JQ EDIT [JQ ARGS...]]: a sandbox task ID from $BUNDLE, its
# config edited, running `sleep`
start_task() {
	local save="$BATS_TEST_TMPDIR/config.saved"
	cp "$BUNDLE/config.json" "$save"
	update_config "${2:-.} | .process.args = [\"sleep\", \"3600\"]" "${@:3}"
	run_detached "$1"
	cp "$save" "$BUNDLE/config.json"
}

# check_plan NAME ID BASELINE-ID: the verdict of NAME's probes in task ID
check_plan() {
	run python3 "$PLAN" check "$OUT/$1.plan" "$OUT/$1.$2.out" "$OUT/$1.$3.out"
}

# probe_profile NAME HOW [SPEC OPTIONS...]: NAME's plan from the profile of
# `spec --sandbox OPTIONS`, probed (HOW: fork or in-process) in a task with
# it and in one without any filter (the kernel's own answers); $output: the
# verdict
probe_profile() {
	local name="$1" how="${2/fork/}"
	probe_bundle "${@:3}"
	make_plan "$name"
	start_task "$CID-$name"
	start_task "$CID-$name-nofilter" 'del(.linux.seccomp)'
	probe_task "$CID-$name" "$name" $how
	probe_task "$CID-$name-nofilter" "$name" $how
	check_plan "$name" "$CID-$name" "$CID-$name-nofilter"
}

# plan_covers NAME: every name of every rule has a probe line or is said to be
# unknown to this libseccomp (so tinyrun skips it too)
plan_covers() {
	local name
	for name in $(jq -r '.linux.seccomp.syscalls[].names[]' "$BUNDLE/config.json" | sort -u); do
		grep -Eq "^[0-9]+ x86(_64)? $name |^# unresolved $name:" "$OUT/$1.plan" ||
			{ echo "no probe for $name" >&2; return 1; }
	done
}

@test "acceptance: every rule of the default profile, by name, argument and architecture, does what it declares" {
	probe_profile default fork
	echo "$output" | head -40
	assert_success
	assert_line "0 failed"
	plan_covers default
	# the kinds a real profile has are all there: kills (with a SIGSYS handler,
	# from a thread, on x32), allows, the default ENOSYS, newer numbers
	local plan="$OUT/default.plan"
	grep -q ' x86_64 chroot handler .* kill$' "$plan"
	grep -q ' x86_64 clone thread 0x10000000 .* kill$' "$plan"
	grep -q ' x86 mknod plain 0x0 0x2000 .* kill$' "$plan"
	grep -q ' x86_64 mknodat plain 0x0 0x0 0x1000 .* allow$' "$plan"
	grep -q ' x32 accept plain .* kill$' "$plan"
	grep -q ' x86_64 clone3 plain .* errno:38$' "$plan"
	grep -q ' x86_64 personality plain 0x1 .* errno:38$' "$plan"
	grep -q ' x86_64 #[0-9]* plain .* errno:38$' "$plan"
	grep -q ' x86 syslog plain .* errno:38$' "$plan"
}

@test "acceptance: every rule of the strict profile does what it declares (probed in the task itself: no fork)" {
	probe_profile strict in-process --seccomp strict
	echo "$output" | head -40
	assert_success
	assert_line "0 failed"
	plan_covers strict
	local plan="$OUT/strict.plan"
	grep -q ' x86_64 fork plain .* errno:1$' "$plan"
	grep -q ' x86_64 clone plain 0x0 .* errno:1$' "$plan"
	grep -q ' x86_64 clone plain 0x10000 .* allow$' "$plan"
	grep -q ' x86 socketcall plain .* errno:1$' "$plan"
	grep -q ' x86_64 add_key handler .* kill$' "$plan"
}

# kill_probes: the x86_64 probes of $OUT/default.plan that expect a kill, as
# kills.plan (also in the task's /usr/probe)
kill_probes() {
	grep -E '^[0-9]+ x86_64 .* kill$' "$OUT/default.plan" >"$OUT/kills.plan"
	cp "$OUT/kills.plan" "$BUNDLE/rootfs/usr/probe/kills.plan"
}

# weakened ACTION: the probes of kills.plan in a task whose profile has
# ACTION where it says SCMP_ACT_KILL_PROCESS; $output: their verdict
weakened() {
	local id="$CID-${1,,}"
	start_task "$id" '.linux.seccomp.syscalls |= map(if .action == "SCMP_ACT_KILL_PROCESS" then .action = $a else . end)' \
		--arg a "$1"
	probe_task "$id" kills
	run python3 "$PLAN" check "$OUT/kills.plan" "$OUT/kills.$id.out" "$OUT/kills.$id.out"
}

@test "acceptance: a task with a SIGSYS handler (SA_RESTART, sigaltstack) or a second thread does not outlive a kill rule; with TRAP or KILL_THREAD the probes say so" {
	probe_bundle
	make_plan default
	kill_probes
	local handlers threads
	handlers="$(grep -c ' handler ' "$OUT/kills.plan")"
	threads="$(grep -c ' thread ' "$OUT/kills.plan")"
	[[ "$handlers" -ge 10 && "$threads" -ge 10 ]]
	# SECCOMP_RET_KILL_PROCESS: nothing survives, handler or not
	start_task "$CID-kill"
	probe_task "$CID-kill" kills
	run python3 "$PLAN" check "$OUT/kills.plan" "$OUT/kills.$CID-kill.out" "$OUT/kills.$CID-kill.out"
	assert_success
	refute_output --partial trapped
	# the weaker actions are caught: with SCMP_ACT_TRAP the handler runs and
	# the task goes on (without a handler SIGSYS still ends it) ...
	weakened SCMP_ACT_TRAP
	assert_failure
	assert_line "$handlers failed"
	assert_equal "$(grep -c '^FAIL .* handler: expected kill, got [a-z]*=-*[0-9]* trapped' <<<"$output")" "$handlers"
	# ... with SCMP_ACT_KILL_THREAD the calling thread dies, the process lives on
	weakened SCMP_ACT_KILL_THREAD
	assert_failure
	assert_line "$threads failed"
	assert_equal "$(grep -c '^FAIL .* thread: expected kill, got thread-killed' <<<"$output")" "$threads"
}

# run_result [ARGS...]: `run --result` of $BUNDLE with process.args ARGS, in
# the foreground; $status, $output and $result (the result file)
run_result() {
	set_args "$@"
	rm -f "$OUT/result.json"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" \
		--bundle "$BUNDLE" "$CID-$((++RESULT_SEQ))"
	result="$(cat "$OUT/result.json" 2>/dev/null)"
}

# policy_violation: the last run_result's task died by SIGSYS and says so
policy_violation() {
	assert_equal "$status" 159
	assert_equal "$(jq -r '.reason, .signal' <<<"$result" | tr '\n' ' ')" "policy-violation SIGSYS "
}

@test "x32: a raw syscall with __X32_SYSCALL_BIT (getpid, unshare) ends the task as policy-violation; with SCMP_ARCH_X32 listed getpid would pass" {
	probe_bundle
	assert_equal "$(jq -c .linux.seccomp.architectures "$BUNDLE/config.json")" '["SCMP_ARCH_X86_64","SCMP_ARCH_X86"]'
	run_result /usr/probe/sysprobe self x32 getpid
	assert_line "calling getpid on x32"
	policy_violation
	run_result /usr/probe/sysprobe self x32 unshare 0x10000000
	policy_violation
	# the same numbers without the x32 bit: getpid runs
	run_result /usr/probe/sysprobe self x86_64 getpid
	assert_success
	assert_line --regexp '^ret=[0-9]+$'
	# the protection is the architecture left out: listed, x32 getpid reaches
	# the kernel (ENOSYS where x32 is off, as on Debian's kernels)
	update_config '.linux.seccomp.architectures += ["SCMP_ARCH_X32"]'
	run_result /usr/probe/sysprobe self x32 getpid
	assert_success
	assert_line --regexp '^(ret=[0-9]+|errno=38)$'
	assert_equal "$(jq -r .reason <<<"$result")" exit
}

@test "policy-violation: chroot, sethostname, setdomainname and a device mknod end the task (EPERM before); a FIFO is still made" {
	probe_bundle
	local cmd
	for cmd in "chroot / true" "hostname judge" "mknod /tmp/null c 1 3" "mknod /tmp/loop b 7 0" \
		"/usr/probe/sysprobe self x86_64 setdomainname" "/usr/probe/sysprobe self x86 sethostname"; do
		# shellcheck disable=SC2086
		run_result $cmd
		echo "$cmd: $status $result"
		policy_violation
	done
	# mkfifo(3) and mknod p are mknodat(S_IFIFO); in a shell, only the child dies
	run_result sh -c 'mkfifo /tmp/f && mknod /tmp/p p && stat -c %F /tmp/f /tmp/p;
		mknod /tmp/d c 1 3; echo "mknod c=$?"'
	assert_success
	assert_equal "$(grep -c '^fifo$' <<<"$output")" 2
	assert_line "mknod c=159"
	assert_equal "$(jq -r .reason <<<"$result")" exit
}

# debian_bundle: $BUNDLE's rootfs becomes the host's own userland: /usr bound
# read-only (undone by teardown), bin, lib, lib64 its usrmerge symlinks
debian_bundle() {
	[[ -x /usr/bin/python3 && -L /bin ]] || skip "needs a usrmerge host with /usr/bin/python3"
	rm -rf "$BUNDLE/rootfs"
	mkdir -p "$BUNDLE/rootfs/usr"
	ln -s usr/bin "$BUNDLE/rootfs/bin"
	ln -s usr/lib "$BUNDLE/rootfs/lib"
	ln -s usr/lib64 "$BUNDLE/rootfs/lib64"
	mount --bind -o ro /usr "$BUNDLE/rootfs/usr"
	DEBIAN_USR="$BUNDLE/rootfs/usr"
}

teardown() {
	[[ -z "${DEBIAN_USR:-}" ]] || umount "$DEBIAN_USR" || true
	tr_teardown
}

@test "ordinary programs run under both profiles: Debian's dash, coreutils and python3 (threads, subprocess, a FIFO); strict refuses the fork with EPERM" {
	debian_bundle
	probe_bundle
	# shellcheck disable=SC2016
	run_result /usr/bin/sh -c 'ls / | tr "\n" " "; echo; printf "b\na\n" | sort | tr -d "\n"; echo;
		mkfifo /tmp/f && stat -c %F /tmp/f; cp /etc/passwd /tmp/p && wc -l </tmp/p; date +%Y >/dev/null && id -u;
		/usr/bin/python3 -c "import json, subprocess, threading
t = threading.Thread(target=print, args=(\"thread\",)); t.start(); t.join()
print(subprocess.run([\"/usr/bin/true\"]).returncode, json.dumps({\"py\": 1}))"'
	assert_success
	assert_line "bin dev etc lib lib64 proc sys tmp usr workspace "
	assert_line "ab"
	assert_line "fifo"
	assert_line "2"
	assert_line "65534"
	assert_line "thread"
	assert_line '0 {"py": 1}'
	assert_equal "$(jq -r .reason <<<"$result")" exit
	probe_bundle --seccomp strict
	run_result /usr/bin/python3 -c 'import json, os, threading, subprocess
t = threading.Thread(target=print, args=("thread",)); t.start(); t.join()
print(json.dumps(sorted(os.listdir("/"))))
try:
    subprocess.run(["/usr/bin/true"])
except PermissionError as e:
    print("no fork:", e.errno)'
	assert_success
	assert_line "thread"
	assert_line '["bin", "dev", "etc", "lib", "lib64", "proc", "sys", "tmp", "usr", "workspace"]'
	assert_line "no fork: 1"
	run_result /usr/bin/sort /etc/group
	assert_success
	assert_line "nogroup:x:65534:"
}
