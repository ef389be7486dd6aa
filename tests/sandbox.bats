#!/usr/bin/env bats
# The sandbox profile (`spec --sandbox`, README "Sandboxing untrusted code"):
# a leased host uid (run.tinyrun.userns=auto), the minimal root
# (run.tinyrun.rootfs=minimal), no network but lo, limits, seccomp, and the
# tasks of one request (run.tinyrun.sandbox.request). Everything observed
# from inside real containers (/bin/checker) or on the host's side of them.

load helpers

# sandbox_bundle, RANGE_FIRST and RANGE_LAST (the test's lease range): helpers.bash

# task_bundle DIR ID [KEY]: DIR, a task of request ID (`spec --sandbox
# --request ID`) holding a copy of KEY (default: $BUNDLE/request.key, the
# key `spec --sandbox --request-key` made for the request).
task_bundle() {
	sandbox_bundle "$1" --request "$2"
	cp "${3:-$BUNDLE/request.key}" "$1/request.key"
}

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "${1:-$CID}"
}

# host_uid PID: the real uid of a host process
host_uid() {
	awk '/^Uid:/ {print $2}' "/proc/$1/status"
}

setup() {
	tr_setup
	sandbox_bundle
}

@test "sandbox: spec --sandbox writes the profile: leased userns, minimal root, every namespace, limits, seccomp" {
	local cfg="$BUNDLE/config.json"
	assert_equal "$(jq -r '.annotations["run.tinyrun.userns"]' "$cfg")" auto
	assert_equal "$(jq -r '.annotations["run.tinyrun.rootfs"]' "$cfg")" minimal
	assert_equal "$(jq -r '.annotations["run.tinyrun.init"]' "$cfg")" true
	assert_equal "$(jq -c '[.linux.namespaces[].type] | sort' "$cfg")" '["cgroup","ipc","mount","network","pid","user","uts"]'
	assert_equal "$(jq -c '.process.user, .process.noNewPrivileges, .process.capabilities.bounding, .mounts' "$cfg" | tr '\n' ' ')" \
		'{"uid":65534,"gid":65534} true [] [] '
	assert_equal "$(jq -r '.linux.seccomp.defaultErrnoRet' "$cfg")" 38
	run "$RUNTIME" spec --sandbox --rootless -b "$BATS_TEST_TMPDIR"
	assert_failure 1
	assert_output --partial "choose one"
}

# The leased uid need not reach the bundle: the parent enters it before the
# clone, and the minimal root is built through fds (a mount with its target
# as the cwd had to come back to the bundle: "open the cwd: Permission
# denied" on 2026-12-06).
@test "sandbox: a bundle only root can enter (0700) still runs" {
	chmod 0700 "$BUNDLE"
	set_args true
	run_ctr
	assert_success
}

@test "sandbox: uid/gid 65534 inside is one leased host uid outside, with no capability and no group" {
	set_args checker file:/proc/self/uid_map file:/proc/self/gid_map ids status:CapEff status:CapPrm \
		status:CapBnd status:CapAmb status:NoNewPrivs status:Groups sleep:3600
	run_detached "$CID"
	local pid lease
	pid="$(state_field "$CID" pid)"
	lease="$(cat "$ROOT/$CID/uid-lease")"
	assert_equal "$lease" "$RANGE_FIRST"
	wait_for_file "$(container_log "$CID")" "NoNewPrivs"
	run cat "$(container_log "$CID")"
	assert_line --regexp "^file:/proc/self/uid_map= +65534 +$lease +1$"
	assert_line --regexp "^file:/proc/self/gid_map= +65534 +$lease +1$"
	assert_line --regexp "^ids=uid=65534 .*gid=65534"
	assert_line "status:CapEff=0000000000000000"
	assert_line "status:CapPrm=0000000000000000"
	assert_line "status:CapBnd=0000000000000000"
	assert_line "status:CapAmb=0000000000000000"
	assert_line "status:NoNewPrivs=1"
	assert_line --regexp "^status:Groups= *$"
	# the host sees the leased uid and gid
	assert_equal "$(host_uid "$pid")" "$lease"
	assert_equal "$(awk '/^Gid:/ {print $2}' "/proc/$pid/status")" "$lease"
	# --root holds no second container-like directory (runc list skips files)
	assert_equal "$(find "$ROOT" -mindepth 1 -maxdepth 1 -not -type d -printf '%f\n')" ".uid-leases.lock"
}

