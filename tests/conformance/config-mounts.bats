#!/usr/bin/env bats
# config.md: Root, Mounts, POSIX-platform Mounts

load helpers

# ---------------------------------------------------------------------- root --

@test "config.md/root: MUST use a root path relative to the bundle" {
	check stat:/etc/regular
	run_ct
	expect_match "$(val stat:/etc/regular)" '^type=f' "/etc/regular of the bundle rootfs"
}

@test "config.md/root: MUST use an absolute root path" {
	mv "$B/rootfs" "$T/elsewhere"
	cfg '.root.path = $p' --arg p "$T/elsewhere"
	echo "from elsewhere" >"$T/elsewhere/marker"
	check file:/marker
	run_ct
	expect_eq "$(val file:/marker)" "from elsewhere"
}

@test "config.md/root: MUST generate an error when no directory exists at root.path" {
	cfg '.root.path = "no-such-rootfs"'
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config.md/root: MUST generate an error when root.path is not a directory" {
	touch "$B/rootfs-file"
	cfg '.root.path = "rootfs-file"'
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config.md/root: MUST generate an error when root is missing (REQUIRED on Linux)" {
	cfg 'del(.root)'
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config.md/root: MUST make the root filesystem read-only when readonly is true" {
	cfg '.root.readonly = true'
	check write:/newfile mount:/
	run_ct
	expect_eq "$(val write:/newfile)" ERR:EROFS "writing to /"
	expect_match "$(val mount:/)" 'opts=ro[, ]' "mount options of /"
	[ ! -e "$B/rootfs/newfile" ]
}

@test "config.md/root: MUST keep the root filesystem writable when readonly is false" {
	cfg '.root.readonly = false'
	check write:/newfile
	run_ct
	expect_eq "$(val write:/newfile)" ok
	[ -e "$B/rootfs/newfile" ]
}

@test "config.md/root: MUST default readonly to false" {
	cfg 'del(.root.readonly)'
	check write:/newfile
	run_ct
	expect_eq "$(val write:/newfile)" ok
}

# -------------------------------------------------------------------- mounts --

@test "config.md/mounts: MUST mount entries in the listed order (nested destinations)" {
	add_mount '{"destination": "/ord", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/ord/sub", "type": "tmpfs", "source": "tmpfs", "options": ["size=2m"]}'
	check mount:/ord mount:/ord/sub
	run_ct
	expect_match "$(val mount:/ord)" 'fstype=tmpfs .*size=1024k' "/ord"
	expect_match "$(val mount:/ord/sub)" 'fstype=tmpfs .*size=2048k' "/ord/sub"
}

@test "config.md/mounts: MUST mount entries in the listed order (same destination, last on top)" {
	add_mount '{"destination": "/twice", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/twice", "type": "tmpfs", "source": "tmpfs", "options": ["size=3m"]}'
	check mount:/twice
	run_ct
	expect_match "$(val mount:/twice)" 'size=3072k' "top mount at /twice"
}

@test "config.md/mounts: MUST mount entries in the listed order (a bind over an earlier tmpfs)" {
	mkdir -p "$T/vol" && echo bound >"$T/vol/f"
	add_mount '{"destination": "/stack", "type": "tmpfs", "source": "tmpfs"}'
	add_mount '{"destination": "/stack/inner", "type": "bind", "source": "'"$T"'/vol", "options": ["bind"]}'
	check file:/stack/inner/f
	run_ct
	expect_eq "$(val file:/stack/inner/f)" bound
	[ ! -e "$B/rootfs/stack/inner" ] || [ -z "$(ls -A "$B/rootfs/stack/inner")" ]
}

@test "config.md/mounts: MAY accept a relative destination, which MUST then be relative to /" {
	add_mount '{"destination": "rel-dest", "type": "tmpfs", "source": "tmpfs"}'
	check mount:/rel-dest
	create || skip "runtime refuses relative destinations"
	start
	wait_stopped
	expect_match "$(val mount:/rel-dest)" 'fstype=tmpfs' "/rel-dest"
}

@test "config.md/mounts: MUST bind-mount a source relative to the bundle" {
	mkdir -p "$B/vol" && echo relative >"$B/vol/f"
	add_mount '{"destination": "/data", "type": "bind", "source": "vol", "options": ["bind"]}'
	check file:/data/f
	run_ct
	expect_eq "$(val file:/data/f)" relative
}

@test "config.md/mounts: MUST bind-mount an absolute source" {
	mkdir -p "$T/vol" && echo absolute >"$T/vol/f"
	add_mount '{"destination": "/data", "type": "none", "source": "'"$T"'/vol", "options": ["rbind"]}'
	check file:/data/f
	run_ct
	expect_eq "$(val file:/data/f)" absolute
}

