#!/bin/bash
# statements.sh [TAP...]: SPEC-NOTES.md's per-statement appendix, from TAP files
# written by run.sh (default build/conformance.tap; give the host run and the
# cgroup v2 guest run, a pass or failure overrides a skip): one row per @test of
# tests/conformance/*.bats with its level, the runtime's result (pass, FAIL, or
# skip with the reason) and the file that holds it. A test missing from the
# TAP (a filtered or interrupted run) reads "not run".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here/../../build/conformance.tap"
for tap; do
	[ -r "$tap" ] || { echo "statements.sh: no TAP file $tap (run tests/conformance/run.sh first)" >&2; exit 2; }
done
taps=$(printf '%s\n' "$@")

for f in "$here"/*.bats; do
	sed -n 's/^@test "\(.*\)" {.*$/\1/p' "$f" | while IFS= read -r name; do
		printf '%s\t%s\n' "$(basename "$f")" "$name"
	done
done | awk -F'\t' -v taps="$taps" '
	BEGIN {
		nt = split(taps, T, "\n")
		for (t = 1; t <= nt; t++) while ((getline line < T[t]) > 0) {
			if (line !~ /^(ok|not ok) [0-9]+ /) continue
			fail = line ~ /^not ok/
			sub(/^(ok|not ok) [0-9]+ /, "", line)
			res = fail ? "**FAIL**" : "pass"
			if (match(line, / # [sS][kK][iI][pP]/)) {
				why = substr(line, RSTART + RLENGTH); sub(/^ */, "", why)
				line = substr(line, 1, RSTART - 1)
				res = "skip" (why != "" ? ": " why : "")
			}
			if (!(line in result) || result[line] ~ /^skip/) result[line] = res
		}
	}
	{
		file = $1; name = $2
		lvl = "—"
		if (match(name, /: (MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)( |$)/)) {
			lvl = substr(name, RSTART + 2, RLENGTH - 2); sub(/ $/, "", lvl)
		}
		r = (name in result) ? result[name] : "not run"
		if (!(file in seen)) { seen[file] = 1; files[++nf] = file }
		k = r ~ /^pass/ ? "p" : r ~ /FAIL/ ? "f" : r ~ /^skip/ ? "s" : "n"
		cnt[file, k]++; cnt["all", k]++
		if (lvl ~ /^MUST/) { lv[file, "MUST"]++; lv["all", "MUST"]++ }
		else if (lvl ~ /^SHOULD/) { lv[file, "SHOULD"]++; lv["all", "SHOULD"]++ }
		else if (lvl == "MAY") { lv[file, "MAY"]++; lv["all", "MAY"]++ }
		if (k == "s") { why = r; sub(/^skip: /, "", why); sub(/^\(in the cgroup v2 guest\) /, "", why); reasons[why]++ }
		gsub(/\|/, "\\|", name); gsub(/\|/, "\\|", r)
		rows[file] = rows[file] sprintf("| %s | %s | %s |\n", name, lvl, r)
	}
	function row(label, f) {
		printf "| %s | %d | %d / %d / %d | %d | %d | %d | %d |\n", label,
			cnt[f, "p"] + cnt[f, "f"] + cnt[f, "s"] + cnt[f, "n"], lv[f, "MUST"], lv[f, "SHOULD"], lv[f, "MAY"],
			cnt[f, "p"], cnt[f, "f"], cnt[f, "s"], cnt[f, "n"]
	}
	END {
		print "| file | tests | MUST / SHOULD / MAY | passed | failed | skipped | not run |"
		print "|---|---|---|---|---|---|---|"
		for (i = 1; i <= nf; i++) row(files[i], files[i])
		row("**total**", "all")
		if (length(reasons)) {
			print "\nWhy tests were skipped (count, reason):\n"
			for (w in reasons) printf "- %d: %s\n", reasons[w], w
		}
		for (i = 1; i <= nf; i++)
			printf "\n### %s\n\n| statement | level | result |\n|---|---|---|\n%s", files[i], rows[files[i]]
	}'
