#!/bin/bash
# make bench: tinyrun, crun and runc side by side, interleaved, on one busybox bundle.
#
#   BENCH_N=100 bash tests/bench/bench.sh      (BENCH_N scales every loop; 100 ≈ 5 min on 2 cores)
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
N=${BENCH_N:-100}
TIMEOUT=${BENCH_TIMEOUT:-10}	# seconds one runtime command may take before it is killed
OUT=build/bench
DRIVER=$OUT/driver
RESULTS=$OUT/results.md
CG_PARENT=tinyrun-bench
RUNTIMES=(tinyrun crun runc)
declare -A BIN=([tinyrun]=$PWD/tinyrun [crun]=$(command -v crun || echo crun)
		[runc]=$(command -v runc || echo runc))

# Loop sizes, all scaled by BENCH_N.
STRACE_N=$(( N / 20 > 3 ? N / 20 : 3 ))
PAR_ROUNDS=$(( N / 25 > 2 ? N / 25 : 2 ))
PAR2_C=$(( N > 4 ? N : 4 ))		# 2 workers x N containers a round
PAR8_C=$(( N / 4 > 2 ? N / 4 : 2 ))	# 8 workers x N/4

say() { printf '%s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then say "bench: needs root (namespaces, cgroups)"; exit 1; fi
mkdir -p "$OUT"
gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$DRIVER" tests/bench/driver.c || exit 1

TMP=$(mktemp -d /tmp/tinyrun-bench.XXXXXX) || exit 1
EMPTY=$TMP/empty-cgroup.controllers
: >"$EMPTY"
# Measure one fixed binary even if ./tinyrun is rebuilt while the bench runs.
if [ -x "${BIN[tinyrun]}" ]; then
	mkdir -p "$TMP/bin" && cp "${BIN[tinyrun]}" "$TMP/bin/tinyrun" && BIN[tinyrun]=$TMP/bin/tinyrun
fi

# in_ns CMD...: CMD in a private mount namespace with the empty cgroup.controllers bind.
in_ns() {
	unshare -m --propagation private sh -c \
		'mount --bind "$0" /sys/fs/cgroup/unified/cgroup.controllers && exec "$@"' \
		"$EMPTY" "$@"
}

cgroup_parents() {
	local d
	for d in /sys/fs/cgroup/$CG_PARENT /sys/fs/cgroup/*/$CG_PARENT; do
		[ -d "$d" ] && printf '%s\n' "$d"
	done
}

# Kills what is left in our cgroups (by pid) and removes them, deepest first.
remove_cgroups() {
	local parent procs pid try
	for parent in $(cgroup_parents); do
		for procs in $(find "$parent" -name cgroup.procs 2>/dev/null); do
			while read -r pid; do kill -9 "$pid" 2>/dev/null; done <"$procs"
		done
		for try in $(seq 50); do
			find "$parent" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
			rmdir "$parent" 2>/dev/null
			[ -d "$parent" ] || break
			sleep 0.1
		done
		[ -d "$parent" ] && say "bench: could not remove $parent"
	done
}

cleanup() {
	local rt dir
	trap - EXIT INT TERM
	for rt in "${RUNTIMES[@]}"; do
		for dir in "$TMP/root-$rt"/*/; do
			[ -d "$dir" ] || continue
			in_ns "${BIN[$rt]}" --root "$TMP/root-$rt" delete --force "$(basename "$dir")" \
				>/dev/null 2>&1
		done
	done
	remove_cgroups
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'say "bench: interrupted"; exit 130' INT TERM

if [ -n "$(cgroup_parents)" ]; then
	say "bench: removing cgroups left by an earlier run: $(cgroup_parents | tr '\n' ' ')"
	remove_cgroups
fi

# ---- the bundle: busybox rootfs, config.json from `runc spec` ----
make_bundle() {
	local rootfs=$TMP/rootfs a
	mkdir -p "$rootfs"/{bin,proc,sys,dev,tmp,etc} || return 1
	cp /bin/busybox "$rootfs/bin/busybox" || return 1
	for a in true sleep sh cat; do ln -s busybox "$rootfs/bin/$a"; done
	mkdir -p "$TMP/spec" && (cd "$TMP/spec" && runc spec) || return 1
	local base='.process.terminal = false | .root = {path: $root, readonly: false}
		| .linux.cgroupsPath = "@CG@"'
	# The driver replaces @CG@ by /tinyrun-bench/<container id> and "@MEM@" by a number.
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/true"]' \
		"$TMP/spec/config.json" >"$TMP/config-true.json" &&
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/sleep", "1000"]' \
		"$TMP/spec/config.json" >"$TMP/config-sleep.json" &&
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/true"]
		| .linux.resources.memory = {limit: "@MEM@"}' \
		"$TMP/spec/config.json" >"$TMP/config-mem.json"
}
make_bundle || { say "bench: could not build the busybox bundle"; exit 1; }

specs() { local rt; for rt in "${RUNTIMES[@]}"; do printf '%s=%s ' "$rt" "${BIN[$rt]}"; done; }
# shellcheck disable=SC2046
drive() { in_ns "$DRIVER" "$1" -d "$TMP" -T "$TIMEOUT" "${@:2}" $(specs); }

# ---- does the bind change tinyrun's or runc's behaviour? ----
probe_check() {
	local rt plain bound
	"$DRIVER" probe -d "$TMP" -T "$TIMEOUT" $(specs) >"$TMP/probe-plain.tsv" 2>/dev/null
	drive probe >"$TMP/probe-bound.tsv" 2>/dev/null
	for rt in "${RUNTIMES[@]}"; do
		plain=$(awk -F'\t' -v r="$rt" '$2 == r { print $3 }' "$TMP/probe-plain.tsv" | sort)
		bound=$(awk -F'\t' -v r="$rt" '$2 == r { print $3 }' "$TMP/probe-bound.tsv" | sort)
		if [ "$rt" = crun ]; then
			printf -- '- crun without the bind: %s; with it: %s\n' \
				"$(grep -q 'create failed' <<<"$plain" && sed 's/create failed: //' <<<"$plain" | head -1 || echo works)" \
				"$(grep -q 'create failed' <<<"$bound" && sed 's/create failed: //' <<<"$bound" | head -1 || echo works)"
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
say "bench: checking the cgroup.controllers bind"
BIND_NOTES=$(probe_check)
say "$BIND_NOTES"

RAW=$TMP/raw.tsv
: >"$RAW"
say "bench: warm-up"
drive seq -n 1 >/dev/null 2>&1
say "bench: sequential metrics, $N interleaved iterations"
drive seq -n "$N" >>"$RAW"
say "bench: syscalls per run (strace -f -c), $STRACE_N each"
drive strace -n "$STRACE_N" >>"$RAW"
say "bench: throughput, 2 workers x $PAR2_C and 8 workers x $PAR8_C, $PAR_ROUNDS rounds"
drive par -n "$PAR_ROUNDS" -w 2 -c "$PAR2_C" >>"$RAW"
drive par -n "$PAR_ROUNDS" -w 8 -c "$PAR8_C" >>"$RAW"
say "bench: smallest memory.limit (bisect 64 KiB..64 MiB)"
drive minmem >>"$RAW"
cp "$TMP/strace-tinyrun.txt" "$OUT/strace-tinyrun.txt" 2>/dev/null
cp "$RAW" "$OUT/raw.tsv"

# ---- the report ----
version_of() {
	case $1 in
	tinyrun) printf 'tinyrun %s' "$(git describe --always --dirty 2>/dev/null)";;
	*) "${BIN[$1]}" --version 2>/dev/null | head -1;;
	esac
}

report() {
	cat <<EOF
## tinyrun vs crun vs runc

$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg) at end; $(( $(date +%s) - T_START )) s.
$(version_of tinyrun); $(version_of crun); $(version_of runc).
Bundle: busybox-static, \`runc spec\` with terminal false, readonly false, process /bin/true
(/bin/sleep 1000 for the lifecycle steps), cgroupsPath /$CG_PARENT/<id> (cgroup v1 hierarchies
of a hybrid host). Runtimes interleaved (order rotated every iteration), each under a child
subreaper, each with its own --root. $N iterations for the sequential rows, $STRACE_N for syscalls,
$PAR_ROUNDS rounds for throughput. Times are medians in ms with (p10-p90).
All commands ran in a private mount namespace with an empty file bound over
/sys/fs/cgroup/unified/cgroup.controllers, which crun 1.8.1 needs on this host:
$BIND_NOTES

EOF
	awk -F'\t' -f tests/bench/table.awk "$RAW"
	cat <<'EOF'

Reproduce: `make bench` (BENCH_N=100 default; e.g. `BENCH_N=20 make bench` for a quick look).
Rows: run = `run` of /bin/true; create/start/state/exec/kill/delete = one command each on a
container running /bin/sleep (exec = `exec ID /bin/true`; kill = `kill ID KILL`, then the bench
reaps the init before `delete`); create+start+wait+delete = all four for /bin/true, wait being
the subreaper's waitpid; peak RSS = wait4 ru_maxrss of the command (its waited-for children
included); memory.limit = linux.resources.memory.limit (memory.limit_in_bytes on v1), bisected to
4 KiB; syscalls = strace -f -c total of one `run`; containers/s = W workers each running `run`
sequentially. Ratios are crun/tinyrun and runc/tinyrun (for containers/s, tinyrun/peer), so above
1 means tinyrun is ahead.
EOF
}

report >"$RESULTS"
cat "$RESULTS"
say "bench: table written to $RESULTS (raw samples summary: $OUT/raw.tsv)"
