#!/usr/bin/env bats
# Mounts (rootfs/): mounts[] in order with their options, binds, destinations
# that never leave the rootfs, proc/sys guards, masked and read-only paths,
# root.readonly, propagation, cgroup, tmpcopyup, overlay, --no-pivot.
# Everything is asserted from inside the container (/proc/self/mountinfo,
# writes that must fail) and on the host (nothing left, nothing escaped).

load helpers

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "$@" "$CID"
}

# opts_of DEST: the per-mount options of the top mount at DEST, from the
# mountinfo in $output.
opts_of() {
	awk -v d="$1" '$5 == d { o = $6 } END { print o }' <<<"$output"
}

# has_opt DEST OPT: DEST's per-mount options contain OPT.
has_opt() {
	local o
	o="$(opts_of "$1")"
	[[ ",$o," == *",$2,"* ]] || fail "$1: '$2' not in '$o'"
}

lacks_opt() {
	local o
	o="$(opts_of "$1")"
	[[ -n "$o" && ",$o," != *",$2,"* ]] || fail "$1: '$2' in '$o' (or no such mount)"
}

# add_mount JSON: append one mounts[] entry.
add_mount() {
	update_config ".mounts += [$1]"
}

@test "mounts: the standard mounts carry the options of the config" {
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	assert_success
	assert_equal "$(awk '$5 == "/proc" { print $9 }' <<<"$output")" proc
	has_opt /dev nosuid
	lacks_opt /dev relatime            # strictatime
	has_opt /dev/pts nosuid
	has_opt /dev/pts noexec
	assert_output --regexp ' /dev/pts [^ ]+ .* devpts [^ ]+ [^ ]*gid=5,mode=620,ptmxmode=666'
	has_opt /dev/shm nodev
	has_opt /dev/mqueue noexec
	has_opt /sys ro
	has_opt /sys/fs/cgroup ro
	has_opt /sys/fs/cgroup nosuid
}

@test "mounts: mqueue twice on /dev/mqueue (one superblock an ipc namespace): both there, the second with its own flags" {
	update_config '.mounts += [{"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
		"options": ["nosuid", "noexec", "nodev", "ro"]}]'
	set_args sh -c 'grep " /dev/mqueue " /proc/self/mountinfo; touch /dev/mqueue/q 2>&1; true'
	run_ctr
	assert_success
	assert_equal "$(grep -c ' /dev/mqueue ' <<<"$output")" 2
	assert_line --regexp ' /dev/mqueue ro,.* - mqueue '
	assert_output --partial "Read-only file system"
}

@test "mounts: a read-only bind stays read-only; file and directory destinations get their type" {
	mkdir -p "$OUT/dir"
	echo data >"$OUT/file"
	add_mount '{"destination": "/new/deep/file", "type": "bind", "source": "'"$OUT/file"'", "options": ["bind", "ro"]}'
	add_mount '{"destination": "/new/dir", "type": "bind", "source": "'"$OUT/dir"'", "options": ["rbind", "ro"]}'
	set_cmd 'cat /proc/self/mountinfo; stat -c "%n %F" /new/deep/file /new/dir; cat /new/deep/file;
		echo x >/new/deep/file && echo WROTE-FILE; touch /new/dir/x && echo WROTE-DIR;
		mount -o remount,rw /new/dir 2>/dev/null; true'
	run_ctr
	assert_success
	has_opt /new/deep/file ro
	has_opt /new/dir ro
	assert_line "/new/deep/file regular file"
	assert_line "/new/dir directory"
	assert_line data
	refute_line WROTE-FILE
	refute_line WROTE-DIR
	assert_output --partial "Read-only file system"
	[ "$(cat "$OUT/file")" = data ]
	[ ! -e "$OUT/dir/x" ]
}

@test "mounts: a relative destination is mounted under / with runc's deprecation warning, once per mount" {
	mkdir -p "$OUT/dir"
	add_mount '{"destination": "rel/dir", "type": "bind", "source": "'"$OUT/dir"'", "options": ["rbind"]}'
	add_mount '{"destination": "/abs", "type": "tmpfs", "source": "tmpfs"}'
	set_cmd 'awk '"'"'$5 == "/rel/dir" { print "MOUNTED", $5 }'"'"' /proc/self/mountinfo'
	run_ctr
	assert_success
	assert_line "MOUNTED /rel/dir"
	assert_equal "$(grep -c 'warning: mount destination rel/dir is not absolute. Support for non-absolute mount destinations will be removed in a future release.' <<<"$output")" 1
	refute_output --partial "destination /abs"
	assert_equal "$(grep -c 'not absolute' <<<"$output")" 1
}

