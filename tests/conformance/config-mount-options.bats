#!/usr/bin/env bats
# config.md: Linux mount options (the MUST/SHOULD/MAY option table).
# Each option is applied to a tmpfs (or a bind/rbind mount for propagation and
# recursive options) and observed in /proc/self/mountinfo inside the container.

load helpers

# mount_with OPTIONS-JSON [TYPE SOURCE]: run a container with the mount at /m
mount_with() {
	local type=${2:-tmpfs} src=${3:-tmpfs}
	add_mount "$(jq -cn --argjson o "$1" --arg t "$type" --arg s "$src" '{destination: "/m", type: $t, source: $s, options: $o}')"
	check mount:/m "${@:4}"
	run_ct || return 1
	M=$(val mount:/m)
	echo "mount /m: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
}
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"${2:-$M}"; }
has() { [[ ",$(field "$1" "${3:-$M}")," == *",$2,"* ]]; }
lacks() { ! has "$@"; }

# $T/vol: a shared host mount with a submount sub/ holding a file
shared_fixture() {
	mkdir -p "$T/vol"
	mount --bind "$T/vol" "$T/vol"
	track_mount "$T/vol"
	mount --make-shared "$T/vol"
	mkdir -p "$T/vol/sub"
	mount -t tmpfs -o size=1m tmpfs "$T/vol/sub"
	echo below >"$T/vol/sub/f"
}

# $T/rv with a default tmpfs plain/ and a tmpfs flagged/ mounted
# ro,nosuid,nodev,noexec,noatime,nodiratime,nosymfollow
recursive_fixture() {
	mkdir -p "$T/rv/plain" "$T/rv/flagged"
	mount -t tmpfs -o size=1m tmpfs "$T/rv/plain"
	track_mount "$T/rv/plain"
	mount -t tmpfs -o size=1m,ro,nosuid,nodev,noexec,noatime,nodiratime,nosymfollow tmpfs "$T/rv/flagged"
	track_mount "$T/rv/flagged"
}

@test "config.md/linux-mount-options: MUST support async" {
	mount_with '["sync", "async"]'
	lacks super sync
}

@test "config.md/linux-mount-options: MUST support atime (clears noatime)" {
	mount_with '["noatime", "atime"]'
	lacks opts noatime
}

@test "config.md/linux-mount-options: MUST support bind" {
	mkdir -p "$T/vol" && echo x >"$T/vol/f"
	mount_with '["bind"]' none "$T/vol" file:/m/f
	expect_eq "$(val file:/m/f)" x
}

@test "config.md/linux-mount-options: MUST support defaults" {
	# mount(8): defaults is rw,suid,dev,exec,auto,nouser,async (and changes no earlier option)
	mount_with '["defaults"]'
	has opts rw
	lacks opts nosuid
	lacks opts nodev
	lacks opts noexec
}

@test "config.md/linux-mount-options: MUST support dev (clears nodev)" {
	mount_with '["nodev", "dev"]'
	lacks opts nodev
}

@test "config.md/linux-mount-options: MUST support diratime (clears nodiratime)" {
	mount_with '["nodiratime", "diratime"]'
	lacks opts nodiratime
}

@test "config.md/linux-mount-options: MUST support dirsync" {
	mount_with '["dirsync"]'
	has super dirsync
}

@test "config.md/linux-mount-options: MUST support exec (clears noexec)" {
	mount_with '["noexec", "exec"]'
	lacks opts noexec
}

@test "config.md/linux-mount-options: MUST support iversion" {
	mount_with '["iversion"]'
}

@test "config.md/linux-mount-options: MUST support lazytime" {
	mount_with '["lazytime"]'
	has super lazytime
}

@test "config.md/linux-mount-options: MUST support loud" {
	mount_with '["silent", "loud"]'
}

@test "config.md/linux-mount-options: MAY support mand" {
	add_mount '{"destination": "/m", "type": "tmpfs", "source": "tmpfs", "options": ["mand"]}'
	check mount:/m
	create || skip "runtime or kernel refuses mand (deprecated since Linux 5.15)"
	start
	wait_stopped
	expect_match "$(val mount:/m)" fstype=tmpfs /m
}

