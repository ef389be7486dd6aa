#!/usr/bin/env bats
# The container process: what it sees of hostname, pid, user, umask, env,
# cwd, args, rlimits, capabilities, no_new_privs, oom_score_adj and fds.
# Most checks run tests/lib/checker.c as process.args[0] itself (any exec in
# between would recompute the capability sets).

load helpers

# check [KEY...]: run the checker in the foreground; its key=value lines in
# $output / $lines.
check() {
	set_args /bin/checker "$@"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
}

# expect KEY VALUE: the checker printed exactly KEY=VALUE.
expect() {
	assert_line "$1=$2"
}


@test "hostname from the config" {
	update_config '.hostname = "tr-host"'
	check hostname
	expect hostname tr-host
}

@test "domainname from the config" {
	is_runc && skip "runc 1.1 ignores domainname (runc 1.2 sets it)"
	update_config '.domainname = "tr.example"'
	check domainname
	expect domainname tr.example
}

@test "domainname and sysctl kernel.domainname: the same value is fine, a different one is refused (crun)" {
	update_config '.domainname = "tr.example" | .linux.sysctl = {"kernel.domainname": "tr.example"}'
	check domainname
	expect domainname tr.example
	update_config '.linux.sysctl = {"kernel.domainname": "other.example"}'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.linux.sysctl["kernel.domainname"]: "other.example" conflicts with the domainname field'
	[[ ! -e "$ROOT/$CID" ]]
}

@test "annotation run.oci.keep_original_groups (crun): the caller's supplementary groups stay; without it none" {
	set_args sh -c 'grep ^Groups: /proc/self/status'
	run_nohang setpriv --groups 2,3 -- "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --regexp '^Groups:[[:space:]]*$'
	update_config '.annotations["run.oci.keep_original_groups"] = "1"'
	run_nohang setpriv --groups 2,3 -- "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --regexp '^Groups:[[:space:]]*2 3[[:space:]]*$'
	# "0" is off, as crun
	update_config '.annotations["run.oci.keep_original_groups"] = "0" | .process.user.additionalGids = [7]'
	run_nohang setpriv --groups 2,3 -- "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_output --regexp '^Groups:[[:space:]]*7[[:space:]]*$'
}

@test "the process is PID 1 of its pid namespace" {
	check pid
	expect pid 1
}

@test "without a terminal the init and an exec'd process each lead their own session (setsid, as runc)" {
	# fields 1, 5, 6 of /proc/self/stat: pid, process group, session
	set_args sh -c 'read -r pid _ _ _ pgrp sid _ </proc/self/stat; echo "$pid $pgrp $sid"'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	# sh is the init here: pid 1, its own group and session (was 0 0: the
	# caller's, whose leader the pid namespace cannot see)
	assert_output "1 1 1"
	set_cmd 'exec sleep 1000'
	run_detached "$CID"
	run_nohang runtime exec "$CID" sh -c 'read -r pid _ _ _ pgrp sid _ </proc/self/stat; [ "$pgrp" = "$pid" ] && [ "$sid" = "$pid" ] && echo leader || echo "$pid $pgrp $sid"'
	assert_success
	assert_output leader
}

@test "uid, gid and additionalGids" {
	update_config '.process.user = {uid: 1000, gid: 1001, additionalGids: [5, 6, 1002]}'
	check uid euid suid gid egid sgid groups
	expect uid 1000
	expect euid 1000
	expect suid 1000
	expect gid 1001
	expect egid 1001
	expect sgid 1001
	expect groups 5,6,1002
}

@test "uid/gid as seen by id(1)" {
	update_config '.process.user = {uid: 65534, gid: 65534, additionalGids: [7]}'
	set_cmd 'id -u; id -g; id -G; id'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --index 0 65534
	assert_line --index 1 65534
	assert_line --index 2 "65534 7"
	assert_line --index 3 --partial "uid=65534(nobody) gid=65534(nogroup)"
}

@test "root user without additionalGids has no supplementary groups" {
	check uid gid groups
	expect uid 0
	expect gid 0
	expect groups ""
}

@test "umask from the config" {
	update_config '.process.user.umask = 63' # 0077
	check umask
	expect umask 0077
}

@test "umask 0 is applied too" {
	update_config '.process.user.umask = 0'
	check umask
	expect umask 0000
}

