#!/usr/bin/env bats
# config-linux.md: Rootfs Mount Propagation, Masked Paths, Readonly Paths,
# Mount Label, Personality, Sysctl, IntelRdt

load helpers

# the bundle as a shared mount on the host, so propagation can be observed
shared_bundle() {
	mount --bind "$B" "$B"
	track_mount "$B"
	mount --make-rshared "$B"
}
root_tags() { sed -n 's/.* tags=\([^ ]*\).*/\1/p' <<<"$(val mount:/)"; }

# ------------------------------------------------------ rootfs propagation --

@test "config-linux.md/rootfs-propagation: MUST make the rootfs shared with rootfsPropagation shared" {
	shared_bundle
	cfg '.linux.rootfsPropagation = "shared"'
	check mount:/
	run_ct
	[[ $(root_tags) == *shared:* ]] || { echo "tags of /: $(root_tags)" >&2; false; }
}

@test "config-linux.md/rootfs-propagation: MUST make the rootfs a slave with rootfsPropagation slave" {
	shared_bundle
	cfg '.linux.rootfsPropagation = "slave"'
	check mount:/
	run_ct
	[[ $(root_tags) == *master:* && $(root_tags) != *shared:* ]] || { echo "tags of /: $(root_tags)" >&2; false; }
}

@test "config-linux.md/rootfs-propagation: MUST make the rootfs private with rootfsPropagation private" {
	shared_bundle
	cfg '.linux.rootfsPropagation = "private"'
	check mount:/
	run_ct
	expect_eq "$(root_tags)" - "tags of /"
}

@test "config-linux.md/rootfs-propagation: MUST make the rootfs unbindable with rootfsPropagation unbindable" {
	shared_bundle
	cfg '.linux.rootfsPropagation = "unbindable"'
	check mount:/
	run_ct
	[[ $(root_tags) == *unbindable* ]] || { echo "tags of /: $(root_tags)" >&2; false; }
}

@test "config-linux.md/rootfs-propagation: MUST make the rootfs unbindable when the bundle lies on the mount of /" {
	# runtime-tools' linux_rootfs_propagation: the bundle in a directory of
	# the host's /, which must stay bindable until the rootfs is bound
	[ "$(findmnt -n -o TARGET -T "$B")" = / ] || skip "the bundle is not on the mount of / here"
	cfg '.linux.rootfsPropagation = "unbindable"'
	check mount:/
	run_ct
	[[ $(root_tags) == *unbindable* ]] || { echo "tags of /: $(root_tags)" >&2; false; }
}

@test "config-linux.md/rootfs-propagation: MUST let a slave rootfs receive mount events from the host" {
	shared_bundle
	mkdir -p "$B/rootfs/mnt/from-host"
	cfg '.linux.rootfsPropagation = "slave"'
	check pause
	create_running
	mount -t tmpfs -o size=1m hostevent "$B/rootfs/mnt/from-host"
	track_mount "$B/rootfs/mnt/from-host"
	grep -q ' /mnt/from-host .* hostevent ' "/proc/$(ct_pid)/mountinfo"
}

@test "config-linux.md/rootfs-propagation: MUST NOT let a private rootfs receive mount events from the host" {
	shared_bundle
	mkdir -p "$B/rootfs/mnt/from-host"
	cfg '.linux.rootfsPropagation = "private"'
	check pause
	create_running
	mount -t tmpfs -o size=1m hostevent "$B/rootfs/mnt/from-host"
	track_mount "$B/rootfs/mnt/from-host"
	! grep -q ' /mnt/from-host .* hostevent ' "/proc/$(ct_pid)/mountinfo"
}

@test "config-linux.md/rootfs-propagation: MUST NOT propagate container mounts to the host with a slave rootfs" {
	shared_bundle
	cfg '.linux.rootfsPropagation = "slave"'
	add_mount '{"destination": "/mnt/inside", "type": "tmpfs", "source": "insideevent"}'
	check pause
	create_running
	! grep -q 'insideevent' /proc/self/mountinfo
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown rootfsPropagation" {
	cfg '.linux.rootfsPropagation = "bogus"'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ]
}

# ------------------------------------------------------------- maskedPaths --

@test "config-linux.md/masked-paths: MUST make a masked file unreadable" {
	echo secret >"$B/rootfs/etc/secret"
	cfg '.linux.maskedPaths = ["/etc/secret"]'
	check read:/etc/secret
	run_ct
	expect_match "$(val read:/etc/secret)" '^(ok 0|ERR:.*)$' "reading the masked file"
}

