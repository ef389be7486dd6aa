#!/usr/bin/env bats
# config-linux.md: Namespaces, User namespace mappings, Offset for Time Namespace

load helpers

USERNS='{"type": "user"}'
MAPS='.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] | .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'

add_ns() { cfg '.linux.namespaces += [{"type": $t}]' --arg t "$1"; }
drop_ns() { cfg '.linux.namespaces |= map(select(.type != $t))' --arg t "$1"; }
ns_path() { cfg '.linux.namespaces |= map(if .type == $t then .path = $p else . end)' --arg t "$1" --arg p "$2"; }
# inode of a namespace link or bind-mounted namespace file
ns_ino() { local l; l=$(readlink "$1" 2>/dev/null) && { echo "${l//[^0-9]/}"; return; }; stat -Lc %i "$1"; }
val_ino() { local v; v=$(val "$1"); echo "${v//[^0-9]/}"; }

# new_ns_file KIND FILE: a persistent namespace of KIND bound at FILE
new_ns_file() {
	touch "$2"
	unshare "--$1=$2" true
	track_mount "$2"
}
# ns_holder fork|exec CMD...: a process in new namespaces (the forked child of
# `unshare --fork`, or unshare itself); its pid in NS_PID
ns_holder() {
	local mode=$1; shift
	"$@" </dev/null >/dev/null 2>&1 3>&- &
	local launcher=$! i
	disown "$launcher" 2>/dev/null || true
	track_pid "$launcher"
	if [ "$mode" = exec ]; then
		for ((i = 0; i < 200; i++)); do
			[ "$(readlink "/proc/$launcher/exe")" = "$CHECKER" ] && break
			sleep 0.02
		done
		NS_PID=$launcher
		return
	fi
	for ((i = 0; i < 200; i++)); do
		NS_PID=$(pgrep -P "$launcher" | head -1)
		[ -n "$NS_PID" ] && break
		sleep 0.02
	done
	[ -n "$NS_PID" ] || NS_PID=$launcher
	track_pid "$NS_PID"
}

# --------------------------------------------------------- namespace types --

@test "config-linux.md/namespaces: SHOULD support the pid namespace type" {
	check ns:pid pid
	run_ct
	[ "$(val ns:pid)" != "$(host_ns pid)" ]
	expect_eq "$(val pid)" 1 "pid inside"
}

@test "config-linux.md/namespaces: SHOULD support the network namespace type" {
	check ns:net
	run_ct
	[ "$(val ns:net)" != "$(host_ns net)" ]
}

@test "config-linux.md/namespaces: SHOULD support the mount namespace type" {
	check ns:mnt
	run_ct
	[ "$(val ns:mnt)" != "$(host_ns mnt)" ]
}

@test "config-linux.md/namespaces: SHOULD support the ipc namespace type" {
	check ns:ipc
	run_ct
	[ "$(val ns:ipc)" != "$(host_ns ipc)" ]
}

@test "config-linux.md/namespaces: SHOULD support the uts namespace type" {
	check ns:uts
	run_ct
	[ "$(val ns:uts)" != "$(host_ns uts)" ]
}

@test "config-linux.md/namespaces: SHOULD support the user namespace type" {
	add_ns user
	cfg "$MAPS"
	check ns:user
	run_ct
	[ "$(val ns:user)" != "$(host_ns user)" ]
}

@test "config-linux.md/namespaces: SHOULD support the cgroup namespace type" {
	add_ns cgroup
	check ns:cgroup
	run_ct
	[ "$(val ns:cgroup)" != "$(host_ns cgroup)" ]
}

@test "config-linux.md/namespaces: SHOULD support the time namespace type" {
	[ -e /proc/self/ns/time ] || skip "kernel without time namespaces"
	add_ns time
	check ns:time
	run_ct
	[ "$(val ns:time)" != "$(host_ns time)" ]
}

@test "config-linux.md/namespaces: MUST let pid namespace processes see only the container's processes" {
	check procs
	run_ct
	expect_eq "$(val procs)" 1 "pids in /proc"
}

@test "config-linux.md/namespaces: MUST give the network namespace its own network stack" {
	check readdir:/sys/class/net
	run_ct
	expect_eq "$(val readdir:/sys/class/net)" lo "network interfaces"
}

@test "config-linux.md/namespaces: MUST give the mount namespace an isolated mount table" {
	add_mount '{"destination": "/isolated", "type": "tmpfs", "source": "tmpfs"}'
	check pause
	create_running
	grep -q ' /isolated ' "/proc/$(ct_pid)/mountinfo"
	! grep -qF "$B" /proc/self/mountinfo
}

