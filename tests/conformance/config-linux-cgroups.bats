#!/usr/bin/env bats
# config-linux.md: Control groups on a cgroup v1 (or hybrid) host: cgroupsPath,
# ownership, allowed device list, memory, cpu, blockIO, hugepageLimits,
# network, pids, rdma, unified, and the "fit for purpose" check.
# The cgroup v2 forms of these statements are in cgroup-v2.bats.

load helpers

setup() {
	conformance_setup
	cgroup_v2_only && skip "cgroup v2 host: see cgroup-v2.bats"
	true
}

res() { cfg ".linux.resources$1" "${@:2}"; }
# cgv CONTROLLER FILE: the value in the container's cgroup (first line)
cgv() { head -1 "$(ct_cgroup_dir "$(v1_dir "$1")")/$2"; }
root_dev() { lsblk -ndo MAJ:MIN "$(findmnt -no SOURCE /)" 2>/dev/null | tr -d ' '; }

# ------------------------------------------------------------- cgroupsPath --

@test "config-linux.md/cgroups-path: MUST take an absolute cgroupsPath relative to the cgroups mount point" {
	cfg '.linux.resources.pids = {"limit": 100} | .linux.resources.memory = {"limit": 268435456}'
	check pause
	create
	local c d
	for c in memory pids devices; do
		d=$(v1_dir "$c") || continue
		expect_eq "$(ct_cgroup_dir "$d")" "$d/$CG_PARENT/$ID" "$c cgroup of the container"
		grep -qx "$(ct_pid)" "$d/$CG_PARENT/$ID/cgroup.procs"
	done
}

@test "config-linux.md/cgroups-path: MUST attach to the same place for the same cgroupsPath" {
	cfg '.linux.cgroupsPath = $p' --arg p "/$CG_PARENT/shared-$ID"
	check pause
	create
	local first
	first=$(ct_cgroup_dir "$(v1_dir memory)")
	delete_force
	make_bundle "$T/b2" "$ID"
	cfg -b "$T/b2" '.linux.cgroupsPath = $p' --arg p "/$CG_PARENT/shared-$ID"
	check -b "$T/b2" pause
	echo "shared-$ID" >>"$T/.ids"
	create "$ID" "$T/b2"
	expect_eq "$(ct_cgroup_dir "$(v1_dir memory)")" "$first" "memory cgroup of the second container"
}

@test "config-linux.md/cgroups-path: MAY interpret a relative cgroupsPath relative to a runtime-determined location" {
	skip "a relative cgroupsPath would create cgroups outside the suite's own tree on this host (tested in cgroup-v2.bats)"
}

@test "config-linux.md/cgroups-path: MAY define the default cgroups path when cgroupsPath is not specified" {
	skip "a default cgroups path would create cgroups outside the suite's own tree on this host (tested in cgroup-v2.bats)"
}

@test "config-linux.md/control-groups: MAY check the cgroup is fit for purpose, and MUST then generate an error (non-empty cgroup)" {
	local cgp=/$CG_PARENT/busy-$ID d
	bg "$CHECKER" pause "$T"
	for d in $(cgroup_dirs); do
		mkdir -p "$d$cgp" && track_cgroup "$d$cgp"
		echo "$BG_PID" >"$d$cgp/cgroup.procs" 2>/dev/null || true
	done
	cfg '.linux.cgroupsPath = $p' --arg p "$cgp"
	check echo:ran
	if create; then
		skip "runtime does not check that the cgroup is empty"
	fi
	expect_no_container
}

@test "config-linux.md/cgroup-ownership: SHOULD NOT change the ownership of the container cgroup with cgroup v1" {
	cfg '.linux.namespaces += [{"type": "user"}, {"type": "cgroup"}]
	   | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
	   | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
	   | .mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "rw"]}]'
	check pause
	create || skip "runtime cannot mount cgroup v1 read-write in a user namespace"
	local d
	for d in $(v1_dir memory) $(v1_dir pids); do
		expect_eq "$(stat -c %u "$(ct_cgroup_dir "$d")")" 0 "owner of $(ct_cgroup_dir "$d")"
		expect_eq "$(stat -c %u "$(ct_cgroup_dir "$d")/cgroup.procs")" 0 "owner of cgroup.procs"
	done
}

# ------------------------------------------------------- allowed device list --

# a /dev/fuse node (opens without capabilities; no runtime allows it by
# default) made in the rootfs, not listed in linux.devices, so only the
# allowed device list decides
fuse_device() {
	mknod -m 666 "$B/rootfs/etc/fuse-test" c 10 229
	check open:/etc/fuse-test:r open:/etc/fuse-test:w open:/etc/fuse-test:rw
}

