# gap-lib.sh: what tests/bench/gap.sh and sandbox-scale.sh's sandbox_gap share: a command under
# a system-wide profile, its stacks, and two of them side by side by tests/bench/gap.awk's
# categories. Source it from the repository's top directory.
# shellcheck shell=bash

GAP_HZ=2000
# the recorder; the caller adds -o FILE -- CMD... (and may run it in its own namespace)
GAP_PERF=(perf record -q -a -g -F "$GAP_HZ")

# gap_ready DIR: perf and the kernel's symbols (in DIR/kallsyms), or the reason on stderr;
# then 2 s for kernel workers to finish what ran before (a profile of every CPU counts them)
gap_ready() {
	command -v perf >/dev/null || { echo "perf missing (make deps installs linux-perf)" >&2; return 1; }
	cp /proc/kallsyms "$1/kallsyms" && grep -q ' [Tt] do_syscall_64$' "$1/kallsyms" &&
		! grep -q '^0000000000000000 ' "$1/kallsyms" ||
		{ echo "/proc/kallsyms has no addresses (kptr_restrict)" >&2; return 1; }
	sleep 2
}

# gap_script DIR NAME: DIR/perf-NAME.data's stacks -> DIR/script-NAME.txt
gap_script() {
	perf script -i "$1/perf-$2.data" --kallsyms="$1/kallsyms" -F comm,ip,sym >"$1/script-$2.txt" 2>/dev/null
}

# gap_table DIR STARTS A B: the table of A against B, in µs of CPU a start
gap_table() {
	local name
	for name in "$3" "$4"; do
		awk -v HZ="$GAP_HZ" -v N="$2" -v NAME="$name" -f tests/bench/gap.awk "$1/script-$name.txt"
	done | awk -v A="$3" -v B="$4" -f tests/bench/gap-table.awk
}
