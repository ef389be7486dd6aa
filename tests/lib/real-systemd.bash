# shellcheck shell=bash
# A real systemd for tests/cgroups-systemd-real.bats: this machine's own
# /lib/systemd/systemd (Debian 12: 252) booted as PID 1 of its own pid, mount,
# cgroup, UTS and IPC namespaces, its cgroup a child of the root that it has
# alone, on a pure cgroup v2 hierarchy (the vm-run guest). Its mount namespace
# is a copy of the caller's (/tmp and the repository are the same files on
# both sides) with a tmpfs of its own on /run (its units, /run/dbus) and on
# /dev (a few nodes; /dev/console a pty whose output a python3 relay, outside,
# copies to DIR/console.log), and a cgroup2 mount showing its cgroup as the
# root. It starts dbus.socket and dbus.service only: dbus is made not to need
# sysinit.target, and sysinit.target and what it pulls in are masked, because
# their units would change what the whole machine shares with the other
# suites of the guest (systemd-tmpfiles empties /tmp, systemd-sysctl sets
# sysctls, apparmor.service reloads the profiles). A unit that still asks for
# sysinit.target fails to start: give a service DefaultDependencies=no (sd_run
# does).
#
#   real_systemd_missing      why this machine cannot boot one (empty: it can)
#   real_systemd_boot DIR     boot it, wait (at most $RSD_BOOT_TIMEOUT s) until
#                             it is up with its system bus; exports RSD_PID (its
#                             pid as seen here), RSD_CG (its cgroup's dir here:
#                             its /sys/fs/cgroup), RSD_DIR. Fails printing its
#                             console; call real_systemd_stop either way
#   real_systemd_stop         kill it (by pid: the kernel kills its namespace's
#                             processes with it) and the relay, wait, remove
#                             its cgroups deepest first, and DIR
#   sd_in CMD...              CMD in its namespaces (systemctl, ctr)
#   sd_run CMD...             CMD as a transient service of it, as containerd's
#                             shim runs the runtime: in its pid namespace, from
#                             a service's cgroup; the exit status is CMD's (a
#                             signal's: 128+N), stdio is the caller's
#
# The names of its cgroups carry the caller's pid ($$: the bats file's), so a
# suite running beside it in the same guest never meets them.

: "${RSD_BOOT_TIMEOUT:=180}"

# Its console: /dev/console must be a tty for systemd to log there, so a pty
# of this machine's, whose other side this copies into DIR/console.log
# (arguments: that file, the file where the pty's name goes).
RSD_RELAY_PY='import os, sys, tty
m, s = os.openpty()
tty.setraw(s)
out = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
with open(sys.argv[2] + ".new", "w") as f:
    f.write(os.ttyname(s) + "\n")
os.rename(sys.argv[2] + ".new", sys.argv[2])
while True:
    b = os.read(m, 65536)
    if not b:
        break
    os.write(out, b)'

# The namespace's PID 1 until it execs systemd (argument: DIR). It waits for
# DIR/go: the unshare parent must have left the cgroup first, or systemd finds
# a process it does not know at its root and can enable no controller (EBUSY).
# /run and /dev are copies of DIR/run and DIR/dev (rsd_files); /dev/console is
# the relay's pty (DIR/tty). Few programs: each exec costs a fraction of a
# second in an emulated guest.
# shellcheck disable=SC2016 # expanded by that shell
RSD_INIT='set -e
d=$1
while [ ! -e "$d/go" ]; do sleep 0.05; done
read -r tty <"$d/tty"
exec 9<>"$tty"
mount -t proc proc /proc
umount -l /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs -o mode=0755,nosuid,nodev tinyrun-test-run /run
cp -a "$d/run/." /run/
mount -t tmpfs -o mode=0755,nosuid tinyrun-test-dev /dev
cp -a "$d/dev/." /dev/
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev shm /dev/shm
mount --bind /proc/self/fd/9 /dev/console
exec 9>&-
exec env -i container=other SYSTEMD_COLORS=0 PATH=/usr/sbin:/usr/bin:/sbin:/bin /lib/systemd/systemd \
	--system --unit=tinyrun-test.target --log-target=console --log-level=info --log-time=yes --show-status=no'

