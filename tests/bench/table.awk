# table.awk: the driver's summary lines -> a markdown table (used by bench.sh).
# Input: metric TAB runtime TAB median TAB p10 TAB p90 TAB samples TAB failures TAB error.
# A cell without samples is "n/a [k]"; footnote k gives the runtime's first error.

BEGIN {
	FS = "\t"
	nrows = split("version run run_cpu create start state exec kill delete cswd " \
		      "rund run_rss create_rss init_rss left_create left_rund minmem syscalls " \
		      "par2 par8 pexec8", rows, " ")
	label["version"] = "start-up (`--version`), ms"
	label["run"] = "`run` /bin/true, ms"
	label["run_cpu"] = "CPU of `run` (user+sys, its children included), ms"
	label["create"] = "`create`, ms"
	label["start"] = "`start`, ms"
	label["state"] = "`state`, ms"
	label["exec"] = "`exec` /bin/true, ms"
	label["kill"] = "`kill`, ms"
	label["delete"] = "`delete`, ms"
	label["cswd"] = "create+start+wait+delete, ms"
	label["run_rss"] = "peak RSS of `run`"
	label["create_rss"] = "peak RSS of `create`"
	label["minmem"] = "smallest memory.limit for `run`"
	label["syscalls"] = "syscalls per `run`"
	label["par2"] = "containers/s, 2 workers"
	label["par8"] = "containers/s, 8 workers"
	label["pexec8"] = "execs/s into one container, 8 workers"
	label["rund"] = "`run -d` /bin/sleep, ms"
	label["init_rss"] = "init RSS between create and start"
	label["left_create"] = "processes left by `create` besides the init"
	label["left_rund"] = "processes left by `run -d` besides the init"
	kind["init_rss"] = "rss"
	kind["left_create"] = kind["left_rund"] = "count"
	kind["pexec8"] = "rate"
	kind["run_rss"] = kind["create_rss"] = "rss"
	kind["minmem"] = "kib"
	kind["syscalls"] = "count"
	kind["par2"] = kind["par8"] = "rate"
	# The issue's targets: tinyrun <= f x crun.
	target["run"] = 0.6; target["run_cpu"] = 0.5; target["state"] = 0.5; target["kill"] = 0.5
	target["delete"] = 0.5; target["create"] = 0.7; target["exec"] = 0.6
	target["run_rss"] = 1; target["create_rss"] = 1; target["minmem"] = 1
	target["syscalls"] = 0.5; target["init_rss"] = 1
	target["par2"] = target["par8"] = target["pexec8"] = 0.5	# rates: tinyrun >= 2x crun
	floor_target["par2"] = floor_target["par8"] = 0.7		# tinyrun >= 0.7x the floor
	# issue 34: tinyrun >= 0.95x the floor with a cgroup in every hierarchy (floor-cg)
	floorcg_target["par2"] = floorcg_target["par8"] = 0.95
	# -v extra="name ...": BENCH_EXTRA's runtimes, as more columns after the ratios
	nrt = split("tinyrun crun runc floor floor-cg", rts, " ")
	nextra = split(extra, xrts, " ")
	nnotes = 0
}

{
	key = $1 SUBSEP $2
	med[key] = $3; p10[key] = $4; p90[key] = $5; n[key] = $6; fails[key] = $7; err[key] = $8
}

function note(text,    i) {
	for (i = 1; i <= nnotes; i++)
		if (notes[i] == text)
			return i
	notes[++nnotes] = text
	return nnotes
}

function value(m, r,    k) {
	k = m SUBSEP r
	return (k in n) && n[k] > 0 ? med[k] + 0 : -1
}

function show(m, v, lo, hi,    k) {
	k = kind[m]
	if (k == "rss")
		return sprintf("%.1f MiB", v / 1024)
	if (k == "kib")
		return sprintf("%d KiB", v)
	if (k == "count")
		return sprintf("%d", v)
	if (k == "rate")
		return sprintf("%.1f/s", v)
	return sprintf("%.1f (%.1f-%.1f)", v, lo, hi)
}

