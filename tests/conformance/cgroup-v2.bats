#!/usr/bin/env bats
# config-linux.md on a cgroup v2 host: cgroupsPath, cgroup ownership, the
# allowed device list (eBPF), resources converted to cgroup v2 files, unified.
#
# On a host without a pure cgroup v2 hierarchy, setup_file boots one guest
# with ../shared/tools/vm-run (or $VM_RUN) and runs this same file there; each
# test on the host then reports the guest's result for it (under tinyrun's
# make check, the guest is the one run-all.sh boots for all such suites:
# guest_batch_tap).  Without vm-run (or with CONFORMANCE_NO_VM=1) the tests
# are skipped.

load helpers

VM_RUN=${VM_RUN:-$CONF_REPO/../shared/tools/vm-run}
GUEST_DIR=$CONF_BUILD/cgroup-v2-guest-$CONF_RUNID

# local: run the test bodies here (a cgroup v2 host, or inside the guest)
local_mode() { cgroup_v2_only; }

setup_file() {
	conformance_setup_file || return 1
	local_mode && return 0
	rm -rf "$GUEST_DIR"
	mkdir -p "$GUEST_DIR"
	if [ "${CONFORMANCE_NO_VM:-}" = 1 ]; then
		echo "CONFORMANCE_NO_VM=1" >"$GUEST_DIR/unavailable"
		return 0
	fi
	if [ ! -x "$VM_RUN" ]; then
		echo "vm-run not found at $VM_RUN" >"$GUEST_DIR/unavailable"
		return 0
	fi
	local st=0 path
	if guest_batch_tap conformance/cgroup-v2.bats >"$GUEST_DIR/guest.tap"; then
		# tinyrun's make check: this file ran in the one guest it boots (tests/lib/guest-batch.sh)
		tail -n 40 "$GUEST_DIR/guest.tap" >"$GUEST_DIR/guest.err"
	else
		# one boot for the whole file; the guest writes its TAP into the shared cwd.
		# bats puts its libexec first in PATH: hand the guest the caller's PATH.
		path=$(tr : '\n' <<<"$PATH" | grep -v 'bats-core' | paste -sd:)
		(cd "$CONF_REPO" && PATH=$path "$VM_RUN" --timeout 3000 -e RUNTIME="$RUNTIME" -e CONF_BUILD="$CONF_BUILD" \
			-e CONFORMANCE_RUNID="$CONF_RUNID" -- \
			"$CONF_BUILD/subreaper" bats --tap "$CONF_DIR/cgroup-v2.bats" \
			</dev/null >"$GUEST_DIR/guest.tap" 2>"$GUEST_DIR/guest.err") || st=$?
	fi
	echo "$st" >"$GUEST_DIR/status"
	# index the results: one file per test description
	awk -v dir="$GUEST_DIR" '
		/^(ok|not ok) [0-9]+ / {
			line = $0; st = ($1 == "not") ? "fail" : "pass"
			sub(/^(ok|not ok) [0-9]+ /, "", line)
			reason = ""
			if (match(line, / # [sS][kK][iI][pP]( |$)/)) { reason = substr(line, RSTART + 8); line = substr(line, 1, RSTART - 1); st = "skip" }
			n++; f = dir "/r" n; print line > (dir "/index." n); close(dir "/index." n)
			print st > f; print reason > f; cur = f; next
		}
		/^#/ && cur != "" { print > cur }' "$GUEST_DIR/guest.tap"
}

teardown_file() { local_mode && conformance_teardown_file; true; }
setup() { if local_mode; then conformance_setup; fi; }
teardown() { if local_mode; then conformance_teardown; fi; }

# guest_result: on the host, report what the guest found for this test and
# return 0; in local mode return 1 so the test body runs.
guest_result() {
	local_mode && return 1
	[ -e "$GUEST_DIR/unavailable" ] && skip "needs cgroup v2: $(cat "$GUEST_DIR/unavailable")"
	local idx f
	for idx in "$GUEST_DIR"/index.*; do
		[ -e "$idx" ] || break
		if [ "$(cat "$idx")" = "$BATS_TEST_DESCRIPTION" ]; then
			f=$GUEST_DIR/r${idx##*.}
			case $(head -1 "$f") in
			pass) return 0 ;;
			skip) skip "(in the cgroup v2 guest) $(sed -n 2p "$f")" ;;
			*) echo "failed in the cgroup v2 guest:"; tail -n +3 "$f"; exit 1 ;;
			esac
		fi
	done
	echo "no guest result (vm-run status $(cat "$GUEST_DIR/status" 2>/dev/null)):"
	tail -20 "$GUEST_DIR/guest.err" 2>/dev/null
	exit 1
}

