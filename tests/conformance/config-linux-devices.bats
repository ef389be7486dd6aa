#!/usr/bin/env bats
# config-linux.md: Default Filesystems, Devices, Default Devices

load helpers

add_device() { cfg '.linux.devices += [$d]' --argjson d "$1"; }
allow_dev() { cfg '.linux.resources.devices += [$d]' --argjson d "$1"; }

# ------------------------------------------------------ default filesystems --

@test "config-linux.md/default-filesystems: SHOULD make /proc (proc) available" {
	check mount:/proc
	run_ct
	expect_match "$(val mount:/proc)" '^fstype=proc ' /proc
}

@test "config-linux.md/default-filesystems: SHOULD make /sys (sysfs) available" {
	check mount:/sys
	run_ct
	expect_match "$(val mount:/sys)" '^fstype=sysfs ' /sys
}

@test "config-linux.md/default-filesystems: SHOULD make /dev/pts (devpts) available" {
	check mount:/dev/pts
	run_ct
	expect_match "$(val mount:/dev/pts)" '^fstype=devpts ' /dev/pts
}

@test "config-linux.md/default-filesystems: SHOULD make /dev/shm (tmpfs) available" {
	check mount:/dev/shm
	run_ct
	expect_match "$(val mount:/dev/shm)" '^fstype=tmpfs ' /dev/shm
}

# ------------------------------------------------------------------ devices --

@test "config-linux.md/devices: MUST make a character device available" {
	add_device '{"path": "/dev/fuse-test", "type": "c", "major": 10, "minor": 229}'
	check stat:/dev/fuse-test
	run_ct
	expect_match "$(val stat:/dev/fuse-test)" '^type=c .*rdev=10:229 ' /dev/fuse-test
}

@test "config-linux.md/devices: MUST make a block device available" {
	add_device '{"path": "/dev/loop-test", "type": "b", "major": 7, "minor": 200}'
	check stat:/dev/loop-test
	run_ct
	expect_match "$(val stat:/dev/loop-test)" '^type=b .*rdev=7:200 ' /dev/loop-test
}

@test "config-linux.md/devices: MUST make an unbuffered character device (u) available" {
	add_device '{"path": "/dev/unbuffered", "type": "u", "major": 1, "minor": 3}'
	check stat:/dev/unbuffered
	run_ct
	expect_match "$(val stat:/dev/unbuffered)" '^type=c .*rdev=1:3 ' /dev/unbuffered
}

@test "config-linux.md/devices: MUST make a FIFO (p) available" {
	add_device '{"path": "/dev/fifo-test", "type": "p"}'
	check stat:/dev/fifo-test
	run_ct
	expect_match "$(val stat:/dev/fifo-test)" '^type=p ' /dev/fifo-test
}

@test "config-linux.md/devices: MUST apply fileMode" {
	add_device '{"path": "/dev/mode-test", "type": "c", "major": 1, "minor": 3, "fileMode": 416}'
	check stat:/dev/mode-test
	run_ct
	expect_match "$(val stat:/dev/mode-test)" ' mode=0640 ' "mode of /dev/mode-test"
}

@test "config-linux.md/devices: MUST apply uid and gid" {
	add_device '{"path": "/dev/owner-test", "type": "c", "major": 1, "minor": 3, "uid": 1000, "gid": 1001}'
	check stat:/dev/owner-test
	run_ct
	expect_match "$(val stat:/dev/owner-test)" ' uid=1000 gid=1001 ' "owner of /dev/owner-test"
}

@test "config-linux.md/devices: MAY put a device anywhere in the container, outside /dev" {
	add_device '{"path": "/opt/devices/null", "type": "c", "major": 1, "minor": 3}'
	check stat:/opt/devices/null
	create || skip "runtime refuses devices outside /dev"
	start
	wait_stopped
	expect_match "$(val stat:/opt/devices/null)" '^type=c .*rdev=1:3 ' /opt/devices/null
}

@test "config-linux.md/devices: MUST generate an error when a file that does not match exists at path" {
	add_device '{"path": "/etc/regular", "type": "c", "major": 1, "minor": 3}'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "runtime replaced a regular file by a device" >&2; false; }
}

