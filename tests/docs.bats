#!/usr/bin/env bats
# docs.bats: every example of README.md and of the man page's EXAMPLES runs as
# printed, so none can rot.
#
# The examples are README.md's ```sh blocks (a synopsis is a plain ``` block)
# and the .nf/.fi text of contrib/man/tinyrun.8.in's EXAMPLES. HTML comments
# right before a block's fence, one per line, say how it runs:
#   <!-- doctest: skip (REASON) -->   not run; REASON is required
#   <!-- doctest: repo (REASON) -->   run in the checkout itself, and only when
#                                     `make deps-build DEPS_DRY_RUN=1` finds
#                                     nothing to install (else skipped)
#   <!-- doctest: expect TEXT -->     the output has the line TEXT
# Any other block runs with `bash -e` in an empty scratch directory under a
# subreaper, `tinyrun` on PATH being this checkout's binary with a private
# --root (the test's), TMPDIR the test's; teardown deletes whatever container
# is left and fails the test on a leftover state dir, mount, cgroup or process.
# Each runnable block belongs to a section that has a test below; a runnable
# block anywhere else fails the first test until it gets one.

load helpers

README="$REPO_DIR/README.md"
MANPAGE="$REPO_DIR/contrib/man/tinyrun.8.in"
# the sections whose runnable blocks a test below runs
TESTED_SECTIONS=("Try it" "Running tinyaws jobs" "Sandboxing untrusted code" "man: EXAMPLES")

# extract_blocks DIR: DIR/NNN.sh (the code) and DIR/NNN.meta (lines "section
# S", "line N", and the markers "skip R", "repo R", "expect T", "bad M") for
# each example of README.md and of the man page.
extract_blocks() {
	local dir="$1"
	mkdir -p "$dir"
	awk -v dir="$dir" '
	function out(f, s) { print s >> (dir "/" sprintf("%03d", n) f) }
	/^## / { section = substr($0, 4) }
	!inblk && /^<!-- doctest: .* -->$/ {
		m = $0; sub(/^<!-- doctest: /, "", m); sub(/ -->$/, "", m)
		marks[++nm] = m; next
	}
	!inblk && /^```sh$/ {
		n++; inblk = 1
		close(dir "/" sprintf("%03d", n) ".sh")
		printf "" > (dir "/" sprintf("%03d", n) ".sh")
		out(".meta", "section " section); out(".meta", "line " NR)
		for (i = 1; i <= nm; i++) {
			m = marks[i]
			if (m ~ /^skip \(.+\)$/ || m ~ /^repo \(.+\)$/) { sub(/ \(/, " ", m); sub(/\)$/, "", m); out(".meta", m) }
			else if (m ~ /^expect .+/) out(".meta", m)
			else out(".meta", "bad " marks[i])
		}
		nm = 0; next
	}
	inblk && /^```$/ { inblk = 0; next }
	inblk { out(".sh", $0); next }
	{ nm = 0 }
	' "$README"
	local n
	n="$(printf '%03d' $(($(find "$dir" -name '*.meta' | wc -l) + 1)))"
	# the man page: roff escapes \- and \\ undone
	sed -n '/^\.SH EXAMPLES/,/^\.SH /{/^\.nf$/,/^\.fi$/p}' "$MANPAGE" | sed -e '/^\.nf$/d' -e '/^\.fi$/d' \
		-e 's/\\-/-/g' -e 's/\\\\/\\/g' >"$dir/$n.sh"
	printf 'section man: EXAMPLES\nline %s\n' "$(grep -n '^\.SH EXAMPLES' "$MANPAGE" | cut -d: -f1)" >"$dir/$n.meta"
}

# meta FILE KEY: the values of KEY in a .meta file, one a line
meta() {
	sed -n "s/^$2 //p" "$1"
}

setup() {
	is_runc && skip "the examples are tinyrun's (spec --sandbox, bundle tinyaws)"
	tr_setup
	BLOCKS="$BATS_TEST_TMPDIR/blocks"
	extract_blocks "$BLOCKS"
	# `tinyrun` as the examples call it: this runtime, this test's root
	mkdir -p "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/tmp"
	printf '#!/bin/sh\nexec %q --root %q "$@"\n' "$RUNTIME" "$ROOT" >"$BATS_TEST_TMPDIR/bin/tinyrun"
	chmod +x "$BATS_TEST_TMPDIR/bin/tinyrun"
	CGROUPS_BEFORE="$(default_cgroups)"
}

teardown() {
	local left
	left="$(comm -13 <(echo "$CGROUPS_BEFORE") <(default_cgroups))"
	tr_teardown || return 1
	[[ -z "$left" ]] || fail "cgroups left: $left"
}

