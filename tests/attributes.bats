#!/usr/bin/env bats
# Process attributes beyond identity (config.md process.scheduler,
# ioPriority, execCPUAffinity; config-linux.md memoryPolicy, netDevices),
# observed from inside the container.

load helpers

run_fg() {
	run_nohang runtime run --bundle "$BUNDLE" "$@" "$CID"
}

@test "process.scheduler: policy and nice reach the process" {
	update_config '.process.scheduler = {"policy": "SCHED_BATCH", "nice": 7}'
	set_cmd 'grep "^policy" /proc/self/sched | tr -s " "; cut -d" " -f19 /proc/self/stat'
	run_fg
	assert_success
	assert_line --partial "policy : 3"
	assert_line "7"
}

# sched_setattr(2) refuses SCHED_DEADLINE (EPERM) to a process whose CPUs
# are not all of the system's: the error says so (runc's words), exit 1.
@test "process.scheduler SCHED_DEADLINE with linux.resources.cpu.cpus: the error names AllowedCPUs" {
	[[ "$(nproc)" -ge 2 ]] || skip "needs 2 CPUs"
	update_config '.linux.resources.cpu.cpus = "0"
		| .process.scheduler = {"policy": "SCHED_DEADLINE", "runtime": 42000, "deadline": 1000000, "period": 1000000}'
	set_args true
	run_fg
	assert_failure 1
	assert_output --partial "process scheduler can't be used together with AllowedCPUs"
	[ -z "$(test_state_dirs)" ]
}

@test "process.ioPriority: class and priority reach the process" {
	update_config '.process.ioPriority = {"class": "IOPRIO_CLASS_BE", "priority": 5}'
	set_cmd 'ionice -p $$'
	run_fg
	assert_success
	assert_output --partial "best-effort"
	assert_output --partial "5"
}

# execCPUAffinity is exec's (the spec leaves the init out): .final once in
# the cgroup, else .initial kept; with neither, and for the init always, the
# process gets every CPU back -- the caller's taskset never leaks in (runc's
# tryResetCPUAffinity; the kernel still applies the cgroup's cpuset).
@test "process.execCPUAffinity is exec's; the init and a plain exec get every CPU, not the caller's taskset" {
	[[ "$(nproc)" -ge 2 ]] || skip "needs 2 CPUs"
	local all
	all="$(cat /sys/devices/system/cpu/online)"
	[[ "$(grep Cpus_allowed_list /proc/self/status | cut -f2)" == "$all" ]] || skip "the tests run pinned"
	update_config '.process.execCPUAffinity = {"initial": "0", "final": "1"}'
	set_cmd 'grep Cpus_allowed_list /proc/self/status'
	run_nohang taskset -c 0 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output $'Cpus_allowed_list:\t'"$all"
	runtime delete -f "$CID" 2>/dev/null || true
	set_args sleep 1000
	run_detached "$CID"
	local x='grep Cpus_allowed_list /proc/self/status'
	run_nohang taskset -c 0 "$RUNTIME" --root "$ROOT" exec "$CID" sh -c "$x"
	assert_success
	assert_output $'Cpus_allowed_list:\t1'
	echo '{"args": ["sh", "-c", "'"$x"'"], "cwd": "/"}' >"$BATS_TEST_TMPDIR/plain.json"
	run_nohang taskset -c 0 "$RUNTIME" --root "$ROOT" exec -p "$BATS_TEST_TMPDIR/plain.json" "$CID"
	assert_success
	assert_output $'Cpus_allowed_list:\t'"$all"
	echo '{"args": ["sh", "-c", "'"$x"'"], "cwd": "/", "execCPUAffinity": {"initial": "1"}}' \
		>"$BATS_TEST_TMPDIR/initial.json"
	run_nohang taskset -c 0 "$RUNTIME" --root "$ROOT" exec -p "$BATS_TEST_TMPDIR/initial.json" "$CID"
	assert_success
	assert_output $'Cpus_allowed_list:\t1'
}