function cell(m, r,    k, text) {
	k = m SUBSEP r
	if (!(k in n))
		return "-"
	if (n[k] == 0)
		return "n/a [" note(r ": " err[k]) "]"
	text = show(m, med[k], p10[k], p90[k])
	if (fails[k] > 0)
		text = text " [" note(r ": " fails[k] " of " n[k] + fails[k] " failed, first: " err[k]) "]"
	return text
}

# peer/tinyrun (tinyrun/peer for rates): above 1 means tinyrun is ahead.
function ratio(m, peer,    t, p) {
	t = value(m, "tinyrun"); p = value(m, peer)
	if (t <= 0 || p <= 0)
		return "-"
	return sprintf("%.2f", kind[m] == "rate" ? t / p : p / t)
}

function goal(m,    t, c, f, text, ok) {
	if (!(m in target))
		return ""
	t = value(m, "tinyrun"); c = value(m, "crun")
	if (t <= 0 || c <= 0)
		return sprintf("≥ %.2f: not measured", 1 / target[m])
	ok = kind[m] == "rate" ? t >= c / target[m] : t <= target[m] * c
	text = sprintf("≥ %.2f: %s", 1 / target[m], ok ? "met" : "NOT met")
	if (m in floor_target) {
		f = value(m, "floor")
		text = text sprintf("; floor ≥ %.2f: %s", floor_target[m],
				    f <= 0 ? "not measured" : t >= floor_target[m] * f ? "met" : "NOT met")
	}
	if (m in floorcg_target) {
		f = value(m, "floor-cg")
		text = text sprintf("; floor-cg ≥ %.2f: %s", floorcg_target[m],
				    f <= 0 ? "not measured" : t >= floorcg_target[m] * f ? "met" : "NOT met")
	}
	return text
}

# a floor's share: tinyrun/floor for rates, floor/tinyrun for times
function fratio(m, fl,    t, f) {
	t = value(m, "tinyrun"); f = value(m, fl)
	if (t <= 0 || f <= 0)
		return "-"
	return sprintf("%.2f", kind[m] == "rate" ? t / f : f / t)
}

END {
	head = "| metric | tinyrun | crun | runc | floor | floor-cg | crun/tinyrun | runc/tinyrun | tinyrun/floor | tinyrun/floor-cg | target (crun/tinyrun) |"
	rule = "|---|---|---|---|---|---|---|---|---|---|---|"
	for (j = 1; j <= nextra; j++) {
		head = head " " xrts[j] " | " xrts[j] "/tinyrun |"
		rule = rule "---|---|"
	}
	print head
	print rule
	for (i = 1; i <= nrows; i++) {
		m = rows[i]
		for (j = 1; j <= nrt; j++)
			if ((m SUBSEP rts[j]) in n)
				break
		if (j > nrt)
			continue	# a part that did not run (BENCH_PARTS)
		line = "| " label[m]
		for (j = 1; j <= nrt; j++)
			line = line " | " cell(m, rts[j])
		line = line " | " ratio(m, "crun") " | " ratio(m, "runc") " | " fratio(m, "floor") " | " \
		       fratio(m, "floor-cg") " | " goal(m) " |"
		for (j = 1; j <= nextra; j++)
			line = line " " cell(m, xrts[j]) " | " ratio(m, xrts[j]) " |"
		print line
	}
	k = "spawn_true" SUBSEP "floor"
	if (k in n && n[k] > 0)
		printf("\nFloor: spawning /bin/true itself from the driver takes %.2f ms (%.2f-%.2f).\n",
		       med[k], p10[k], p90[k])
	if (nnotes)
		print ""
	for (i = 1; i <= nnotes; i++)
		printf("[%d] %s\n", i, notes[i])
}
