#!/usr/bin/env bats
# User namespaces (config-linux.md "User namespace mappings") and rootless
# mode (an unprivileged user runs `tinyrun run` on a `spec --rootless` bundle).

load helpers

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
}

@test "userns: the process is root inside, the maps are the config's" {
	map_userns
	set_cmd 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map | tr -s " "'
	run_ctr
	assert_success
	assert_line 0
	assert_line " 0 100000 65536"
	[ "${#lines[@]}" -ge 4 ]
}

@test "userns: a file the container creates belongs to the mapped host uid" {
	map_userns
	bind_out_dir
	chmod 0777 "$OUT"
	update_config '.process.user = {"uid": 5, "gid": 7}'
	set_cmd 'touch /out/made-inside'
	run_ctr
	assert_success
	assert_equal "$(stat -c %u:%g "$OUT/made-inside")" "100005:100007"
}

@test "userns: process.user is a uid of the namespace" {
	map_userns
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	set_cmd 'id -u; cat /proc/self/status | grep ^Uid'
	run_ctr
	assert_success
	assert_line 1000
	assert_line --regexp '^Uid:.1000.1000.1000.1000$'
}

@test "userns: uid mappings without a user namespace are refused, nothing left" {
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 1}]'
	set_args true
	run_ctr
	assert_failure 1
	assert_output --partial "uidMappings"
	[ -z "$(test_state_dirs)" ]
}

@test "rootless: an unprivileged user runs a spec --rootless bundle" {
	local uid=4242
	rm "$BUNDLE/config.json"
	runtime spec --rootless --bundle "$BUNDLE"
	# `spec --rootless` maps the caller: make it the unprivileged user's view
	update_config '.process.terminal = false | .process.args = ["sh", "-c", "id -u; cat /proc/self/uid_map | tr -s \" \""]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 4242, "size": 1}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 4242, "size": 1}]'
	chown -R "$uid:$uid" "$BUNDLE"
	open_path "$BUNDLE"
	local state="$BATS_TEST_TMPDIR/rootless-state"
	mkdir -p "$state"
	chown "$uid:$uid" "$state"
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$RUNTIME" --root "$state" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line 0
	assert_line " 0 4242 1"
	# nothing left in the unprivileged user's state dir
	[ -z "$(find "$state" -mindepth 1 -maxdepth 1 -not -name '.*')" ]
}