res() { cfg ".linux.resources$1" "${@:2}"; }
cgdir() { ct_cgroup_dir /sys/fs/cgroup "${1:-}"; }
cgv() { head -1 "$(cgdir)/$1"; }
# conversion test helper: MAY convert; an error is allowed, a wrong value is not
created_or_skip() { create || skip "runtime refuses to convert this setting on cgroup v2: $(tail -1 "$T/$ID.err")"; }
refused() {
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "the runtime ran the container" >&2; return 1; }
}
# a block device for io.max: the disk, or a loop device over a file (the
# guest's root is 9p, with no disk)
block_dev() {
	local d
	d=$(lsblk -ndo MAJ:MIN,TYPE 2>/dev/null | awk '$2 == "disk" {print $1; exit}')
	if [ -z "$d" ]; then
		modprobe loop 2>/dev/null || true
		truncate -s 4M "$T/loop.img"
		local loop
		loop=$(losetup -f --show "$T/loop.img" 2>/dev/null) || return 1
		on_teardown losetup -d "$loop"
		d=$(lsblk -ndo MAJ:MIN "$loop" | tr -d ' ')
	fi
	echo "$d"
}

# ------------------------------------------------------------- cgroupsPath --

@test "config-linux.md/cgroups-path: MUST take an absolute cgroupsPath relative to the cgroup v2 mount point" {
	guest_result && return 0
	check pause
	create
	expect_eq "$(cgdir)" "/sys/fs/cgroup/$CG_PARENT/$ID" "cgroup of the container"
	grep -qx "$(ct_pid)" "/sys/fs/cgroup/$CG_PARENT/$ID/cgroup.procs"
}

@test "config-linux.md/cgroups-path: MUST attach to the same place for the same cgroupsPath (v2)" {
	guest_result && return 0
	cfg '.linux.cgroupsPath = $p' --arg p "/$CG_PARENT/same-$ID"
	check pause
	create
	local first
	first=$(cgdir)
	delete_force
	make_bundle "$T/b2" "$ID"
	cfg -b "$T/b2" '.linux.cgroupsPath = $p' --arg p "/$CG_PARENT/same-$ID"
	check -b "$T/b2" pause
	echo "same-$ID" >>"$T/.ids"
	create "$ID" "$T/b2"
	expect_eq "$(cgdir)" "$first" "cgroup of the second container"
}

@test "config-linux.md/cgroups-path: MAY interpret a relative cgroupsPath relative to a runtime-determined location (v2)" {
	guest_result && return 0
	cfg '.linux.cgroupsPath = $p' --arg p "conformance-relative/$ID"
	check pause
	create || skip "runtime refuses relative cgroupsPath"
	local d
	d=$(cgdir)
	[[ $d == */conformance-relative/$ID ]] || skip "runtime placed the container at $d"
	if [ "$d" = "/sys/fs/cgroup/conformance-relative/$ID" ]; then track_cgroup /sys/fs/cgroup/conformance-relative; fi
}

@test "config-linux.md/cgroups-path: MAY define the default cgroups path when cgroupsPath is not specified (v2)" {
	guest_result && return 0
	cfg 'del(.linux.cgroupsPath)'
	check pause
	create
	local d
	d=$(cgdir)
	[ "$d" != "/sys/fs/cgroup/" ] && [ "$d" != /sys/fs/cgroup ] || skip "runtime left the container in the root cgroup"
	grep -qx "$(ct_pid)" "$d/cgroup.procs"
}

@test "config-linux.md/control-groups: MAY check the cgroup is fit for purpose, and MUST then generate an error (non-empty v2 cgroup)" {
	guest_result && return 0
	local cgp=/sys/fs/cgroup/$CG_PARENT/busy-$ID
	mkdir -p "$cgp" && track_cgroup "$cgp"
	bg "$CHECKER" pause "$T"
	echo "$BG_PID" >"$cgp/cgroup.procs"
	cfg '.linux.cgroupsPath = $p' --arg p "/$CG_PARENT/busy-$ID"
	check echo:ran
	if create; then skip "runtime does not check that the cgroup is empty"; fi
	expect_no_container
}

