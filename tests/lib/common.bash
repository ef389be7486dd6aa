# shellcheck shell=bash
# What the two bats suites share: tests/helpers.bash (the tinyrun suites) and
# tests/conformance/helpers.bash (the runtime-agnostic conformance suite) both
# source this file; each keeps its own bundle config, setup and teardown.
#
#   runtime wrapper   $RUNTIME made absolute; runtime ARGS, runtime_timeout SECS ARGS
#   helper programs   build_static_into SRC DIR: the static build of tests/lib/*.c
#                     (checker: the one in-container probe; subreaper)
#   bundles           busybox_rootfs DIR CHECKER SUBDIR...: a rootfs from
#                     busybox-static with its applets and /bin/checker
#   leftovers         proc_start_time, proc_alive, proc_wait_gone: the process
#                     checks both teardowns build on
#   vm-run guests     on_cgroup2, guest_needed NEED, guest_batch_tap FILE: when
#                     a suite runs in a guest, and its TAP from the one guest
#                     run-all.sh boots for all of them
#
# Needs $RUNTIME (set by the caller, or defaulted here to ./tinyrun of this
# tree) and, for the runtime wrapper, $ROOT (the test's --root).

TR_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TR_REPO_DIR="$(cd "$TR_LIB_DIR/../.." && pwd)"

# --- runtime wrapper -------------------------------------------------------

# resolve_runtime PATH-OR-NAME: an absolute path (a bare name through PATH),
# so it still names the same binary after a cd.
resolve_runtime() {
	case $1 in
	/*) echo "$1" ;;
	*/*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
	*) command -v "$1" || echo "$1" ;;
	esac
}
RUNTIME="$(resolve_runtime "${RUNTIME:-$TR_REPO_DIR/tinyrun}")"

# runtime ARGS...: the runtime under test, with this test's private root.
runtime() {
	"$RUNTIME" --root "$ROOT" "$@"
}

# runtime_timeout SECS ARGS...: the same, killed after SECS (then KILLed 5 s
# later), without bats' own fds 3 and 4: a hung runtime fails the test, not
# the run.
runtime_timeout() {
	local secs="$1"
	shift
	timeout -k 5 "$secs" "$RUNTIME" --root "$ROOT" "$@" 3>&- 4>&-
}

# --- helper programs --------------------------------------------------------

# build_static_into SRC DIR [GCC ARGS...]: DIR/<name of SRC without .c>, a
# static binary (the extra arguments after the source: -pthread, -lseccomp),
# rebuilt when SRC is newer; concurrent suites serialise on DIR/.lock (never
# take that lock around a call).
build_static_into() {
	local src="$1" dir="$2" bin
	bin="$dir/$(basename "${1%.c}")"
	[[ -x "$bin" && ! "$src" -nt "$bin" ]] && return 0
	mkdir -p "$dir"
	(
		flock 9
		if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
			gcc -static -O2 -Wall -Wextra -Werror -o "$bin.tmp" "$src" "${@:3}" && mv "$bin.tmp" "$bin"
		fi
	) 9>"$dir/.lock"
}

# --- bundles ----------------------------------------------------------------

# busybox_rootfs DIR CHECKER SUBDIR...: DIR (made afresh) with the given empty
# subdirectories (tmp is always made, mode 1777), /bin/busybox from the host's
# busybox-static with a symlink per applet, and CHECKER as /bin/checker. The
# suite adds its own /etc files.
busybox_rootfs() {
	local dir="$1" checker="$2" sub applet
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir/bin" "$dir/tmp" || return 1
	for sub in "$@"; do mkdir -p "$dir/$sub" || return 1; done
	chmod 1777 "$dir/tmp"
	cp /bin/busybox "$dir/bin/busybox" || return 1
	for applet in $(/bin/busybox --list); do
		[[ -e "$dir/bin/$applet" ]] || ln -s busybox "$dir/bin/$applet"
	done
	cp "$checker" "$dir/bin/checker"
}