@test "config-linux.md/devices: MUST make a listed device usable when the cgroup allows it" {
	# /dev/net/tun opens without any capability
	add_device '{"path": "/dev/tun-test", "type": "c", "major": 10, "minor": 200, "fileMode": 438}'
	allow_dev '{"allow": true, "type": "c", "major": 10, "minor": 200, "access": "rw"}'
	check open:/dev/tun-test:rw
	run_ct
	expect_eq "$(val open:/dev/tun-test:rw)" ok "open for reading and writing"
}

# ---------------------------------------------------------- default devices --

# default_dev PATH MAJOR MINOR
default_dev() {
	check "stat:$1" "open:$1:${4:-rw}"
	run_ct
	expect_match "$(val "stat:$1")" "^type=c .*rdev=$2:$3 " "$1"
	expect_eq "$(val "open:$1:${4:-rw}")" ok "open $1"
}

@test "config-linux.md/default-devices: MUST supply /dev/null" { default_dev /dev/null 1 3; }
@test "config-linux.md/default-devices: MUST supply /dev/zero" { default_dev /dev/zero 1 5; }
@test "config-linux.md/default-devices: MUST supply /dev/full" { default_dev /dev/full 1 7; }
@test "config-linux.md/default-devices: MUST supply /dev/random" { default_dev /dev/random 1 8; }
@test "config-linux.md/default-devices: MUST supply /dev/urandom" { default_dev /dev/urandom 1 9; }

@test "config-linux.md/default-devices: MUST supply /dev/tty" {
	check stat:/dev/tty
	run_ct
	expect_match "$(val stat:/dev/tty)" '^type=c .*rdev=5:0 ' /dev/tty
}

@test "config-linux.md/default-devices: MUST supply /dev/ptmx backed by the container's /dev/pts/ptmx" {
	check statf:/dev/ptmx link:/dev/ptmx statf:/dev/pts/ptmx open:/dev/ptmx:rw
	run_ct
	expect_match "$(val statf:/dev/ptmx)" '^type=c .*rdev=5:2 ' /dev/ptmx
	local l
	l=$(val link:/dev/ptmx)
	if [ "${l#ERR}" = "$l" ]; then
		expect_match "$l" '^(/dev/)?pts/ptmx$' "symlink target of /dev/ptmx"
	else
		# a bind mount of /dev/pts/ptmx: same device node as the devpts one
		expect_eq "$(val statf:/dev/ptmx | sed 's/size=.*//')" "$(val statf:/dev/pts/ptmx | sed 's/size=.*//')" "/dev/ptmx vs /dev/pts/ptmx"
	fi
	expect_eq "$(val open:/dev/ptmx:rw)" ok "open /dev/ptmx"
}

@test "config-linux.md/default-devices: MUST set up /dev/console as the pty when terminal is enabled" {
	cfg '.process.terminal = true'
	check statf:/dev/console statf:/proc/self/fd/0
	local sock=$T/console.sock
	echo "$ID" >>"$T/.ids"
	"$CHECKER" recvtty "$sock" "$T/$ID.out" </dev/null >>"$T/bg.log" 2>&1 3>&- &
	local tty=$!
	track_pid "$tty"
	local i
	for ((i = 0; i < 200; i++)); do [ -S "$sock" ] && break; sleep 0.01; done
	rt create --bundle "$B" --console-socket "$sock" --pid-file "$T/$ID.pid" "$ID" </dev/null >"$T/$ID.create.out" 2>"$T/$ID.err"
	start
	wait_stopped
	delete
	wait "$tty" || true
	local console fd0
	console=$(val statf:/dev/console)
	fd0=$(val statf:/proc/self/fd/0)
	expect_match "$console" '^type=c .*rdev=136:' /dev/console
	expect_eq "$(sed 's/.*rdev=//; s/ .*//' <<<"$console")" "$(sed 's/.*rdev=//; s/ .*//' <<<"$fd0")" "device of /dev/console vs stdin"
}
