# Shared helpers of the runtime-agnostic OCI conformance suite.
#
# A test gets a fresh bundle ($B, busybox + /bin/checker, config from
# base_config) and a private state root ($ROOT) for $RUNTIME, edits the
# config with `cfg JQ-FILTER`, runs the container with the runc-style CLI
# (create --bundle --pid-file, start, state, kill, delete) and reads what
# the checker printed inside (`val QUERY`).  teardown removes every
# container, process, mount and cgroup the test made, then asserts that
# nothing is left.  What this suite shares with tests/helpers.bash (runtime
# wrapper, static helper builds, the busybox rootfs, process checks) is in
# tests/lib/common.bash; the checker and the subreaper are tests/lib/*.c.

CONF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONF_REPO=$(cd "$CONF_DIR/../.." && pwd)
CONF_BUILD=${CONF_BUILD:-$CONF_REPO/build/conformance}
CHECKER=$CONF_BUILD/checker
# shellcheck source=../lib/common.bash
source "$CONF_REPO/tests/lib/common.bash"
CONF_RUNID=${CONFORMANCE_RUNID:-$(basename "${BATS_RUN_TMPDIR:-/tmp/x$$}")}
CG_PARENT=tinyrun-conformance-$CONF_RUNID
CONF_TIMEOUT=${CONF_TIMEOUT:-60}

# ---------------------------------------------------------------- build --

# the checker and the subreaper of tests/lib, then the rootfs template
conformance_build() {
	build_static_into "$CONF_REPO/tests/lib/checker.c" "$CONF_BUILD" &&
		build_static_into "$CONF_REPO/tests/lib/subreaper.c" "$CONF_BUILD" || return 1
	(
		flock 9
		local t=$CONF_BUILD/rootfs
		if [ ! -e "$t/.done" ] || [ "$CHECKER" -nt "$t/.done" ]; then
			busybox_rootfs "$t" "$CHECKER" dev etc proc sys root mnt run var/run home/user || exit 1
			printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\n' >"$t/etc/passwd"
			printf 'root:x:0:\nuser:x:1000:\n' >"$t/etc/group"
			echo "regular file" >"$t/etc/regular"
			touch "$t/.done"
		fi
	) 9>"$CONF_BUILD/.rootfs.lock"
}

# ------------------------------------------------------------ bundle/config --

