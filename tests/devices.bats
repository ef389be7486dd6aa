#!/usr/bin/env bats
# Devices (rootfs/devices.c): the default nodes and links, linux.devices,
# and that an image's own /dev never redirects device set-up.

load helpers

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "$@" "$CID"
}

@test "devices: the default nodes exist with their numbers and mode 0666" {
	set_cmd 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T %a %u:%g" /dev/$d; done'
	run_ctr
	assert_success
	assert_line "/dev/null character special file 1:3 666 0:0"
	assert_line "/dev/zero character special file 1:5 666 0:0"
	assert_line "/dev/full character special file 1:7 666 0:0"
	assert_line "/dev/random character special file 1:8 666 0:0"
	assert_line "/dev/urandom character special file 1:9 666 0:0"
	assert_line "/dev/tty character special file 5:0 666 0:0"
}

@test "devices: the standard links; /dev/shm only where a mount puts it (podman --ipc=none: none)" {
	set_cmd 'for l in fd stdin stdout stderr ptmx; do echo "$l -> $(readlink /dev/$l)"; done; stat -f -c "shm %T" /dev/shm; echo ok >/dev/null && echo null-ok'
	run_ctr
	assert_success
	assert_line "fd -> /proc/self/fd"
	assert_line "stdin -> /proc/self/fd/0"
	assert_line "stdout -> /proc/self/fd/1"
	assert_line "stderr -> /proc/self/fd/2"
	assert_line "ptmx -> pts/ptmx"
	assert_line "shm tmpfs"
	assert_line null-ok
	# without the mount (what podman --ipc=none writes), no /dev/shm at all, as runc
	update_config '.mounts |= map(select(.destination != "/dev/shm"))'
	set_cmd 'ls -d /dev/shm 2>&1; echo done'
	run_ctr
	assert_success
	assert_line --partial "/dev/shm: No such file or directory"
}

@test "devices: linux.devices with type, numbers, fileMode, uid and gid" {
	update_config '.linux.devices = [
		{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229, "fileMode": 384, "uid": 1000, "gid": 1001},
		{"path": "/dev/sub/dir/loopx", "type": "b", "major": 7, "minor": 0},
		{"path": "/dev/fifo", "type": "p"},
		{"path": "/dev/null", "type": "c", "major": 1, "minor": 3, "fileMode": 416}]'
	set_cmd 'stat -c "%n %F %t:%T %a %u:%g" /dev/fuse /dev/sub/dir/loopx /dev/fifo /dev/null'
	run_ctr
	assert_success
	assert_line "/dev/fuse character special file a:e5 600 1000:1001"
	assert_line "/dev/sub/dir/loopx block special file 7:0 666 0:0"
	assert_line "/dev/fifo fifo 0:0 666 0:0"
	assert_line "/dev/null character special file 1:3 640 0:0"
}

@test "devices: an image /dev that links out of the rootfs keeps device set-up inside it" {
	# no tmpfs on /dev: the image's own /dev is used (CVE-2025-52565 class)
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	mkdir -p "$OUT/hostdev"
	rm -rf "$BUNDLE/rootfs/dev"
	mkdir -p "$BUNDLE/rootfs$OUT/hostdev"
	ln -s "../../../../../../../..$OUT/hostdev" "$BUNDLE/rootfs/dev"
	set_cmd 'stat -c "%n %F %t:%T" /dev/null /dev/zero'
	run_ctr
	assert_success
	assert_line "/dev/null character special file 1:3"
	[ -z "$(ls -A "$OUT/hostdev")" ]
	[ -c "$BUNDLE/rootfs$OUT/hostdev/null" ]
}

@test "devices: an image's /dev/null symlink is replaced by the real node" {
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	rm -rf "$BUNDLE/rootfs/dev"
	mkdir "$BUNDLE/rootfs/dev" "$OUT"
	echo keep >"$OUT/target"
	ln -s "$OUT/target" "$BUNDLE/rootfs/dev/null"
	set_cmd 'stat -c "%n %F %t:%T" /dev/null; echo junk >/dev/null'
	run_ctr
	assert_success
	assert_line "/dev/null character special file 1:3"
	[ "$(cat "$OUT/target")" = keep ]
}

# The container's mapped root must be able to reach the bundle.
bundle_reachable() {
	local d="$BUNDLE"
	while [[ "$d" != / ]]; do chmod o+x "$d"; d="$(dirname "$d")"; done
}

@test "devices: in a user namespace the default nodes are the host's, bound; linux.devices work too" {
	update_config '.linux.namespaces += [{"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.devices = [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229}]'
	[ -c /dev/fuse ] || skip "no /dev/fuse on the host"
	bundle_reachable
	set_cmd 'stat -c "%n %F %t:%T" /dev/null /dev/fuse; grep -c " /dev/null " /proc/self/mountinfo; echo x >/dev/null && echo null-ok'
	run_ctr
	assert_success
	assert_line "/dev/null character special file 1:3"
	assert_line "/dev/fuse character special file a:e5"
	assert_line null-ok
}

@test "devices: in a user namespace linux.devices get the config's mode and owner, even nodes the host lacks" {
	update_config '.linux.namespaces += [{"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	userns_devices
	[ ! -e /dev/tr-none ] || skip "the host has a /dev/tr-none"
	bundle_reachable
	run_ctr
	assert_userns_devices
}

@test "devices: a linux.devices node is usable only when resources.devices allows it (as runc)" {
	# /dev/fuse opens without capabilities: only the device cgroup decides
	update_config '.linux.resources.devices = [{"allow": false, "access": "rwm"}]
		| .linux.devices = [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229}]'
	set_cmd 'stat -c "%t:%T" /dev/fuse; (exec 3</dev/fuse) 2>/dev/null && echo open-ok || echo open-denied'
	run_ctr
	assert_success
	assert_line "a:e5"
	assert_line open-denied
	update_config '.linux.resources.devices += [{"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}]'
	run_ctr
	assert_success
	assert_line open-ok
}