@test "config-linux.md/namespaces: MUST give the cgroup namespace the container cgroup as root (v2)" {
	guest_result && return 0
	cfg '.linux.namespaces += [{"type": "cgroup"}]'
	check file:/proc/self/cgroup
	run_ct
	expect_eq "$(val file:/proc/self/cgroup)" "0::/" "/proc/self/cgroup"
}

# --------------------------------------------------------- cgroup ownership --

USERNS_CFG='.linux.namespaces += [{"type": "user"}] | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] | .process.user = {"uid": 1000, "gid": 1000}'
CGROUPNS_CFG='.linux.namespaces += [{"type": "cgroup"}]'
RW_CGROUP_MOUNT='.mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime"]}]'
RO_CGROUP_MOUNT='.mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}]'

@test "config-linux.md/cgroup-ownership: SHOULD change the cgroup owner to the container user with userns, cgroupns and a rw cgroup mount" {
	guest_result && return 0
	cfg "$USERNS_CFG | $CGROUPNS_CFG | $RW_CGROUP_MOUNT"
	check pause
	create
	expect_eq "$(stat -c %u:%g "$(cgdir)")" 101000:101000 "owner of the cgroup directory"
}

@test "config-linux.md/cgroup-ownership: SHOULD change the owner of the delegate files that exist" {
	guest_result && return 0
	cfg "$USERNS_CFG | $CGROUPNS_CFG | $RW_CGROUP_MOUNT"
	check pause
	create
	local f list
	list=$(cat /sys/kernel/cgroup/delegate 2>/dev/null || printf 'cgroup.procs\ncgroup.subtree_control\ncgroup.threads\n')
	for f in $list; do
		[ -e "$(cgdir)/$f" ] || continue
		expect_eq "$(stat -c %u "$(cgdir)/$f")" 101000 "owner of $f"
	done
}

@test "config-linux.md/cgroup-ownership: SHOULD NOT change the owner of other cgroup files" {
	guest_result && return 0
	cfg "$USERNS_CFG | $CGROUPNS_CFG | $RW_CGROUP_MOUNT"
	res '.pids = {"limit": 100}'
	check pause
	create
	local f
	for f in pids.max cgroup.type cgroup.max.depth; do
		[ -e "$(cgdir)/$f" ] || continue
		expect_eq "$(stat -c %u "$(cgdir)/$f")" 0 "owner of $f"
	done
}

@test "config-linux.md/cgroup-ownership: SHOULD NOT change the cgroup owner when the cgroup mount is read-only" {
	guest_result && return 0
	cfg "$USERNS_CFG | $CGROUPNS_CFG | $RO_CGROUP_MOUNT"
	check pause
	create
	expect_eq "$(stat -c %u "$(cgdir)")" 0 "owner of the cgroup directory"
}

@test "config-linux.md/cgroup-ownership: SHOULD NOT change the cgroup owner without a cgroup mount" {
	guest_result && return 0
	cfg "$USERNS_CFG | $CGROUPNS_CFG"
	check pause
	create
	expect_eq "$(stat -c %u "$(cgdir)")" 0 "owner of the cgroup directory"
}

@test "config-linux.md/cgroup-ownership: SHOULD NOT change the cgroup owner without a new cgroup namespace" {
	guest_result && return 0
	cfg "$USERNS_CFG | $RW_CGROUP_MOUNT"
	check pause
	create || skip "runtime cannot mount cgroup2 without a cgroup namespace here"
	expect_eq "$(stat -c %u "$(cgdir)")" 0 "owner of the cgroup directory"
}

# ------------------------------------------------- allowed device list (BPF) --