@test "config-linux.md/masked-paths: MUST make a masked directory unreadable" {
	mkdir -p "$B/rootfs/secretdir" && echo secret >"$B/rootfs/secretdir/f"
	cfg '.linux.maskedPaths = ["/secretdir"]'
	check readdir:/secretdir read:/secretdir/f
	run_ct
	expect_match "$(val readdir:/secretdir)" '^(|ERR:.*)$' "listing the masked directory"
	expect_match "$(val read:/secretdir/f)" '^ERR:' "reading a file in it"
}

@test "config-linux.md/masked-paths: MUST mask a /proc file (/proc/kcore)" {
	cfg '.linux.maskedPaths = ["/proc/kcore"]'
	check read:/proc/kcore
	run_ct
	expect_match "$(val read:/proc/kcore)" '^(ok 0|ERR:.*)$' "reading /proc/kcore"
}

@test "config-linux.md/masked-paths: MUST generate an error for a relative masked path (values MUST be absolute)" {
	echo secret >"$B/rootfs/etc/secret"
	cfg '.linux.maskedPaths = ["etc/secret"]'
	check read:/etc/secret
	local okrun=0
	if create; then start || true; wait_stopped || true; [ "$(val read:/etc/secret)" = "ok 7" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "relative masked path accepted and not masked" >&2; false; }
}

# ----------------------------------------------------------- readonlyPaths --

@test "config-linux.md/readonly-paths: MUST make a readonly directory read-only (/proc/sys)" {
	cfg '.linux.readonlyPaths = ["/proc/sys"]'
	check write:/proc/sys/kernel/hostname
	run_ct
	expect_eq "$(val write:/proc/sys/kernel/hostname)" ERR:EROFS "writing /proc/sys/kernel/hostname"
}

@test "config-linux.md/readonly-paths: MUST leave paths that are not listed writable" {
	cfg '.linux.readonlyPaths = []'
	check write:/proc/sys/kernel/hostname
	run_ct
	expect_eq "$(val write:/proc/sys/kernel/hostname)" ok "writing /proc/sys/kernel/hostname in the uts namespace"
}

@test "config-linux.md/readonly-paths: MUST make a readonly file read-only" {
	cfg '.linux.readonlyPaths = ["/etc/regular"]'
	check write:/etc/regular write:/etc/other
	run_ct
	expect_eq "$(val write:/etc/regular)" ERR:EROFS "writing /etc/regular"
	expect_eq "$(val write:/etc/other)" ok "writing another file"
}

@test "config-linux.md/readonly-paths: MUST generate an error for a relative readonly path (values MUST be absolute)" {
	cfg '.linux.readonlyPaths = ["etc/regular"]'
	check write:/etc/regular
	local okrun=0
	if create; then start || true; wait_stopped || true; [ "$(val write:/etc/regular)" = ok ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "relative readonly path accepted and not applied" >&2; false; }
}

# ------------------------------------------------------------- mountLabel --

@test "config-linux.md/mount-label: MUST set the SELinux context of the mounts to mountLabel" {
	need_selinux
	cfg '.linux.mountLabel = "system_u:object_r:container_file_t:s0:c1,c2"'
	check mount:/dev/shm
	run_ct
	expect_match "$(val mount:/dev/shm)" 'context=' "/dev/shm options"
}

# ------------------------------------------------------------- personality --

@test "config-linux.md/personality: MUST set the LINUX32 execution domain" {
	cfg '.linux.personality = {"domain": "LINUX32"}'
	check personality machine
	run_ct
	expect_eq "$(val personality)" 0x8 personality
	expect_match "$(val machine)" '^i[3-6]86$' "uname machine"
}

@test "config-linux.md/personality: MUST set the LINUX execution domain" {
	cfg '.linux.personality = {"domain": "LINUX"}'
	check personality machine
	run_ct
	expect_eq "$(val personality) $(val machine)" "0x0 $(uname -m)"
}

@test "config-linux.md/valid-values: MUST generate an error for an unknown personality domain" {
	cfg '.linux.personality = {"domain": "NO_SUCH_DOMAIN"}'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ]
}

# ------------------------------------------------------------------- sysctl --

@test "config-linux.md/sysctl: MUST apply a network namespace sysctl" {
	cfg '.linux.sysctl = {"net.ipv4.ip_forward": "1"}'
	check sysctl:net.ipv4.ip_forward
	local host
	host=$(cat /proc/sys/net/ipv4/ip_forward)
	run_ct
	expect_eq "$(val sysctl:net.ipv4.ip_forward)" 1 "net.ipv4.ip_forward inside"
	expect_eq "$(cat /proc/sys/net/ipv4/ip_forward)" "$host" "net.ipv4.ip_forward on the host"
}

@test "config-linux.md/sysctl: MUST apply an ipc namespace sysctl" {
	cfg '.linux.sysctl = {"kernel.msgmax": "4096"}'
	check sysctl:kernel.msgmax
	run_ct
	expect_eq "$(val sysctl:kernel.msgmax)" 4096 "kernel.msgmax inside"
}