@test "mounts: mappings with rbind but neither idmap nor ridmap map the top mount only (as runc: only ridmap recurses)" {
	tmpfs_idmap_ok || skip "a tmpfs takes no idmapped mount before Linux 6.3"
	mkdir -p "$OUT/src/sub"
	touch "$OUT/src/top"
	mount -t tmpfs "tinyrun-$TOKEN" "$OUT/src/sub"
	touch "$OUT/src/sub/file"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$OUT/src"'", "options": ["rbind"],
		"uidMappings": [{"containerID": 0, "hostID": 2000, "size": 10}],
		"gidMappings": [{"containerID": 0, "hostID": 3000, "size": 10}]}'
	add_mount '{"destination": "/r", "type": "bind", "source": "'"$OUT/src"'", "options": ["rbind", "ridmap"],
		"uidMappings": [{"containerID": 0, "hostID": 2000, "size": 10}],
		"gidMappings": [{"containerID": 0, "hostID": 3000, "size": 10}]}'
	set_cmd 'stat -c "%n %u:%g" /m/top /m/sub/file /r/top /r/sub/file'
	run_ctr
	umount "$OUT/src/sub"
	assert_success
	assert_line "/m/top 2000:3000"
	assert_line "/m/sub/file 0:0"
	assert_line "/r/top 2000:3000"
	assert_line "/r/sub/file 2000:3000"
}

@test "mounts: rro makes every submount read-only, ro only the top one; rnoexec recurses" {
	mkdir -p "$OUT/src/sub"
	mount -t tmpfs "tinyrun-$TOKEN" "$OUT/src/sub"
	add_mount '{"destination": "/rro", "type": "bind", "source": "'"$OUT/src"'", "options": ["rbind", "rro", "rnoexec"]}'
	add_mount '{"destination": "/ro", "type": "bind", "source": "'"$OUT/src"'", "options": ["rbind", "ro", "nosuid"]}'
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	umount "$OUT/src/sub"
	assert_success
	has_opt /rro ro
	has_opt /rro/sub ro
	has_opt /rro/sub noexec
	has_opt /ro ro
	has_opt /ro nosuid
	lacks_opt /ro/sub ro
	lacks_opt /ro/sub nosuid
}

# As runc 1.2+ (its mounts_sshfs.bats): a bind whose options set or clear a
# flag gets exactly the flags asked for, the source's ro, nosuid, nodev,
# noexec and nosymfollow included; its atime only when an atime flag is
# asked for. A bind with no flag option keeps the source's flags.
@test "mounts: a bind with flag options gets exactly those flags (the source's ro, nosuid, noexec go; atime only when asked); bind alone keeps them" {
	mkdir -p "$OUT/src"
	mount -t tmpfs "tinyrun-$TOKEN" "$OUT/src"
	mount --bind -o remount,ro,nosuid,nodev,noexec,noatime "$OUT/src"
	local e
	for e in 'plain:"bind"' 'dev:"bind","dev"' 'ro:"bind","ro"' 'rel:"bind","relatime"' \
		'nrel:"bind","norelatime"' 'ndir:"bind","nodiratime"'; do
		add_mount '{"destination": "/'"${e%%:*}"'", "type": "bind", "source": "'"$OUT/src"'", "options": ['"${e#*:}"']}'
	done
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	umount "$OUT/src"
	assert_success
	for e in ro nosuid nodev noexec noatime; do has_opt /plain "$e"; done
	has_opt /dev rw
	for e in nosuid nodev noexec; do lacks_opt /dev "$e"; done
	has_opt /dev noatime
	has_opt /ro ro
	for e in nosuid nodev noexec; do lacks_opt /ro "$e"; done
	has_opt /rel relatime
	lacks_opt /rel noatime
	has_opt /nrel noatime
	has_opt /ndir nodiratime
	has_opt /ndir relatime
}

@test "mounts: propagation options (rshared, rprivate) show in mountinfo" {
	mkdir -p "$OUT/a" "$OUT/b"
	add_mount '{"destination": "/shared", "type": "bind", "source": "'"$OUT/a"'", "options": ["rbind", "rshared"]}'
	add_mount '{"destination": "/private", "type": "bind", "source": "'"$OUT/b"'", "options": ["rbind", "rprivate"]}'
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	assert_success
	assert_output --regexp ' /shared [^ ]+ shared:[0-9]+ '
	refute_output --regexp ' /private [^ ]+ (shared|master):'
}