# default_cgroups: the containers' cgroups under the default parent /tinyrun,
# but those of other suites' tests (named after their token, trt...)
default_cgroups() {
	find /sys/fs/cgroup/tinyrun /sys/fs/cgroup/*/tinyrun -mindepth 1 -maxdepth 1 -type d \
		-not -name 'trt*' 2>/dev/null | sort
}

# run_block NNN: run one block as its markers say; asserts it succeeded and
# printed each expected line.
run_block() {
	local m="$BLOCKS/$1.meta" sh="$BLOCKS/$1.sh" cwd t
	cwd="$BATS_TEST_TMPDIR/work-$1"
	mkdir -p "$cwd"
	if [[ -n "$(meta "$m" repo)" ]]; then
		(cd "$REPO_DIR" && make -s deps-build DEPS_DRY_RUN=1 >/dev/null 2>&1) ||
			skip "README line $(meta "$m" line): $(meta "$m" repo)"
		cwd="$REPO_DIR"
	fi
	run_nohang_to "$BATS_TEST_TMPDIR/block-$1.log" env -C "$cwd" PATH="$BATS_TEST_TMPDIR/bin:$PATH" \
		TMPDIR="$BATS_TEST_TMPDIR/tmp" timeout -k 5 100 "$TEST_LIB_BIN/subreaper" bash -e "$sh"
	[[ "$status" -eq 0 ]] || fail "$(meta "$m" section), line $(meta "$m" line): exit $status
--- block
$(cat "$sh")
--- output
$output"
	while IFS= read -r t; do
		assert_line "$t"
	done < <(meta "$m" expect)
}

# run_section NAME: every runnable block of section NAME (at least one)
run_section() {
	local m n=0 id
	for m in "$BLOCKS"/*.meta; do
		[[ "$(meta "$m" section)" == "$1" && -z "$(meta "$m" skip)" ]] || continue
		id="$(basename "$m" .meta)"
		run_block "$id"
		n=$((n + 1))
	done
	((n > 0)) || fail "no runnable example in section \"$1\""
}

@test "docs: every README sh block and the man page's EXAMPLES are run by a test, or skipped with a reason" {
	local m sec problems="" n=0
	for m in "$BLOCKS"/*.meta; do
		n=$((n + 1))
		sec="$(meta "$m" section)"
		[[ -z "$(meta "$m" bad)" ]] || problems+="line $(meta "$m" line): unknown marker or no reason: $(meta "$m" bad)"$'\n'
		[[ -s "${m%.meta}.sh" ]] || problems+="line $(meta "$m" line): an empty block"$'\n'
		if [[ -n "$(meta "$m" skip)" ]]; then
			echo "# skipped: $sec, line $(meta "$m" line): $(meta "$m" skip)" >&3
			continue
		fi
		echo "# runs:    $sec, line $(meta "$m" line)" >&3
		[[ " ${TESTED_SECTIONS[*]/%/|} " == *" $sec|"* ]] ||
			problems+="line $(meta "$m" line): a runnable block in \"$sec\", which no test of docs.bats runs"$'\n'
	done
	((n >= 6)) || problems+="only $n examples found: the extraction is broken"$'\n'
	[[ -z "$problems" ]] || fail "$problems"
}

@test "docs: README 'Try it': make demo, as printed (when it would install nothing)" {
	run_section "Try it"
}

@test "docs: README 'Running tinyaws jobs': the walk-through, as printed" {
	run_section "Running tinyaws jobs"
}

@test "docs: README 'Sandboxing untrusted code': the walk-through with a request's second task, as printed" {
	run_section "Sandboxing untrusted code"
	# the request's first container is gone (delete -f), its lease returned
	run "$RUNTIME" --root "$ROOT" list -q
	assert_output ""
}

@test "docs: the man page's EXAMPLES, as printed" {
	run_section "man: EXAMPLES"
}

@test "docs: TESTS=\"a b\" tests/run-all.sh runs only those bats suites, no unit test, fuzz replay or conformance" {
	run_nohang env TESTS="exec-cgroup nosuch" "$REPO_DIR/tests/run-all.sh"
	assert_failure 1
	assert_line --regexp '^bats exec-cgroup: [0-9]+ passed, 0 failed'
	assert_line "FAIL no such suite tests/nosuch.bats"
	refute_line --regexp '^(unit |fuzz-replay|conformance)'
	assert_equal "$(grep -c -E '^bats ' <<<"$output")" 1
	assert_line --regexp '^[0-9]+ passed, 1 failed$'
}
