#!/usr/bin/env bats
# On Debian 12's own kernel (6.1): what this host's newer kernel allows and
# 6.1 does not, so that tinyrun takes its fallback there. On a host without
# cgroup2 at /sys/fs/cgroup (our hybrid machines), setup_file boots ONE
# vm-run guest (Debian's 6.1 kernel) that runs this same file, and every test
# here reports the guest's verdict for itself (as tests/cgroups-v2.bats).

load helpers

setup_file() {
	guest_setup_file kernel61.bats 900
}

setup() {
	on_cgroup2 || return 0
	tr_setup
}

teardown() {
	on_cgroup2 || return 0
	tr_teardown
}

# 6.1 clones no detached mount (open_tree: EINVAL), and the runtime makes the
# nodes in a detached tmpfs (rootfs/devnodes.c): every such create failed.
@test "kernel 6.1: in a user namespace linux.devices get the config's type, numbers, mode and owner" {
	if ! on_cgroup2; then guest_verdict; return; fi
	map_userns
	update_config '.linux.devices = [
			{"path": "/dev/tr-none", "type": "b", "major": 1, "minor": 5, "uid": 10, "gid": 11, "fileMode": 111},
			{"path": "/dev/sub/zero2", "type": "c", "major": 1, "minor": 5, "fileMode": 416},
			{"path": "/dev/fifo", "type": "p"}]'
	set_cmd 'stat -c "%n %F %t:%T %a %u:%g" /dev/tr-none /dev/sub/zero2 /dev/fifo; head -c 4 /dev/sub/zero2 | wc -c'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "/dev/tr-none block special file 1:5 157 10:11"
	assert_line "/dev/sub/zero2 character special file 1:5 640 0:0"
	assert_line "/dev/fifo fifo 0:0 666 0:0"
	assert_line 4
	[ ! -e /dev/tr-none ] || fail "made on the host"
	# crun's suite: the whole id range mapped onto itself
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 0, "size": 4294967295}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 0, "size": 4294967295}]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "/dev/tr-none block special file 1:5 157 10:11"
}