# --- propagation with the host: a volume on a shared host mount point ------
# (Kubernetes: Bidirectional is rbind+rshared with rootfsPropagation rshared,
# HostToContainer rbind+rslave with rslave, as containerd's CRI writes them.)

# shared_volume: $VOL, a host directory made a shared mount point of its own
# (with sub/ and host/ for the mounts below); teardown unmounts all of it.
shared_volume() {
	VOL="$BATS_TEST_TMPDIR/vol"
	mkdir -p "$VOL"
	mount --bind "$VOL" "$VOL"
	mount --make-shared "$VOL"
	mkdir -p "$VOL/sub" "$VOL/host" "$VOL/pre"
	# there before the container: its copy in the old root must not take
	# the host's with it when the runtime detaches that root
	mount -t tmpfs "pre-$TOKEN" "$VOL/pre"
}

# host_kept_premount: the host's $VOL/pre survived the container's start.
host_kept_premount() {
	assert_equal "$(awk -v d="$VOL/pre" '$5 == d { print $(NF - 1) }' /proc/self/mountinfo)" "pre-$TOKEN"
}

# unmount_volume: every host mount at or below $VOL, deepest first.
unmount_volume() {
	[[ -n "${VOL:-}" ]] || return 0
	awk -v v="$VOL" '$5 == v || index($5, v "/") == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m"; done
}

teardown() {
	unmount_volume
	tr_teardown
}

# volume_container ROOTPROP OPTION [RUN FLAGS...]: a detached container with $VOL bound at
# /vol (rbind + OPTION), rootfsPropagation ROOTPROP (none: the default), and
# CAP_SYS_ADMIN; it mounts a tmpfs on /vol/sub, writes a marker into it and
# the /vol line of its mountinfo into /vol/tags, then sleeps.
volume_container() {
	update_config '.mounts += [{"destination": "/vol", "type": "bind", "source": $src, "options": (["rbind"] + $opt)}]
		| .process.capabilities.bounding += ["CAP_SYS_ADMIN"]
		| .process.capabilities.effective += ["CAP_SYS_ADMIN"]
		| .process.capabilities.permitted += ["CAP_SYS_ADMIN"]' \
		--arg src "$VOL" --argjson opt "$([[ -n "$2" ]] && echo "[\"$2\"]" || echo '[]')"
	[[ "$1" == none ]] || update_config '.linux.rootfsPropagation = $p' --arg p "$1"
	set_cmd "mount -t tmpfs ctr-$TOKEN /vol/sub && echo from-container >/vol/sub/marker
		grep ' /vol ' /proc/self/mountinfo >/vol/tags; touch /vol/ready; exec sleep 3600"
	run_detached "$CID" "${@:3}"
	wait_for_file "$VOL/ready"
}

# tags_of MOUNTPOINT: the optional fields (shared:N master:M ...) of its line
tags_of() {
	awk -v d="$1" '$5 == d { t = ""; for (i = 7; $i != "-"; i++) t = t (t ? " " : "") $i; print t }'
}

# host_mounts_into_volume: a tmpfs mounted on the host at $VOL/host after the
# container started; $output: what the container reads there.
host_mounts_into_volume() {
	mount -t tmpfs "host-$TOKEN" "$VOL/host"
	echo from-host >"$VOL/host/marker"
	run runtime exec "$CID" cat /vol/host/marker
}