# rootless_true_bundle UID STATE: $BUNDLE is a `spec --rootless` bundle
# running true, mapping the unprivileged UID to root, owned by it; STATE its
# --root.
rootless_true_bundle() {
	local uid="$1" state="$2"
	rm "$BUNDLE/config.json"
	runtime spec --rootless --bundle "$BUNDLE"
	update_config '.process.terminal = false | .process.args = ["true"]
		| .linux.uidMappings = [{"containerID": 0, "hostID": $u, "size": 1}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": $u, "size": 1}]' --argjson u "$uid"
	chown -R "$uid:$uid" "$BUNDLE"
	open_path "$BUNDLE"
	mkdir -p "$state"
	chown "$uid:$uid" "$state"
}

@test "rootless: an unprivileged user execs into its running container (the host's time namespace is not its to join)" {
	local uid=4242 state="$BATS_TEST_TMPDIR/rootless-state"
	rootless_true_bundle "$uid" "$state"
	update_config '.process.args = ["sleep", "1000"]'
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$state" run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$RUNTIME" --root "$state" exec "$CID" sh -c 'id -u; cat /proc/self/uid_map | tr -s " "; readlink /proc/self/ns/time; readlink /proc/1/ns/time'
	local out="$output" st="$status" pidf="$BATS_TEST_TMPDIR/pidf/exec.pid"
	mkdir -p "$(dirname "$pidf")" && chown "$uid:$uid" "$(dirname "$pidf")"
	# its exit status and --pid-file are the process's (not an intermediate's)
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$RUNTIME" --root "$state" exec --pid-file "$pidf" "$CID" sh -c 'echo $$; exit 7'
	local estatus="$status" inner="$output" dpid dcmd
	# detached: the pid file names the live process in the container's pid namespace
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$RUNTIME" --root "$state" exec --detach --pid-file "$pidf.d" "$CID" sleep 1000
	dpid="$(cat "$pidf.d")"
	dcmd="$(tr '\0' ' ' <"/proc/$dpid/cmdline" 2>/dev/null)"
	setpriv --reuid "$uid" --regid "$uid" --clear-groups "$RUNTIME" --root "$state" delete --force "$CID"
	[ "$dcmd" = "sleep 1000 " ]
	[ "$st" = 0 ] || { echo "$out"; false; }
	run printf '%s\n' "$out"
	assert_line 0
	assert_line " 0 4242 1"
	# the exec'd process in the init's time namespace
	[ "${lines[2]}" = "${lines[3]}" ]
	[ "$estatus" = 7 ]
	[[ "$(cat "$pidf")" =~ ^[0-9]+$ && "$inner" =~ ^[0-9]+$ && "$(cat "$pidf")" != "$inner" ]]
	[ -z "$(find "$state" -mindepth 1 -maxdepth 1 -not -name '.*')" ]
}

@test "rootless: the created init, still running the runtime's code, is not dumpable" {
	local uid=4242 state="$BATS_TEST_TMPDIR/rootless-state" pid
	rootless_true_bundle "$uid" "$state"
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$state" create --bundle "$BUNDLE" "$CID"
	assert_success
	pid="$(setpriv --reuid "$uid" --regid "$uid" --clear-groups "$RUNTIME" --root "$state" state "$CID" | jq .pid)"
	# a dumpable process's /proc/PID files belong to its owner (4242), so the
	# container's processes (uid 4242 on the host) could ptrace it or open
	# its exe; a non-dumpable one's belong to root
	run stat -c %u "/proc/$pid/fd"
	setpriv --reuid "$uid" --regid "$uid" --clear-groups "$RUNTIME" --root "$state" delete --force "$CID"
	assert_output 0
	[ -z "$(find "$state" -mindepth 1 -maxdepth 1 -not -name '.*')" ]
}

@test "rootless: a runtime binary the user owns runs from a sealed memfd copy (it may not mount an overlay)" {
	local uid=4242 state="$BATS_TEST_TMPDIR/rootless-state" pid rt="$BATS_TEST_TMPDIR/rt/tinyrun"
	mkdir -p "$(dirname "$rt")"
	cp "$RUNTIME" "$rt"
	chown -R "$uid:$uid" "$(dirname "$rt")"
	open_path "$(dirname "$rt")"
	rootless_true_bundle "$uid" "$state"
	run_nohang setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$TEST_LIB_BIN/subreaper" "$rt" --root "$state" create --bundle "$BUNDLE" "$CID"
	assert_success
	pid="$(setpriv --reuid "$uid" --regid "$uid" --clear-groups "$rt" --root "$state" state "$CID" | jq .pid)"
	run readlink "/proc/$pid/exe"
	local exe="$output"
	# not even the host's root may write it
	run bash -c ': >>"/proc/$1/exe"' _ "$pid"
	setpriv --reuid "$uid" --regid "$uid" --clear-groups "$rt" --root "$state" delete --force "$CID"
	[[ "$exe" == "/memfd:tinyrun (deleted)" ]] || fail "exe is $exe"
	assert_failure
	[ -z "$(find "$state" -mindepth 1 -maxdepth 1 -not -name '.*')" ]
}

@test "rootless: root of a user's own user namespace runs a bundle with a user namespace of its own and linux.devices: the host's nodes, bound (mknod is the initial namespace's)" {
	local uid=4245 xdg="$BATS_TEST_TMPDIR/xdg"
	users_root_bundle "$uid" "$xdg"
	update_config '.linux.namespaces += [{type: "user"}]
		| .linux.uidMappings = [{containerID: 0, hostID: 0, size: 1}]
		| .linux.gidMappings = [{containerID: 0, hostID: 0, size: 1}]
		| .linux.devices = [{path: "/dev/full", type: "c", major: 1, minor: 7}]
		| .process.args = ["sh", "-c", "stat -c \"%t,%T %F\" /dev/full; echo x >/dev/full || echo full; head -c 2 /dev/full | od -An -tx1"]'
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" run --bundle "$BUNDLE" "$CID"
	assert_success
	# the real device (ENOSPC on a write, zeros on a read), not a file or an error
	assert_line "1,7 character special file"
	assert_line --partial "No space left on device"
	assert_line " 00 00"
	assert_no_leftovers
}

@test "rootless: root of a user's own user namespace (rootless podman's way) runs, execs and deletes a bundle without one: state in \$XDG_RUNTIME_DIR/tinyrun, no cgroup, device nodes bound, no setgroups" {
	local uid=4243 xdg="$BATS_TEST_TMPDIR/xdg" c
	users_root_bundle "$uid" "$xdg"
	update_config '.process.args = ["sh", "-c", "cat /proc/self/uid_map | tr -s \" \"; id -G; stat -c \"%t,%T %F\" /dev/null /dev/zero; echo x >/dev/null && head -c 4 /dev/zero | od -An -tx1; sleep 1000"]'
	# one namespace for every command, as podman's: run -d, state, exec, kill, delete
	run_nohang as_users_root "$uid" "$xdg" sh -c '
		"$1" run --detach --bundle "$2" "$3" >"$4/out" 2>&1 || { echo "run failed"; cat "$4/out"; exit 1; }
		"$1" state "$3" | jq -r .status
		for i in $(seq 100); do grep -q " 00 00 00 00" "$4/out" && break; sleep 0.1; done
		echo "dir: $(ls "$XDG_RUNTIME_DIR/tinyrun")"
		for c in /sys/fs/cgroup/*/tinyrun/"$3" /sys/fs/cgroup/tinyrun/"$3"; do [ -e "$c" ] && echo "cgroup: $c"; done
		"$1" exec "$3" sh -c "id -u; id -G"
		"$1" delete --force "$3"
		echo "left: $(ls "$XDG_RUNTIME_DIR/tinyrun")"
		cat "$4/out"' _ "$RUNTIME" "$BUNDLE" "$CID" "$xdg"
	assert_success
	assert_line -n 0 running
	assert_line -n 1 "dir: $CID"
	refute_line -p "cgroup: "
	# exec: root of that namespace, no supplementary group
	assert_line -n 2 0
	assert_line -n 3 0
	assert_line -n 4 "left: "
	# the init: the caller's namespace, nodes bound from the host, usable
	assert_line " 0 4243 1"
	assert_line "1,3 character special file"
	assert_line "1,5 character special file"
	assert_line " 00 00 00 00"
}

@test "rootless: root of a user's own user namespace keeps its compiled seccomp filters in \$XDG_RUNTIME_DIR/tinyrun-cache" {
	local uid=4243 xdg="$BATS_TEST_TMPDIR/xdg" marker="$BATS_TEST_TMPDIR/marker"
	users_root_bundle "$uid" "$xdg"
	update_config '.process.args = ["sh", "-c", "mkdir /tmp/d 2>/dev/null; echo rc=$?"]
		| .linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}'
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" --debug run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line rc=1
	refute_output --partial "not used"
	# the user's (root there), 0700; the host root's /run/tinyrun-cache is not its to write
	[ "$(stat -c '%a %u' "$xdg/tinyrun-cache")" = "700 $uid" ]
	[ -n "$(find "$xdg/tinyrun-cache" -name '*.bpf')" ]
	# the second run reads it: nothing compiled again
	touch "$marker"
	sleep 0.01
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line rc=1
	[ -z "$(find "$xdg/tinyrun-cache" -name '*.bpf' -newer "$marker")" ] || fail "compiled again"
}

@test "rootless: process.user.additionalGids where the user namespace denies setgroups is an error naming them, nothing left" {
	local uid=4243 xdg="$BATS_TEST_TMPDIR/xdg"
	users_root_bundle "$uid" "$xdg"
	update_config '.process.args = ["true"] | .process.user.additionalGids = [0]'
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output "tinyrun: process.user.additionalGids: setgroups denied in the user namespace: Operation not permitted"
	[ -z "$(ls "$xdg/tinyrun")" ]
}

@test "rootless: --rootless false makes a cgroup the user's root may not make an error, nothing left" {
	local uid=4243 xdg="$BATS_TEST_TMPDIR/xdg"
	users_root_bundle "$uid" "$xdg"
	update_config '.process.args = ["true"]'
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" --rootless false run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output -p "cgroup"
	assert_output -p "Permission denied"
	[ -z "$(ls "$xdg/tinyrun")" ]
	run_nohang as_users_root "$uid" "$xdg" "$RUNTIME" --rootless maybe list
	assert_failure 1
	assert_output 'tinyrun: --rootless: expected true, false or auto, got "maybe"'
}

@test "idmapped bind mount: root-owned host files are the container root's, both ways" {
	map_userns
	local vol="$BATS_TEST_TMPDIR/vol"
	mkdir -p "$vol" "$BUNDLE/rootfs/idm"
	echo data >"$vol/host-file"      # owned by host root
	open_path "$vol"
	# idmap 0 -> 100000: on-disk uid 0 is seen as host 100000 through the mount,
	# which is the container's root; without it, host root shows as nobody (65534)
	update_config '.mounts += [{"destination": "/idm", "type": "bind", "source": $src,
		"options": ["bind", "idmap"],
		"uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
		"gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]}]' --arg src "$vol"
	set_cmd 'stat -c "%u:%g" /idm/host-file; touch /idm/made-inside'
	run_ctr
	assert_success
	assert_line "0:0"
	# the container's root writes through the mount as host root
	assert_equal "$(stat -c %u:%g "$vol/made-inside")" "0:0"
}

# A bind source below a directory only the host's root may enter (kubelet
# volume dirs, podman volumes): the runtime clones it before the container's
# root exists (runc passes fds the same way); options still apply.
@test "userns: bind sources the mapped root cannot reach are mounted (ro, rbind, relative source)" {
	map_userns
	mkdir -p "$BUNDLE/locked/rel" "$BATS_TEST_TMPDIR/locked/abs"
	echo rel-data >"$BUNDLE/locked/rel/f"
	echo abs-data >"$BATS_TEST_TMPDIR/locked/abs/f"
	chmod 0700 "$BUNDLE/locked" "$BATS_TEST_TMPDIR/locked"
	update_config '.mounts += [
		{"destination": "/tmp/rel", "type": "bind", "source": "locked/rel", "options": ["rbind", "ro"]},
		{"destination": "/tmp/abs", "type": "bind", "source": $abs, "options": ["bind", "nosuid"]}]' \
		--arg abs "$BATS_TEST_TMPDIR/locked/abs"
	set_cmd 'cat /tmp/rel/f /tmp/abs/f; grep -E " /tmp/(rel|abs) " /proc/self/mountinfo | cut -d" " -f5,6'
	run_ctr
	assert_success
	assert_line rel-data
	assert_line abs-data
	assert_line --regexp '^/tmp/rel ro,'
	assert_line --regexp '^/tmp/abs rw,nosuid'
}

# A source the mapped root can reach is bound by path from inside, so the
# kernel locks what the host mount has: a read-only host mount cannot be made
# writable by the container's root, even with CAP_SYS_ADMIN.
@test "userns: a bind of a read-only host mount stays read-only (locked) for the container's root" {
	map_userns
	local vol="$BATS_TEST_TMPDIR/rovol"
	mkdir -p "$vol" "$BATS_TEST_TMPDIR/rosrc"
	chmod 0777 "$BATS_TEST_TMPDIR/rosrc"
	mount --bind "$BATS_TEST_TMPDIR/rosrc" "$vol"
	mount -o remount,bind,ro "$vol"
	update_config '.mounts += [{"destination": "/tmp/v", "type": "bind", "source": $src, "options": ["bind"]}]
		| .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])' --arg src "$vol"
	set_cmd 'mount -o remount,bind,rw /tmp/v && echo remounted-rw; touch /tmp/v/x && echo wrote; true'
	run_ctr
	umount "$vol"
	assert_success
	refute_output --partial remounted-rw
	refute_output --partial wrote
	[ ! -e "$BATS_TEST_TMPDIR/rosrc/x" ]
}

# runc 1.2+ in a user namespace: a bind's flags the kernel locks (the source's
# ro, nosuid, nodev, noexec; its atime) stay where the entry's flags would drop
# them; an entry that clears one explicitly, or asks for another atime
# setting, fails naming them. The runtime's own clones (a source the mapped
# root cannot reach) lock nothing: the same rule is applied to them by hand.
@test "userns: a bind with flags keeps the source's locked flags; clearing one explicitly, or another atime, fails" {
	map_userns
	mkdir -p "$BATS_TEST_TMPDIR/src" "$BATS_TEST_TMPDIR/hidden"
	mount -t tmpfs "tinyrun-$TOKEN" "$BATS_TEST_TMPDIR/src"
	mount --bind -o remount,nosuid,nodev,noexec,noatime "$BATS_TEST_TMPDIR/src"
	# a second source the mapped root cannot reach: bound from the runtime's clone
	mount -t tmpfs -o mode=0700 "tinyrun-$TOKEN" "$BATS_TEST_TMPDIR/hidden"
	mount --bind -o remount,ro,nosuid "$BATS_TEST_TMPDIR/hidden"
	update_config '.mounts += [
		{"destination": "/tmp/ro", "type": "bind", "source": $src, "options": ["bind", "ro"]},
		{"destination": "/tmp/hid", "type": "bind", "source": $hid, "options": ["bind", "nodev"]}]' \
		--arg src "$BATS_TEST_TMPDIR/src" --arg hid "$BATS_TEST_TMPDIR/hidden"
	set_cmd 'grep -E " /tmp/(ro|hid) " /proc/self/mountinfo'
	local s1 o1 s2 o2 s3 o3
	run_ctr
	s1=$status o1=$output
	update_config '.mounts[-1].options = ["bind", "rw"]'
	run_ctr
	s2=$status o2=$output
	update_config '.mounts[-1].options = ["bind", "strictatime"]'
	run_ctr
	s3=$status o3=$output
	umount "$BATS_TEST_TMPDIR/src" "$BATS_TEST_TMPDIR/hidden"
	status=$s1 output=$o1
	assert_success
	assert_output --regexp '[^ ]+ [^ ]+ [^ ]+ [^ ]+ /tmp/ro ro,nosuid,nodev,noexec,noatime '
	assert_output --regexp '[^ ]+ [^ ]+ [^ ]+ [^ ]+ /tmp/hid ro,nosuid,nodev,relatime '
	status=$s2 output=$o2
	assert_failure 1
	assert_output --partial "mount bind on /tmp/hid: cannot clear ro: the source's mount has them locked in a user namespace"
	status=$s3 output=$o3
	assert_failure 1
	assert_output --partial "mount bind on /tmp/hid: cannot change the atime setting: the source's mount has relatime"
	[ -z "$(test_state_dirs)" ]
}

# The same where the container's root cannot reach the source (a 0700 host
# directory on the way, as kubelet's and podman's volumes): the runtime opens
# it through the child's root, so the child clones its own copy of the mount,
# which the kernel locked; a clone made in the runtime's namespace had no
# flag locked, and the container's root made the host's read-only volume
# writable (until 2026-12-06).
@test "userns: a read-only host volume behind a 0700 directory stays read-only (locked) for the container's root, idmapped or not" {
	map_userns
	local vol="$BATS_TEST_TMPDIR/private/rovol"
	mkdir -p "$vol"
	chmod 0700 "$BATS_TEST_TMPDIR/private"
	mount -t tmpfs -o mode=0777 "tinyrun-$TOKEN" "$vol"
	mount --bind -o remount,ro "$vol"
	update_config '.mounts += [{"destination": "/tmp/v", "type": "bind", "source": $src, "options": ["bind"]}]
		| .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])' --arg src "$vol"
	set_cmd 'grep " /tmp/v " /proc/self/mountinfo; mount -o remount,bind,rw /tmp/v && echo remounted-rw; touch /tmp/v/x && echo wrote; true'
	run_ctr
	local plain_status=$status plain_output=$output
	# an idmapped bind of it: the tree the runtime maps is the child's clone too
	if tmpfs_idmap_ok; then
		update_config '.mounts[-1].options = ["bind", "idmap"]'
		run_ctr
		umount "$vol"
		assert_success
		assert_output --regexp ' /tmp/v ro,[^ ]*idmapped'
		refute_output --partial remounted-rw
		refute_output --partial wrote
	else
		umount "$vol"
	fi
	status=$plain_status output=$plain_output
	assert_success
	assert_output --regexp ' /tmp/v ro[, ]'
	refute_output --partial remounted-rw
	refute_output --partial wrote
}

@test "userns: a missing bind source is an error naming the mount, nothing left" {
	map_userns
	update_config '.mounts += [{"destination": "/tmp/m", "type": "bind", "source": "/nonexistent-src", "options": ["bind"]}]'
	set_args true
	run_ctr
	assert_failure 1
	assert_output --partial "/nonexistent-src on /tmp/m: No such file or directory"
	[ -z "$(test_state_dirs)" ]
}

# The runtime's clones stay within RLIMIT_NOFILE: past the budget, entries
# are bound by path from inside.
@test "userns: 1000 bind mounts with RLIMIT_NOFILE 1024" {
	map_userns
	mkdir -p "$BATS_TEST_TMPDIR/locked/src" "$BATS_TEST_TMPDIR/open"
	echo x >"$BATS_TEST_TMPDIR/locked/src/f"
	echo x >"$BATS_TEST_TMPDIR/open/f"
	chmod 0700 "$BATS_TEST_TMPDIR/locked"
	update_config '.mounts += [range(1000) | {"destination": "/tmp/m/\(.)", "type": "bind",
			"source": (if . < 300 then $locked else $open end), "options": ["bind"]}]' \
		--arg locked "$BATS_TEST_TMPDIR/locked/src" --arg open "$BATS_TEST_TMPDIR/open"
	set_cmd 'cat /tmp/m/*/f | wc -l; grep -c " /tmp/m/" /proc/self/mountinfo'
	run_nohang bash -c 'ulimit -n 1024 && exec "$@"' - "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_equal "${lines[0]}" 1000
	assert_equal "${lines[1]}" 1000
}

@test "userns: a cwd the mapped root may not enter but the user may (root_squash-like) is entered as the user" {
	map_userns
	# owner: the container's uid 1000; group: unmapped, so the namespace's
	# root has no CAP_DAC_OVERRIDE over it
	mkdir "$BUNDLE/rootfs/mine"
	chown 101000:0 "$BUNDLE/rootfs/mine"
	chmod 0700 "$BUNDLE/rootfs/mine"
	update_config '.process.cwd = "/mine" | .process.user = {"uid": 1000, "gid": 1000}'
	set_cmd 'pwd; id -u'
	run_ctr
	assert_success
	assert_line /mine
	assert_line 1000
}

@test "userns: a cwd neither the mapped root nor the user may enter fails, naming process.cwd" {
	map_userns
	mkdir "$BUNDLE/rootfs/mine"
	chown 101000:0 "$BUNDLE/rootfs/mine"
	chmod 0700 "$BUNDLE/rootfs/mine"
	update_config '.process.cwd = "/mine" | .process.user = {"uid": 2000, "gid": 2000}'
	set_args true
	run_ctr
	assert_failure
	is_runc || assert_output --partial "process.cwd /mine: Permission denied"
}

@test "userns: lo is up in the new network namespace (owned by the container's user namespace)" {
	map_userns
	set_cmd 'cat /sys/class/net/lo/operstate; ip -o link show lo'
	run_ctr
	assert_success
	assert_line unknown
	assert_output --regexp 'lo: <LOOPBACK,UP,LOWER_UP>'
}

# runc and crun: "idmap" without mounts[].uidMappings/gidMappings takes the
# container's user namespace mappings, so host root's files are root's inside.
@test "idmapped bind mount without explicit mappings uses the container's userns mappings" {
	map_userns
	local vol="$BATS_TEST_TMPDIR/vol"
	mkdir -p "$vol/d" "$BUNDLE/rootfs/idm" "$BUNDLE/rootfs/ridm"
	echo data >"$vol/d/host-file"
	open_path "$vol"
	update_config '.mounts += [{"destination": "/idm", "type": "bind", "source": $src, "options": ["rbind", "idmap"]},
		{"destination": "/ridm", "type": "bind", "source": $src, "options": ["rbind", "ridmap"]}]' --arg src "$vol"
	set_cmd 'stat -c "%n %u:%g" /idm/d/host-file /ridm/d/host-file; touch /idm/made-inside'
	run_ctr
	assert_success
	assert_line "/idm/d/host-file 0:0"
	assert_line "/ridm/d/host-file 0:0"
	assert_equal "$(stat -c %u:%g "$vol/made-inside")" "0:0"
}