# --- leftovers --------------------------------------------------------------

# default_cgroup_parents: the "tinyrun" dirs of the cgroup hierarchies, parents of tinyrun's
# default cgroupsPath /tinyrun/<id> (a runtime leaves a parent it made, as runc does).
# remove_default_cgroup_parents BEFORE: remove them (only empty ones go) when BEFORE, the
# output of default_cgroup_parents taken before the script ran its containers, was empty.
default_cgroup_parents() {
	ls -d /sys/fs/cgroup/tinyrun /sys/fs/cgroup/*/tinyrun 2>/dev/null || true
}

remove_default_cgroup_parents() {
	local d
	[[ -z "$1" ]] || return 0
	for d in $(default_cgroup_parents); do
		rmdir "$d" 2>/dev/null
	done
	return 0
}

# proc_start_time PID: field 22 of /proc/PID/stat (after the parenthesised comm).
proc_start_time() {
	local stat
	stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
	stat="${stat##*) }"
	# shellcheck disable=SC2086
	set -- $stat
	echo "${20}"
}

# proc_alive PID [START]: alive and not a zombie (and the same process, when
# START, its proc_start_time, is given).
proc_alive() {
	local stat state
	stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
	stat="${stat##*) }"
	state="${stat%% *}"
	[[ "$state" != Z && "$state" != X ]] || return 1
	if [[ -n "${2:-}" ]]; then
		[[ "$(proc_start_time "$1")" == "$2" ]] || return 1
	fi
	return 0
}

# proc_wait_gone PID [TRIES]: until PID is gone or a zombie, polling every
# 50 ms up to TRIES times (default 200: 10 s); fails when it is still alive.
proc_wait_gone() {
	local i
	for ((i = 0; i < ${2:-200}; i++)); do
		proc_alive "$1" || return 0
		sleep 0.05
	done
	return 1
}

# --- vm-run guests -----------------------------------------------------------

# on_cgroup2: /sys/fs/cgroup is a pure cgroup v2 hierarchy
on_cgroup2() {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]]
}

# guest_needed NEED: true when this host lacks what a suite needs a vm-run
# guest for (NEED: cgroup2, the default, or apparmor) and the guest should
# run it. run-all.sh asks the same to put the suite in its one guest
# (guest_batch_tap).
guest_needed() {
	case "${1:-cgroup2}" in
	cgroup2) ! on_cgroup2 ;;
	apparmor) [[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" != Y* &&
		-z "${APPARMOR_NO_VM:-}" && -z "${TINYRUN_IN_GUEST:-}" ]] ;;
	*) return 1 ;;
	esac
}

# guest_batch_tap FILE: print the TAP of tests/FILE (a suite path under tests/,
# e.g. cgroups-v2.bats or conformance/cgroup-v2.bats) from the one vm-run guest
# that run-all.sh boots for every suite that needs one, waiting until that
# suite is done in the guest. The guest's dir is $TINYRUN_GUEST_BATCH: "list"
# names its suites, FILE.tap (/ as _) appears whole when a suite has ended, and
# "ended" (vm-run's exit status) once the guest is gone. Returns 1, printing
# nothing, when there is no such guest or it does not run FILE: the suite then
# boots a guest of its own.
guest_batch_tap() {
	local d="${TINYRUN_GUEST_BATCH:-}" tap
	[[ -n "$d" && -f "$d/list" ]] || return 1
	cut -f1 "$d/list" | grep -qxF "$1" || return 1
	tap="$d/${1//\//_}.tap"
	while [[ ! -e "$tap" && ! -e "$d/ended" ]]; do
		sleep 1
	done
	if [[ -e "$tap" ]]; then
		cat "$tap"
	else
		echo "# the guest ended (vm-run exit status $(cat "$d/ended")) before tests/$1 had run; the end of its output:"
		tail -n 40 "$d/guest.log" | sed 's/^/# /'
	fi
}