# real_systemd_missing: why this machine cannot boot the test's systemd
# (empty: it can)
real_systemd_missing() {
	local t c
	if [[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]]; then
		echo "/sys/fs/cgroup is not cgroup v2"
		return 0
	fi
	[[ $EUID -eq 0 ]] || { echo "not root"; return 0; }
	[[ -x /lib/systemd/systemd ]] || { echo "no /lib/systemd/systemd (the systemd package)"; return 0; }
	for t in dbus-daemon systemctl systemd-run unshare nsenter python3; do
		command -v "$t" >/dev/null || { echo "$t is not installed"; return 0; }
	done
	for c in cpu cpuset memory pids; do
		grep -qw "$c" /sys/fs/cgroup/cgroup.subtree_control ||
			{ echo "the root cgroup does not enable $c for its children"; return 0; }
	done
	return 0
}

# rsd_files DIR: what the namespace's /run and /dev start with. DIR/run:
# /run/systemd/system with the target it boots, dbus without sysinit.target,
# and the masks (an empty unit file is masked); every generator masked (they
# would make units of this machine's fstab and init scripts, at boot and at
# every daemon-reload: seconds in an emulated guest). DIR/dev: the usual
# nodes and links, copied from this machine's /dev.
rsd_files() {
	local units="$1/run/systemd/system" f
	mkdir -p "$units/dbus.service.d" "$units/dbus.socket.d" "$1/run/systemd/system-generators" \
		"$1/dev/pts" "$1/dev/shm"
	for f in /lib/systemd/system-generators/* /usr/lib/systemd/system-generators/*; do
		[[ -e "$f" ]] && : >"$1/run/systemd/system-generators/${f##*/}"
	done
	printf '%s\n' '[Unit]' "Description=tinyrun's tests of --systemd-cgroup" \
		'Requires=dbus.socket dbus.service' 'After=dbus.socket dbus.service' >"$units/tinyrun-test.target"
	printf '[Unit]\nDefaultDependencies=no\n' >"$units/dbus.service.d/tinyrun-test.conf"
	printf '[Unit]\nDefaultDependencies=no\n' >"$units/dbus.socket.d/tinyrun-test.conf"
	for f in sysinit.target basic.target systemd-tmpfiles-clean.timer systemd-tmpfiles-clean.service \
		/lib/systemd/system/sysinit.target.wants/* /etc/systemd/system/sysinit.target.wants/*; do
		f="${f##*/}"
		[[ "$f" == '*' || "$f" == systemd-journald* ]] || : >"$units/$f"
	done
	cp -a /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty \
		/dev/fd /dev/stdin /dev/stdout /dev/stderr "$1/dev/" || return 1
	ln -s pts/ptmx "$1/dev/ptmx"
	: >"$1/dev/console"
}

# real_systemd_boot DIR: boot it; 1, with its console's and unshare's output
# on stderr, when it is not up with dbus in $RSD_BOOT_TIMEOUT s (what it
# started is real_systemd_stop's to end)
real_systemd_boot() {
	local dir="$1" name="tinyrun-test-sd$$" i state="" deadline
	export RSD_DIR="$dir" RSD_CG="/sys/fs/cgroup/$name" RSD_KEEPER="/sys/fs/cgroup/$name-keeper"
	export RSD_PID="" RSD_PID_START="" RSD_UNSHARE="" RSD_RELAY="" RSD_RELAY_START=""
	mkdir -p "$dir"
	python3 -c "$RSD_RELAY_PY" "$dir/console.log" "$dir/tty" </dev/null >"$dir/relay.log" 2>&1 3>&- 4>&- &
	RSD_RELAY=$!
	disown "$RSD_RELAY"   # killed by real_systemd_stop: no job report
	RSD_RELAY_START="$(proc_start_time "$RSD_RELAY")"
	rsd_files "$dir" || return 1
	mkdir "$RSD_CG" "$RSD_KEEPER" || return 1
	(
		echo "$BASHPID" >"$RSD_CG/cgroup.procs" || exit 1
		exec unshare --pid --fork --mount --cgroup --uts --ipc --propagation private \
			bash -c "$RSD_INIT" rsd-init "$dir"
	) </dev/null >"$dir/unshare.log" 2>&1 3>&- 4>&- &
	RSD_UNSHARE=$!
	# its child, PID 1 of the namespace; then the parent out of the cgroup
	for ((i = 0; i < 200; i++)); do
		RSD_PID="$(cat "/proc/$RSD_UNSHARE/task/$RSD_UNSHARE/children" 2>/dev/null)"
		RSD_PID="${RSD_PID%% *}"
		[[ -n "$RSD_PID" ]] && break
		sleep 0.05
	done
	if [[ -z "$RSD_PID" ]]; then
		echo "unshare started no child: $(cat "$dir/unshare.log")" >&2
		return 1
	fi
	RSD_PID_START="$(proc_start_time "$RSD_PID")"
	echo "$RSD_UNSHARE" >"$RSD_KEEPER/cgroup.procs" || return 1
	deadline=$((SECONDS + RSD_BOOT_TIMEOUT))
	# the relay (python starts slowly in an emulated guest: it did meanwhile)
	while [[ ! -e "$dir/tty" ]] && ((SECONDS < deadline)) && proc_alive "$RSD_RELAY"; do
		sleep 0.1
	done
	[[ -e "$dir/tty" ]] || { echo "no pty for its console: $(cat "$dir/relay.log")" >&2; return 1; }
	: >"$dir/go"
	# systemd (not the script before it, whose /run is still the machine's), its private socket
	while ((SECONDS < deadline)); do
		proc_alive "$RSD_PID" "$RSD_PID_START" || break
		[[ "$(cat "/proc/$RSD_PID/comm" 2>/dev/null)" == systemd &&
			-S "/proc/$RSD_PID/root/run/systemd/private" ]] && break
		sleep 0.1
	done
	if [[ -S "/proc/$RSD_PID/root/run/systemd/private" ]] && ((deadline > SECONDS)); then
		state="$(timeout "$((deadline - SECONDS))" nsenter -t "$RSD_PID" -m -p -C -u -i -- \
			systemctl is-system-running --wait 2>&1 </dev/null 3>&- 4>&-)"
	fi
	if [[ "$state" == degraded ]]; then
		echo "# the test's systemd is degraded:" >&2
		sd_in systemctl --failed --no-pager --plain >&2
	fi
	if [[ "$state" != running && "$state" != degraded ]] ||
		! sd_in systemctl is-active -q dbus.service || [[ ! -S "/proc/$RSD_PID/root/run/dbus/system_bus_socket" ]]; then
		{
			echo "the test's systemd did not come up with dbus in ${RSD_BOOT_TIMEOUT} s (state: '$state')"
			echo "--- its console:"
			tail -n 60 "$dir/console.log"
			echo "--- unshare and the namespace's init:"
			cat "$dir/unshare.log"
		} >&2
		return 1
	fi
	return 0
}

