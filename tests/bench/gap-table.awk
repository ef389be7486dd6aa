# gap-table.awk: tests/bench/gap.awk's "category<TAB>name<TAB>µs" lines of two columns A and B
# (-v A=... -v B=...) -> one table, the categories by A's cost, with B's and the difference.
BEGIN { FS = "\t" }
{ v[$1, $2] = $3; cats[$1] = 1; tot[$2] += $3 }
END {
	printf "%-46s %9s %9s %10s\n", "µs of CPU a start", A, B, "difference"
	cmd = "sort -t'\t' -k1,1rn | cut -f2-"
	for (c in cats)
		printf "%d\t%-46s %9d %9d %+10d\n", v[c, A], c, v[c, A], v[c, B], v[c, A] - v[c, B] | cmd
	close(cmd)
	printf "%-46s %9d %9d %+10d\n", "TOTAL (= CPUs x time / starts)", tot[A], tot[B], tot[A] - tot[B]
}
