# sandbox-scale.sh: issue 31 §7's two load cases, sourced by sandbox.sh after its
# start-latency table (uses its $TINYRUN, $TMP, $B, $N, say and $TMP/bwrap.sh):
#
#   sandbox_parallel  8 workers at once, each starting sandboxes one after the other
#                     (`tinyrun run` of the spec --sandbox bundle; bwrap.sh set up alike),
#                     rounds interleaved: sandboxes/s of each and the ratio;
#   sandbox_mounts    start p50 in a private mount namespace with 500 extra mounts (empty
#                     tmpfs under $TMP/mnt) against one with none, tinyrun and bwrap.
#
# The extra mounts are made only in a namespace of `unshare -m --propagation private`:
# the host never sees them, and they go when its one process ends, which it does when
# this script's end of its stdin closes (also on failure or a kill).
# shellcheck shell=bash

SCALE_W=8				# workers at once
SCALE_C=$(( N / 4 > 3 ? N / 4 : 3 ))	# starts a worker makes a round
SCALE_R=$(( N / 20 > 3 ? N / 20 : 3 ))	# rounds, tinyrun and bwrap interleaved
SCALE_M=${BENCH_HOST_MOUNTS:-500}	# extra mounts of the mounts case
SCALE_ROUNDS_M=6			# rounds of the mounts case, none and $SCALE_M alternated

# One bundle per worker: the same image and config, its own cgroup.
scale_bundles() {
	local w
	for ((w = 0; w < SCALE_W; w++)); do
		mkdir -p "$TMP/bundle-w$w" &&
		jq --arg root "$B/rootfs" --arg cg "/tinyrun-bench/sbx-w$w" \
			'.root.path = $root | .linux.cgroupsPath = $cg' "$B/config.json" \
			>"$TMP/bundle-w$w/config.json" || return 1
	done
	chmod -R go+rX "$TMP"/bundle-w*
}

# scale_worker W KIND: SCALE_C starts one after the other; their failures to $TMP/fails-KIND-W.
scale_worker() {
	local w=$1 kind=$2 i fails=0
	for ((i = 0; i < SCALE_C; i++)); do
		if [ "$kind" = tinyrun ]; then
			"$TINYRUN" --root "$TMP/root" run --bundle "$TMP/bundle-w$w" "sbx-w$w" \
				>/dev/null 2>&1 || fails=$((fails + 1))
		else
			"$TMP/bwrap.sh" >/dev/null 2>&1 || fails=$((fails + 1))
		fi
	done
	echo "$fails" >"$TMP/fails-$kind-$w"
}