@test "sandbox: two live sandboxes lease different uids, a full range is refused, a freed uid is reused" {
	RANGE_LAST=$((RANGE_FIRST + 1))
	sandbox_bundle
	set_args checker sleep:3600
	create_container "$CID-a"
	create_container "$CID-b"
	local pa pb
	pa="$(state_field "$CID-a" pid)"
	pb="$(state_field "$CID-b" pid)"
	assert_equal "$(awk '{print $2}' "/proc/$pa/uid_map")" "$RANGE_FIRST"
	assert_equal "$(awk '{print $2}' "/proc/$pb/uid_map")" "$RANGE_LAST"
	[ "$(readlink "/proc/$pa/ns/net")" != "$(readlink "/proc/$pb/ns/net")" ]
	[ "$(readlink "/proc/$pa/ns/ipc")" != "$(readlink "/proc/$pb/ns/ipc")" ]
	# the range is used up: refused, nothing left of the third
	run_nohang runtime create --bundle "$BUNDLE" "$CID-c"
	assert_failure 1
	assert_output --partial "no free id in $RANGE_FIRST-$RANGE_LAST"
	[ ! -e "$ROOT/$CID-c" ]
	# delete returns a's uid; the next sandbox gets it
	runtime kill "$CID-a" KILL
	wait_for_exit "$pa"
	runtime delete "$CID-a"
	create_container "$CID-c"
	assert_equal "$(awk '{print $2}' "/proc/$(state_field "$CID-c" pid)/uid_map")" "$RANGE_FIRST"
}

@test "sandbox: /proc shows only the task's own processes, no /proc/cmdline, meminfo or sys" {
	set_args sh -c 'sleep 60 & checker readdir:/proc read:/proc/cmdline read:/proc/meminfo read:/proc/sys/kernel/hostname mount:/proc; kill $!'
	run_ctr
	assert_success
	# PID 1 is tinyrun-init (run.tinyrun.init), non-dumpable: hidepid=invisible hides it
	assert_line --regexp '^readdir:/proc=2,[0-9]+,[0-9]+,self,thread-self$'
	assert_line "read:/proc/cmdline=ERR:ENOENT"
	assert_line "read:/proc/meminfo=ERR:ENOENT"
	assert_line "read:/proc/sys/kernel/hostname=ERR:ENOENT"
	assert_line --regexp '^mount:/proc=fstype=proc .*subset=pid'
}

@test "sandbox: /sys is an empty read-only tmpfs, no cgroup filesystem anywhere" {
	set_args checker readdir:/sys write:/sys/x mount:/sys file:/proc/self/mountinfo
	run_ctr
	assert_success
	assert_line "readdir:/sys="
	assert_line "write:/sys/x=ERR:EROFS"
	assert_line --regexp '^mount:/sys=fstype=tmpfs opts=ro,'
	refute_output --partial cgroup
	refute_output --partial sysfs
}

