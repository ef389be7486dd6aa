#!/usr/bin/env bats
# On Debian 12's own kernel (6.1): what this host's newer kernel allows and
# 6.1 does not, so that tinyrun takes its fallback there. On a host without
# cgroup2 at /sys/fs/cgroup (our hybrid machines), this same file runs in a
# vm-run guest (Debian's 6.1 kernel; guest_setup_file), and every test here
# reports the guest's verdict for itself (as tests/cgroups-v2.bats).

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
	userns_devices
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_userns_devices
	# crun's suite: the whole id range mapped onto itself
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 0, "size": 4294967295}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 0, "size": 4294967295}]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_userns_devices
}
