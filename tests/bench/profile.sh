#!/bin/bash
# profile.sh: where the time of tinyrun's `run` of /bin/true goes, next to crun's.
#
#   bash tests/bench/profile.sh      (PROFILE_N=11 traced runs; report in build/bench/profile.txt)
#
# Same bundle, subreaper and private mount namespace as bench.sh (tests/bench/lib.sh).
#  1. perf stat -r 30: wall time, CPU time, context switches, page faults (runs back to back).
#  2. strace -f -c: syscalls by type, tinyrun next to crun.
#  3. perf trace of PROFILE_N runs spaced 0.3 s apart (as in the interleaved bench, where the
#     other runtimes run in between): each run's span and its slowest calls, then the
#     timeline of the median run (tests/bench/timeline.awk). perf trace costs a few
#     microseconds a syscall, much less than strace.
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
PN=${PROFILE_N:-11}
# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
RUNTIMES=(tinyrun crun)
bench_setup || exit 1
REPORT=$OUT/profile.txt

for rt in "${RUNTIMES[@]}"; do
	mkdir -p "$TMP/bundles/$rt" "$TMP/root-$rt"
	sed "s|@CG@|/$CG_PARENT/prof-$rt|" "$TMP/config-true.json" >"$TMP/bundles/$rt/config.json"
done

# under RT TOOL...: TOOL... RUNTIME --root R run --bundle B ID, under the subreaper, in the namespace.
under() {
	local rt=$1
	shift
	in_ns "$DRIVER" exec -- "$@" "${BIN[$rt]}" --root "$TMP/root-$rt" run \
		--bundle "$TMP/bundles/$rt" "prof-$rt"
}

have_perf() { perf trace -o /dev/null true >/dev/null 2>&1; }

perf_stat() {
	local rt
	echo "== 1. perf stat -r 30 (back to back: v1 cgroup attaches stay cheap, see 3.)"
	for rt in "${RUNTIMES[@]}"; do
		under "$rt" perf stat -r 30 -x, -o "$TMP/stat-$rt.csv" \
			-e task-clock,context-switches,cpu-migrations,page-faults >/dev/null 2>&1
		under "$rt" perf stat -r 30 -o "$TMP/stat-$rt.txt" -e task-clock >/dev/null 2>&1
		printf '%-8s elapsed %s ms | ' "$rt" \
			"$(awk '/seconds time elapsed/ { printf "%.2f", $1 * 1000 }' "$TMP/stat-$rt.txt")"
		awk -F, '/^[0-9]/ { printf "%s %s  ", $3, $1 }' "$TMP/stat-$rt.csv"
		echo
	done
	echo "(task-clock in ms of CPU; the rest are counts per run)"
}

syscall_counts() {
	local rt
	echo "== 2. syscalls of one run by type (strace -f -c; the container's /bin/true included)"
	for rt in "${RUNTIMES[@]}"; do
		under "$rt" strace -f -c -o "$TMP/strace-$rt.txt" >/dev/null 2>&1
	done
	awk '
		FNR == 1 { rt = (FILENAME ~ /strace-tinyrun/) ? "t" : "c" }
		$NF == "total" { tot[rt] = $4; next }
		$1 ~ /^[0-9.]+$/ && NF >= 5 { n[$NF, rt] = $4; names[$NF] = 1 }
		END {
			printf("%-18s %8s %8s\n", "syscall", "tinyrun", "crun")
			for (s in names) printf("%-18s %8d %8d\n", s, n[s, "t"], n[s, "c"]) | "sort -k2,2nr -k3,3nr"
			close("sort -k2,2nr -k3,3nr")
			printf("%-18s %8d %8d\n", "TOTAL", tot["t"], tot["c"])
		}' "$TMP/strace-tinyrun.txt" "$TMP/strace-crun.txt"
}

# The duration (ms) of the slowest call in perf trace output FILE matching REGEX.
slowest() {
	awk -v re="$2" '$0 ~ re && match($0, /\( *[0-9.]+ ms\)/) {
		d = substr($0, RSTART + 1) + 0; if (d > m) m = d } END { printf "%.2f", m }' "$1"
}

traces() {
	local i median
	echo "== 3. perf trace of $PN runs of tinyrun, 0.3 s apart"
	printf '%4s %9s %14s %8s %13s %10s\n' run "span ms" "slowest write" \
		"clone3" "child waits" "exit wait"
	for i in $(seq "$PN"); do
		sleep 0.3
		under tinyrun perf trace -o "$TMP/trace-$i.txt" >/dev/null 2>&1 || continue
		printf '%4d %9s %14s %8s %13s %10s\n' "$i" \
			"$(awk -f tests/bench/timeline.awk "$TMP/trace-$i.txt" | awk 'NR == 1 { print $2 }')" \
			"$(slowest "$TMP/trace-$i.txt" ' write\\(')" \
			"$(slowest "$TMP/trace-$i.txt" 'clone3\\(')" \
			"$(slowest "$TMP/trace-$i.txt" '\\[continued\\]: recvmsg|recvmsg\\(fd')" \
			"$(slowest "$TMP/trace-$i.txt" ' poll\\(|continued\\]: poll')"
	done | tee "$TMP/spans.txt"
	echo "(times in ms; slowest write = the first pid written to a v1 cgroup.procs, when it waits"
	echo " for an RCU grace period; child waits = the longest recvmsg: the container process"
	echo " waiting for the parent, or the parent for it; exit wait = the parent's poll until"
	echo " /bin/true has exited)"
	median=$(sort -k2,2n "$TMP/spans.txt" | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }')
	[ -n "$median" ] || return
	echo
	echo "-- timeline of the median run ($median):"
	awk -f tests/bench/timeline.awk "$TMP/trace-$median.txt"
	cp "$TMP/trace-$median.txt" "$OUT/profile-trace.txt"
}

{
	echo "tinyrun run /bin/true profile, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r)," \
		"$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	if have_perf; then perf_stat; echo; fi
	syscall_counts
	echo
	if have_perf; then traces; else echo "== 3. skipped: perf trace does not work here"; fi
} | tee "$REPORT"
say "profile: written to $REPORT (median run's perf trace: $OUT/profile-trace.txt)"