# base_config ID: a minimal runc-style Linux config, running the checker.
base_config() {
	jq -n --arg cg "/$CG_PARENT/$1" '{
	  ociVersion: "1.0.2",
	  process: {
	    terminal: false,
	    user: {uid: 0, gid: 0},
	    args: ["/bin/checker", "echo:hello"],
	    env: ["PATH=/bin:/sbin:/usr/bin:/usr/sbin", "TERM=xterm"],
	    cwd: "/",
	    capabilities: {
	      bounding: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
	      effective: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
	      permitted: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
	    },
	    noNewPrivileges: true
	  },
	  root: {path: "rootfs", readonly: false},
	  hostname: "conformance",
	  mounts: [
	    {destination: "/proc", type: "proc", source: "proc"},
	    {destination: "/dev", type: "tmpfs", source: "tmpfs",
	     options: ["nosuid", "strictatime", "mode=755", "size=65536k"]},
	    {destination: "/dev/pts", type: "devpts", source: "devpts",
	     options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
	    {destination: "/dev/shm", type: "tmpfs", source: "shm",
	     options: ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
	    {destination: "/dev/mqueue", type: "mqueue", source: "mqueue",
	     options: ["nosuid", "noexec", "nodev"]},
	    {destination: "/sys", type: "sysfs", source: "sysfs",
	     options: ["nosuid", "noexec", "nodev", "ro"]}
	  ],
	  linux: {
	    cgroupsPath: $cg,
	    resources: {devices: [{allow: false, access: "rwm"}]},
	    namespaces: [{type: "pid"}, {type: "network"}, {type: "ipc"},
	                 {type: "uts"}, {type: "mount"}]
	  }
	}'
}

# make_bundle DIR [ID]: rootfs copy + base config
make_bundle() {
	local dir=$1 id=${2:-$ID}
	mkdir -p "$dir/rootfs"
	cp -a "$CONF_BUILD/rootfs/." "$dir/rootfs/"
	rm -f "$dir/rootfs/.done"
	base_config "$id" >"$dir/config.json"
}

# cfg [-b BUNDLE] FILTER [jq options...]: edit config.json in place
cfg() {
	local b=$B
	if [ "$1" = -b ]; then b=$2; shift 2; fi
	local f=$1; shift
	jq "$f" "$b/config.json" "$@" >"$b/config.json.new" || { echo "cfg: jq failed: $f" >&2; return 1; }
	mv "$b/config.json.new" "$b/config.json"
}

# check [-b BUNDLE] QUERY...: the container runs /bin/checker QUERY...
check() {
	local o=()
	if [ "$1" = -b ]; then o=(-b "$2"); shift 2; fi
	cfg "${o[@]}" '.process.args = ["/bin/checker"] + $ARGS.positional' --args "$@"
}

# add_mount JSON-OBJECT: append one entry to .mounts
add_mount() { cfg '.mounts += [$m]' --argjson m "$1"; }

# ------------------------------------------------------------ runtime CLI --

rt() { runtime_timeout "$CONF_TIMEOUT" "$@"; }

# create [ID [BUNDLE]]: the container's stdio goes to $T/ID.out, $T/ID.err
create() {
	local id=${1:-$ID} b=${2:-$B}
	grep -qxF "$id" "$T/.ids" 2>/dev/null || echo "$id" >>"$T/.ids"
	rt create --bundle "$b" --pid-file "$T/$id.pid" "$id" </dev/null >"$T/$id.out" 2>"$T/$id.err"
}

start() {
	local id=${1:-$ID}
	rt start "$id" </dev/null >>"$T/$id.start.out" 2>>"$T/$id.start.err"
}

# state [ID]: the state JSON on stdout
state() { rt state "${1:-$ID}" 2>>"$T/${1:-$ID}.state.err"; }

# status [ID]: the status field, or "none" when state fails
status() {
	local s
	s=$(state "${1:-$ID}") || { echo none; return 0; }
	jq -r .status <<<"$s"
}

kill_ct() { rt kill "${1:-$ID}" "${2:-KILL}" </dev/null >>"$T/${1:-$ID}.kill.out" 2>&1; }
delete() { rt delete "${1:-$ID}" </dev/null >>"$T/${1:-$ID}.delete.out" 2>&1; }
delete_force() { rt delete --force "${1:-$ID}" </dev/null >>"$T/${1:-$ID}.delete.out" 2>&1; }

# wait_status STATUS [ID]: poll until the container reaches STATUS (60 s guard)
wait_status() {
	local want=$1 id=${2:-$ID} i s
	for ((i = 0; i < 1200; i++)); do
		s=$(status "$id")
		[ "$s" = "$want" ] && return 0
		sleep 0.05
	done
	echo "wait_status: $id is '$s', wanted '$want'" >&2
	return 1
}
wait_stopped() { wait_status stopped "${1:-$ID}"; }

# run_ct [ID [BUNDLE]]: create, start, wait until stopped, delete
run_ct() {
	local id=${1:-$ID} b=${2:-$B}
	create "$id" "$b" || { echo "create failed: $(cat "$T/$id.err")" >&2; return 1; }
	start "$id" || { echo "start failed: $(cat "$T/$id.start.err")" >&2; return 1; }
	wait_stopped "$id" || return 1
	delete "$id" || { echo "delete failed: $(cat "$T/$id.delete.out")" >&2; return 1; }
}

# create_running [ID [BUNDLE]]: a started container blocked in `checker pause`
create_running() {
	local id=${1:-$ID} b=${2:-$B}
	create "$id" "$b" || { echo "create failed: $(cat "$T/$id.err")" >&2; return 1; }
	start "$id" || { echo "start failed: $(cat "$T/$id.start.err")" >&2; return 1; }
	wait_status running "$id"
}

ct_pid() { cat "$T/${1:-$ID}.pid" 2>/dev/null; }

# --------------------------------------------------------------- results --

# val QUERY [ID]: first answer of the checker to QUERY
val() {
	awk -v q="$1=" 'index($0, q) == 1 { print substr($0, length(q) + 1); exit }' "$T/${2:-$ID}.out"
}
# vals QUERY [ID]: every answer line to QUERY
vals() {
	awk -v q="$1=" 'index($0, q) == 1 { print substr($0, length(q) + 1) }' "$T/${2:-$ID}.out"
}
out_of() { cat "$T/${1:-$ID}.out"; }

# expect_eq ACTUAL EXPECTED [WHAT]
expect_eq() {
	if [ "$1" != "$2" ]; then
		echo "expected ${3:-value} '$2', got '$1'" >&2
		return 1
	fi
}
# expect_match ACTUAL REGEX [WHAT]
expect_match() {
	if ! [[ $1 =~ $2 ]]; then
		echo "expected ${3:-value} to match /$2/, got '$1'" >&2
		return 1
	fi
}
expect_fail() {
	if "$@"; then
		echo "expected failure: $*" >&2
		return 1
	fi
}

# expect_no_container [ID]: state fails (the container does not exist)
expect_no_container() {
	local id=${1:-$ID}
	if state "$id" >/dev/null 2>&1; then
		echo "container $id exists but should not" >&2
		return 1
	fi
}

# cap_mask NAME...: the hex mask /proc/<pid>/status shows for these capabilities
cap_mask() {
	local m=0 c n
	for c in "$@"; do
		n=$(cap_number "$c") || return 1
		m=$((m | (1 << n)))
	done
	printf '%016x\n' "$m"
}
cap_number() {
	local names=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
		LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER
		SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE
		SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP
		MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF
		CHECKPOINT_RESTORE)
	local i
	for i in "${!names[@]}"; do
		[ "CAP_${names[$i]}" = "$1" ] && { echo "$i"; return 0; }
	done
	return 1
}
all_caps_json() {
	local last
	last=$(cat /proc/sys/kernel/cap_last_cap)
	local names=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
		LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER
		SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE
		SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP
		MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF
		CHECKPOINT_RESTORE)
	local i out=()
	for ((i = 0; i <= last && i < ${#names[@]}; i++)); do out+=("CAP_${names[$i]}"); done
	jq -cn '$ARGS.positional' --args "${out[@]}"
}

# ------------------------------------------------------------- environment --

# cgroup hierarchies on this host: "v1 CONTROLLER-DIR" lines or "v2 /sys/fs/cgroup"
cgroup_v2_only() { [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; }
cgroup_dirs() {
	if cgroup_v2_only; then
		echo /sys/fs/cgroup
		return
	fi
	local d
	for d in /sys/fs/cgroup/*/; do
		d=${d%/}
		[ -L "$d" ] && continue
		case $(stat -fc %T "$d" 2>/dev/null) in cgroup2fs | cgroupfs) echo "$d" ;; esac
	done
}
# v1_dir CONTROLLER: the v1 hierarchy holding CONTROLLER ("" when none)
v1_dir() {
	cgroup_v2_only && return 1
	local d
	for d in $(cgroup_dirs); do
		[ "$(stat -fc %T "$d")" = cgroupfs ] || continue
		if grep -qw "$1" <<<"$(basename "$d" | tr , ' ')"; then echo "$d"; return 0; fi
		if awk -v m="$d" '$5 == m {print $NF}' /proc/self/mountinfo | tr , '\n' | grep -qx "$1"; then
			echo "$d"; return 0
		fi
	done
	return 1
}
need_v1() { v1_dir "$1" >/dev/null || skip "no cgroup v1 $1 controller on this host"; }
need_v2() { cgroup_v2_only || skip "needs cgroup v2 (runs in cgroup-v2.bats through vm-run)"; }
need_cmd() { command -v "$1" >/dev/null || skip "needs $1"; }
need_apparmor() { [ -e /sys/kernel/security/apparmor ] || skip "AppArmor is not enabled on this host"; }
need_selinux() { [ -e /sys/fs/selinux/enforce ] || skip "SELinux is not enabled on this host"; }
need_cap() {
	local n mask
	n=$(cap_number "$1")
	mask=$(awk '/^CapEff/ {print $2}' /proc/self/status)
	(((0x$mask >> n) & 1)) || skip "the test process lacks $1"
}
# need_features: the runtime must implement `features`
features_json() { rt features 2>/dev/null; }
need_features() {
	FEATURES=$(features_json) && jq -e . >/dev/null 2>&1 <<<"$FEATURES" ||
		skip "runtime does not implement the features command"
}

# the container's cgroup dir in hierarchy DIR (from /proc/PID/cgroup)
ct_cgroup_dir() {
	local dir=$1 pid=${2:-$(ct_pid)} line
	if [ "$(stat -fc %T "$dir")" = cgroup2fs ]; then
		line=$(awk -F: '$1 == 0 {print $3}' "/proc/$pid/cgroup")
	else
		local ctrl
		ctrl=$(awk -v m="$dir" '$5 == m {print $NF}' /proc/self/mountinfo | tr , '\n' | grep -vE '^(rw|ro)$' | head -1)
		line=$(awk -F: -v c="$ctrl" '{n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3}' "/proc/$pid/cgroup")
	fi
	echo "$dir$line"
}

# track_pid PID / track_mount PATH / track_cgroup DIR: undone in teardown
track_pid() { echo "$1" >>"$T/.pids"; }
track_mount() { echo "$1" >>"$T/.mounts"; }
track_cgroup() { echo "$1" >>"$T/.cgroups"; }

# on_teardown CMD...: run CMD (eval'd) when the test ends, last registered first
on_teardown() { echo "$*" >>"$T/.cleanup"; }

# bg CMD...: start a host helper in the background, tracked; pid in $BG_PID
bg() {
	"$@" </dev/null >>"$T/bg.log" 2>&1 3>&- &
	BG_PID=$!
	disown "$BG_PID" 2>/dev/null || true
	track_pid "$BG_PID"
}

# host namespace inode of TYPE, as the runtime sees it
host_ns() { readlink "/proc/self/ns/$1"; }

# ---------------------------------------------------------- setup/teardown --

conformance_setup_file() {
	conformance_build || return 1
	if [ ! -x "$RUNTIME" ]; then
		echo "# RUNTIME $RUNTIME is not an executable" >&3
		return 1
	fi
	export RUNTIME CONF_RUNID
}

conformance_teardown_file() {
	local d
	for d in $(cgroup_dirs); do
		[ -d "$d/$CG_PARENT" ] || continue
		cg_remove_tree "$d/$CG_PARENT" || true
	done
}

conformance_setup() {
	T=$BATS_TEST_TMPDIR
	ROOT=$T/state
	mkdir -p "$ROOT"
	# ids mapped by a user namespace must be able to reach the bundle
	local d=$T
	while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	local f=${BATS_TEST_FILENAME##*/}
	ID=ct-${f%.bats}-$BATS_TEST_NUMBER
	ID=${ID//./-}
	B=$T/bundle
	make_bundle "$B" "$ID"
	: >"$T/.ids"
}

# ours PID: the process belongs to this test (its cgroup is the suite's, or
# its command line names the test dir); guards kill against pid reuse
ours() {
	[ -d "/proc/$1" ] || return 1
	grep -q "$CG_PARENT" "/proc/$1/cgroup" 2>/dev/null && return 0
	tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -e "$T" -e "$CONF_BUILD"
}
alive() { proc_alive "$1"; }

# kill whatever is in a cgroup dir tree, then rmdir it bottom-up
cg_remove_tree() {
	local top=$1 d i p
	# only ever the suite's own cgroups
	case $top in
	/sys/fs/cgroup/*/tinyrun-conformance-* | /sys/fs/cgroup/tinyrun-conformance-* | /sys/fs/cgroup/conformance-relative | /sys/fs/cgroup/conformance-relative/*) ;;
	*) echo "cg_remove_tree: refusing $top" >&2; return 1 ;;
	esac
	[ -d "$top" ] || return 0
	for ((i = 0; i < 100; i++)); do
		local any=
		while read -r d; do
			while read -r p; do
				[ -n "$p" ] && [ "$p" != $$ ] && [ "$p" != "$BASHPID" ] && { kill -9 "$p" 2>/dev/null; any=1; }
			done <"$d/cgroup.procs"
			[ -e "$d/cgroup.freeze" ] && echo 0 >"$d/cgroup.freeze" 2>/dev/null
			[ -e "$d/freezer.state" ] && echo THAWED >"$d/freezer.state" 2>/dev/null
		done < <(find "$top" -depth -type d)
		find "$top" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$top" ] || return 0
		sleep 0.05
	done
	return 1
}

conformance_teardown() {
	local id p m d problems=()
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		for f in "$T/$ID".*err "$T/$ID".*out "$T/$ID.out" "$T"/bg.log; do
			[ -s "$f" ] && { echo "--- ${f##*/}"; head -c 3000 "$f"; echo; }
		done 2>/dev/null | awk '!seen[$0]++' >&2
	fi
	# containers
	while read -r id; do
		[ -n "$id" ] || continue
		if state "$id" >/dev/null 2>&1; then
			delete_force "$id" || true
		fi
		p=$(ct_pid "$id")
		[ -n "$p" ] && ours "$p" && kill -9 "$p" 2>/dev/null
		if state "$id" >/dev/null 2>&1; then
			delete_force "$id" || true
		fi
		state "$id" >/dev/null 2>&1 && problems+=("container $id still exists")
	done < <(cat "$T/.ids" 2>/dev/null)
	# registered cleanups
	if [ -s "$T/.cleanup" ]; then
		while read -r m; do eval "$m" >/dev/null 2>&1 || true; done < <(tac "$T/.cleanup")
	fi
	# helper processes
	local owned=()
	for p in $(cat "$T/.pids" "$T"/*.pid 2>/dev/null); do
		ours "$p" && { owned+=("$p"); kill -9 "$p" 2>/dev/null; }
	done
	# host mounts, last first
	if [ -s "$T/.mounts" ]; then
		while read -r m; do
			umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		done < <(tac "$T/.mounts")
		while read -r m; do
			mountpoint -q "$m" 2>/dev/null && problems+=("mount $m still mounted")
		done <"$T/.mounts"
	fi
	# cgroups: the suite's tree for this test, and dirs a test made itself
	while read -r id; do
		[ -n "$id" ] || continue
		for d in $(cgroup_dirs); do
			cg_remove_tree "$d/$CG_PARENT/$id" || problems+=("cgroup $d/$CG_PARENT/$id not removable")
		done
	done < <(cat "$T/.ids" 2>/dev/null)
	while read -r d; do
		[ -n "$d" ] || continue
		cg_remove_tree "$d" || problems+=("cgroup $d not removable")
	done < <(tac "$T/.cgroups" 2>/dev/null)
	# processes must be gone
	for p in "${owned[@]}"; do
		if ! proc_wait_gone "$p" 100 && ours "$p"; then problems+=("process $p still alive"); fi
	done
	if [ ${#problems[@]} -gt 0 ]; then
		printf 'teardown: %s\n' "${problems[@]}" >&2
		return 1
	fi
}

setup_file() { conformance_setup_file; }
teardown_file() { conformance_teardown_file; }
setup() { conformance_setup; }
teardown() { conformance_teardown; }

# documented_deviation NAME REASON: skip (never pass) a statement that the
# runtime NAME (matched on the runtime's file name) breaks on purpose; the
# reason says why and where it is written down (SPEC-NOTES.md for tinyrun,
# the "Peer deviations" section of SPEC-NOTES.md for the peers).
documented_deviation() {
	local name="$1"
	shift
	case "$(basename "$RUNTIME")" in
	"$name"*) skip "documented deviation of $name: $*" ;;
	esac
}