@test "sandbox: /, /dev and /etc hold exactly what the profile lists" {
	# what the image has beyond the profile stays out
	mkdir -p "$BUNDLE/rootfs/etc/alternatives" "$BUNDLE/rootfs/root"
	echo secret >"$BUNDLE/rootfs/etc/shadow"
	echo cache >"$BUNDLE/rootfs/etc/ld.so.cache"
	ln -s /bin/busybox "$BUNDLE/rootfs/etc/alternatives/awk"
	# the root is read-only even when the config says otherwise
	update_config '.root.readonly = false'
	set_args checker write:/new readdir:/ readdir:/dev readdir:/etc readdir:/etc/alternatives link:/etc/alternatives/awk \
		file:/etc/ld.so.cache stat:/dev/null write:/dev/null write:/dev/new mount:/workspace mount:/tmp cwd
	run_ctr
	assert_success
	assert_line "write:/new=ERR:EROFS"
	assert_line "readdir:/=bin,dev,etc,proc,sys,tmp,workspace"
	assert_line "readdir:/dev=fd,full,null,random,shm,stderr,stdin,stdout,urandom,zero"
	assert_line "readdir:/etc=alternatives,group,ld.so.cache,passwd"
	assert_line "readdir:/etc/alternatives=awk"
	assert_line "link:/etc/alternatives/awk=/bin/busybox"
	assert_line "file:/etc/ld.so.cache=cache"
	assert_line --regexp '^stat:/dev/null=type=c .*rdev=1:3'
	assert_line "write:/dev/null=ok"
	assert_line "write:/dev/new=ERR:EROFS"
	assert_line --regexp '^mount:/workspace=fstype=tmpfs opts=rw,nosuid,nodev.* super=rw,size=131072k'
	assert_line --regexp '^mount:/tmp=fstype=tmpfs opts=rw,nosuid,nodev.* super=rw,size=131072k'
	assert_line "cwd=/workspace"
}

@test "sandbox: the image's top dirs are bound read-only, a symlink among them stays a symlink inside" {
	local r="$BUNDLE/rootfs"
	# usrmerge, and hostile links: lib at the host's /etc, lib64 outside the image
	mkdir -p "$r/usr" && mv "$r/bin" "$r/usr/bin" && ln -s usr/bin "$r/bin"
	ln -s /etc "$r/lib"
	ln -s ../../../../../../../root "$r/lib64"
	set_args checker link:/bin readdir:/lib readdir:/lib64 write:/usr/bin/x mount:/usr
	run_ctr
	assert_success
	assert_line "link:/bin=usr/bin"
	# /etc inside is the profile's, not the host's
	assert_line "readdir:/lib=group,passwd"
	assert_line "readdir:/lib64=ERR:ENOENT"
	assert_line "write:/usr/bin/x=ERR:EROFS"
	assert_line --regexp '^mount:/usr=fstype=ext4 opts=ro,nosuid,nodev|^mount:/usr=fstype=[a-z0-9]+ opts=ro,nosuid,nodev'
}

@test "sandbox: the network is loopback only, and loopback works; its own hostname, no resolver" {
	# the client retries for up to 30 s: under a parallel `make check` the listener once took
	# more than the 5 s this loop used to allow (a hang guard, not a timing assertion)
	set_args sh -c 'cat /proc/self/net/dev; hostname; ls /etc/resolv.conf /etc/hosts 2>&1
		nc -l -p 5555 >/tmp/got & for i in $(seq 600); do echo over-lo | nc 127.0.0.1 5555 2>/dev/null && break; sleep 0.05; done
		wait; cat /tmp/got'
	run_ctr
	assert_success
	# /proc/self/net/dev: one line per interface, "NAME: counters"
	assert_line --regexp '^ *lo: +[0-9]'
	[ "$(grep -cE '^ *[^ ]+: +[0-9]' <<<"$output")" -eq 1 ]
	assert_line sandbox
	assert_output --partial "/etc/resolv.conf: No such file or directory"
	assert_line over-lo
}

@test "sandbox: the environment is exactly the config's, the only fds are 0-2, rlimits are set" {
	update_config '.process.env += ["ONLY=this"]'
	set_args checker env fds rlimit:CORE rlimit:NOFILE
	run_ctr
	assert_success
	local want got
	want="$(jq -r '.process.env[]' "$BUNDLE/config.json" | sort)"
	got="$(sed -n 's/^env=//p' <<<"$output" | sort)"
	assert_equal "$got" "$want"
	assert_line "fds=0,1,2"
	assert_line "rlimit:CORE=0 0"
	assert_line "rlimit:NOFILE=256 256"
}