@test "env is exactly process.env" {
	update_config '.process.env = ["PATH=/bin", "FOO=bar", "WITH_EQ=a=b", "SPACES=a b c", "EMPTY="]'
	set_args env
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "PATH=/bin"
	assert_line "FOO=bar"
	assert_line "WITH_EQ=a=b"
	assert_line "SPACES=a b c"
	assert_line "EMPTY="
	refute_line --partial TINYRUN_TEST_TOKEN
	assert_equal "${#lines[@]}" 6   # the five, and HOME (none given: see below)
}

@test "HOME comes from the container's /etc/passwd when process.env has none (as runc), / without an entry" {
	rm -f "$BUNDLE/rootfs/etc/passwd"   # a hard link to the shared base rootfs
	printf 'root:x:0:0:root:/root:/bin/sh\nu42:x:42:42::/home/u42:/bin/sh\n' >"$BUNDLE/rootfs/etc/passwd"
	update_config '.process.env = ["PATH=/bin"]'
	set_args sh -c 'echo "home=$HOME"'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "home=/root"
	runtime delete "$CID" 2>/dev/null || true
	update_config '.process.user = {"uid": 42, "gid": 42}'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_output "home=/home/u42"
	runtime delete "$CID" 2>/dev/null || true
	update_config '.process.user = {"uid": 7, "gid": 7}'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_output "home=/"
	runtime delete "$CID" 2>/dev/null || true
	update_config '.process.env += ["HOME=/given"]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_output "home=/given"
}

@test "env: a name given twice is set once, to its last value; an empty HOME is the passwd's (as runc)" {
	update_config '.process.env = ["ONE=two", "PATH=/nowhere", "ONE=", "HOME=/x", "PATH=/bin", "HOME=", "TWO=2"]'
	set_args env
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	# the last PATH is the one searched (env is found through /bin only)
	assert_equal "$output" "$(printf '%s\n' ONE= PATH=/bin TWO=2 HOME=/root)"
	runtime delete "$CID" 2>/dev/null || true

	update_config '.process.env = ["PATH=/bin", "HOME=/first", "HOME=/last"]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_equal "$output" "$(printf '%s\n' PATH=/bin HOME=/last)"
}

@test "exec --env overrides process.env's value of the same name, once" {
	update_config '.process.env = ["PATH=/bin", "ONE=config", "HOME="]'
	set_args sleep 100
	run_detached "$CID"
	run_nohang runtime exec --env ONE=exec --env TWO=x "$CID" env
	assert_success
	assert_equal "$output" "$(printf '%s\n' PATH=/bin ONE=exec TWO=x HOME=/root)"
}

@test "args reach the program unchanged" {
	set_args sh -c 'for a in "$0" "$@"; do echo "[$a]"; done' zero "a b" "" 'q"uote' '$HOME'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_equal "$output" "$(printf '[%s]\n' zero "a b" "" 'q"uote' '$HOME')"
}

@test "args[0] is looked up in the container's PATH" {
	update_config '.process.env = ["PATH=/nowhere:/bin"]'
	set_args echo found-via-path
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output found-via-path
}

@test "cwd from the config" {
	update_config '.process.cwd = "/tmp"'
	check cwd
	expect cwd /tmp
}

@test "cwd for a non-root user" {
	update_config '.process.cwd = "/home" | .process.user = {uid: 1000, gid: 1000}'
	check cwd uid
	expect cwd /home
	expect uid 1000
}

@test "cwd only root may enter: a non-root user still starts there (chdir before setuid, as runc)" {
	mkdir "$BUNDLE/rootfs/private"
	chmod 0700 "$BUNDLE/rootfs/private"
	update_config '.process.cwd = "/private" | .process.user = {uid: 42, gid: 42}'
	check cwd uid
	expect cwd /private
	expect uid 42
}

@test "cwd only root may enter: root without CAP_DAC_OVERRIDE still starts there" {
	# the template's capabilities lack CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
	mkdir "$BUNDLE/rootfs/theirs"
	chown 42:42 "$BUNDLE/rootfs/theirs"
	chmod 0700 "$BUNDLE/rootfs/theirs"
	update_config '.process.cwd = "/theirs"'
	set_cmd 'pwd; ls . >/dev/null 2>&1 && echo can-list || echo cannot-list'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line /theirs
	# the chdir happened with the runtime's rights; the process has its own
	assert_line cannot-list
}