@test "config-linux.md/namespaces: MUST isolate System V IPC with the ipc namespace" {
	need_cmd ipcmk
	local id
	id=$(ipcmk -M 4096 | awk '{print $NF}')
	on_teardown ipcrm -m "$id"
	check file:/proc/sysvipc/shm
	run_ct
	expect_eq "$(vals file:/proc/sysvipc/shm | wc -l)" 1 "lines of /proc/sysvipc/shm (header only)"
}

@test "config-linux.md/namespaces: MUST give the cgroup namespace an isolated view of the cgroup hierarchy" {
	add_ns cgroup
	check file:/proc/self/cgroup
	run_ct
	local line
	while read -r line; do
		[[ $line == *:/ ]] || { echo "cgroup line $line is not the namespace root" >&2; false; }
	done < <(vals file:/proc/self/cgroup)
}

# ---------------------------------------------------------------- path join --

@test "config-linux.md/namespaces: MUST place the container in the network namespace at path" {
	new_ns_file net "$T/netns"
	ns_path network "$T/netns"
	check ns:net
	run_ct
	expect_eq "$(val_ino ns:net)" "$(stat -c %i "$T/netns")" "net namespace inode"
}

@test "config-linux.md/namespaces: MUST place the container in the uts namespace at path" {
	new_ns_file uts "$T/utsns"
	ns_path uts "$T/utsns"
	cfg 'del(.hostname)'
	check ns:uts
	run_ct
	expect_eq "$(val_ino ns:uts)" "$(stat -c %i "$T/utsns")" "uts namespace inode"
}

@test "config.md/hostname: with the uts namespace at path, MUST set the hostname in that namespace (as runc)" {
	new_ns_file uts "$T/utsns"
	ns_path uts "$T/utsns"
	cfg '.hostname = "tr-joined"'
	check hostname ns:uts
	run_ct
	expect_eq "$(val hostname)" tr-joined "the container's hostname"
	expect_eq "$(nsenter --uts="$T/utsns" hostname)" tr-joined "the joined namespace's hostname"
	[ "$(hostname)" != tr-joined ] || { echo "the host's hostname changed" >&2; return 1; }
}

@test "config-linux.md/namespaces: MUST place the container in the ipc namespace at path" {
	new_ns_file ipc "$T/ipcns"
	ns_path ipc "$T/ipcns"
	check ns:ipc
	run_ct
	expect_eq "$(val_ino ns:ipc)" "$(stat -c %i "$T/ipcns")" "ipc namespace inode"
}

@test "config-linux.md/namespaces: MUST place the container in the pid namespace at path" {
	ns_holder fork unshare --pid --fork "$CHECKER" pause "$T"
	ns_path pid "/proc/$NS_PID/ns/pid"
	check ns:pid pid
	run_ct
	expect_eq "$(val_ino ns:pid)" "$(ns_ino "/proc/$NS_PID/ns/pid")" "pid namespace inode"
	[ "$(val pid)" != 1 ]
}

@test "config-linux.md/namespaces: MUST place the container in the cgroup namespace at path" {
	ns_holder exec unshare --cgroup "$CHECKER" pause "$T"
	cfg '.linux.namespaces += [{"type": "cgroup", "path": $p}]' --arg p "/proc/$NS_PID/ns/cgroup"
	check ns:cgroup
	run_ct
	expect_eq "$(val_ino ns:cgroup)" "$(ns_ino "/proc/$NS_PID/ns/cgroup")" "cgroup namespace inode"
}

@test "config-linux.md/namespaces: MUST place the container in the time namespace at path" {
	[ -e /proc/self/ns/time ] || skip "kernel without time namespaces"
	ns_holder fork unshare --time --fork "$CHECKER" pause "$T"
	cfg '.linux.namespaces += [{"type": "time", "path": $p}]' --arg p "/proc/$NS_PID/ns/time"
	check ns:time
	run_ct
	expect_eq "$(val_ino ns:time)" "$(ns_ino "/proc/$NS_PID/ns/time")" "time namespace inode"
}

@test "config-linux.md/namespaces: MUST generate an error when path is not a namespace of the type" {
	new_ns_file uts "$T/utsns"
	ns_path network "$T/utsns"
	check echo:ran
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config-linux.md/namespaces: MUST generate an error when path is not a namespace at all" {
	touch "$T/not-a-namespace"
	ns_path network "$T/not-a-namespace"
	check echo:ran
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config-linux.md/namespaces: MUST generate an error for a path that is not absolute" {
	new_ns_file net "$T/netns"
	ns_path network "netns-relative"
	ln -s "$T/netns" "$B/netns-relative"
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "runtime accepted a relative namespace path" >&2; false; }
}

# ----------------------------------------------------------------- inherit --

@test "config-linux.md/namespaces: MUST inherit the runtime network namespace when network is not listed" {
	drop_ns network
	check ns:net
	run_ct
	expect_eq "$(val ns:net)" "$(host_ns net)" "net namespace"
}