@test "sandbox: setuid, setgroups, chroot, mount, sethostname, map rewriting, new namespaces all fail (no seccomp)" {
	# the identity layer alone, without the filter that would kill first
	update_config 'del(.linux.seccomp)'
	set_args checker sys:setuid:0 sys:setgid:0 sys:setgroups:0 sys:chroot:/ sys:mount:/tmp sys:sethostname \
		write:/proc/self/uid_map write:/proc/self/setgroups sys:unshare:0x10000000 sys:unshare:0x40000000 \
		sys:unshare:0x00020000 status:CapEff
	run_ctr
	assert_success
	assert_line "sys:setuid:0=ret=-1 errno=EINVAL"
	assert_line "sys:setgid:0=ret=-1 errno=EINVAL"
	assert_line "sys:setgroups:0=ret=-1 errno=EPERM"
	assert_line "sys:chroot:/=ret=-1 errno=EPERM"
	assert_line "sys:mount:/tmp=ret=-1 errno=EPERM"
	assert_line "sys:sethostname=ret=-1 errno=EPERM"
	assert_line --regexp '^write:/proc/self/uid_map=ERR:E(PERM|ACCES)$'
	assert_line --regexp '^write:/proc/self/setgroups=ERR:E(PERM|ACCES)$'
	# a user namespace inside would give capabilities again: none may be made
	assert_line "sys:unshare:0x10000000=ret=-1 errno=ENOSPC"
	assert_line "sys:unshare:0x40000000=ret=-1 errno=EPERM"
	assert_line "sys:unshare:0x00020000=ret=-1 errno=EPERM"
	assert_line "status:CapEff=0000000000000000"
}

@test "sandbox: with the profile's seccomp filter, unshare and mount kill the task (SIGSYS); strict denies fork" {
	set_args checker sys:unshare:0x10000000
	run_ctr
	assert_failure 159
	set_args checker sys:mount:/tmp
	run_ctr "$CID-2"
	assert_failure 159
	set_args sh -c 'true & wait; echo forked'
	run_ctr "$CID-3"
	assert_success
	assert_line forked
	sandbox_bundle "$BUNDLE" --seccomp strict
	set_args sh -c 'true & wait; echo forked'
	run_ctr "$CID-4"
	assert_failure
	assert_output --partial "can't fork"
	refute_line forked
}

@test "sandbox: memory (no swap), pids and cpu limits are set on the container's cgroup" {
	set_args checker sleep:3600
	run_detached "$CID"
	local pid cg
	pid="$(state_field "$CID" pid)"
	cg="$(awk -F: '$2 == "pids" {print $3}' "/proc/$pid/cgroup")"
	if [[ -n "$cg" ]]; then   # cgroup v1 (this machine)
		assert_equal "$(cat "/sys/fs/cgroup/pids$cg/pids.max")" 128
		assert_equal "$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes")" 536870912
		[[ ! -e "/sys/fs/cgroup/memory$cg/memory.memsw.limit_in_bytes" ]] ||
			assert_equal "$(cat "/sys/fs/cgroup/memory$cg/memory.memsw.limit_in_bytes")" 536870912
		assert_equal "$(cat "/sys/fs/cgroup/cpu$cg/cpu.cfs_quota_us")" 100000
	else
		cg="$(awk -F: '$1 == "0" {print $3}' "/proc/$pid/cgroup")"
		assert_equal "$(cat "/sys/fs/cgroup$cg/pids.max")" 128
		assert_equal "$(cat "/sys/fs/cgroup$cg/memory.max")" 536870912
		assert_equal "$(cat "/sys/fs/cgroup$cg/memory.swap.max")" 0
	fi
}