@test "process.execCPUAffinity: an invalid list fails with the field named" {
	update_config '.process.execCPUAffinity = {"final": "7-3"}'
	set_args true
	run_fg
	assert_failure 1
	assert_output --partial "execCPUAffinity.final"
	[ -z "$(test_state_dirs)" ]
}

@test "linux.memoryPolicy: MPOL_BIND on node 0 shows in numa_maps" {
	[[ -e /proc/self/numa_maps ]] || skip "no NUMA support in this kernel"
	update_config '.linux.memoryPolicy = {"mode": "MPOL_BIND", "nodes": "0"}'
	set_cmd 'grep -m1 -o "bind:0" /proc/self/numa_maps'
	run_fg
	assert_success
	assert_output "bind:0"
}

@test "linux.personality LINUX32: the process and an exec'd one see i686 (as runc)" {
	update_config '.linux.personality = {"domain": "LINUX32"}'
	set_args sleep 1000
	run_detached "$CID"
	run_nohang runtime exec "$CID" uname -m
	assert_success
	assert_output i686
	# exec -p: the container's personality, whatever process.json says
	echo '{"args": ["uname", "-m"], "cwd": "/"}' >"$BATS_TEST_TMPDIR/p.json"
	run_nohang runtime exec -p "$BATS_TEST_TMPDIR/p.json" "$CID"
	assert_success
	assert_output i686
}

@test "linux.netDevices: a host interface moves into the container, renamed" {
	command -v ip >/dev/null || skip "no ip(8)"
	local dev="trv${BATS_TEST_NUMBER}$$"
	dev="${dev:0:12}"
	ip link add "$dev" type veth peer name "${dev}p" || skip "cannot make a veth pair"
	update_config '.linux.netDevices = {($d): {"name": "eth7"}}' --arg d "$dev"
	set_cmd 'ip -o link show | grep -o " eth7[@:]"'
	run_fg
	ip link del "${dev}p" 2>/dev/null || true
	assert_success
	assert_output --partial "eth7"
	# moved out of the host: the container's namespace took it (and destroyed it)
	! ip link show "$dev" 2>/dev/null
}

# A veth pair of this test ($NETDEV, its peer ${NETDEV}p) and maybe a named
# network namespace ($NETNS): teardown removes them whatever happened.
netdev_pair() {
	command -v ip >/dev/null || skip "no ip(8)"
	NETDEV="tna${BATS_TEST_NUMBER}$$"
	NETDEV="${NETDEV:0:12}"
	ip link add "$NETDEV" type veth peer name "${NETDEV}p" || skip "cannot make a veth pair"
}

teardown() {
	if [[ -n "${NETDEV:-}" ]]; then
		# the peer takes its other end with it, wherever that end is
		ip link del "${NETDEV}p" 2>/dev/null
		ip link del "$NETDEV" 2>/dev/null
	fi
	[[ -n "${NETNS:-}" ]] && ip netns del "$NETNS" 2>/dev/null
	tr_teardown
}

# config-linux.md: "MUST preserve existing network interface attributes,
# including all permanent IP addresses ... with global scope" and "MUST set
# the network device state to up"; runc 1.2+ (network_linux.go). The device
# is up on the host with an IPv6 address: setting it down before reading its
# addresses would lose that one (keep_addr_on_down=0).
@test "linux.netDevices: the moved device keeps its global addresses, MTU and MAC, and is up" {
	netdev_pair
	ip link set "$NETDEV" mtu 1789 address 02:11:22:33:44:55
	ip addr add 10.213.7.2/24 dev "$NETDEV"
	ip addr add fd42:7::2/64 dev "$NETDEV" nodad
	# left behind: host scope, and an address with a lifetime (not permanent)
	ip addr add 127.0.0.33/8 dev "$NETDEV"
	ip addr add fd42:8::2/64 dev "$NETDEV" nodad valid_lft 300 preferred_lft 300
	ip link set "${NETDEV}p" up
	ip link set "$NETDEV" up
	update_config '.linux.netDevices = {($d): {"name": "eth7"}}' --arg d "$NETDEV"
	set_cmd 'ip -o addr show dev eth7; ip -o link show dev eth7'
	run_fg
	assert_success
	assert_output --regexp 'inet 10\.213\.7\.2/24 brd 10\.213\.7\.255 scope global eth7'
	assert_output --partial 'inet6 fd42:7::2/64 scope global'
	refute_output --partial '127.0.0.33'
	refute_output --partial 'fd42:8::'
	assert_output --partial 'mtu 1789'
	assert_output --partial 'link/ether 02:11:22:33:44:55'
	assert_output --regexp 'eth7[@:][^<]*<([A-Z_-]+,)*UP[,>]'
}