@test "config.md/mounts: MUST treat a mount with bind in its options as a bind mount whatever its type" {
	mkdir -p "$T/vol" && echo bound >"$T/vol/f"
	add_mount '{"destination": "/data", "type": "tmpfs", "source": "'"$T"'/vol", "options": ["bind"]}'
	check file:/data/f
	run_ct
	expect_eq "$(val file:/data/f)" bound
}

@test "config.md/mounts: MUST bind-mount a file" {
	echo "a file" >"$T/file"
	add_mount '{"destination": "/etc/bound-file", "type": "bind", "source": "'"$T"'/file", "options": ["bind", "ro"]}'
	check file:/etc/bound-file stat:/etc/bound-file
	run_ct
	expect_eq "$(val file:/etc/bound-file)" "a file"
}

@test "config.md/mounts: MUST accept a bind mount without type (type is OPTIONAL)" {
	mkdir -p "$T/vol" && echo untyped >"$T/vol/f"
	add_mount '{"destination": "/data", "source": "'"$T"'/vol", "options": ["rbind"]}'
	check file:/data/f
	run_ct
	expect_eq "$(val file:/data/f)" untyped
}

@test "config.md/mounts: MUST accept a tmpfs mount without source (source is OPTIONAL)" {
	add_mount '{"destination": "/nosource", "type": "tmpfs"}'
	check mount:/nosource
	run_ct
	expect_match "$(val mount:/nosource)" 'fstype=tmpfs' "/nosource"
}

# host fixture: $T/vol with a tmpfs submount holding a file
submount_fixture() {
	mkdir -p "$T/vol/sub"
	echo top >"$T/vol/top"
	mount -t tmpfs -o size=1m tmpfs "$T/vol/sub"
	track_mount "$T/vol/sub"
	echo below >"$T/vol/sub/f"
}

@test "config.md/mounts: MUST bind submounts too with rbind" {
	submount_fixture
	add_mount '{"destination": "/data", "type": "bind", "source": "'"$T"'/vol", "options": ["rbind"]}'
	check file:/data/top file:/data/sub/f
	run_ct
	expect_eq "$(val file:/data/top) $(val file:/data/sub/f)" "top below"
}

@test "config.md/mounts: MUST NOT bind submounts with bind" {
	submount_fixture
	add_mount '{"destination": "/data", "type": "bind", "source": "'"$T"'/vol", "options": ["bind"]}'
	check file:/data/top file:/data/sub/f
	run_ct
	expect_eq "$(val file:/data/top)" top
	expect_eq "$(val file:/data/sub/f)" ERR:ENOENT "submount content"
}

@test "config.md/mounts: MUST mount the filesystem type given (mqueue)" {
	add_mount '{"destination": "/mq", "type": "mqueue", "source": "mqueue"}'
	check mount:/mq
	run_ct
	expect_match "$(val mount:/mq)" 'fstype=mqueue' /mq
}

@test "config.md/mounts: MUST mount the filesystem type given (proc)" {
	add_mount '{"destination": "/proc2", "type": "proc", "source": "proc"}'
	check mount:/proc2 stat:/proc2/self
	run_ct
	expect_match "$(val mount:/proc2)" 'fstype=proc' /proc2
}

@test "config.md/linux-mount-options: SHOULD pass unknown options to mount(2) as filesystem data (size, nr_inodes)" {
	add_mount '{"destination": "/fsdata", "type": "tmpfs", "source": "tmpfs", "options": ["size=2m", "nr_inodes=1234"]}'
	check mount:/fsdata
	run_ct
	expect_match "$(val mount:/fsdata)" 'super=[^ ]*size=2048k' size
	expect_match "$(val mount:/fsdata)" 'super=[^ ]*nr_inodes=1234' nr_inodes
}

@test "config.md/linux-mount-options: SHOULD pass unknown options to mount(2) as filesystem data (mode, uid, gid)" {
	add_mount '{"destination": "/fsdata", "type": "tmpfs", "source": "tmpfs", "options": ["mode=0710", "uid=1000", "gid=1001"]}'
	check stat:/fsdata
	run_ct
	expect_match "$(val stat:/fsdata)" 'type=d mode=0710 uid=1000 gid=1001' "/fsdata"
}

@test "config.md/linux-mount-options: MAY implement tmpcopyup (copy the contents to the tmpfs)" {
	add_mount '{"destination": "/etc", "type": "tmpfs", "source": "tmpfs", "options": ["tmpcopyup"]}'
	check mount:/etc file:/etc/regular
	create || skip "runtime does not implement tmpcopyup"
	start
	wait_stopped
	expect_match "$(val mount:/etc)" 'fstype=tmpfs' /etc
	[ "$(val file:/etc/regular)" = "regular file" ] || skip "tmpcopyup is not implemented (contents not copied)"
}