@test "config-linux.md/sysctl: MUST apply a uts namespace sysctl" {
	cfg '.linux.sysctl = {"kernel.domainname": "sysctl.test"}'
	check sysctl:kernel.domainname
	run_ct
	expect_eq "$(val sysctl:kernel.domainname)" sysctl.test "kernel.domainname inside"
}

@test "config-linux.md/sysctl: MUST apply several sysctls" {
	cfg '.linux.sysctl = {"net.ipv4.ip_forward": "1", "net.core.somaxconn": "256"}'
	check sysctl:net.ipv4.ip_forward sysctl:net.core.somaxconn
	run_ct
	expect_eq "$(val sysctl:net.ipv4.ip_forward) $(val sysctl:net.core.somaxconn)" "1 256"
}

# ----------------------------------------------------------------- intelRdt --

@test "config-linux.md/intelrdt: MUST generate an error when intelRdt is set and no resctrl is mounted" {
	! grep -q ' - resctrl ' /proc/self/mountinfo || skip "resctrl is mounted on this host"
	cfg '.linux.intelRdt = {"closID": "conformance", "l3CacheSchema": "L3:0=1"}'
	check echo:ran
	local okrun=0
	if create; then start || true; wait_stopped || true; [ -n "$(val echo:ran)" ] && okrun=1; fi
	[ "$okrun" = 0 ] || { echo "runtime ignored intelRdt without resctrl" >&2; false; }
}

need_resctrl() { grep -q ' - resctrl ' /proc/self/mountinfo || skip "no resctrl file system (Intel RDT) on this host"; }
rdt_dir() { echo "/sys/fs/resctrl/$1"; }

@test "config-linux.md/intelrdt: MUST write the container pid to the tasks file of closID" {
	need_resctrl
	cfg '.linux.intelRdt = {"closID": "conformance-'"$ID"'", "l3CacheSchema": "L3:0=1"}'
	on_teardown rmdir "$(rdt_dir "conformance-$ID")"
	check pause
	create
	grep -qx "$(ct_pid)" "$(rdt_dir "conformance-$ID")/tasks"
}

@test "config-linux.md/intelrdt: MUST use the container id as the directory when closID is not set" {
	need_resctrl
	cfg '.linux.intelRdt = {"l3CacheSchema": "L3:0=1"}'
	on_teardown rmdir "$(rdt_dir "$ID")"
	check pause
	create
	grep -qx "$(ct_pid)" "$(rdt_dir "$ID")/tasks"
}

@test "config-linux.md/intelrdt: MUST write l3CacheSchema to the schemata file" {
	need_resctrl
	cfg '.linux.intelRdt = {"closID": "conformance-'"$ID"'", "l3CacheSchema": "L3:0=1"}'
	on_teardown rmdir "$(rdt_dir "conformance-$ID")"
	check pause
	create
	grep -q '^ *L3:0=0*1' "$(rdt_dir "conformance-$ID")/schemata"
}

@test "config-linux.md/intelrdt: MUST write memBwSchema to the schemata file" {
	need_resctrl
	grep -q '^ *MB:' /sys/fs/resctrl/schemata || skip "no memory bandwidth allocation on this host"
	cfg '.linux.intelRdt = {"closID": "conformance-'"$ID"'", "memBwSchema": "MB:0=50"}'
	on_teardown rmdir "$(rdt_dir "conformance-$ID")"
	check pause
	create
	grep -q '^ *MB:0= *50' "$(rdt_dir "conformance-$ID")/schemata"
}

@test "config-linux.md/intelrdt: MUST generate an error when an existing closID does not match the schemas" {
	need_resctrl
	mkdir -p "$(rdt_dir "conformance-$ID")"
	on_teardown rmdir "$(rdt_dir "conformance-$ID")"
	echo "L3:0=3" >"$(rdt_dir "conformance-$ID")/schemata"
	cfg '.linux.intelRdt = {"closID": "conformance-'"$ID"'", "l3CacheSchema": "L3:0=1"}'
	check echo:ran
	run create
	[ "$status" -ne 0 ]
}

@test "config-linux.md/intelrdt: MUST generate an error when closID is set without schemas and its directory does not exist" {
	need_resctrl
	cfg '.linux.intelRdt = {"closID": "conformance-missing-'"$ID"'"}'
	check echo:ran
	run create
	[ "$status" -ne 0 ]
	[ ! -e "$(rdt_dir "conformance-missing-$ID")" ]
}

@test "config-linux.md/intelrdt: MUST NOT manipulate resctrl when intelRdt is not set" {
	need_resctrl
	local before
	before=$(ls /sys/fs/resctrl)
	check echo:ran
	run_ct
	expect_eq "$(ls /sys/fs/resctrl)" "$before" "resctrl directories"
}