@test "sandbox: two tasks of one request share the workspace, /tmp, network and uid, not their pid namespace" {
	sandbox_bundle "$BUNDLE" --request-key
	set_args checker write:/workspace/from-first write:/tmp/first-tmp ns:pid ns:net ns:ipc ns:user sleep:3600
	run_detached "$CID"
	wait_for_file "$(container_log "$CID")" "ns:user="
	local task="$BATS_TEST_TMPDIR/task"
	task_bundle "$task" "$CID"
	BUNDLE="$task" set_args checker read:/workspace/from-first read:/tmp/first-tmp write:/workspace/from-task \
		ns:pid ns:net ns:ipc ns:user pid file:/proc/self/uid_map readdir:/proc
	BUNDLE="$task" run_nohang runtime run --bundle "$task" "$CID-task"
	assert_success
	local first
	first="$(cat "$(container_log "$CID")")"
	assert_line "read:/workspace/from-first=ok 2"
	assert_line "read:/tmp/first-tmp=ok 2"
	assert_line "$(grep '^ns:net=' <<<"$first")"
	assert_line "$(grep '^ns:ipc=' <<<"$first")"
	assert_line "$(grep '^ns:user=' <<<"$first")"
	refute_line "$(grep '^ns:pid=' <<<"$first")"
	assert_line "pid=2"     # under its own tinyrun-init, hidden from it (non-dumpable)
	assert_line "readdir:/proc=2,self,thread-self"
	assert_line --regexp "^file:/proc/self/uid_map= +65534 +$RANGE_FIRST +1$"
	# the first one sees what the task wrote
	run runtime exec "$CID" checker read:/workspace/from-task
	assert_success
	assert_output "read:/workspace/from-task=ok 2"
}

@test "sandbox: a request that is not running or not a sandbox is refused, nothing left" {
	local task="$BATS_TEST_TMPDIR/task"
	sandbox_bundle "$BUNDLE" --request-key
	task_bundle "$task" "$CID-none"
	run_nohang runtime run --bundle "$task" "$CID-task"
	assert_failure 1
	assert_output --partial "run.tinyrun.sandbox.request"
	assert_output --partial "does not exist"
	# an ordinary container is no sandbox to join
	local plain="$BATS_TEST_TMPDIR/plain"
	make_bundle "$plain"
	BUNDLE="$plain" run_detached "$CID-plain" --bundle "$plain"
	BUNDLE="$task" update_config '.annotations["run.tinyrun.sandbox.request"] = $id' --arg id "$CID-plain"
	run_nohang runtime run --bundle "$task" "$CID-task"
	assert_failure 1
	assert_output --partial "is not a sandbox"
	[ ! -e "$ROOT/$CID-task" ]
}

# refused_task ID WANT: `run` of the task bundle $task as ID fails with WANT
# (exit 1), and leaves no state dir.
refused_task() {
	run_nohang runtime run --bundle "$task" "$1"
	assert_failure 1
	assert_output --partial "$2"
	refute_output --partial "read:/workspace"
	[ ! -e "$ROOT/$1" ]
}

