#!/usr/bin/env bats
# Nothing crosses between two sandbox requests (issue 31 §3, SPEC-NOTES
# "Sandbox profile", "Between requests"): for each channel a task of request A
# holds one end while a task of request B, at the same time and under another
# leased uid, tries the other; where a task of A's own request can use the
# channel, that task shows the probe would see it. tests/lib/isoprobe.c is the
# probe. And the lease range skips /etc/subuid and /etc/subgid.

load helpers

RANGE_FIRST=1900000000
RANGE_LAST=1900065535


# iso_bundle DIR [SPEC OPTIONS...]: sandbox_bundle DIR, with /bin/isoprobe in its image.
iso_bundle() {
	sandbox_bundle "$@" && cp "$TEST_LIB_BIN/isoprobe" "$1/rootfs/bin/isoprobe"
}

# hold ID DIR QUERY...: request ID from bundle DIR runs isoprobe QUERY...
# then sleeps; returns once its last query answered, the answers in $output
# and $lines. $WRAP (words): a command the runtime runs under.
hold() {
	local id="$1" dir="$2" last="${*: -1}"
	BUNDLE="$dir" set_args isoprobe "${@:3}" sleep:3600
	# shellcheck disable=SC2086
	run_nohang_to "$(container_log "$id")" ${WRAP:-} \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$dir" "$id"
	assert_success
	record_container_pid "$id"
	wait_for_file "$(container_log "$id")" "^${last}="
	run cat "$(container_log "$id")"   # $output and $lines: the answers so far
}

# probe ID DIR QUERY...: request ID from bundle DIR runs isoprobe QUERY...
# in the foreground; $output holds the answers.
probe() {
	local id="$1" dir="$2"
	BUNDLE="$dir" set_args isoprobe "${@:3}"
	# shellcheck disable=SC2086
	run_nohang ${WRAP:-} "$RUNTIME" --root "$ROOT" run --bundle "$dir" "$id"
}

# lease ID: the host uid a container's user namespace maps to
lease() {
	awk '{print $2}' "/proc/$(state_field "$1" pid)/uid_map"
}

setup() {
	tr_setup
	build_static "$TESTS_DIR/lib/isoprobe.c"
	iso_bundle "$BUNDLE"
	B="$BATS_TEST_TMPDIR/other"
	iso_bundle "$B"
}

@test "isolation: a file lock on the image taken by one request is not seen by another (its own read-only overlay)" {
	hold "$CID-a" "$BUNDLE" flock:/bin/busybox setlk:/bin/checker
	assert_line "flock:/bin/busybox=ok"
	assert_line "setlk:/bin/checker=ok"
	# the same inodes on the host (hard links of one image), another request, another uid
	[ "$(stat -c %i "$BUNDLE/rootfs/bin/busybox")" = "$(stat -c %i "$B/rootfs/bin/busybox")" ]
	BUNDLE="$B" hold "$CID-b" "$B" flock-ex:/bin/busybox getlk:/bin/checker
	[ "$(lease "$CID-a")" != "$(lease "$CID-b")" ]
	run cat "$(container_log "$CID-b")"
	assert_line "flock-ex:/bin/busybox=free"
	assert_line "getlk:/bin/checker=unlocked"
	# the probe sees a lock held in its own root (a second process of A)
	run runtime exec "$CID-a" isoprobe flock-ex:/bin/busybox getlk:/bin/checker
	assert_line "flock-ex:/bin/busybox=ERR:EAGAIN"
	assert_line "getlk:/bin/checker=locked"
}

@test "isolation: an inotify watch on the image sees no access by another request, one by its own process" {
	BUNDLE="$BUNDLE" set_args isoprobe watch:/bin/busybox wait-event:6 sleep:3600
	run_detached "$CID-a"
	wait_for_file "$(container_log "$CID-a")" "^watch:/bin/busybox="
	probe "$CID-b" "$B" read:/bin/busybox
	assert_success
	assert_line "read:/bin/busybox=ok"
	wait_for_file "$(container_log "$CID-a")" "^wait-event:6="
	run cat "$(container_log "$CID-a")"
	assert_line "watch:/bin/busybox=ok"
	assert_line "wait-event:6=none"
	# the watch sees an access in its own root (a second process of the request)
	BUNDLE="$BUNDLE" set_args isoprobe watch:/bin/busybox wait-event:6 sleep:3600
	run_detached "$CID-c"
	wait_for_file "$(container_log "$CID-c")" "^watch:/bin/busybox="
	run runtime exec "$CID-c" isoprobe read:/bin/busybox
	assert_success
	wait_for_file "$(container_log "$CID-c")" "^wait-event:6="
	run cat "$(container_log "$CID-c")"
	assert_line "wait-event:6=event"
}