# a /dev/fuse node (opens without capabilities, and no runtime allows it by default) on a tmpfs without nodev
# (the guest's /tmp is nodev), not listed in linux.devices
fuse_device() {
	[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || true
	mkdir -p "$B/rootfs/devtest"
	mount -t tmpfs -o size=64k,mode=755 tmpfs "$B/rootfs/devtest"
	track_mount "$B/rootfs/devtest"
	mknod -m 666 "$B/rootfs/devtest/fuse-test" c 10 229
	check open:/devtest/fuse-test:r open:/devtest/fuse-test:w open:/devtest/fuse-test:rw
}

@test "config-linux.md/device-allowlist: MUST deny access to a device the list does not allow (v2)" {
	guest_result && return 0
	res '.devices = [{"allow": false, "access": "rwm"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/devtest/fuse-test:r) $(val open:/devtest/fuse-test:w)" "ERR:EPERM ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST allow exactly the access given (r) (v2)" {
	guest_result && return 0
	res '.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "r"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/devtest/fuse-test:r) $(val open:/devtest/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST apply entries in the listed order (a later deny wins) (v2)" {
	guest_result && return 0
	res '.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}, {"allow": false, "type": "c", "major": 10, "minor": 229, "access": "w"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/devtest/fuse-test:r) $(val open:/devtest/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

@test "config-linux.md/device-allowlist: MUST apply entries in the listed order (a later allow wins) (v2)" {
	guest_result && return 0
	res '.devices = [{"allow": false, "access": "rwm"}, {"allow": false, "type": "c", "major": 10, "minor": 229, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/devtest/fuse-test:rw)" ok "open rw"
}

@test "config-linux.md/device-allowlist: MUST treat unset major and minor as all (*) (v2)" {
	guest_result && return 0
	res '.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "access": "r"}]'
	fuse_device
	run_ct
	expect_eq "$(val open:/devtest/fuse-test:r) $(val open:/devtest/fuse-test:w)" "ok ERR:EPERM" "open r, open w"
}

# ------------------------------------------------------------------ memory --

@test "config-linux.md/memory: MAY convert limit to memory.max" {
	guest_result && return 0
	res '.memory = {"limit": 268435456}'
	check pause
	created_or_skip
	expect_eq "$(cgv memory.max)" 268435456 memory.max
}

@test "config-linux.md/memory: MAY convert a limit of -1 to memory.max max" {
	guest_result && return 0
	res '.memory = {"limit": -1}'
	check pause
	created_or_skip
	expect_eq "$(cgv memory.max)" max memory.max
}

@test "config-linux.md/memory: MAY convert reservation to memory.low" {
	guest_result && return 0
	res '.memory = {"limit": 268435456, "reservation": 134217728}'
	check pause
	created_or_skip
	expect_eq "$(cgv memory.low)" 134217728 memory.low
}

@test "config-linux.md/memory: MAY convert swap (memory+swap) to memory.swap.max" {
	guest_result && return 0
	[ -e "/sys/fs/cgroup/$CG_PARENT" ] || mkdir -p "/sys/fs/cgroup/$CG_PARENT"
	[ -e "/sys/fs/cgroup/$CG_PARENT/memory.swap.max" ] || skip "no swap accounting in the guest"
	res '.memory = {"limit": 268435456, "swap": 402653184}'
	check pause
	created_or_skip
	expect_eq "$(cgv memory.swap.max)" 134217728 "memory.swap.max (swap - limit)"
}

@test "config-linux.md/unified: MUST generate an error when a v1 setting cannot be converted (memory.kernel)" {
	documented_deviation tinyrun "memory.kernel is ignored on cgroup v2, kernel memory is charged to memory.max (issue 4, as runc; SPEC-NOTES.md)"
	guest_result && return 0
	res '.memory = {"limit": 268435456, "kernel": 134217728}'
	refused
}

@test "config-linux.md/unified: MUST generate an error when a v1 setting cannot be converted (memory.swappiness)" {
	guest_result && return 0
	res '.memory = {"swappiness": 30}'
	refused
}

@test "config-linux.md/unified: MUST generate an error when a v1 setting cannot be converted (network.classID)" {
	guest_result && return 0
	res '.network = {"classID": 1048577}'
	refused
}

# --------------------------------------------------------------------- cpu --

@test "config-linux.md/cpu: MAY convert shares to cpu.weight" {
	guest_result && return 0
	res '.cpu = {"shares": 1024}'
	check pause
	created_or_skip
	# the conversion of runc >= 1.3.2 and crun >= 1.23 (opencontainers/cgroups'
	# ConvertCPUSharesToCgroupV2Value): the default shares are the default weight
	expect_eq "$(cgv cpu.weight)" 100 cpu.weight
}

@test "config-linux.md/cpu: MAY convert quota and period to cpu.max" {
	guest_result && return 0
	res '.cpu = {"quota": 50000, "period": 200000}'
	check pause
	created_or_skip
	expect_eq "$(cgv cpu.max)" "50000 200000" cpu.max
}

@test "config-linux.md/cpu: MAY convert burst to cpu.max.burst" {
	guest_result && return 0
	res '.cpu = {"quota": 50000, "period": 100000, "burst": 20000}'
	check pause
	created_or_skip
	expect_eq "$(cgv cpu.max.burst)" 20000 cpu.max.burst
}

@test "config-linux.md/cpu: MUST apply cpus (cpuset.cpus) on cgroup v2" {
	guest_result && return 0
	res '.cpu = {"cpus": "0"}'
	check pause
	create
	expect_eq "$(cgv cpuset.cpus)" 0 cpuset.cpus
}

@test "config-linux.md/cpu: MUST apply mems (cpuset.mems) on cgroup v2" {
	guest_result && return 0
	res '.cpu = {"mems": "0"}'
	check pause
	create
	expect_eq "$(cgv cpuset.mems)" 0 cpuset.mems
}

@test "config-linux.md/cpu: MUST apply idle (cpu.idle) on cgroup v2" {
	guest_result && return 0
	res '.cpu = {"idle": 1}'
	check pause
	create
	expect_eq "$(cgv cpu.idle)" 1 cpu.idle
}

# ----------------------------------------------------------------- io, pids --

@test "config-linux.md/blockio: MAY convert throttleReadBpsDevice to io.max" {
	guest_result && return 0
	local dev
	dev=$(block_dev) && [ -n "$dev" ] || skip "no block device in the guest"
	res '.blockIO = {"throttleReadBpsDevice": [{"major": ($d | split(":")[0] | tonumber), "minor": ($d | split(":")[1] | tonumber), "rate": 1048576}]}' --arg d "$dev"
	check pause
	created_or_skip
	grep -q "^$dev .*rbps=1048576" "$(cgdir)/io.max" || { echo "io.max: $(cat "$(cgdir)/io.max")" >&2; false; }
}

@test "config-linux.md/blockio: MAY convert throttleWriteIOPSDevice to io.max" {
	guest_result && return 0
	local dev
	dev=$(block_dev) && [ -n "$dev" ] || skip "no block device in the guest"
	res '.blockIO = {"throttleWriteIOPSDevice": [{"major": ($d | split(":")[0] | tonumber), "minor": ($d | split(":")[1] | tonumber), "rate": 300}]}' --arg d "$dev"
	check pause
	created_or_skip
	grep -q "^$dev .*wiops=300" "$(cgdir)/io.max" || { echo "io.max: $(cat "$(cgdir)/io.max")" >&2; false; }
}

@test "config-linux.md/pids: MUST apply limit (pids.max) on cgroup v2" {
	guest_result && return 0
	res '.pids = {"limit": 42}'
	check pause
	create
	expect_eq "$(cgv pids.max)" 42 pids.max
}

@test "config-linux.md/pids: MUST enforce limit on cgroup v2" {
	guest_result && return 0
	res '.pids = {"limit": 1}'
	check exec:/bin/checker
	run_ct
	expect_eq "$(val exec:/bin/checker)" ERR:EAGAIN "fork beyond the limit"
}

@test "config-linux.md/hugepage-limits: MUST apply hugepageLimits on cgroup v2 (hugetlb.2MB.max)" {
	guest_result && return 0
	[ -n "$(ls /sys/kernel/mm/hugepages 2>/dev/null | grep 2048kB)" ] || skip "no 2MB huge pages"
	res '.hugepageLimits = [{"pageSize": "2MB", "limit": 4194304}]'
	check pause
	create
	expect_eq "$(cgv hugetlb.2MB.max)" 4194304 hugetlb.2MB.max
}

# ----------------------------------------------------------------- unified --

@test "config-linux.md/unified: MUST write unified entries to the cgroup files" {
	guest_result && return 0
	res '.unified = {"pids.max": "17", "memory.high": "300000000"}'
	check pause
	create
	expect_eq "$(cgv pids.max) $(cgv memory.high)" "17 299999232" "pids.max memory.high"
}

@test "config-linux.md/unified: MUST write configuration unknown to the runtime (memory.oom.group)" {
	guest_result && return 0
	res '.unified = {"memory.oom.group": "1"}'
	check pause
	create
	expect_eq "$(cgv memory.oom.group)" 1 memory.oom.group
}

@test "config-linux.md/unified: MUST enable the controllers the unified entries need" {
	guest_result && return 0
	res '.unified = {"pids.max": "17"}'
	check pause
	create
	grep -qw pids "$(dirname "$(cgdir)")/cgroup.subtree_control"
	grep -qw pids "$(cgdir)/cgroup.controllers"
}

@test "config-linux.md/unified: MUST generate an error for a controller that is not present" {
	guest_result && return 0
	res '.unified = {"nosuchcontroller.max": "1"}'
	refused
}

@test "config-linux.md/unified: MUST generate an error for a file of a present controller that cannot be written" {
	guest_result && return 0
	res '.unified = {"pids.no_such_file": "1"}'
	refused
}