stop_volume_container() {
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# both directions: the container's tmpfs on the host, the host's in the
# container, and /vol a peer of the host's volume (its group, no master:)
assert_bidirectional() {
	local host_group
	host_kept_premount
	host_group="$(tags_of "$VOL" </proc/self/mountinfo)"
	[[ "$host_group" =~ ^shared:[0-9]+$ ]] || fail "host volume tags: '$host_group'"
	assert_equal "$(tags_of /vol <"$VOL/tags")" "$host_group"
	assert_equal "$(awk -v d="$VOL/sub" '$5 == d { print $(NF - 1) }' /proc/self/mountinfo)" "ctr-$TOKEN"
	assert_equal "$(cat "$VOL/sub/marker")" from-container
	host_mounts_into_volume
	assert_success
	assert_output from-host
	stop_volume_container
	# the container's tmpfs is the host's now: it outlives the container
	assert_equal "$(cat "$VOL/sub/marker")" from-container
}

@test "mounts: an rshared volume with rootfsPropagation rshared propagates both ways (Kubernetes Bidirectional)" {
	shared_volume
	volume_container rshared rshared
	assert_bidirectional
}

@test "mounts: an rshared volume with rootfsPropagation shared propagates both ways" {
	shared_volume
	volume_container shared rshared
	assert_bidirectional
}

@test "mounts: --no-pivot: an rshared volume with rootfsPropagation rshared propagates both ways" {
	shared_volume
	volume_container rshared rshared --no-pivot
	assert_bidirectional
}

# A host whose "/" is shared (systemd's default; this one's is private, so a
# mount namespace of the test's own plays the host): the detach of the old
# root (pivot_root), or with MS_MOVE + chroot the unmount of the host's proc
# and the move of the rootfs onto "/", must not reach it (runc 1.1 loses the
# host's /proc with --no-pivot).
@test "mounts: rootfsPropagation rshared on a host with a shared /: the host keeps its /proc and its /, with and without pivot_root" {
	local flag
	update_config '.linux.rootfsPropagation = "rshared"'
	set_cmd 'echo ran'
	for flag in --no-pivot ""; do
		run_nohang unshare -m --propagation shared sh -c '
			mount --bind "$1" "$1"       # the bundle on a mount of its own: / stays shared
			shift
			"$@" || exit
			stat -f -c "host /proc: %T" /proc
			awk "\$5 == \"/\"" /proc/self/mountinfo | wc -l' \
			sh "$BUNDLE" "$RUNTIME" --root "$ROOT" run ${flag:+"$flag"} --bundle "$BUNDLE" "$CID"
		assert_success
		assert_line ran
		assert_line "host /proc: proc"
		assert_equal "${lines[-1]}" 1
	done
}

# receives the host's mounts, sends none: a slave of the host's group
assert_host_to_container_only() {
	local host_group ctr_tags
	host_kept_premount
	run grep -F "ctr-$TOKEN" /proc/self/mountinfo
	assert_failure
	[[ ! -e "$VOL/sub/marker" ]] || fail "the container's file reached the host"
	host_group="$(tags_of "$VOL" </proc/self/mountinfo)"
	ctr_tags="$(tags_of /vol <"$VOL/tags")"
	[[ "$ctr_tags" == "master:${host_group#shared:}" ]] || fail "container /vol tags '$ctr_tags', host '$host_group'"
	host_mounts_into_volume
	assert_success
	assert_output from-host
	stop_volume_container
}

@test "mounts: an rslave volume with rootfsPropagation rslave receives host mounts and sends none (Kubernetes HostToContainer)" {
	shared_volume
	volume_container rslave rslave
	assert_host_to_container_only
}

@test "mounts: a volume from a shared host mount, default rootfsPropagation: nothing the container mounts reaches the host" {
	shared_volume
	volume_container none ""
	assert_host_to_container_only
}

@test "mounts: a destination through a symlink to / or ../../.. lands inside the rootfs" {
	mkdir -p "$OUT/vol"
	echo inside >"$OUT/vol/marker"
	ln -s / "$BUNDLE/rootfs/evil"
	ln -s ../../../../../../.. "$BUNDLE/rootfs/up"
	local host_a="/escaped-$TOKEN" host_b="/up-$TOKEN"
	add_mount '{"destination": "/evil'"$host_a"'", "type": "bind", "source": "'"$OUT/vol"'", "options": ["bind"]}'
	add_mount '{"destination": "/up'"$host_b"'", "type": "bind", "source": "'"$OUT/vol"'", "options": ["bind"]}'
	set_cmd "cat $host_a/marker $host_b/marker"
	run_ctr
	assert_success
	assert_equal "${lines[0]}" inside
	assert_equal "${lines[1]}" inside
	[ ! -e "$host_a" ] && [ ! -e "$host_b" ]
	[ -d "$BUNDLE/rootfs$host_a" ] && [ -d "$BUNDLE/rootfs$host_b" ]
}

@test "mounts: a rootfs whose /proc is a symlink is refused" {
	rmdir "$BUNDLE/rootfs/proc"
	mkdir "$BUNDLE/rootfs/notproc"
	ln -s /notproc "$BUNDLE/rootfs/proc"
	set_args true
	run_ctr
	assert_failure
	assert_output --partial "/proc"
	assert_output --partial "symlink"
	[ -z "$(ls -A "$BUNDLE/rootfs/notproc")" ]
}

@test "mounts: a rootfs whose /sys is a symlink is refused" {
	rmdir "$BUNDLE/rootfs/sys"
	ln -s /tmp "$BUNDLE/rootfs/sys"
	set_args true
	run_ctr
	assert_failure
	assert_output --partial "symlink"
}

@test "mounts: proc on top of another filesystem (a tmpfs at /proc) is refused" {
	update_config '.mounts = [{"destination": "/proc", "type": "tmpfs", "source": "tmpfs"}] + .mounts'
	set_args true
	run_ctr
	assert_failure
	assert_output --partial "/proc"
}

@test "mounts: masked paths: a file reads empty, a directory is empty and read-only, remount does not unmask" {
	mkdir -p "$BUNDLE/rootfs/secret-dir"
	echo secret >"$BUNDLE/rootfs/secret-dir/key"
	echo secret >"$BUNDLE/rootfs/secret-file"
	update_config '.linux.maskedPaths += ["/secret-file", "/secret-dir", "/does-not-exist"]'
	set_cmd 'echo "file:[$(cat /secret-file)]"; echo "dir:[$(ls -A /secret-dir)]";
		touch /secret-dir/x 2>/dev/null && echo WROTE; mount -o remount,rw /secret-file 2>/dev/null;
		echo "after:[$(cat /secret-file)]"; cat /proc/self/mountinfo'
	run_ctr
	assert_success
	assert_line "file:[]"
	assert_line "dir:[]"
	assert_line "after:[]"
	refute_line WROTE
	has_opt /secret-dir ro
}

@test "mounts: a masked or read-only path listed twice is mounted once (as runc)" {
	mkdir -p "$BUNDLE/rootfs/twice-dir" "$BUNDLE/rootfs/ro-dir"
	echo secret >"$BUNDLE/rootfs/twice-file"
	update_config '.linux.maskedPaths += ["/twice-dir", "/twice-file", "/twice-dir", "/twice-file"]
		| .linux.readonlyPaths += ["/ro-dir", "/ro-dir"]'
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	assert_success
	local p
	for p in /twice-dir /twice-file /ro-dir; do
		[ "$(awk -v p="$p" '$5 == p' <<<"$output" | wc -l)" = 1 ] || fail "$p mounted $(awk -v p="$p" '$5 == p' <<<"$output" | wc -l) times: $output"
	done
}

@test "mounts: a masked /dev/null link in the image does not decide what masks a file" {
	# CVE-2025-31133 class: the image's /dev/null is never the mask's source.
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	rm -rf "$BUNDLE/rootfs/dev"
	mkdir "$BUNDLE/rootfs/dev"
	ln -s /proc/sys/kernel/hostname "$BUNDLE/rootfs/dev/null"
	echo secret >"$BUNDLE/rootfs/secret-file"
	update_config '.linux.maskedPaths += ["/secret-file"]'
	set_cmd 'echo "file:[$(cat /secret-file)]"; stat -c "%F %t:%T" /secret-file'
	run_ctr
	assert_success
	assert_line "file:[]"
	assert_line "character special file 1:3"
}

@test "mounts: readonlyPaths are read-only, recursively" {
	mkdir -p "$OUT/rw/sub"
	add_mount '{"destination": "/data", "type": "bind", "source": "'"$OUT/rw"'", "options": ["rbind", "rw"]}'
	add_mount '{"destination": "/data/sub", "type": "tmpfs", "source": "tmpfs"}'
	update_config '.linux.readonlyPaths += ["/data"]'
	set_cmd 'cat /proc/self/mountinfo; touch /data/x 2>/dev/null && echo WROTE1; touch /data/sub/x 2>/dev/null && echo WROTE2; true'
	run_ctr
	assert_success
	has_opt /proc/sys ro
	has_opt /data ro
	has_opt /data/sub ro
	refute_line WROTE1
	refute_line WROTE2
}

@test "mounts: root.readonly makes / read-only and leaves other mounts alone" {
	update_config '.root.readonly = true'
	set_cmd 'cat /proc/self/mountinfo; touch /x 2>/dev/null && echo WROTE; touch /dev/shm/x && echo SHM-OK'
	run_ctr
	assert_success
	has_opt / ro
	refute_line WROTE
	assert_line SHM-OK
	[ ! -e "$BUNDLE/rootfs/x" ]
}

@test "mounts: tmpfs size and mode, and tmpcopyup copies the image's files" {
	mkdir -p "$BUNDLE/rootfs/cu/d"
	echo hello >"$BUNDLE/rootfs/cu/d/f"
	ln -s f "$BUNDLE/rootfs/cu/d/l"
	chmod 750 "$BUNDLE/rootfs/cu"
	chown 12:34 "$BUNDLE/rootfs/cu/d/f"
	add_mount '{"destination": "/cu", "type": "tmpfs", "source": "tmpfs", "options": ["tmpcopyup", "size=1m"]}'
	add_mount '{"destination": "/t", "type": "tmpfs", "source": "tmpfs", "options": ["mode=700", "size=2m", "ro"]}'
	set_cmd 'cat /proc/self/mountinfo; cat /cu/d/l; stat -c "%n %a %u:%g" /cu /cu/d/f /t; echo new >/cu/new; touch /t/x 2>/dev/null && echo WROTE; true'
	run_ctr
	assert_success
	assert_output --regexp ' /cu [^ ]+ .* tmpfs [^ ]+ rw,size=1024k'
	assert_line hello
	assert_line "/cu 750 0:0"
	assert_line "/cu/d/f 644 12:34"
	assert_line "/t 700 0:0"
	has_opt /t ro
	refute_line WROTE
	[ ! -e "$BUNDLE/rootfs/cu/new" ]
}

@test "mounts: overlay" {
	mkdir -p "$OUT/lower" "$OUT/upper" "$OUT/work"
	echo low >"$OUT/lower/f"
	add_mount '{"destination": "/ovl", "type": "overlay", "source": "overlay", "options": ["lowerdir='"$OUT/lower"'", "upperdir='"$OUT/upper"'", "workdir='"$OUT/work"'"]}'
	set_cmd 'cat /ovl/f; echo up >/ovl/g'
	run_ctr
	assert_success
	assert_line low
	[ "$(cat "$OUT/upper/g")" = up ]
}

@test "mounts: sysfs is read-only without a network namespace of its own" {
	update_config '.linux.namespaces |= map(select(.type != "network"))
		| .mounts |= map(if .type == "sysfs" then .options = ["nosuid", "nodev", "noexec"] else . end)'
	set_cmd 'cat /proc/self/mountinfo'
	run_ctr
	assert_success
	has_opt /sys ro
}

# Without a cgroup namespace (and without a user namespace: security.bats)
# the cgroup mount's options decide, as runc: "ro" (every spec's default)
# makes every mount below /sys/fs/cgroup read-only; without it the container
# may make sub-cgroups of its own cgroup (docker --privileged, runc's exec
# --cgroup tests), which go when the container does.
@test "mounts: without a cgroup namespace the cgroup mount is read-only with ro, the container's own cgroup writable without" {
	local mnt
	set_cmd 'cat /proc/self/mountinfo; echo ===; cat /proc/self/cgroup; mkdir /sys/fs/cgroup/memory/sub 2>/dev/null && echo WROTE; true'
	run_ctr
	assert_success
	has_opt /sys/fs/cgroup ro
	refute_line WROTE
	# every cgroup mount below /sys/fs/cgroup is read-only
	run awk '$5 ~ "^/sys/fs/cgroup/" && ("," $6 ",") !~ /,ro,/' <<<"$output"
	assert_output ""
	[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || skip "the rest: cgroup v1/hybrid host only"
	update_config '.mounts |= map(if .type == "cgroup" then .options = ["nosuid", "nodev", "noexec"] else . end)'
	set_cmd 'mkdir /sys/fs/cgroup/memory/sub && echo WROTE; grep memory /proc/self/cgroup; sleep 1000'
	run_detached "$CID"
	wait_for_file "$(container_log "$CID")" WROTE
	mnt="$(grep ':memory:' "$(container_log "$CID")" | cut -d: -f3)"
	[ -n "$mnt" ] && [ -d "/sys/fs/cgroup/memory$mnt/sub" ]
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
	[ ! -e "/sys/fs/cgroup/memory$mnt" ]
}

@test "mounts: cgroup v1 hierarchies are the container's own cgroup (no cgroup namespace)" {
	[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || skip "cgroup v1/hybrid host only"
	set_cmd 'cat /proc/self/mountinfo; echo ===; cat /proc/self/cgroup'
	run_ctr
	assert_success
	local pids_path
	pids_path="$(awk -F: '$2 == "pids" { print $3 }' <<<"$output")"
	[ -n "$pids_path" ] && [ "$pids_path" != / ]
	assert_equal "$(awk '$5 == "/sys/fs/cgroup/pids" { print $4 }' <<<"$output")" "$pids_path"
}

@test "mounts: with a cgroup namespace the cgroup mounts are rooted at the container's cgroup" {
	update_config '.linux.namespaces += [{"type": "cgroup"}]'
	set_cmd 'cat /proc/self/cgroup; ls /sys/fs/cgroup/'
	run_ctr
	assert_success
	run awk -F: '$3 != "/"' <<<"$(grep -E '^[0-9]+:' <<<"$output")"
	assert_output ""
}

@test "mounts: --no-pivot (MS_MOVE + chroot) gives the same view" {
	set_cmd 'cat /proc/self/mountinfo; ls /'
	run_ctr --no-pivot
	assert_success
	assert_line bin
	has_opt /sys ro
}

# runc#3248: a read-only /dev tmpfs with a terminal; the console's mount
# point is made while /dev is writable, /dev is read-only in the end.
@test "mounts: a read-only /dev with process.terminal: the console is bound, /dev stays read-only" {
	update_config '.mounts |= map(if .destination == "/dev" then .options += ["ro"] else . end)
		| .process.terminal = true'
	set_cmd 'grep " /dev " /proc/self/mountinfo | cut -d" " -f5,6; stat -c "%n %F %t" /dev/console; touch /dev/x || echo read-only'
	run_nohang script -qec "$(printf '%q ' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID")" /dev/null
	# script's pty: CR LF line ends, an echoed ^@
	output="$(tr -d '\r' <<<"$output" | sed 's/\^@//g')"
	assert_success
	assert_output --regexp '(^|'$'\n'')/dev ro,'
	assert_output --partial "/dev/console character special file 88"
	assert_output --partial read-only
}

# With MS_MOVE + chroot the host's mounts stay in the namespace below the
# rootfs; a whole proc there would let a nested user+pid namespace mount a
# fresh, unmasked proc (runc's no_pivot.bats). The host's proc and sysfs
# must be gone from the container's mount namespace.
@test "mounts: --no-pivot leaves no host proc or sysfs behind: a nested namespace cannot mount a fresh proc" {
	update_config '.process.capabilities.bounding += ["CAP_SETFCAP"]
		| .process.capabilities.permitted += ["CAP_SETFCAP"]'
	set_cmd 'unshare -mrpf sh -c "mount -t proc none /proc && echo mounted-proc"; echo done'
	run_ctr --no-pivot
	assert_success
	assert_line done
	refute_line mounted-proc
	assert_output --partial "ermission denied"
	# the host still has its /proc and /sys
	mountpoint -q /proc
	mountpoint -q /sys
}

@test "mounts: nothing the container mounts is visible on the host while it runs" {
	local before
	before="$(wc -l </proc/self/mountinfo)"
	set_args sleep 3600
	run_detached "$CID"
	run grep -F "$BUNDLE" /proc/self/mountinfo
	assert_failure
	assert_equal "$(wc -l </proc/self/mountinfo)" "$before"
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# podman's --tmpfs /mnt/t:size=1m is a tmpfs with tmpcopyup and no mode=.
# As runc: on a directory the runtime makes, the tmpfs root keeps the
# kernel's 1777; on one the image has, it takes that directory's mode;
# mode= always wins.
@test "mounts: a tmpfs without mode= is 1777 on a new directory, the image's mode on an existing one" {
	mkdir -p "$BUNDLE/rootfs/old" "$BUNDLE/rootfs/oldc"
	chmod 750 "$BUNDLE/rootfs/old" "$BUNDLE/rootfs/oldc"
	add_mount '{"destination": "/mnt/t", "type": "tmpfs", "source": "tmpfs", "options": ["rw", "noexec", "nosuid", "nodev", "tmpcopyup", "size=1m"]}'
	add_mount '{"destination": "/new", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/old", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/oldc", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m", "tmpcopyup"]}'
	add_mount '{"destination": "/oldm", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m", "tmpcopyup", "mode=1700"]}'
	mkdir -p "$BUNDLE/rootfs/oldm"
	set_cmd 'stat -c "%n %a" /mnt/t /new /old /oldc /oldm; grep " /old " /proc/self/mounts'
	run_ctr
	assert_success
	assert_line "/mnt/t 1777"
	assert_line "/new 1777"
	assert_line "/old 750"
	assert_line "/oldc 750"
	assert_line "/oldm 1700"
	# the mode is the mount's own, as runc passes it (the mount table says so)
	assert_line --regexp '^tmpfs /old tmpfs [^ ]*mode=750'
	rm -rf "$BUNDLE/rootfs/mnt/t" "$BUNDLE/rootfs/new"
}

# runc and crun resolve a destination that is a dangling symlink inside the
# rootfs (securejoin) and create its target there; nothing is made outside.
@test "mounts: a destination that is a dangling symlink is created where it points, inside the rootfs" {
	mkdir -p "$OUT/vol"
	echo inside >"$OUT/vol/marker"
	echo file >"$OUT/f"
	local far="/far-$TOKEN"
	ln -s "$far/data" "$BUNDLE/rootfs/dl-abs"
	ln -s "../../../../..$far/rel" "$BUNDLE/rootfs/dl-rel"
	ln -s "$far/file" "$BUNDLE/rootfs/dl-file"
	add_mount '{"destination": "/dl-abs", "type": "bind", "source": "'"$OUT/vol"'", "options": ["bind"]}'
	add_mount '{"destination": "/dl-rel/sub", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/dl-file", "type": "bind", "source": "'"$OUT/f"'", "options": ["bind"]}'
	set_cmd "cat /dl-abs/marker $far/data/marker /dl-file; grep -E ' $far/(data|rel/sub|file) ' /proc/self/mountinfo | cut -d' ' -f5"
	run_ctr
	assert_success
	assert_equal "${lines[0]}" inside
	assert_equal "${lines[1]}" inside
	assert_equal "${lines[2]}" file
	assert_line "$far/data"
	assert_line "$far/rel/sub"
	assert_line "$far/file"
	[ ! -e "$far" ]
	[ -d "$BUNDLE/rootfs$far/data" ] && [ -d "$BUNDLE/rootfs$far/rel/sub" ] && [ -f "$BUNDLE/rootfs$far/file" ]
}

# runc resolves relative bind sources against the bundle before any mount:
# an earlier mounts[] entry over a path inside the bundle (here a tmpfs on
# the rootfs' /data) must not change what a later relative source names.
@test "mounts: relative bind sources name the bundle's files as they were before any mount" {
	mkdir -p "$BUNDLE/rootfs/data" "$BUNDLE/vol"
	echo image >"$BUNDLE/rootfs/data/marker"
	echo vol >"$BUNDLE/vol/marker"
	add_mount '{"destination": "/data", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	add_mount '{"destination": "/seen", "type": "bind", "source": "rootfs/data", "options": ["bind", "ro"]}'
	add_mount '{"destination": "/vol", "type": "bind", "source": "./vol", "options": ["rbind"]}'
	set_cmd 'cat /seen/marker /vol/marker; ls -A /data | wc -l'
	(cd / && run_nohang "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	 assert_success
	 assert_equal "${lines[0]}" image
	 assert_equal "${lines[1]}" vol
	 assert_equal "${lines[2]}" 0)
}

# runc takes a destination that names the rootfs' own host path as a path
# inside the rootfs (pathrs.LexicallyStripRoot); absolute bind sources are
# resolved when their entry is mounted, so they see the earlier entries
# (runc's "mount order" tests).
@test "mounts: a destination spelled as the rootfs' host path lands inside it; sources see earlier entries" {
	local rootfs
	rootfs="$(realpath "$BUNDLE/rootfs")"
	mkdir -p "$OUT/vol/sub" "$BUNDLE/rootfs/mnt"
	echo vol >"$OUT/vol/sub/marker"
	add_mount '{"destination": "/mnt", "type": "bind", "source": "'"$OUT/vol"'", "options": ["rbind"]}'
	add_mount '{"destination": "'"$rootfs"'/./final//", "type": "bind", "source": "'"$rootfs"'/mnt/sub", "options": ["rbind"]}'
	set_cmd "cat /final/marker; grep -c ' /final ' /proc/self/mountinfo"
	run_ctr
	assert_success
	assert_equal "${lines[0]}" vol
	assert_equal "${lines[1]}" 1
	[ ! -e "$BUNDLE/rootfs$rootfs" ]
	[ -d "$BUNDLE/rootfs/final" ]
}
