# shellcheck shell=bash
# A real systemd (the host's /lib/systemd/systemd, Debian 12's 252) booted as
# PID 1 of a tinyrun "system container", as `podman run --systemd=always`
# runs one: its own pid, mount, cgroup, uts, ipc and network namespaces, the
# cgroup mount read-write (its cgroup namespace's root is the container's
# cgroup, so systemd writes nowhere else), and the host's /usr and /etc bound
# READ-ONLY with tmpfs on /tmp, /run, /var and /root, a private /dev, and
# /proc/sys read-only: systemd's boot services (tmpfiles' "D /tmp",
# systemd-sysctl, sysusers, journald's /dev/log) cannot touch the host. A
# systemd booted in a namespace that shares the host's / would empty the
# host's /tmp and set its fs.protected_* sysctls.
#
#   systemd_container_missing      why not here (prints a reason), else nothing
#   systemd_container_boot DIR ... boot it (DIR: its bundle; the other
#                                  arguments: host paths bound at the same
#                                  path, read-write), wait until it runs;
#                                  SDC_ROOT, SDC_ID name it
#   sdc_exec CMD...                CMD in it, as root, from its init's cgroup
#   sdc_service CMD...             CMD as a transient service of its systemd
#                                  (systemd-run --wait --pipe): a client's
#                                  view, from a cgroup systemd gave it
#   systemd_container_stop         delete it, remove its cgroup tree
#
# Needs $RUNTIME (the runtime under test also runs the system container),
# $TEST_LIB_BIN/subreaper.

SDC_CAPS=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE
	NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT
	SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE
	AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF
	CHECKPOINT_RESTORE)

systemd_container_missing() {
	local p
	for p in /lib/systemd/systemd /usr/bin/dbus-daemon /usr/bin/systemd-run /usr/bin/systemctl; do
		[[ -x "$p" ]] || { echo "$p is not installed (make deps: systemd, dbus)"; return 0; }
	done
	command -v jq >/dev/null || echo "jq is not installed (make deps)"
	return 0
}

systemd_container_boot() {
	local dir="$1" caps m i state
	shift
	SDC_ROOT="$dir/state"
	SDC_ID="sdc-${TOKEN:-$$}"
	mkdir -p "$dir/rootfs" "$dir/units"
	(cd "$dir/rootfs" && mkdir -p usr etc var tmp run proc sys dev root &&
		ln -sfn usr/bin bin && ln -sfn usr/sbin sbin && ln -sfn usr/lib lib && ln -sfn usr/lib64 lib64)
	# the boot's target: the system bus and what it needs, nothing else
	printf '[Unit]\nDescription=tinyrun test target\nRequires=dbus.socket dbus.service\nAfter=dbus.service\n' \
		>"$dir/units/tinyrun-test.target"
	caps="$(printf '"CAP_%s",' "${SDC_CAPS[@]}")"
	m="$(for i in "$@"; do jq -n -c --arg p "$i" '{destination: $p, type: "bind", source: $p, options: ["rbind", "rw"]}'; done | jq -s -c .)"
	jq -n --argjson caps "[${caps%,}]" --argjson binds "$m" --arg units "$dir/units" --arg cg "/$SDC_ID" '{
		ociVersion: "1.2.0", hostname: "sdc",
		root: {path: "rootfs", readonly: true},
		process: {terminal: false, cwd: "/", user: {uid: 0, gid: 0}, noNewPrivileges: false,
			args: ["/lib/systemd/systemd", "--system", "--unit=tinyrun-test.target", "--log-target=console"],
			env: ["container=tinyrun", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"],
			capabilities: {bounding: $caps, effective: $caps, permitted: $caps}},
		mounts: ([
			{destination: "/proc", type: "proc", source: "proc"},
			{destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "strictatime", "mode=755", "size=65536k"]},
			{destination: "/dev/pts", type: "devpts", source: "devpts", options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
			{destination: "/dev/shm", type: "tmpfs", source: "shm", options: ["nosuid", "noexec", "nodev", "mode=1777"]},
			{destination: "/dev/mqueue", type: "mqueue", source: "mqueue", options: ["nosuid", "noexec", "nodev"]},
			{destination: "/sys", type: "sysfs", source: "sysfs", options: ["nosuid", "noexec", "nodev", "ro"]},
			{destination: "/sys/fs/cgroup", type: "cgroup", source: "cgroup", options: ["nosuid", "noexec", "nodev", "rw"]},
			{destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"]},
			{destination: "/etc", type: "bind", source: "/etc", options: ["rbind", "ro"]},
			{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]},
			{destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]},
			{destination: "/run/systemd/system", type: "bind", source: $units, options: ["rbind", "ro"]},
			{destination: "/var", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]},
			{destination: "/root", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=700"]}
		] + $binds),
		linux: {
			namespaces: [{type: "pid"}, {type: "mount"}, {type: "cgroup"}, {type: "uts"}, {type: "ipc"}, {type: "network"}],
			cgroupsPath: $cg,
			resources: {devices: [{allow: true, access: "rwm"}]},
			readonlyPaths: ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"]
		}}' >"$dir/config.json" || return 1
	# every fd past stdio closed: the reaper and systemd outlive this call (bats waits on its pipes)
	(
		for i in /proc/"$BASHPID"/fd/*; do
			i="${i##*/}"
			[[ "$i" -gt 2 ]] && eval "exec $i>&-"
		done
		exec "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$SDC_ROOT" run -d --bundle "$dir" "$SDC_ID"
	) </dev/null >"$dir/console.log" 2>&1 || { cat "$dir/console.log" >&2; return 1; }
	for ((i = 0; i < 600; i++)); do
		state="$(sdc_exec systemctl is-system-running 2>/dev/null)" || true
		[[ "$state" == running || "$state" == degraded ]] && return 0
		sleep 0.1
	done
	echo "systemd did not come up ($state); its console:" >&2
	tail -n 30 "$dir/console.log" >&2
	return 1
}

sdc_exec() {
	timeout -k 5 120 "$RUNTIME" --root "$SDC_ROOT" exec "$SDC_ID" "$@" 3>&- 4>&-
}

sdc_service() {
	sdc_exec systemd-run --wait --pipe --collect --quiet --setenv=PATH=/usr/sbin:/usr/bin:/sbin:/bin -- "$@"
}

systemd_container_stop() {
	local d
	[[ -n "${SDC_ROOT:-}" && -d "$SDC_ROOT/$SDC_ID" ]] &&
		timeout -k 5 30 "$RUNTIME" --root "$SDC_ROOT" delete --force "$SDC_ID" </dev/null >/dev/null 2>&1 3>&- 4>&-
	# systemd's slices and scopes under the container's cgroup, deepest first
	for d in /sys/fs/cgroup/"$SDC_ID" /sys/fs/cgroup/*/"$SDC_ID"; do
		[[ -d "$d" ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}