@test "sandbox: a task joins only with its request's key: none, a wrong one, another request's are refused, nothing left" {
	sandbox_bundle "$BUNDLE" --request-key
	set_args checker write:/workspace/from-first sleep:3600
	run_detached "$CID"
	wait_for_file "$(container_log "$CID")" "write:/workspace/from-first=ok"
	# a second request, with its own key
	local other="$BATS_TEST_TMPDIR/other" task="$BATS_TEST_TMPDIR/task"
	sandbox_bundle "$other" --request-key
	BUNDLE="$other" set_args checker sleep:3600
	BUNDLE="$other" run_detached "$CID-other" --bundle "$other"
	task_bundle "$task" "$CID"
	BUNDLE="$task" set_args checker read:/workspace/from-first
	# no key: the config is refused before anything is made
	BUNDLE="$task" update_config 'del(.annotations["run.tinyrun.sandbox.request-key-file"])'
	refused_task "$CID-task" 'config.json: .annotations["run.tinyrun.sandbox.request"]: needs "run.tinyrun.sandbox.request-key-file"'
	# the annotation without its file
	BUNDLE="$task" update_config '.annotations["run.tinyrun.sandbox.request-key-file"] = "request.key"'
	mv "$task/request.key" "$task/request.key.right"
	refused_task "$CID-task" "run.tinyrun.sandbox.request-key-file: open request.key in the bundle: No such file or directory"
	# a wrong key, one byte off
	sed 's/^./x/' "$task/request.key.right" >"$task/request.key"
	refused_task "$CID-task" "run.tinyrun.sandbox.request-key-file: request.key is not the key of request \"$CID\""
	# the other request's key
	cp "$other/request.key" "$task/request.key"
	refused_task "$CID-task" "request.key is not the key of request \"$CID\""
	# a key reached through a symlink (to the right key) is no key of the bundle
	ln -sf request.key.right "$task/request.key"
	refused_task "$CID-task" "run.tinyrun.sandbox.request-key-file: open request.key in the bundle"
	# a request made without a key takes no tasks, whatever key a task brings
	sandbox_bundle "$other"
	BUNDLE="$other" set_args checker sleep:3600
	BUNDLE="$other" run_detached "$CID-keyless" --bundle "$other"
	BUNDLE="$task" update_config '.annotations["run.tinyrun.sandbox.request"] = $id' --arg id "$CID-keyless"
	rm "$task/request.key" && cp "$task/request.key.right" "$task/request.key"
	refused_task "$CID-task" "run.tinyrun.sandbox.request: container \"$CID-keyless\" takes no tasks"
	# the leases: one per request, none for the refused tasks
	assert_equal "$(cat "$ROOT"/*/uid-lease | sort -n | tr '\n' ' ')" \
		"$RANGE_FIRST $((RANGE_FIRST + 1)) $((RANGE_FIRST + 2)) "
	# the right key: the task sees the request's workspace
	BUNDLE="$task" update_config '.annotations["run.tinyrun.sandbox.request"] = $id' --arg id "$CID"
	run_nohang runtime run --bundle "$task" "$CID-task"
	assert_success
	assert_line "read:/workspace/from-first=ok 2"
}

@test "sandbox: a request's key is in no state file, state or list output: its state dir holds a salted hash only" {
	sandbox_bundle "$BUNDLE" --request-key
	local key other="$BATS_TEST_TMPDIR/other"
	key="$(cat "$BUNDLE/request.key")"
	# spec made a 256-bit key, for the caller's eyes only
	[[ "$key" =~ ^[0-9a-f]{64}$ ]]
	assert_equal "$(stat -c %a "$BUNDLE/request.key")" 600
	assert_equal "$(jq -r '.annotations["run.tinyrun.sandbox.request-key-file"]' "$BUNDLE/config.json")" request.key
	set_args checker sleep:3600
	create_container "$CID"
	# a second request given the same key: another salt, another record
	sandbox_bundle "$other"
	BUNDLE="$other" update_config '.annotations["run.tinyrun.sandbox.request-key-file"] = "request.key"'
	cp "$BUNDLE/request.key" "$other/request.key"
	BUNDLE="$other" set_args checker sleep:3600
	BUNDLE="$other" create_container "$CID-2" --bundle "$other"
	run runtime state "$CID"
	assert_success
	refute_output --partial "$key"
	run runtime list -f json
	assert_success
	assert_output --partial "$CID"
	refute_output --partial "$key"
	run grep -rlF -e "$key" -e "$(sha256sum <"$BUNDLE/request.key" | cut -d' ' -f1)" "$ROOT"
	assert_failure 1
	assert_equal "$(stat -c %a "$ROOT/$CID/request-key")" 600
	assert_equal "$(grep -cE '^sha256 [0-9a-f]{32} [0-9a-f]{64}$' "$ROOT/$CID/request-key")" 1
	[ "$(cat "$ROOT/$CID/request-key")" != "$(cat "$ROOT/$CID-2/request-key")" ]
}

