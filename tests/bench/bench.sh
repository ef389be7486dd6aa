#!/bin/bash
# make bench: tinyrun, crun and runc side by side, interleaved, on one busybox bundle.
#
#   BENCH_N=100 bash tests/bench/bench.sh   (BENCH_N scales every loop; 100 takes 1-3 min on 2 cores)
#   BENCH_QUICK=1: `make bench-quick`, about a minute (BENCH_N=10, small cost curves, no minmem)
#   BENCH_PARTS="seq strace par pexec minmem curves tinyaws sandbox gap": which parts to run (all by default)
#   BENCH_EXTRA="name=binary ...": more runtimes for the sequential, par and pexec rows, as more
#     columns of the table (hook for other comparisons: BINARY gets a runtime's command line,
#     `--root R run --bundle B ID` etc.; a wrapper that only runs is fine, as the floor shows --
#     name it floor-like in driver.c's is_floor() or let its other rows fail and show n/a);
#     each binary is copied to the temp dir (tmpfs), as ./tinyrun is
#   make bench-v2: the same inside the cgroup v2 guest (vm-run), table in build/bench-v2/
#
# The floor (tests/bench/floor.c: clone + pivot_root + exec /bin/true, no runtime, no
# cgroup) runs next to the runtimes in the `run` and throughput rows. A calibration line
# (tests/bench/calibrate.sh) goes under every table: what this machine costs.
#
# Builds build/bench/driver (tests/bench/driver.c: a child subreaper that spawns and times
# every runtime command, rotating the runtimes each iteration), a busybox bundle whose
# config.json comes from `runc spec` edited with jq, then runs the driver's modes and prints a
# table of medians and ratios (also written to build/bench/results.md).
#
# Every runtime gets its own --root under a temp dir; every container's cgroupsPath is
# /tinyrun-bench/<id>, so on this hybrid host each v1 hierarchy gets one
# /sys/fs/cgroup/<ctrl>/tinyrun-bench parent, removed at the end (also on failure or ^C).
#
# crun 1.8.1 refuses the hybrid layout unless /sys/fs/cgroup/unified/cgroup.controllers reads
# empty. Every measured command therefore runs in a private mount namespace where an empty
# file is bound over it -- for all three runtimes, so they run under the same conditions. The
# script checks, before measuring, that the bind changes where tinyrun's and runc's containers
# land in the cgroup hierarchies not at all, and says so.
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
if [ -n "${BENCH_QUICK:-}" ]; then
	: "${BENCH_N:=10}" "${BENCH_PARTS:=seq par pexec curves tinyaws sandbox}" "${CURVE_N:=3}"
	: "${CURVE_MOUNTS:=0 100}" "${CURVE_CROWDS:=1 100}"
fi
N=${BENCH_N:-100}
PARTS=" ${BENCH_PARTS:-seq strace par pexec minmem curves tinyaws sandbox gap} "
part() { [[ $PARTS == *" $1 "* ]]; }
CURVE_N=${CURVE_N:-$(( N / 10 > 3 ? N / 10 : 3 ))}
TIMEOUT=${BENCH_TIMEOUT:-10}	# seconds one runtime command may take before it is killed
# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
# shellcheck source=tests/bench/curves.sh
source tests/bench/curves.sh
RESULTS=$OUT/results.md

# Loop sizes, all scaled by BENCH_N.
STRACE_N=$(( N / 20 > 3 ? N / 20 : 3 ))
PAR_ROUNDS=$(( N / 25 > 2 ? N / 25 : 2 ))
PAR2_C=$(( N > 4 ? N : 4 ))		# 2 workers x N containers a round
PAR8_C=$(( N / 4 > 2 ? N / 4 : 2 ))	# 8 workers x N/4

bench_setup || exit 1
SPECS=()
for rt in "${RUNTIMES[@]}"; do SPECS+=("$rt=${BIN[$rt]}"); done
# shellcheck disable=SC2206 # name=binary words
EXTRA=(${BENCH_EXTRA:-})
snapshot_extras
drive() { in_ns "$DRIVER" "$1" -d "$TMP" -T "$TIMEOUT" "${@:2}" "${SPECS[@]}"; }
# with the floor and the extra runtimes
drive_all() { in_ns "$DRIVER" "$1" -d "$TMP" -T "$TIMEOUT" "${@:2}" "${SPECS[@]}" \
	"floor=$FLOOR" "floor-cg=$FLOOR_CG" "${EXTRA[@]}"; }

# ---- does the bind change tinyrun's or runc's behaviour? ----
probe_verdict() {
	case $1 in
	*"create failed: "*) local e=${1#*create failed: }; printf '%s' "${e%%$'\n'*}";;
	*) printf 'works';;
	esac
}