# An idmapped source inside the rootfs names what the earlier entries mounted
# there (runc's "mount order, container idmap source"): the runtime cannot
# clone it before the child exists, so the child clones it at its turn and
# the runtime maps it. With and without a user namespace of the container.
@test "idmapped bind mount whose source is inside the rootfs sees the earlier mounts, mapped" {
	local vol="$BATS_TEST_TMPDIR/vol" rootfs
	rootfs="$(realpath "$BUNDLE/rootfs")"
	mkdir -p "$vol/d" "$BUNDLE/rootfs/mnt" "$BUNDLE/rootfs/final"
	echo data >"$vol/d/host-file"
	open_path "$vol"
	for userns in no yes; do
		cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/config.orig"
		[ "$userns" = yes ] && map_userns
		update_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": $src, "options": ["rbind"]},
			{"destination": "/final", "type": "bind", "source": ($root + "/mnt/d"), "options": ["rbind", "idmap"],
			 "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
			 "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]}]' --arg src "$vol" --arg root "$rootfs"
		set_cmd 'cat /final/host-file; stat -c "%u:%g" /final/host-file /mnt/d/host-file'
		run_ctr
		assert_success
		assert_equal "${lines[0]}" data
		if [ "$userns" = yes ]; then
			# host root's file: the container's root through the idmap, nobody without it
			assert_equal "${lines[1]}" "0:0"
			assert_equal "${lines[2]}" "65534:65534"
		else
			assert_equal "${lines[1]}" "100000:100000"
			assert_equal "${lines[2]}" "0:0"
		fi
		[ ! -e "$BUNDLE/rootfs$rootfs" ]
		cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
	done
}

# Joining a user namespace by path: no linux.uidMappings; "idmap" takes the
# mappings of the namespace the container joins.
@test "idmapped bind mount in a user namespace joined by path: that namespace's mappings" {
	local vol="$BATS_TEST_TMPDIR/vol"
	mkdir -p "$vol/d" "$BUNDLE/rootfs/idm"
	echo data >"$vol/d/host-file"
	open_path "$vol"
	open_path "$BUNDLE"
	unshare --user sleep 3600 &
	local holder=$! i
	record_pid "$holder"
	for i in $(seq 50); do
		[[ "$(readlink /proc/$holder/ns/user)" != "$(readlink /proc/self/ns/user)" ]] && break
		sleep 0.1
	done
	echo "0 100000 65536" >"/proc/$holder/uid_map"
	echo "0 100000 65536" >"/proc/$holder/gid_map"
	update_config '.linux.namespaces += [{"type": "user", "path": $ns}] | del(.linux.uidMappings, .linux.gidMappings)
		| .mounts += [{"destination": "/idm", "type": "bind", "source": $src, "options": ["rbind", "idmap"]}]' \
		--arg src "$vol" --arg ns "/proc/$holder/ns/user"
	set_cmd 'stat -c "%n %u:%g" /idm/d/host-file; cat /proc/self/uid_map | tr -s " "'
	run_ctr
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	assert_success
	assert_line "/idm/d/host-file 0:0"
	assert_line " 0 100000 65536"
}

# crun: a network namespace joined by path that belongs to the host's user
# namespace, with a new user namespace for the container. The container's
# root has no CAP_SYS_ADMIN over that netns, so a fresh sysfs is refused
# (EPERM): the host's /sys is bound read-only instead, as crun does (runc
# fails the mount).
@test "userns: a network namespace joined by path (owned by the host's user namespace) with a new user namespace" {
	map_userns
	unshare --net sleep 3600 &
	local holder=$! i
	record_pid "$holder"
	for i in $(seq 50); do
		[[ "$(readlink /proc/$holder/ns/net)" != "$(readlink /proc/self/ns/net)" ]] && break
		sleep 0.1
	done
	# lo up in that netns: the container must see this one, not a new one
	nsenter -t "$holder" -n ip link set lo up
	update_config '(.linux.namespaces[] | select(.type == "network")) |= {type: "network", path: $ns}' \
		--arg ns "/proc/$holder/ns/net"
	set_cmd 'readlink /proc/self/ns/net; cat /proc/self/uid_map | tr -s " "; ip -o link show lo;
		grep " /sys " /proc/self/mountinfo; (echo x >/sys/kernel/uevent_helper) 2>/dev/null && echo sys-writable; true'
	run_ctr
	local want
	want="$(readlink "/proc/$holder/ns/net")"
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	assert_success
	assert_line --index 0 "$want"
	assert_line --index 1 " 0 100000 65536"
	assert_line --index 2 --regexp 'lo: <LOOPBACK,UP,LOWER_UP>'
	assert_line --index 3 --regexp ' / /sys ro[, ]'
	refute_output --partial sys-writable
}

# runc's "userns join external namespaces [wrong userns owner]": a user
# namespace joined by path and a network namespace joined by path that the
# host's user namespace owns. Once in that user namespace nothing can enter
# the netns any more (no CAP_SYS_ADMIN over it): it is joined before.
@test "userns: a user namespace and a host-owned network namespace, both joined by path" {
	unshare --user sleep 3600 &
	local uholder=$! nholder i
	record_pid "$uholder"
	unshare --net sleep 3600 &
	nholder=$!
	record_pid "$nholder"
	for i in $(seq 50); do
		[[ "$(readlink /proc/$uholder/ns/user)" != "$(readlink /proc/self/ns/user)" &&
			"$(readlink /proc/$nholder/ns/net)" != "$(readlink /proc/self/ns/net)" ]] && break
		sleep 0.1
	done
	echo "0 100000 65536" >"/proc/$uholder/uid_map"
	echo "0 100000 65536" >"/proc/$uholder/gid_map"
	open_path "$BUNDLE"
	update_config '.linux.namespaces |= (map(select(.type != "user" and .type != "network"))
			+ [{"type": "user", "path": $u}, {"type": "network", "path": $n}])
		| del(.linux.uidMappings, .linux.gidMappings)
		| .mounts |= map(if .type == "sysfs" then {destination: .destination, type: "bind", source: "/sys", options: ["rbind", "ro"]} else . end)' \
		--arg u "/proc/$uholder/ns/user" --arg n "/proc/$nholder/ns/net"
	set_cmd 'readlink /proc/self/ns/user; readlink /proc/self/ns/net'
	run_ctr
	local want_u want_n
	want_u="$(readlink "/proc/$uholder/ns/user")"
	want_n="$(readlink "/proc/$nholder/ns/net")"
	kill "$uholder" "$nholder"
	wait "$uholder" "$nholder" 2>/dev/null || true
	assert_success
	assert_line --index 0 "$want_u"
	assert_line --index 1 "$want_n"
}