@test "sandbox: a request whose key file is missing, short, a symlink or outside the bundle is refused at create, nothing left" {
	sandbox_bundle "$BUNDLE" --request-key
	set_args checker ids
	rm "$BUNDLE/request.key"
	run_ctr
	assert_failure 1
	assert_output --partial "run.tinyrun.sandbox.request-key-file: open request.key in the bundle: No such file or directory"
	printf 'short-key' >"$BUNDLE/request.key"
	run_ctr
	assert_failure 1
	assert_output --partial "request.key in the bundle: a key is 16 to 4096 bytes"
	rm "$BUNDLE/request.key" && ln -s /etc/hostname "$BUNDLE/request.key"
	run_ctr
	assert_failure 1
	assert_output --partial "open request.key in the bundle"
	update_config '.annotations["run.tinyrun.sandbox.request-key-file"] = "../request.key"'
	run_ctr
	assert_failure 1
	assert_output --partial 'config.json: .annotations["run.tinyrun.sandbox.request-key-file"]: expected a file of the bundle'
	refute_output --partial "ids="
	[ -z "$(test_state_dirs)" ]
}

@test "sandbox: spec --sandbox --request-key / --request ID write the annotations; bad uses are refused, nothing written" {
	local dir="$BATS_TEST_TMPDIR/s"
	mkdir -p "$dir"
	run runtime spec --sandbox --request "$CID" -b "$dir"
	assert_success
	assert_equal "$(jq -r '.annotations["run.tinyrun.sandbox.request"], .annotations["run.tinyrun.sandbox.request-key-file"]' \
		"$dir/config.json" | tr '\n' ' ')" "$CID request.key "
	[ ! -e "$dir/request.key" ]   # the task's copy is the caller's to put there
	rm "$dir/config.json"
	run runtime spec --request "$CID" -b "$dir"
	assert_failure 1
	assert_output --partial "--request needs --sandbox"
	run runtime spec --sandbox --request-key --request "$CID" -b "$dir"
	assert_failure 1
	assert_output --partial "choose one"
	# a key already there is never overwritten, and no config is left behind
	echo old-key-of-someone >"$dir/request.key"
	run runtime spec --sandbox --request-key -b "$dir"
	assert_failure 1
	assert_output --partial "$dir/request.key exists"
	[ ! -e "$dir/config.json" ]
	assert_equal "$(cat "$dir/request.key")" old-key-of-someone
	[ -z "$(ls "$dir" | grep -v request.key)" ]
}

@test "sandbox: the annotations are validated with their path, unknown run.tinyrun.* keys are ignored" {
	update_config '.annotations["run.tinyrun.userns"] = "yes"'
	run_ctr
	assert_failure 1
	assert_output --partial 'config.json: .annotations["run.tinyrun.userns"]: expected "auto"'
	sandbox_bundle
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 1000, "size": 1}] | .linux.gidMappings = .linux.uidMappings'
	run_ctr
	assert_failure 1
	assert_output --partial "the runtime leases the mapping"
	sandbox_bundle
	update_config '.annotations["run.tinyrun.userns.range"] = "10-5"'
	run_ctr
	assert_failure 1
	assert_output --partial "expected FIRST-LAST"
	sandbox_bundle
	update_config '.process.cwd = "/etc"'
	run_ctr
	assert_failure 1
	assert_output --partial "the workspace is .process.cwd"
	sandbox_bundle
	update_config '.annotations["run.tinyrun.some-future-key"] = "x"'
	set_args checker ids
	run_ctr
	assert_success
	assert_line --regexp '^ids=uid=65534'
	[ -z "$(test_state_dirs)" ]
}

@test "sandbox: run.tinyrun.userns=auto also works alone, on an ordinary bundle (the config's uid mapped)" {
	make_bundle "$BATS_TEST_TMPDIR/plain"
	BUNDLE="$BATS_TEST_TMPDIR/plain"
	update_config '.annotations["run.tinyrun.userns"] = "auto" | .annotations["run.tinyrun.userns.range"] = $r |
		.linux.namespaces += [{"type": "user"}] | .process.user = {"uid": 1000, "gid": 1000} |
		(.mounts[] | select(.destination == "/dev/pts") | .options) |= map(select(. != "gid=5")) |
		del(.mounts[] | select(.destination == "/sys/fs/cgroup"))' --arg r "$RANGE_FIRST-$RANGE_LAST"
	open_path "$BUNDLE"   # without the minimal root the set-up runs as the mapped id (as with map_userns)
	set_args checker file:/proc/self/uid_map ids
	run_ctr
	assert_success
	assert_line --regexp "^file:/proc/self/uid_map= +1000 +$RANGE_FIRST +1$"
	assert_line --regexp '^ids=uid=1000 .*gid=1000'
}

