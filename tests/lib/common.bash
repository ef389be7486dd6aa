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