@test "config-linux.md/device-allowlist: MUST deny access to a device the list does not allow" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:r) $(val open:/etc/fuse-test:w)" "ERR:EPERM ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST allow exactly the access given (r)" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "r"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:r) $(val open:/etc/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST apply entries in the listed order (a later deny wins)" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}, {"allow": false, "type": "c", "major": 10, "minor": 229, "access": "w"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:r) $(val open:/etc/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST apply entries in the listed order (a later allow wins)" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": false, "type": "c", "major": 10, "minor": 229, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:rw)" ok "open rw"
}

@test "config-linux.md/device-allowlist: MUST treat an unset type as all devices (a)" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "access": "rw"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:rw)" ok "open rw"
}

@test "config-linux.md/device-allowlist: MUST treat unset major and minor as all (*)" {
	need_v1 devices
	cfg '.linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "access": "r"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/etc/fuse-test:r) $(val open:/etc/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

# ------------------------------------------------------------------- memory --

@test "config-linux.md/memory: MUST apply limit (memory.limit_in_bytes)" {
	need_v1 memory
	res '.memory = {"limit": 268435456}'
	check pause
	create
	expect_eq "$(cgv memory memory.limit_in_bytes)" 268435456
}

@test "config-linux.md/memory: MUST treat a limit of -1 as unlimited" {
	need_v1 memory
	res '.memory = {"limit": -1}'
	check pause
	create
	expect_eq "$(cgv memory memory.limit_in_bytes)" "$(cat "$(v1_dir memory)/memory.limit_in_bytes")" "limit (the root's unlimited value)"
}

@test "config-linux.md/memory: MUST apply reservation (memory.soft_limit_in_bytes)" {
	need_v1 memory
	res '.memory = {"limit": 268435456, "reservation": 134217728}'
	check pause
	create
	expect_eq "$(cgv memory memory.soft_limit_in_bytes)" 134217728
}

@test "config-linux.md/memory: MUST apply swap (memory.memsw.limit_in_bytes)" {
	need_v1 memory
	[ -e "$(v1_dir memory)/memory.memsw.limit_in_bytes" ] || skip "no swap accounting on this kernel"
	res '.memory = {"limit": 268435456, "swap": 536870912}'
	check pause
	create
	expect_eq "$(cgv memory memory.memsw.limit_in_bytes)" 536870912
}

@test "config-linux.md/memory: MUST apply kernel (memory.kmem.limit_in_bytes, NOT RECOMMENDED)" {
	need_v1 memory
	[ -e "$(v1_dir memory)/memory.kmem.limit_in_bytes" ] || skip "no kmem accounting on this kernel"
	res '.memory = {"limit": 268435456, "kernel": 134217728}'
	check pause
	create
	local v
	v=$(cgv memory memory.kmem.limit_in_bytes)
	[ "$v" = 134217728 ] || skip "kernel ignores memory.kmem.limit_in_bytes (deprecated), reads $v"
}

@test "config-linux.md/memory: MUST apply kernelTCP (memory.kmem.tcp.limit_in_bytes, NOT RECOMMENDED)" {
	need_v1 memory
	[ -e "$(v1_dir memory)/memory.kmem.tcp.limit_in_bytes" ] || skip "no kmem.tcp accounting on this kernel"
	res '.memory = {"limit": 268435456, "kernelTCP": 33554432}'
	check pause
	create
	expect_eq "$(cgv memory memory.kmem.tcp.limit_in_bytes)" 33554432
}

@test "config-linux.md/memory: MUST apply swappiness (memory.swappiness)" {
	need_v1 memory
	res '.memory = {"swappiness": 37}'
	check pause
	create
	expect_eq "$(cgv memory memory.swappiness)" 37
}

@test "config-linux.md/memory: MUST disable the OOM killer with disableOOMKiller" {
	need_v1 memory
	res '.memory = {"limit": 268435456, "disableOOMKiller": true}'
	check pause
	create
	grep -qx 'oom_kill_disable 1' "$(ct_cgroup_dir "$(v1_dir memory)")/memory.oom_control"
}

@test "config-linux.md/memory: MUST keep the OOM killer enabled by default" {
	need_v1 memory
	res '.memory = {"limit": 268435456}'
	check pause
	create
	grep -qx 'oom_kill_disable 0' "$(ct_cgroup_dir "$(v1_dir memory)")/memory.oom_control"
}

@test "config-linux.md/memory: MUST apply useHierarchy (memory.use_hierarchy)" {
	need_v1 memory
	res '.memory = {"useHierarchy": true}'
	check pause
	create
	expect_eq "$(cgv memory memory.use_hierarchy)" 1
}

# ---------------------------------------------------------------------- cpu --

@test "config-linux.md/cpu: MUST apply shares (cpu.shares)" {
	need_v1 cpu
	res '.cpu = {"shares": 512}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.shares)" 512
}

@test "config-linux.md/cpu: MUST apply quota (cpu.cfs_quota_us)" {
	need_v1 cpu
	res '.cpu = {"quota": 50000, "period": 100000}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.cfs_quota_us)" 50000
}

@test "config-linux.md/cpu: MUST apply period (cpu.cfs_period_us)" {
	need_v1 cpu
	res '.cpu = {"quota": 50000, "period": 200000}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.cfs_period_us)" 200000
}

@test "config-linux.md/cpu: MUST apply burst (cpu.cfs_burst_us)" {
	need_v1 cpu
	[ -e "$(v1_dir cpu)/cpu.cfs_burst_us" ] || skip "kernel without cpu.cfs_burst_us"
	res '.cpu = {"quota": 50000, "period": 100000, "burst": 20000}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.cfs_burst_us)" 20000
}

@test "config-linux.md/cpu: MAY generate an error when burst is larger than a positive quota" {
	need_v1 cpu
	res '.cpu = {"quota": 10000, "period": 100000, "burst": 50000}'
	check echo:ran
	if create; then skip "runtime leaves it to the kernel"; fi
	expect_no_container
}

@test "config-linux.md/cpu: MUST apply realtimeRuntime and realtimePeriod (cpu.rt_runtime_us, cpu.rt_period_us)" {
	need_v1 cpu
	local d
	d=$(v1_dir cpu)
	[ -e "$d/cpu.rt_runtime_us" ] || skip "kernel without RT group scheduling"
	# give the suite's parent cgroup a realtime budget to hand down
	mkdir -p "$d/$CG_PARENT"
	echo 20000 >"$d/$CG_PARENT/cpu.rt_runtime_us"
	res '.cpu = {"realtimeRuntime": 10000, "realtimePeriod": 1000000}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.rt_runtime_us) $(cgv cpu cpu.rt_period_us)" "10000 1000000"
}

@test "config-linux.md/cpu: MUST apply cpus (cpuset.cpus)" {
	need_v1 cpuset
	res '.cpu = {"cpus": "0"}'
	check pause
	create
	expect_eq "$(cgv cpuset cpuset.cpus)" 0
}

@test "config-linux.md/cpu: MUST apply mems (cpuset.mems)" {
	need_v1 cpuset
	res '.cpu = {"mems": "0"}'
	check pause
	create
	expect_eq "$(cgv cpuset cpuset.mems)" 0
}

@test "config-linux.md/cpu: MUST run the container on the CPUs of cpus" {
	need_v1 cpuset
	res '.cpu = {"cpus": "0"}'
	check status:Cpus_allowed_list
	run_ct
	expect_eq "$(val status:Cpus_allowed_list)" 0 "Cpus_allowed_list"
}

@test "config-linux.md/cpu: MUST apply idle (cpu.idle)" {
	need_v1 cpu
	[ -e "$(v1_dir cpu)/cpu.idle" ] || skip "kernel without cpu.idle"
	res '.cpu = {"idle": 1}'
	check pause
	create
	expect_eq "$(cgv cpu cpu.idle)" 1
}

# ------------------------------------------------------------------ blockIO --

@test "config-linux.md/blockio: MUST apply weight" {
	need_v1 blkio
	local d
	d=$(v1_dir blkio)
	[ -e "$d/blkio.weight" ] || [ -e "$d/blkio.bfq.weight" ] || skip "no blkio weight file (no CFQ/BFQ) on this host"
	res '.blockIO = {"weight": 300}'
	check pause
	create
	local f=blkio.weight
	[ -e "$d/$f" ] || f=blkio.bfq.weight
	expect_match "$(cgv blkio $f)" '300'
}

@test "config-linux.md/blockio: MUST apply leafWeight" {
	need_v1 blkio
	[ -e "$(v1_dir blkio)/blkio.leaf_weight" ] || skip "no blkio.leaf_weight (CFQ) on this host"
	res '.blockIO = {"leafWeight": 300}'
	check pause
	create
	expect_eq "$(cgv blkio blkio.leaf_weight)" 300
}

@test "config-linux.md/blockio: MUST apply weightDevice" {
	need_v1 blkio
	[ -e "$(v1_dir blkio)/blkio.weight_device" ] || skip "no blkio.weight_device (CFQ) on this host"
	local dev
	dev=$(root_dev)
	res '.blockIO = {"weightDevice": [{"major": ($d | split(":")[0] | tonumber), "minor": ($d | split(":")[1] | tonumber), "weight": 500}]}' --arg d "$dev"
	check pause
	create
	grep -q "^$dev 500" "$(ct_cgroup_dir "$(v1_dir blkio)")/blkio.weight_device"
}

# throttle_test FIELD FILE
throttle_test() {
	need_v1 blkio
	local dev
	dev=$(root_dev)
	[ -n "$dev" ] || skip "no block device under /"
	res ".blockIO = {\"$1\": [{\"major\": (\$d | split(\":\")[0] | tonumber), \"minor\": (\$d | split(\":\")[1] | tonumber), \"rate\": 1048576}]}" --arg d "$dev"
	check pause
	create
	grep -qx "$dev 1048576" "$(ct_cgroup_dir "$(v1_dir blkio)")/$2" || { echo "$2: $(cat "$(ct_cgroup_dir "$(v1_dir blkio)")/$2")" >&2; false; }
}

@test "config-linux.md/blockio: MUST apply throttleReadBpsDevice" { throttle_test throttleReadBpsDevice blkio.throttle.read_bps_device; }
@test "config-linux.md/blockio: MUST apply throttleWriteBpsDevice" { throttle_test throttleWriteBpsDevice blkio.throttle.write_bps_device; }
@test "config-linux.md/blockio: MUST apply throttleReadIOPSDevice" { throttle_test throttleReadIOPSDevice blkio.throttle.read_iops_device; }
@test "config-linux.md/blockio: MUST apply throttleWriteIOPSDevice" { throttle_test throttleWriteIOPSDevice blkio.throttle.write_iops_device; }

# --------------------------------------------------- hugetlb, network, rdma --

@test "config-linux.md/hugepage-limits: MUST apply hugepageLimits (hugetlb.<size>.limit_in_bytes)" {
	need_v1 hugetlb
	res '.hugepageLimits = [{"pageSize": "2MB", "limit": 4194304}]'
	check pause
	create
	local d
	d=$(ct_cgroup_dir "$(v1_dir hugetlb)")
	expect_eq "$(cat "$d/hugetlb.2MB.limit_in_bytes" 2>/dev/null || cat "$d/hugetlb.2MB.rsvd.limit_in_bytes")" 4194304
}

@test "config-linux.md/network: MUST apply classID (net_cls.classid)" {
	need_v1 net_cls
	res '.network = {"classID": 1048577}'
	check pause
	create
	expect_eq "$(cgv net_cls net_cls.classid)" 1048577
}

@test "config-linux.md/network: MUST apply priorities (net_prio.ifpriomap)" {
	need_v1 net_prio
	res '.network = {"priorities": [{"name": "lo", "priority": 5}]}'
	check pause
	create
	grep -qx 'lo 5' "$(ct_cgroup_dir "$(v1_dir net_prio)")/net_prio.ifpriomap"
}

@test "config-linux.md/rdma: MUST apply rdma limits (rdma.max)" {
	need_v1 rdma
	[ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] || skip "no RDMA device on this host"
	local dev
	dev=$(ls /sys/class/infiniband | head -1)
	res '.rdma = {($d): {"hcaHandles": 3, "hcaObjects": 100}}' --arg d "$dev"
	check pause
	create
	grep -q "^$dev hca_handle=3 hca_object=100" "$(ct_cgroup_dir "$(v1_dir rdma)")/rdma.max"
}

# --------------------------------------------------------------------- pids --

@test "config-linux.md/pids: MUST apply limit (pids.max)" {
	need_v1 pids
	res '.pids = {"limit": 42}'
	check pause
	create
	expect_eq "$(cgv pids pids.max)" 42
}

@test "config-linux.md/pids: MUST enforce limit on the container's processes" {
	need_v1 pids
	res '.pids = {"limit": 1}'
	check exec:/bin/checker
	run_ct
	expect_eq "$(val exec:/bin/checker)" ERR:EAGAIN "fork beyond the limit"
}

# ------------------------------------------------------------------ unified --

@test "config-linux.md/unified: MUST generate an error when unified refers to a controller that is not present" {
	grep -qw memory /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null && skip "the unified hierarchy has a memory controller here"
	res '.unified = {"memory.max": "268435456"}'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "runtime ignored unified memory.max" >&2; false; }
}