probe_check() {
	local rt plain bound
	"$DRIVER" probe -d "$TMP" -T "$TIMEOUT" "${SPECS[@]}" >"$TMP/probe-plain.tsv" 2>/dev/null
	drive probe >"$TMP/probe-bound.tsv" 2>/dev/null
	for rt in "${RUNTIMES[@]}"; do
		plain=$(awk -F'\t' -v r="$rt" '$2 == r { print $3 }' "$TMP/probe-plain.tsv" | sort)
		bound=$(awk -F'\t' -v r="$rt" '$2 == r { print $3 }' "$TMP/probe-bound.tsv" | sort)
		if [ "$rt" = crun ]; then
			printf -- '- crun without the bind: %s; with it: %s\n' \
				"$(probe_verdict "$plain")" "$(probe_verdict "$bound")"
		elif [ -z "$plain" ] || grep -q 'create failed' <<<"$plain$bound"; then
			printf -- '- %s: could not compare (%s)\n' "$rt" \
				"$(grep -h 'create failed' <<<"$plain"$'\n'"$bound" | head -1)"
		elif [ "$plain" = "$bound" ]; then
			printf -- '- %s: same cgroup placement with and without the bind (%s)\n' "$rt" \
				"$(tr '\n' ' ' <<<"$plain" | sed 's/ $//')"
		else
			printf -- '- %s: DIFFERENT cgroup placement with the bind: without {%s} with {%s}\n' \
				"$rt" "$(tr '\n' ' ' <<<"$plain")" "$(tr '\n' ' ' <<<"$bound")"
		fi
	done
}

say "bench: N=$N on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)
if pure_v2; then
	BIND_NOTES="- pure cgroup v2 host: no bind needed"
else
	say "bench: checking the cgroup.controllers bind"
	BIND_NOTES=$(probe_check)
fi
say "$BIND_NOTES"

say "bench: calibration (tests/bench/calibrate.sh)"
CALIBRATION=$(BENCH_OUT=$OUT bash tests/bench/calibrate.sh) || CALIBRATION="Calibration: failed (tests/bench/calibrate.sh)."
export BENCH_CALIBRATION=$CALIBRATION	# tinyaws.sh and sandbox.sh print it beside their tables
say "$CALIBRATION"

RAW=$TMP/raw.tsv
: >"$RAW"
say "bench: warm-up"
drive seq -n 1 >/dev/null 2>&1
if part seq; then
	say "bench: sequential metrics, $N interleaved iterations"
	drive_all seq -n "$N" >>"$RAW"
fi
if part strace; then
	say "bench: syscalls per run (strace -f -c), $STRACE_N each"
	drive strace -n "$STRACE_N" >>"$RAW"
fi
if part par; then
	say "bench: throughput, 2 workers x $PAR2_C and 8 workers x $PAR8_C, $PAR_ROUNDS rounds"
	drive_all par -n "$PAR_ROUNDS" -w 2 -c "$PAR2_C" >>"$RAW"
	drive_all par -n "$PAR_ROUNDS" -w 8 -c "$PAR8_C" >>"$RAW"
fi
if part pexec; then
	say "bench: 8 parallel exec into one container, 8 x $PAR8_C, $PAR_ROUNDS rounds"
	drive_all pexec -n "$PAR_ROUNDS" -w 8 -c "$PAR8_C" >>"$RAW"
fi
MINMEM_N=$(( N / 20 > 3 ? N / 20 : 3 ))
if part minmem; then
	say "bench: smallest memory.limit (bisect 64 KiB..64 MiB, $MINMEM_N times each)"
	drive minmem -n "$MINMEM_N" >>"$RAW"
fi
CURVES_MD=
if part curves; then
	curves && CURVES_MD=$OUT/curves.md
fi
[ -f "$TMP/strace-tinyrun.txt" ] && cp "$TMP/strace-tinyrun.txt" "$OUT/strace-tinyrun.txt"
cp "$RAW" "$OUT/raw.tsv"

# ---- the report ----
version_of() {
	case $1 in
	tinyrun) printf 'tinyrun %s' "$(git describe --always --dirty 2>/dev/null)";;
	*) "${BIN[$1]}" --version 2>/dev/null | head -1;;
	esac
}

