#!/bin/bash
# The calibration line `make bench` prints beside its tables: what this machine costs (a page
# fault, a syscall, a fork+exec, a cgroup mkdir+rmdir per hierarchy, the floor with and
# without cgroups) and what kind of virtualisation it is, so that a ratio measured on one VM
# can be judged on another. tests/bench/calibrate.c measures; this script builds it and the
# two floors (tests/bench/floor.c, plain and -DFLOOR_CGROUPS) into BENCH_OUT (build/bench),
# makes a busybox root for the floors, and prints the line on stdout.
#
#   bash tests/bench/calibrate.sh        (as root; about 3 s, a minute in the emulated guest)
#   BENCH_CALIBRATE_MS=300: the time budget of each measure
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
OUT=${BENCH_OUT:-build/bench}
say() { printf '%s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { say "calibrate: needs root (namespaces, cgroups)"; exit 1; }
mkdir -p "$OUT" || exit 1
# cc OUT SRC FLAGS...: unless OUT is newer than SRC (gcc takes seconds in the emulated guest)
cc() { [ "$1" -nt "$2" ] || gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$1" "$2" "${@:3}"; }
cc "$OUT/calibrate" tests/bench/calibrate.c -static && cc "$OUT/floor" tests/bench/floor.c &&
	cc "$OUT/floor-cg" tests/bench/floor.c -DFLOOR_CGROUPS || exit 1

T=$(mktemp -d /tmp/tinyrun-calibrate.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/rootfs/bin" "$T/rootfs/proc" && cp /bin/busybox "$T/rootfs/bin/" &&
	ln -s busybox "$T/rootfs/bin/true" || exit 1
printf '{"root": {"path": "%s"}, "linux": {"cgroupsPath": "/tinyrun-bench/calibrate-%d"}}\n' \
	"$T/rootfs" $$ >"$T/config.json"

"$OUT/calibrate" -t "${BENCH_CALIBRATE_MS:-300}" -c tinyrun-bench \
	-f "$OUT/floor" -g "$OUT/floor-cg" -b "$T" \
	-v "$(systemd-detect-virt --vm 2>/dev/null)" -C "$(systemd-detect-virt --container 2>/dev/null)"