@test "sandbox: an image whose /usr is no directory is refused at create: no state, no lease, no mount left" {
	echo not-a-dir >"$BUNDLE/rootfs/usr"
	set_args checker ids
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "the image's /usr is not a directory"
	[ ! -e "$ROOT/$CID" ]
	# the range's first id is free again: the next sandbox gets it
	rm "$BUNDLE/rootfs/usr"
	set_args checker file:/proc/self/uid_map
	run_ctr "$CID-2"
	assert_success
	assert_line --regexp "^file:/proc/self/uid_map= +65534 +$RANGE_FIRST +1$"
}

@test "sandbox: a task of a request has its own cgroup and pid namespace, and keeps the lease while it lives" {
	sandbox_bundle "$BUNDLE" --request-key
	set_args checker sleep:3600
	create_container "$CID"
	local task="$BATS_TEST_TMPDIR/task" p1 p2
	task_bundle "$task" "$CID"
	BUNDLE="$task" set_args checker sleep:3600
	BUNDLE="$task" create_container "$CID-task"
	p1="$(state_field "$CID" pid)"
	p2="$(state_field "$CID-task" pid)"
	# its own cgroup: the pids hierarchy's on v1, the one line's on v2
	local line=':pids:'
	on_cgroup2 && line='^0::'
	[ -n "$(grep "$line" "/proc/$p2/cgroup")" ]
	[ "$(grep "$line" "/proc/$p1/cgroup")" != "$(grep "$line" "/proc/$p2/cgroup")" ]
	[ "$(readlink "/proc/$p1/ns/pid")" != "$(readlink "/proc/$p2/ns/pid")" ]
	[ "$(readlink "/proc/$p1/ns/net")" = "$(readlink "/proc/$p2/ns/net")" ]
	[ "$(readlink "/proc/$p1/ns/user")" = "$(readlink "/proc/$p2/ns/user")" ]
	assert_equal "$(cat "$ROOT/$CID-task/uid-lease")" "$(cat "$ROOT/$CID/uid-lease")"
	# the first one gone, its lease stays with the task: a new sandbox gets another id
	runtime delete -f "$CID"
	wait_for_exit "$p1"
	sandbox_bundle
	set_args checker file:/proc/self/uid_map
	run_ctr "$CID-new"
	assert_success
	assert_line --regexp "^file:/proc/self/uid_map= +65534 +$((RANGE_FIRST + 1)) +1$"
}

@test "room: no core file outside runtime/sandbox/, oci/sandbox/, rootfs/sandbox/ names the sandbox or tinyaws but the allowlist's entry points" {
	# issue 31 §6: the OCI core reaches the room only through its room.h
	run bash "$BATS_TEST_DIRNAME/lib/room-check.sh"
	assert_success
	assert_output ''
	# the check sees a branch: a copy of the tree with one added fails it
	local tree="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$tree/tests/lib"
	cp -r "$BATS_TEST_DIRNAME/../oci" "$BATS_TEST_DIRNAME/../runtime" "$BATS_TEST_DIRNAME/../rootfs" \
		"$BATS_TEST_DIRNAME/../seccomp" "$tree/"
	cp "$BATS_TEST_DIRNAME/lib/room-check.sh" "$BATS_TEST_DIRNAME/lib/room-allowlist.txt" "$tree/tests/lib/"
	echo 'static int f(const struct oci_config *cfg) { return cfg->sandbox.minimal_root; }' >>"$tree/rootfs/pivot.c"
	run bash "$tree/tests/lib/room-check.sh"
	assert_failure
	assert_line --partial 'rootfs/pivot.c:'
}
