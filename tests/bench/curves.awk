# curves.awk: the driver's lines of the cost curves (curves.sh) -> a markdown table.
# Input: metric@family=x TAB runtime TAB median TAB p10 TAB p90 TAB samples TAB failures TAB error.
# Then, per family, how the cost grows: the increment per unit between the first and the
# last point (mounts, rules, KiB), or the last point over the first (containers under --root).

BEGIN { FS = "\t"; n = 0 }

$1 ~ /@/ {
	key = $1
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	if ($6 > 0) { med[key, $2] = $3; lo[key, $2] = $4; hi[key, $2] = $5 }
	else err[key, $2] = $8
}

function cell(k, r) {
	if ((k, r) in med)
		return sprintf("%.2f (%.2f-%.2f)", med[k, r], lo[k, r], hi[k, r])
	return (k, r) in err ? "failed: " err[k, r] : "-"
}

function xof(k,    x) { x = k; sub(/.*=/, "", x); sub(/[^0-9].*/, "", x); return x + 0 }
function fam(k,    f) { f = k; sub(/=[0-9]+/, "", f); return f }

END {
	print "| point | tinyrun, ms | crun, ms | crun/tinyrun |"
	print "|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		k = order[i]
		r = "-"
		if (((k, "tinyrun") in med) && ((k, "crun") in med) && med[k, "tinyrun"] > 0)
			r = sprintf("%.2f", med[k, "crun"] / med[k, "tinyrun"])
		print "| " k " | " cell(k, "tinyrun") " | " cell(k, "crun") " | " r " |"
		f = fam(k)
		if (!(f in first)) { first[f] = k; forder[++nf] = f }
		last[f] = k
	}
	print ""
	print "| growth | tinyrun | crun |"
	print "|---|---|---|"
	for (i = 1; i <= nf; i++) {
		f = forder[i]; a = first[f]; b = last[f]
		if (a == b) continue
		line = "| " f " (" xof(a) " to " xof(b) ")"
		for (j = 1; j <= 2; j++) {
			rt = j == 1 ? "tinyrun" : "crun"
			if (!((a, rt) in med) || !((b, rt) in med)) { line = line " | -"; continue }
			if (f ~ /@root$/)
				line = line sprintf(" | %.2fx (%.2f to %.2f ms)", med[b, rt] / med[a, rt], med[a, rt], med[b, rt])
			else
				line = line sprintf(" | %+.1f us per unit", 1000 * (med[b, rt] - med[a, rt]) / (xof(b) - xof(a)))
		}
		print line " |"
	}
	if (("list@root=1000", "tinyrun") in med)
		printf("\n`list` of 1000 containers: %.1f ms (target: under 50 ms: %s).\n",
		       med["list@root=1000", "tinyrun"], med["list@root=1000", "tinyrun"] < 50 ? "met" : "NOT met")
}