@test "config-linux.md/namespaces: MUST inherit the runtime ipc namespace when ipc is not listed" {
	drop_ns ipc
	check ns:ipc
	run_ct
	expect_eq "$(val ns:ipc)" "$(host_ns ipc)" "ipc namespace"
}

@test "config-linux.md/namespaces: MUST inherit the runtime uts namespace when uts is not listed" {
	drop_ns uts
	cfg 'del(.hostname)'
	check ns:uts
	run_ct
	expect_eq "$(val ns:uts)" "$(host_ns uts)" "uts namespace"
}

@test "config-linux.md/namespaces: MUST inherit the runtime pid namespace when pid is not listed" {
	drop_ns pid
	check ns:pid
	run_ct
	expect_eq "$(val ns:pid)" "$(host_ns pid)" "pid namespace"
}

@test "config-linux.md/namespaces: MUST inherit the runtime cgroup namespace when cgroup is not listed" {
	drop_ns cgroup
	check ns:cgroup
	run_ct
	expect_eq "$(val ns:cgroup)" "$(host_ns cgroup)" "cgroup namespace"
}

@test "config-linux.md/namespaces: MUST inherit the runtime user namespace when user is not listed" {
	check ns:user
	run_ct
	expect_eq "$(val ns:user)" "$(host_ns user)" "user namespace"
}

@test "config-linux.md/namespaces: MUST generate an error for duplicated namespace types" {
	cfg '.linux.namespaces += [{"type": "network"}]'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "runtime accepted duplicated namespaces" >&2; false; }
}

# ------------------------------------------------------ user namespace maps --

@test "config-linux.md/user-namespace-mappings: MUST apply uidMappings" {
	add_ns user
	cfg "$MAPS"
	check file:/proc/self/uid_map
	run_ct
	expect_eq "$(val file:/proc/self/uid_map | tr -s ' ' | sed 's/^ //')" "0 100000 65536" uid_map
}

@test "config-linux.md/user-namespace-mappings: MUST apply gidMappings" {
	add_ns user
	cfg "$MAPS"
	check file:/proc/self/gid_map
	run_ct
	expect_eq "$(val file:/proc/self/gid_map | tr -s ' ' | sed 's/^ //')" "0 200000 65536" gid_map
}

@test "config-linux.md/user-namespace-mappings: MUST apply several mapping entries" {
	add_ns user
	cfg '.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}, {"containerID": 1000, "hostID": 300000, "size": 10}]
	   | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}, {"containerID": 1000, "hostID": 300000, "size": 10}]'
	check file:/proc/self/uid_map
	run_ct
	expect_eq "$(vals file:/proc/self/uid_map | tr -s ' ' | sed 's/^ //' | tr '\n' '|')" "0 100000 1000|1000 300000 10|" uid_map
}

@test "config-linux.md/user-namespace-mappings: MUST run the container process as the mapped host ids" {
	add_ns user
	cfg "$MAPS"
	cfg '.process.user = {"uid": 5, "gid": 6}'
	check pause
	create_running
	expect_eq "$(awk '/^Uid:/ {print $2} /^Gid:/ {print $2}' "/proc/$(ct_pid)/status" | tr '\n' ' ')" "100005 200006 " "host uid and gid of the process"
}

@test "config-linux.md/user-namespace-mappings: SHOULD NOT modify the ownership of the root filesystem" {
	add_ns user
	cfg "$MAPS"
	check echo:ran
	local before
	before=$(find "$B/rootfs" -printf '%U:%G %p\n' | sort | md5sum)
	run_ct
	expect_eq "$(find "$B/rootfs" -printf '%U:%G %p\n' | sort | md5sum)" "$before" "ownership of the rootfs"
}

# ------------------------------------------------------------- time offsets --

@test "config-linux.md/time-offsets: MUST apply the monotonic offset of timeOffsets" {
	[ -e /proc/self/ns/time ] || skip "kernel without time namespaces"
	add_ns time
	cfg '.linux.timeOffsets = {"monotonic": {"secs": 86400, "nanosecs": 0}}'
	check file:/proc/self/timens_offsets clock:monotonic
	local before
	before=$(awk '{print int($1)}' /proc/uptime)
	run_ct
	expect_match "$(vals file:/proc/self/timens_offsets | tr -s ' ' | tr '\n' '|')" 'monotonic 86400 0' offsets
	[ "$(val clock:monotonic)" -ge $((before + 86400)) ]
}

@test "config-linux.md/time-offsets: MUST apply the boottime offset of timeOffsets" {
	[ -e /proc/self/ns/time ] || skip "kernel without time namespaces"
	add_ns time
	cfg '.linux.timeOffsets = {"boottime": {"secs": 3600, "nanosecs": 500}}'
	check file:/proc/self/timens_offsets
	run_ct
	expect_match "$(vals file:/proc/self/timens_offsets | tr -s ' ' | tr '\n' '|')" 'boottime 3600 500' offsets
}