@test "config.md/linux-mount-options: MUST support noatime" {
	mount_with '["noatime"]'
	has opts noatime
}

@test "config.md/linux-mount-options: MUST support nodev" {
	mount_with '["nodev"]'
	has opts nodev
}

@test "config.md/linux-mount-options: MUST support nodiratime" {
	mount_with '["nodiratime"]'
	has opts nodiratime
}

@test "config.md/linux-mount-options: MUST support noexec" {
	cp "$CHECKER" "$T/exe"
	mkdir -p "$T/vol" && cp "$CHECKER" "$T/vol/exe"
	mount_with '["bind", "noexec"]' none "$T/vol" exec:/m/exe
	has opts noexec
	expect_eq "$(val exec:/m/exe)" ERR:EACCES "exec on the noexec mount"
}

@test "config.md/linux-mount-options: MUST support noiversion" {
	mount_with '["iversion", "noiversion"]'
}

@test "config.md/linux-mount-options: MUST support nolazytime" {
	mount_with '["lazytime", "nolazytime"]'
	lacks super lazytime
}

@test "config.md/linux-mount-options: MAY support nomand" {
	add_mount '{"destination": "/m", "type": "tmpfs", "source": "tmpfs", "options": ["nomand"]}'
	check mount:/m
	create || skip "runtime does not support nomand"
	start
	wait_stopped
	expect_match "$(val mount:/m)" fstype=tmpfs /m
	[[ "$(val mount:/m)" != *mand* ]]
}

@test "config.md/linux-mount-options: MUST support norelatime" {
	mount_with '["relatime", "norelatime"]'
}

@test "config.md/linux-mount-options: MUST support nostrictatime" {
	mount_with '["strictatime", "nostrictatime"]'
	# without strictatime the kernel default (relatime) applies
	has opts relatime
}

@test "config.md/linux-mount-options: MUST support nosuid" {
	mount_with '["nosuid"]'
	has opts nosuid
}

@test "config.md/linux-mount-options: SHOULD support nosymfollow" {
	mount_with '["nosymfollow"]'
	has opts nosymfollow
}

@test "config.md/linux-mount-options: MUST support relatime" {
	mount_with '["relatime"]'
	has opts relatime
}

@test "config.md/linux-mount-options: MUST support remount" {
	add_mount '{"destination": "/m", "type": "tmpfs", "source": "tmpfs"}'
	mount_with '["remount", "ro"]'
	has opts ro
}

@test "config.md/linux-mount-options: MUST support ro" {
	mount_with '["ro"]' tmpfs tmpfs write:/m/f
	has opts ro
	expect_eq "$(val write:/m/f)" ERR:EROFS "write"
}

@test "config.md/linux-mount-options: MUST support rw" {
	mount_with '["ro", "rw"]' tmpfs tmpfs write:/m/f
	has opts rw
	expect_eq "$(val write:/m/f)" ok "write"
}

@test "config.md/linux-mount-options: MUST support silent" {
	mount_with '["silent"]'
}

@test "config.md/linux-mount-options: MUST support strictatime" {
	mount_with '["strictatime"]'
	lacks opts relatime
	lacks opts noatime
}

@test "config.md/linux-mount-options: MUST support suid (clears nosuid)" {
	mount_with '["nosuid", "suid"]'
	lacks opts nosuid
}

@test "config.md/linux-mount-options: SHOULD support symfollow (clears nosymfollow)" {
	mount_with '["nosymfollow", "symfollow"]'
	lacks opts nosymfollow
}

@test "config.md/linux-mount-options: MUST support sync" {
	mount_with '["sync"]'
	has super sync
}

@test "config.md/linux-mount-options: MUST support shared" {
	shared_fixture
	mount_with '["rbind", "shared"]' none "$T/vol"
	[[ $(field tags) == *shared:* ]]
}

@test "config.md/linux-mount-options: MUST support rshared" {
	shared_fixture
	mount_with '["rbind", "rshared"]' none "$T/vol" mount:/m/sub
	[[ $(field tags) == *shared:* ]]
	[[ $(field tags "$(val mount:/m/sub)") == *shared:* ]]
}