# A name template ("ctr%d"): the kernel names it; the addresses and "up"
# still reach it.
@test "linux.netDevices: a name template, its addresses and up reach the device" {
	netdev_pair
	ip addr add 10.213.8.2/28 dev "$NETDEV"
	update_config '.linux.netDevices = {($d): {"name": "ctr%d"}}' --arg d "$NETDEV"
	set_cmd 'ip -o addr show dev ctr0; ip -o link show dev ctr0'
	run_fg
	assert_success
	assert_output --partial 'inet 10.213.8.2/28'
	assert_output --regexp 'ctr0[@:][^<]*<([A-Z_-]+,)*UP[,>]'
}

# A network namespace joined by path and no pid namespace: the init enters
# the namespace after its clone, so the move must wait for it (SYNC_NETDEV),
# or the device would stay in the host's namespace, renamed. It stays in the
# joined namespace after the container (the spec: its owner's).
@test "linux.netDevices: into a joined network namespace (no pid namespace), addresses and up" {
	netdev_pair
	NETNS="tna${BATS_TEST_NUMBER}n$$"
	ip netns add "$NETNS" || skip "no ip netns"
	ip addr add 10.213.9.2/24 dev "$NETDEV"
	update_config '.linux.namespaces |= (map(select(.type != "pid"))
			| map(if .type == "network" then .path = $p else . end))
		| .linux.netDevices = {($d): {"name": "eth9"}}' --arg p "/run/netns/$NETNS" --arg d "$NETDEV"
	set_cmd 'ip -o addr show dev eth9; ip -o link show dev eth9'
	run_fg
	assert_success
	assert_output --partial 'inet 10.213.9.2/24'
	assert_output --regexp 'eth9[@:][^<]*<([A-Z_-]+,)*UP[,>]'
	! ip link show "$NETDEV" 2>/dev/null
	run ip netns exec "$NETNS" ip -o addr show dev eth9
	assert_success
	assert_output --partial 'inet 10.213.9.2/24'
}

# The spec: check first that the move can work; a name the container's
# namespace has fails create, and the device stays on the host as it was.
@test "linux.netDevices: a name the container's namespace has fails create, the device stays up on the host" {
	netdev_pair
	ip addr add 10.213.10.2/24 dev "$NETDEV"
	ip link set "${NETDEV}p" up
	ip link set "$NETDEV" up
	update_config '.linux.netDevices = {($d): {"name": "lo"}}' --arg d "$NETDEV"
	set_args true
	run_fg
	assert_failure 1
	assert_output --partial "netDevices[\"$NETDEV\"]: lo in the container's network namespace: File exists"
	[ -z "$(test_state_dirs)" ]
	run ip -o addr show dev "$NETDEV"
	assert_output --partial 'inet 10.213.10.2/24'
	run ip -o link show dev "$NETDEV"
	assert_output --regexp '<([A-Z_-]+,)*UP[,>]'
}

@test "linux.netDevices: a missing interface fails create, nothing left" {
	update_config '.linux.netDevices = {"tinyrun-nope0": {}}'
	set_args true
	run_fg
	assert_failure 1
	assert_output --partial 'netDevices["tinyrun-nope0"]'
	[ -z "$(test_state_dirs)" ]
}