@test "isolation: the profile allows unix, inet, inet6 and netlink sockets only: AF_VSOCK and the rest get ENOSYS" {
	# 40 AF_VSOCK (the VM's host, any other guest's listener), 17 AF_PACKET,
	# 38 AF_ALG, 30 AF_TIPC, 21 AF_RDS, 3 AF_AX25, 5 AF_APPLETALK, 9 AF_X25,
	# 12 AF_DECnet, 0 AF_UNSPEC; 2^32+1: AF_UNIX in the kernel's int, refused
	probe "$CID" "$BUNDLE" socket:1:1 socket:2:2 socket:10:1 socket:16:3 \
		socket:40:1 socket:17:3 socket:38:5 socket:30:5 socket:21:5 socket:3:2 socket:5:2 socket:9:5 \
		socket:12:5 socket:0:1 socket:4294967297:1
	assert_success
	assert_line "socket:1:1=ok"
	assert_line "socket:2:2=ok"
	assert_line "socket:10:1=ok"
	assert_line "socket:16:3=ok"
	local f
	for f in 40:1 17:3 38:5 30:5 21:5 3:2 5:2 9:5 12:5 0:1 4294967297:1; do
		assert_line "socket:$f=ERR:ENOSYS"
	done
	# x86-32's socketcall(SYS_SOCKET) hides the family in memory: refused for
	# every one (int $0x80 from this 64-bit task; 32-bit code has the direct call)
	[[ "$(uname -m)" == x86_64 ]] || return 0
	probe "$CID-32" "$BUNDLE" socketcall32:40:1 socketcall32:1:1 socket:1:1
	assert_success
	assert_line "socketcall32:40:1=ERR:EAFNOSUPPORT"
	assert_line "socketcall32:1:1=ERR:EAFNOSUPPORT"
	assert_line "socket:1:1=ok"
}

# with_subids SUBUID SUBGID CMD...: CMD in a private mount namespace where
# the files SUBUID and SUBGID are bound over /etc/subuid and /etc/subgid (the
# host's own files are never touched)
with_subids() {
	unshare -m --propagation private sh -c 'mount --bind "$1" /etc/subuid && mount --bind "$2" /etc/subgid &&
		shift 2 && exec "$@"' sh "$@"
}

@test "isolation: a uid lease skips every range of /etc/subuid and /etc/subgid, read at lease time" {
	local su="$BATS_TEST_TMPDIR/subuid" sg="$BATS_TEST_TMPDIR/subgid"
	printf 'alice:%d:3\n# a comment\nnot a range\n' "$RANGE_FIRST" >"$su"
	printf 'bob:%d:2\n' "$((RANGE_FIRST + 3))" >"$sg"
	set_args isoprobe sleep:3600
	run_nohang_to "$(container_log "$CID-a")" with_subids "$su" "$sg" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$CID-a"
	assert_success
	record_container_pid "$CID-a"
	# RANGE_FIRST .. +2 are alice's, +3 and +4 bob's: the lowest free id is +5
	assert_equal "$(lease "$CID-a")" "$((RANGE_FIRST + 5))"
	assert_equal "$(awk '{print $2}' "/proc/$(state_field "$CID-a" pid)/gid_map")" "$((RANGE_FIRST + 5))"
	# without them (the host's empty files) the lowest id is free again
	run_detached "$CID-b"
	assert_equal "$(lease "$CID-b")" "$RANGE_FIRST"
	# a range wholly listed: refused, nothing left
	BUNDLE="$B" update_config '.annotations["run.tinyrun.userns.range"] = $r' \
		--arg r "$RANGE_FIRST-$((RANGE_FIRST + 4))"
	BUNDLE="$B" run_nohang with_subids "$su" "$sg" "$RUNTIME" --root "$ROOT" run --bundle "$B" "$CID-c"
	assert_failure 1
	assert_output --partial "no free id in $RANGE_FIRST-$((RANGE_FIRST + 4)) (every one is leased to a live container or listed in /etc/subuid or /etc/subgid)"
	[ ! -e "$ROOT/$CID-c" ]
}