# scale_round KIND: all workers at once; prints sandboxes/s of the round (failed starts
# are not counted; their number is added to $TMP/fails-KIND).
scale_round() {
	local kind=$1 w t0 t1 f=0 n
	t0=$(date +%s%N)
	for ((w = 0; w < SCALE_W; w++)); do scale_worker "$w" "$kind" & done
	wait
	t1=$(date +%s%N)
	for ((w = 0; w < SCALE_W; w++)); do f=$((f + $(cat "$TMP/fails-$kind-$w"))); done
	echo "$f" >>"$TMP/fails-$kind"
	n=$((SCALE_W * SCALE_C - f))
	awk -v n="$n" -v ns="$((t1 - t0))" 'BEGIN { printf "%.1f\n", n / (ns / 1e9) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
sum_file() { awk '{ s += $1 } END { print s + 0 }' "$1"; }

sandbox_parallel() {
	local r tin bw
	scale_bundles || { say "sandbox bench: could not write the workers' bundles"; return 1; }
	say "sandbox bench: $SCALE_W at once, $SCALE_W x $SCALE_C starts a round, $SCALE_R rounds each"
	: >"$TMP/rate-tinyrun"; : >"$TMP/rate-bwrap"; : >"$TMP/fails-tinyrun"; : >"$TMP/fails-bwrap"
	for ((r = 0; r < SCALE_R; r++)); do
		scale_round tinyrun >>"$TMP/rate-tinyrun"
		scale_round bwrap >>"$TMP/rate-bwrap"
	done
	tin=$(median <"$TMP/rate-tinyrun") bw=$(median <"$TMP/rate-bwrap")
	cat <<EOF

### $SCALE_W sandboxes at once

$SCALE_W workers, each starting $SCALE_C sandboxes one after the other (a bash loop, the same for
both), all at once; $SCALE_R rounds, tinyrun and bwrap interleaved; median of the rounds (all
rounds: tinyrun $(tr '\n' ' ' <"$TMP/rate-tinyrun")/s, bwrap $(tr '\n' ' ' <"$TMP/rate-bwrap")/s).
Load average $(cut -d' ' -f1-3 /proc/loadavg) after.

| command | sandboxes/s | failed starts |
|---|---|---|
| tinyrun run (spec --sandbox) | $tin | $(sum_file "$TMP/fails-tinyrun") |
| bwrap (same isolation) | $bw | $(sum_file "$TMP/fails-bwrap") |

tinyrun/bwrap: $(awk -v a="$tin" -v b="$bw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (issue 31's target: at least 2).
EOF
}

# mounts_holder M: a private mount namespace with M empty tmpfs mounts under $TMP/mnt, held
# by a sh that lives until our end of its stdin closes (when this script ends, however it
# ends); "PID MOUNTS" in $TMP/holder-M once the mounts are made.
mounts_holder() {
	local m=$1 fd pid
	# shellcheck disable=SC2016 # the inner sh's
	exec {fd}> >(exec unshare -m --propagation private sh -c '
		m=$0 dir=$1 i=0
		while [ "$i" -lt "$m" ]; do
			mkdir -p "$dir/m$i" && mount -t tmpfs -o size=4k,mode=755 bench-mnt "$dir/m$i" || exit 1
			i=$((i + 1))
		done
		echo "$$ $(wc -l </proc/self/mountinfo)" >"$2.tmp" && mv "$2.tmp" "$2" && cat >/dev/null' \
		"$m" "$TMP/mnt" "$TMP/holder-$m")
	HOLDER_FDS+=("$fd") pid=$!
	# as long as the holder makes mounts: 500 of them (two execs each) take about 10 s in the
	# emulated cgroup v2 guest, where a fixed 30 s wait once gave up too early
	for _ in $(seq 6000); do
		[ -s "$TMP/holder-$m" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# mounts_round M OUT: hyperfine of both starts inside M's holder namespace (JSON to OUT).
mounts_round() {
	local runs=$(( N / SCALE_ROUNDS_M > 5 ? N / SCALE_ROUNDS_M : 5 )) pid
	read -r pid _ <"$TMP/holder-$1"
	nsenter -t "$pid" -m -- hyperfine -N --warmup 1 --runs "$runs" --export-json "$2" \
		-n tinyrun "$TINYRUN --root $TMP/root run --bundle $B sbx" -n bwrap "$TMP/bwrap.sh" >/dev/null
}

# mounts_p50 NAME FILES...: the median of one command's times pooled over the rounds, in ms
mounts_p50() {
	local name=$1
	shift
	jq -s --arg n "$name" '[.[].results[] | select(.command == $n) | .times[]] | sort |
		.[(length - 1) / 2 | floor] * 10000 | round / 10' "$@"
}

sandbox_mounts() {
	local r fd none=() many=() t0 tm b0 bm mi0 mi
	HOLDER_FDS=()
	say "sandbox bench: start with $SCALE_M extra mounts and with none, $SCALE_ROUNDS_M rounds each"
	mkdir -p "$TMP/mnt"
	if ! mounts_holder 0 || ! mounts_holder "$SCALE_M"; then
		say "sandbox bench: could not make the mounts' namespaces"
		for fd in "${HOLDER_FDS[@]}"; do exec {fd}>&-; done
		return 1
	fi
	for ((r = 0; r < SCALE_ROUNDS_M; r++)); do
		if ! mounts_round 0 "$TMP/m0-$r.json" || ! mounts_round "$SCALE_M" "$TMP/mN-$r.json"; then
			say "sandbox bench: the mounts case failed"
			break
		fi
		none+=("$TMP/m0-$r.json") many+=("$TMP/mN-$r.json")
	done
	for fd in "${HOLDER_FDS[@]}"; do exec {fd}>&-; done	# the holders end, their mounts with them
	[ "$r" = "$SCALE_ROUNDS_M" ] || return 1
	t0=$(mounts_p50 tinyrun "${none[@]}") tm=$(mounts_p50 tinyrun "${many[@]}")
	b0=$(mounts_p50 bwrap "${none[@]}") bm=$(mounts_p50 bwrap "${many[@]}")
	read -r _ mi0 <"$TMP/holder-0"
	read -r _ mi <"$TMP/holder-$SCALE_M"
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
	cat <<EOF

### sandbox start with $SCALE_M host mounts

The caller's mount namespace (a private one of \`unshare -m --propagation private\`) with $mi0
mounts, and with $SCALE_M empty tmpfs mounts more ($mi), both kept for the whole case;
$SCALE_ROUNDS_M rounds, the two alternated, hyperfine in each (under nsenter -m); p50 of the
pooled runs. Load average $(cut -d' ' -f1-3 /proc/loadavg) after.

| command | p50 ms, $mi0 mounts | p50 ms, $mi mounts | ratio |
|---|---|---|---|
| tinyrun run (spec --sandbox) | $t0 | $tm | $(ratio "$tm" "$t0") |
| bwrap (same isolation) | $b0 | $bm | $(ratio "$bm" "$b0") |

Issue 31's target: tinyrun's ratio at most 2 (Firecracker's jailer publishes 10x).
EOF
}

# sandbox_gap: where the CPU of a start goes with 8 at once, tinyrun against bwrap: one round
# of each under a system-wide `perf record -a -g` (kernel workers, softirqs and idle included),
# each sample in one of tests/bench/gap.awk's categories, in µs of CPU a start. Needs perf and
# readable kernel symbols; SANDBOX_PARTS=gap (not in the default parts).
sandbox_gap() {
	local kind rates=()
	# shellcheck source=tests/bench/gap-lib.sh
	source tests/bench/gap-lib.sh
	scale_bundles || { say "sandbox bench: could not write the workers' bundles"; return 1; }
	gap_ready "$TMP" || { say "sandbox bench: the gap cannot profile here"; return 1; }
	say "sandbox bench: where a start's CPU goes, $SCALE_W x $SCALE_C starts each under perf -a"
	export -f scale_round scale_worker
	export TMP TINYRUN SCALE_W SCALE_C
	for kind in tinyrun bwrap; do
		: >"$TMP/fails-$kind"
		# shellcheck disable=SC2016 # the inner bash's $0
		rates+=("$("${GAP_PERF[@]}" -o "$TMP/perf-$kind.data" -- bash -c 'scale_round "$0"' "$kind" \
			2>/dev/null)")
		gap_script "$TMP" "$kind" || return 1
	done
	cat <<EOF

### Where a sandbox start's CPU goes, $SCALE_W at once (perf -a)

One round of $SCALE_W workers x $SCALE_C starts each, tinyrun then bwrap, each under a system-wide
\`perf record -a -g\` at $GAP_HZ Hz; sandboxes/s in these rounds: tinyrun ${rates[0]}, bwrap ${rates[1]}.

\`\`\`
$(gap_table "$TMP" $((SCALE_W * SCALE_C)) tinyrun bwrap)
\`\`\`
EOF
}