@test "config.md/linux-mount-options: MUST support private" {
	shared_fixture
	mount_with '["rbind", "private"]' none "$T/vol"
	expect_eq "$(field tags)" - "propagation tags"
}

@test "config.md/linux-mount-options: MUST support rprivate" {
	shared_fixture
	mount_with '["rbind", "rprivate"]' none "$T/vol" mount:/m/sub
	expect_eq "$(field tags) $(field tags "$(val mount:/m/sub)")" "- -" "propagation tags"
}

@test "config.md/linux-mount-options: MUST support slave" {
	shared_fixture
	mount_with '["rbind", "slave"]' none "$T/vol"
	[[ $(field tags) == *master:* && $(field tags) != *shared:* ]]
}

@test "config.md/linux-mount-options: MUST support rslave" {
	shared_fixture
	mount_with '["rbind", "rslave"]' none "$T/vol" mount:/m/sub
	[[ $(field tags) == *master:* && $(field tags) != *shared:* ]]
	local s=$(field tags "$(val mount:/m/sub)")
	[[ $s == *master:* && $s != *shared:* ]]
}

@test "config.md/linux-mount-options: MUST support unbindable" {
	shared_fixture
	mount_with '["rbind", "unbindable"]' none "$T/vol"
	[[ $(field tags) == *unbindable* ]]
}

@test "config.md/linux-mount-options: MUST support runbindable" {
	shared_fixture
	mount_with '["rbind", "runbindable"]' none "$T/vol" mount:/m/sub
	[[ $(field tags) == *unbindable* ]]
	[[ $(field tags "$(val mount:/m/sub)") == *unbindable* ]]
}

@test "config.md/linux-mount-options: MUST support rbind" {
	shared_fixture
	mount_with '["rbind"]' none "$T/vol" file:/m/sub/f
	expect_eq "$(val file:/m/sub/f)" below
}

@test "config.md/linux-mount-options: SHOULD support rro (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rro"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts ro
}

@test "config.md/linux-mount-options: SHOULD support rrw (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rrw"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts rw
}

@test "config.md/linux-mount-options: SHOULD support rnosuid (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnosuid"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts nosuid
}

@test "config.md/linux-mount-options: SHOULD support rsuid (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rsuid"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts nosuid
}

@test "config.md/linux-mount-options: SHOULD support rnodev (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnodev"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts nodev
}

@test "config.md/linux-mount-options: SHOULD support rdev (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rdev"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts nodev
}

@test "config.md/linux-mount-options: SHOULD support rnoexec (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnoexec"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts noexec
}

@test "config.md/linux-mount-options: SHOULD support rexec (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rexec"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts noexec
}

@test "config.md/linux-mount-options: SHOULD support rnoatime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnoatime"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts noatime
}

@test "config.md/linux-mount-options: SHOULD support ratime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "ratime"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts noatime
}

@test "config.md/linux-mount-options: SHOULD support rnodiratime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnodiratime"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts nodiratime
}

@test "config.md/linux-mount-options: SHOULD support rdiratime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rdiratime"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts nodiratime
}

@test "config.md/linux-mount-options: SHOULD support rrelatime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rrelatime"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts relatime
}

@test "config.md/linux-mount-options: SHOULD support rnorelatime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnorelatime"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
}

@test "config.md/linux-mount-options: SHOULD support rstrictatime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rstrictatime"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts relatime
	lacks opts noatime
}

@test "config.md/linux-mount-options: SHOULD support rnostrictatime (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnostrictatime"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
}

@test "config.md/linux-mount-options: SHOULD support rnosymfollow (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rnosymfollow"]' none "$T/rv" mount:/m/plain
	M=$(val mount:/m/plain)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	has opts nosymfollow
}

@test "config.md/linux-mount-options: SHOULD support rsymfollow (recursive, applied to submounts)" {
	recursive_fixture
	mount_with '["rbind", "rsymfollow"]' none "$T/rv" mount:/m/flagged
	M=$(val mount:/m/flagged)
	echo "submount: $M"
	[ -n "$M" ] && [ "${M#ERR}" = "$M" ]
	lacks opts nosymfollow
}