@test "isolation: an /etc/subuid that is a symlink, a FIFO or too large is refused by name, nothing left" {
	local sg="$BATS_TEST_TMPDIR/subgid" big="$BATS_TEST_TMPDIR/big"
	: >"$sg"
	mkdir "$BATS_TEST_TMPDIR/etc"   # an /etc whose subuid is a symlink (a bind would follow it)
	ln -s /etc/passwd "$BATS_TEST_TMPDIR/etc/subuid"
	: >"$BATS_TEST_TMPDIR/etc/subgid"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	head -c 1048577 /dev/zero | tr '\0' '#' >"$big"
	local f
	for f in link fifo big; do
		if [[ $f == link ]]; then
			run_nohang unshare -m --propagation private sh -c 'mount --bind "$1" /etc &&
				exec "$2" --root "$3" run --bundle "$4" "$5"' sh "$BATS_TEST_TMPDIR/etc" "$RUNTIME" "$ROOT" "$BUNDLE" "$CID-$f"
		else
			run_nohang with_subids "$BATS_TEST_TMPDIR/$f" "$sg" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID-$f"
		fi
		assert_failure 1
		case $f in
		link) assert_output --partial "tinyrun: run.tinyrun.userns: /etc/subuid: Too many levels of symbolic links" ;;
		fifo) assert_output --partial "tinyrun: run.tinyrun.userns: /etc/subuid: not a regular file (a FIFO)" ;;
		big) assert_output --partial "tinyrun: run.tinyrun.userns: /etc/subuid: larger than 1048576 bytes" ;;
		esac
		[ ! -e "$ROOT/$CID-$f" ]
	done
}

@test "isolation: keyrings: the profile kills add_key and keyctl; without it each request has its own session keyring" {
	probe "$CID" "$BUNDLE" key-add:iso
	assert_failure 159   # SIGSYS
	refute_line "key-add:iso=ok"
	probe "$CID-k" "$BUNDLE" keyring
	assert_failure 159
	# the second fence alone: a new session keyring per container, per-uid user
	# keyrings; the runtime's caller has a session keyring of its own (a login's)
	WRAP="$TEST_LIB_BIN/isoprobe --session"
	update_config 'del(.linux.seccomp)'
	BUNDLE="$B" update_config 'del(.linux.seccomp)'
	hold "$CID-a" "$BUNDLE" keyring key-add:iso ukey-add:iso key-find:iso
	assert_line "keyring=_ses.$CID-a"
	assert_line "key-add:iso=ok"
	assert_line "ukey-add:iso=ok"
	assert_line "key-find:iso=found"   # the probe finds a key where it is
	probe "$CID-b" "$B" keyring key-find:iso ukey-find:iso
	assert_success
	assert_line "keyring=_ses.$CID-b"
	assert_line "key-find:iso=ERR:ENOKEY"
	assert_line "ukey-find:iso=ERR:ENOKEY"
	# a second process of A (exec) has A's uid, so A's user keyring
	run runtime exec "$CID-a" isoprobe ukey-find:iso
	assert_success
	assert_line "ukey-find:iso=found"
}

