#!/bin/bash
# statements.sh [TAP]: SPEC-NOTES.md's per-statement appendix, from a TAP file
# written by run.sh (default build/conformance.tap): one row per @test of
# tests/conformance/*.bats with its level, the runtime's result (pass, FAIL, or
# skip with the reason) and the file that holds it. A test missing from the
# TAP (a filtered or interrupted run) reads "not run".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tap=${1:-$here/../../build/conformance.tap}
[ -r "$tap" ] || { echo "statements.sh: no TAP file $tap (run tests/conformance/run.sh first)" >&2; exit 2; }

for f in "$here"/*.bats; do
	sed -n 's/^@test "\(.*\)" {.*$/\1/p' "$f" | while IFS= read -r name; do
		printf '%s\t%s\n' "$(basename "$f")" "$name"
	done
done | awk -F'\t' -v tap="$tap" '
	BEGIN {
		while ((getline line < tap) > 0) {
			if (line !~ /^(ok|not ok) [0-9]+ /) continue
			fail = line ~ /^not ok/
			sub(/^(ok|not ok) [0-9]+ /, "", line)
			res = fail ? "**FAIL**" : "pass"
			if (match(line, / # [sS][kK][iI][pP]/)) {
				why = substr(line, RSTART + RLENGTH); sub(/^ */, "", why)
				line = substr(line, 1, RSTART - 1)
				res = "skip" (why != "" ? ": " why : "")
			}
			result[line] = res
		}
	}
	{
		file = $1; name = $2
		lvl = "—"
		if (match(name, /: (MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)( |$)/)) {
			lvl = substr(name, RSTART + 2, RLENGTH - 2); sub(/ $/, "", lvl)
		}
		if (file != last) { printf "\n### %s\n\n| statement | level | result |\n|---|---|---|\n", file; last = file }
		r = (name in result) ? result[name] : "not run"
		gsub(/\|/, "\\|", name); gsub(/\|/, "\\|", r)
		printf "| %s | %s | %s |\n", name, lvl, r
	}'