report() {
	local HOST_KIND="cgroup v1 hierarchies of a hybrid host"
	pure_v2 && HOST_KIND="pure cgroup v2: the vm-run guest, emulated, so only ratios count"
	cat <<EOF
## tinyrun vs crun vs runc

$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg) at end; $(( $(date +%s) - T_START )) s.
$(version_of tinyrun); $(version_of crun); $(version_of runc).
Bundle: busybox-static, \`runc spec\` with terminal false, readonly false, process /bin/true
(/bin/sleep 1000 for the lifecycle steps), cgroupsPath /$CG_PARENT/<id> ($HOST_KIND).
Runtimes interleaved (order rotated every iteration), each under a child
subreaper, each with its own --root. $N iterations for the sequential rows, $STRACE_N for syscalls,
$PAR_ROUNDS rounds for throughput. Times are medians in ms with (p10-p90).
All commands ran in a private mount namespace (with a private tmpfs as tinyrun's seccomp cache)
and, on a hybrid host, an empty file bound over /sys/fs/cgroup/unified/cgroup.controllers,
which crun 1.8.1 needs there:
$BIND_NOTES

EOF
	awk -F'\t' -v extra="$(printf '%s\n' "${EXTRA[@]}" | sed 's/=.*//' | tr '\n' ' ')" \
		-f tests/bench/table.awk "$RAW"
	printf '\n%s\n' "$CALIBRATION"
	if [ -n "$CURVES_MD" ]; then
		printf '\n### Cost curves (tinyrun and crun, %s samples a point; plot: %s)\n\n' \
			"$CURVE_N" "$OUT/curves.png"
		cat "$CURVES_MD"
		printf '\n%s\n' "$CALIBRATION"
	fi
	cat <<'EOF'

Reproduce: `make bench` (BENCH_N=100 default; e.g. `BENCH_N=20 make bench` for a quick look).
Rows: run = `run` of /bin/true; CPU of `run` = its wait4 user+system time, the children it
waited for (the container's process) included; create/start/state/exec/kill/delete = one
command each on a container running /bin/sleep (exec = `exec ID /bin/true`; kill = `kill ID KILL`, then the bench
reaps the init before `delete`); create+start+wait+delete = all four for /bin/true, wait being
the subreaper's waitpid; peak RSS = wait4 ru_maxrss of the command (its waited-for children
included); memory.limit = linux.resources.memory.limit (memory.limit_in_bytes on v1), bisected to
4 KiB, each probe passing twice, median of max(3, BENCH_N/20) interleaved bisections; syscalls = strace -f -c total of one `run`; containers/s = W workers each running `run`
sequentially; execs/s = 8 workers each running `exec ID /bin/true` sequentially into one running
container; init RSS after create = VmRSS of the container's init between create and start;
processes left = how many processes besides the container's init the command left (children of
the subreaper), after `create` and after `run -d`. Ratios are crun/tinyrun and runc/tinyrun (for
rates, tinyrun/peer), so above 1 means tinyrun is ahead; floor = tests/bench/floor.c (clone into
new namespaces + pivot_root + exec /bin/true, no runtime, no cgroup), floor-cg = the same with a
cgroup of its own in every hierarchy (-DFLOOR_CGROUPS), tinyrun/floor and tinyrun/floor-cg the share
of a floor's rate tinyrun reaches (floor/tinyrun for times). The calibration line under each
table (tests/bench/calibrate.c, measured before the runtimes, medians) is what this machine
costs: a page fault (first write to an anonymous page), a syscall (getppid), a fork+exec of a
static binary, a cgroup mkdir+rmdir in each hierarchy and their sum, the floor's `run` and the
floor with a cgroup in every hierarchy (floor-cg: clone3 into the cgroup2 one, `tasks` of each
v1 one), and the virtualisation (systemd-detect-virt, CPUID's hypervisor vendor: KVMKVMKVM,
TCGTCGTCGTCG for QEMU's emulation; DMI): judge a ratio from another machine against it.
EOF
}

report >"$RESULTS"
# where the CPU of a container goes at 2 workers, against floor-cg (perf -a; skipped without it);
# before the tinyaws and sandbox parts, whose teardown (the 500 mounts case) kernel workers finish
# after them, in what a system-wide profile would count
if part gap; then
	say "bench: the throughput gap to floor-cg by kernel work (tests/bench/gap.sh)"
	if GAP=$(BENCH_TINYRUN=${BIN[tinyrun]} BENCH_OUT=$OUT bash tests/bench/gap.sh 2>/dev/null); then
		printf '\n### Where a container'"'"'s CPU goes at 2 workers, against floor-cg (tests/bench/gap.sh)\n\n```\n%s\n```\n' \
			"$GAP" >>"$RESULTS"
	else
		say "bench: the gap part was skipped (it needs perf -a and readable kernel symbols)"
	fi
fi
# tinyaws jobs: tinyrun against tinyaws' own unshare + overlay + cp + pivot_root recipe
if part tinyaws; then
	say "bench: tinyaws jobs (tests/bench/tinyaws.sh)"
	BENCH_N=$N bash tests/bench/tinyaws.sh >>"$RESULTS" || say "bench: the tinyaws part failed"
fi
if part sandbox; then
	say "bench: the sandbox's start against bubblewrap (tests/bench/sandbox.sh)"
	# with the gap part, also where a sandbox start's CPU goes with 8 at once (perf -a)
	SANDBOX_PARTS=${SANDBOX_PARTS:-start parallel mounts$(part gap && echo " gap")} \
		BENCH_N=$N BENCH_TINYRUN=${BIN[tinyrun]} bash tests/bench/sandbox.sh >>"$RESULTS" ||
		say "bench: the sandbox comparison failed"
fi
cat "$RESULTS"
say "bench: table written to $RESULTS (raw samples summary: $OUT/raw.tsv)"