@test "isolation: SysV and POSIX IPC, /dev/shm and abstract unix sockets reach a task of the same request only" {
	iso_bundle "$BUNDLE" --request-key
	hold "$CID-a" "$BUNDLE" sysv-make:4242 mq-make:isoq touch:/dev/shm/iso abstract-bind:iso touch:/tmp/iso
	assert_line "sysv-make:4242=ok"
	# POSIX message queues live on the ipc namespace's internal mqueue mount,
	# which no Landlock rule reaches: under the sandbox's fence (landlock.bats)
	# mq_open cannot make one at all; without Landlock, A's request has its own
	build_static "$TESTS_DIR/lib/landlock-probe.c"
	local abi mq_ok=ok abstract_ok=ok
	abi="$("$TEST_LIB_BIN/landlock-probe" abi)"
	((abi == 0)) || mq_ok="ERR:EACCES"
	# and from ABI 6 the fence scopes abstract unix sockets to the task's own
	# domain: a task of the same request cannot connect either
	((abi < 6)) || abstract_ok="ERR:EPERM"
	assert_line "mq-make:isoq=$mq_ok"
	assert_line "touch:/dev/shm/iso=ok"
	assert_line "abstract-bind:iso=ok"
	# another request, at the same time, another uid: nothing
	probe "$CID-b" "$B" sysv-get:4242 mq-get:isoq exists:/dev/shm/iso abstract-connect:iso exists:/tmp/iso
	assert_success
	assert_line "sysv-get:4242=ERR:ENOENT"
	assert_line "mq-get:isoq=ERR:ENOENT"
	assert_line "exists:/dev/shm/iso=ERR:ENOENT"
	assert_line "abstract-connect:iso=ERR:ECONNREFUSED"
	assert_line "exists:/tmp/iso=ERR:ENOENT"
	# a task of A's request shares its ipc and network namespaces and /tmp: the probe sees them
	local task="$BATS_TEST_TMPDIR/task"
	iso_bundle "$task" --request "$CID-a"
	cp "$BUNDLE/request.key" "$task/request.key"
	probe "$CID-t" "$task" sysv-get:4242 mq-get:isoq exists:/dev/shm/iso abstract-connect:iso exists:/tmp/iso
	assert_success
	assert_line "sysv-get:4242=ok"
	[[ "$mq_ok" != ok ]] || assert_line "mq-get:isoq=ok"
	assert_line "abstract-connect:iso=$abstract_ok"
	assert_line "exists:/tmp/iso=ok"
	assert_line "exists:/dev/shm/iso=ERR:ENOENT"   # /dev/shm is each container's own tmpfs
}

@test "isolation: io_uring is ENOSYS; clone with a namespace flag kills, clone3 is ENOSYS, plain clone works" {
	probe "$CID" "$BUNDLE" io_uring clone:0 clone3:0 clone3:0x10000000
	assert_success
	assert_line "io_uring=ERR:ENOSYS"
	assert_line "clone:0=ok"
	assert_line "clone3:0=ERR:ENOSYS"
	assert_line "clone3:0x10000000=ERR:ENOSYS"
	local f i=0
	# CLONE_NEWUSER, NEWNET, NEWIPC, NEWNS, NEWPID, NEWUTS, NEWCGROUP: SIGSYS
	for f in 0x10000000 0x40000000 0x08000000 0x00020000 0x20000000 0x04000000 0x02000000; do
		probe "$CID-$((i++))" "$BUNDLE" "clone:$f"
		assert_failure 159
		refute_line "clone:$f=ok"
	done
}

# in_userns_without_userns CMD...: CMD as root of a new user namespace (and
# mount namespace) whose user.max_user_namespaces is 0: the host knob, for
# this namespace only (the host's own value is not touched)
in_userns_without_userns() {
	unshare -U -r -m sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' sh "$@"
}

@test "host: where user.max_user_namespaces is 0 the sandbox is refused naming the knob, in the error and the result, nothing left" {
	local result="$BATS_TEST_TMPDIR/result.json"
	run_nohang in_userns_without_userns "$RUNTIME" --root "$ROOT" run --result "$result" --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output "tinyrun: sandbox: user namespaces are disabled: /proc/sys/user/max_user_namespaces is 0"
	[ ! -e "$ROOT/$CID" ]
	# the result says it never started, and why
	assert_equal "$(jq -r '.reason, .status, .hostBlocked' "$result" | tr '\n' '|')" \
		"not-started|null|user namespaces are disabled: /proc/sys/user/max_user_namespaces is 0|"
	# any config with a user namespace: the kernel's refusal is explained by the same knob
	make_bundle "$BATS_TEST_TMPDIR/plain"
	BUNDLE="$BATS_TEST_TMPDIR/plain" update_config '.linux.namespaces += [{"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 0, "size": 1}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 0, "size": 1}]'
	run_nohang in_userns_without_userns "$RUNTIME" --root "$ROOT" --cgroup-manager disabled run --bundle "$BATS_TEST_TMPDIR/plain" "$CID-plain"
	assert_failure 1
	assert_output --partial "No space left on device: user namespaces are disabled: /proc/sys/user/max_user_namespaces is 0"
	[ ! -e "$ROOT/$CID-plain" ]
}