@test "exec --user 0 into a cwd only its owner may enter (runc#2086)" {
	mkdir "$BUNDLE/rootfs/theirs"
	chown 42:42 "$BUNDLE/rootfs/theirs"
	chmod 0700 "$BUNDLE/rootfs/theirs"
	update_config '.process.cwd = "/theirs" | .process.user = {uid: 42, gid: 42}'
	run_detached "$CID"
	run_nohang runtime exec --user 0 "$CID" pwd
	assert_success
	assert_output /theirs
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "a missing cwd path that cannot be made is still an error naming process.cwd" {
	update_config '.process.cwd = "/bin/busybox/sub"'
	set_args true
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure
	is_runc || assert_output --partial "process.cwd"
}

# tty_run CMD...: CMD under script(1), which gives it a terminal (run with
# process.terminal proxies it); CR and script's echoed ^D removed.
tty_run() {
	run_nohang script -qec "$(printf '%q ' "$@")" /dev/null
	output="$(tr -d '\r' <<<"$output" | sed 's/\^[@D]//g')"
	mapfile -t lines <<<"$output"
}

@test "terminal: the pty (and /dev/console) belong to process.user.uid, group tty kept" {
	update_config '.process.terminal = true | .process.user = {uid: 1000, gid: 100}'
	set_cmd 'stat -L -c "tty %u:%g" /proc/self/fd/0; stat -c "console %u:%g" /dev/console; id -u'
	tty_run "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "tty 1000:5"
	assert_line "console 1000:5"
	assert_line 1000
}

@test "exec -t: the new pty belongs to the exec'd user" {
	run_detached "$CID"
	tty_run "$RUNTIME" --root "$ROOT" exec -t --user 1000:100 "$CID" sh -c 'stat -L -c "tty %u:%g" /proc/self/fd/0; tty'
	assert_success
	assert_line "tty 1000:5"
	assert_line --regexp '^/dev/pts/[0-9]+$'
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "stdio pipes belong to process.user.uid (it can reopen /dev/stdout); /dev/null stays root's" {
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_cmd 'echo via-dev-stdout >/dev/stdout; stat -c "null %u" /dev/null; stat -L -c "stdin %u" /proc/self/fd/0'
	run_nohang bash -c '"$@" | cat' _ "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line via-dev-stdout
	assert_line "null 0"
	# runc's foreground run hands the container pipes, not its own stdin
	is_runc || assert_line "stdin 0"
}

@test "rlimits from the config (checker and /proc/self/limits)" {
	# Hard limits may not exceed ours (no CAP_SYS_RESOURCE on this machine).
	local hard_nofile
	hard_nofile="$(ulimit -Hn)"
	update_config '.process.rlimits = [
		{type: "RLIMIT_NOFILE", soft: 512, hard: ($h | tonumber)},
		{type: "RLIMIT_CORE", soft: 0, hard: 4096},
		{type: "RLIMIT_NPROC", soft: 300, hard: 400},
		{type: "RLIMIT_MSGQUEUE", soft: 8192, hard: 16384}]' --arg h "$hard_nofile"
	check rlimit.
	expect rlimit.NOFILE "512:$hard_nofile"
	expect rlimit.CORE 0:4096
	expect rlimit.NPROC 300:400
	expect rlimit.MSGQUEUE 8192:16384

	set_args cat /proc/self/limits
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --regexp "^Max open files +512 +$hard_nofile +files"
	assert_line --regexp "^Max core file size +0 +4096 +bytes"
	assert_line --regexp "^Max processes +300 +400 +processes"
}

@test "rlimits not in the config are inherited" {
	update_config '.process.rlimits = []'
	check rlimit.STACK
	# ulimit prints KiB, the checker bytes
	local soft hard
	soft="$(ulimit -Ss)"; hard="$(ulimit -Hs)"
	[[ "$soft" == unlimited ]] || soft=$((soft * 1024))
	[[ "$hard" == unlimited ]] || hard=$((hard * 1024))
	expect rlimit.STACK "$soft:$hard"
}

@test "capabilities: root with a coherent set, all five sets exact" {
	set_caps CAP_CHOWN,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETUID \
		CAP_CHOWN,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETUID \
		CAP_CHOWN,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETUID \
		CAP_KILL CAP_KILL
	check CapBnd CapEff CapPrm CapInh CapAmb
	expect CapBnd CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_BIND_SERVICE
	expect CapEff CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_BIND_SERVICE
	expect CapPrm CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_BIND_SERVICE
	expect CapInh CAP_KILL
	expect CapAmb CAP_KILL
}

@test "capabilities: non-root keeps its ambient set across exec" {
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps CAP_CHOWN,CAP_KILL,CAP_NET_BIND_SERVICE \
		CAP_KILL,CAP_NET_BIND_SERVICE CAP_KILL,CAP_NET_BIND_SERVICE \
		CAP_KILL,CAP_NET_BIND_SERVICE CAP_KILL,CAP_NET_BIND_SERVICE
	check CapBnd CapEff CapPrm CapInh CapAmb uid
	expect uid 1000
	expect CapBnd CAP_CHOWN,CAP_KILL,CAP_NET_BIND_SERVICE
	expect CapEff CAP_KILL,CAP_NET_BIND_SERVICE
	expect CapPrm CAP_KILL,CAP_NET_BIND_SERVICE
	expect CapInh CAP_KILL,CAP_NET_BIND_SERVICE
	expect CapAmb CAP_KILL,CAP_NET_BIND_SERVICE
}

@test "capabilities: non-root without ambient has none effective" {
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL "" ""
	check CapBnd CapEff CapPrm CapAmb
	expect CapBnd CAP_CHOWN,CAP_KILL
	expect CapEff ""
	expect CapPrm ""
	expect CapAmb ""
}

@test "capabilities: empty sets drop everything, even for root" {
	set_caps "" "" "" "" ""
	check CapBnd CapEff CapPrm CapInh CapAmb
	expect CapBnd ""
	expect CapEff ""
	expect CapPrm ""
	expect CapInh ""
	expect CapAmb ""
}

@test "capabilities: no capabilities object drops everything" {
	update_config 'del(.process.capabilities)'
	check CapBnd CapEff CapPrm
	expect CapBnd ""
	expect CapEff ""
	expect CapPrm ""
}

@test "capabilities: the kernel enforces them (chown without CAP_CHOWN fails)" {
	bind_out_dir
	set_caps CAP_KILL CAP_KILL CAP_KILL "" ""
	set_cmd 'touch /out/f; chown 1000 /out/f && echo chown-ok || echo chown-denied'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_line chown-denied
	[ "$(stat -c %u "$OUT/f")" = 0 ]
}

@test "noNewPrivileges true sets NoNewPrivs" {
	update_config '.process.noNewPrivileges = true'
	check NoNewPrivs
	expect NoNewPrivs 1
}

@test "noNewPrivileges false leaves NoNewPrivs unset" {
	update_config '.process.noNewPrivileges = false'
	check NoNewPrivs
	expect NoNewPrivs 0
}

@test "oomScoreAdj from the config" {
	update_config '.process.oomScoreAdj = 123'
	check oom_score_adj
	expect oom_score_adj 123
}

@test "no file descriptor leaks into the container" {
	set_args /bin/checker fds
	# extra fds open in the caller of the runtime
	run_nohang_to "$BATS_TEST_TMPDIR/fds.log" bash -c 'exec 7</dev/null 9>/dev/null; exec "$@"' _ \
		"$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	expect fds 0,1,2
}

@test "--preserve-fds N passes fds 3..N+2" {
	set_args /bin/checker fds
	echo preserved >"$BATS_TEST_TMPDIR/p"
	run_nohang_to "$BATS_TEST_TMPDIR/fds.log" bash -c 'exec 3<"$0" 4</dev/null 7</dev/null; exec "$@"' \
		"$BATS_TEST_TMPDIR/p" "$RUNTIME" --root "$ROOT" run --preserve-fds 2 --bundle "$BUNDLE" "$CID"
	assert_success
	expect fds 0,1,2,3,4
}

@test "a preserved fd is usable in the container" {
	echo through-fd-3 >"$BATS_TEST_TMPDIR/p"
	set_cmd 'cat <&3'
	run_nohang_to "$BATS_TEST_TMPDIR/fds.log" bash -c 'exec 3<"$0"; exec "$@"' \
		"$BATS_TEST_TMPDIR/p" "$RUNTIME" --root "$ROOT" run --preserve-fds 1 --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line through-fd-3
}