# real_systemd_stop: SIGKILL to the namespace's PID 1 (by the pid and start
# time recorded) takes every process of the namespace with it; then its
# cgroups, deepest first, and its files
real_systemd_stop() {
	local i rc=0
	[[ -n "${RSD_PID:-}" ]] && proc_alive "$RSD_PID" "$RSD_PID_START" && kill -KILL "$RSD_PID"
	[[ -n "${RSD_PID:-}" ]] && { proc_wait_gone "$RSD_PID" 600 || rc=1; }
	[[ -n "${RSD_UNSHARE:-}" ]] && { proc_wait_gone "$RSD_UNSHARE" 600 || rc=1; }
	[[ -n "${RSD_RELAY:-}" ]] && proc_alive "$RSD_RELAY" "$RSD_RELAY_START" && kill -KILL "$RSD_RELAY"
	for ((i = 0; i < 200; i++)); do
		[[ -d "${RSD_CG:-}" ]] && find "$RSD_CG" -depth -type d -exec rmdir {} + 2>/dev/null
		[[ -d "${RSD_KEEPER:-}" ]] && rmdir "$RSD_KEEPER" 2>/dev/null
		[[ ! -d "${RSD_CG:-}" && ! -d "${RSD_KEEPER:-}" ]] && break
		sleep 0.05
	done
	if [[ -d "${RSD_CG:-}" || -d "${RSD_KEEPER:-}" ]]; then
		echo "the test's systemd's cgroups are left: $(find "$RSD_CG" "$RSD_KEEPER" -type d 2>/dev/null)" >&2
		rc=1
	fi
	[[ -n "${RSD_DIR:-}" ]] && rm -rf "$RSD_DIR"
	return $rc
}

# sd_in CMD...: CMD in the namespaces of the test's systemd
sd_in() {
	nsenter -t "$RSD_PID" -m -p -C -u -i -- "$@" 3>&- 4>&-
}

# sd_run CMD...: CMD as a transient service of the test's systemd (without
# sysinit.target), waited for; its stdio is the caller's (systemd-run
# --pipe). The shell in between makes a signal's end an exit status
# (systemd-run gives its own for a signal).
# systemd expands $NAME and ${NAME} in a command line (252 has no
# --expand-environment=no): every $ is passed as $$.
sd_run() {
	local a args=()
	# shellcheck disable=SC2016 # the service's shell expands it
	for a in /bin/sh -c '"$@"' sh "$@"; do
		args+=("${a//\$/\$\$}")
	done
	sd_in systemd-run --wait --pipe --collect --quiet -p DefaultDependencies=no -- "${args[@]}"
}
