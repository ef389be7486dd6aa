#!/bin/bash
# gap.sh: where the machine's CPU goes while 2 workers start containers back to back, tinyrun
# against the floor with cgroups (tests/bench/floor.c -DFLOOR_CGROUPS): issue 34's throughput
# target is 0.95x that floor's rate, and this says which kernel work makes up the difference.
#
#   bash tests/bench/gap.sh      (GAP_C=300 starts a worker; report in build/bench/gap.txt)
#
# Same bundle, cgroups, subreaper and private mount namespace as bench.sh's throughput rows
# (tests/bench/lib.sh; driver par -w 2). Each is run under a system-wide `perf record -a -g`
# (every CPU, kernel workers and softirqs included: the network namespace's cleanup and the
# cgroups' release run there, not in the runtime's process), then tests/bench/gap.awk puts each
# sample in one category. The figures are µs of CPU a container, idle time included: at 2
# workers on 2 CPUs, the time a CPU had nothing to run is part of what a container costs.
# Needs perf with kernel symbols (/proc/kallsyms readable).
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
C=${GAP_C:-300}
# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
# shellcheck source=tests/bench/gap-lib.sh
source tests/bench/gap-lib.sh
RUNTIMES=(tinyrun)
bench_setup || exit 1
REPORT=$OUT/gap.txt
gap_ready "$TMP" || { say "gap: cannot profile here"; exit 1; }

# record NAME BINARY: perf data of 2 workers x C starts, and the driver's containers/s line
record() {
	in_ns "${GAP_PERF[@]}" -o "$TMP/perf-$1.data" -- \
		"$DRIVER" par -d "$TMP" -T 60 -n 1 -w 2 -c "$C" "$1=$2" >"$TMP/par-$1.tsv" 2>/dev/null &&
	gap_script "$TMP" "$1"
}

record tinyrun "${BIN[tinyrun]}" || { say "gap: perf record of tinyrun failed"; exit 1; }
record floor-cg "$FLOOR_CG" || { say "gap: perf record of floor-cg failed"; exit 1; }
rate() { awk -F"\t" '$1 ~ /^par/ { print $3 }' "$TMP/par-$1.tsv"; }
{
	echo "gap.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs; 2 workers x $C" \
		"starts each, perf -a at $GAP_HZ Hz"
	echo "containers/s: tinyrun $(rate tinyrun), floor-cg $(rate floor-cg);" \
		"tinyrun/floor-cg $(awk -v a="$(rate tinyrun)" -v b="$(rate floor-cg)" \
			'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (issue 34's target: 0.95)"
	echo
	gap_table "$TMP" $((2 * C)) tinyrun floor-cg
	echo
	echo "(one sample goes to the first category its stack matches, in tests/bench/gap.awk's order)"
} | tee "$REPORT"
say "gap: written to $REPORT"
