#!/usr/bin/env bash
# run-all.sh: every test of tinyrun, ending with ONE line "N passed, M failed"
# (exit status 1 when anything failed). `make check` runs it after building
# ./tinyrun and the unit test binaries.
#
#   1. C unit tests: build/tests/test_* for every tests/unit/test_*.c; each
#      prints "NAME: N passed, M failed". Then the fuzz corpus replay.
#   2. bats suites: every tests/*.bats, one bats run per file, counted from TAP.
#   3. tests/conformance/run.sh when it exists (its own runner and summary).
#
# The suites that need what this host lacks (cgroup v2 only, AppArmor: those
# calling guest_setup_file, and the conformance suite's cgroup-v2.bats) run in
# ONE vm-run guest (tests/lib/guest-batch.sh), booted before the bats suites
# and running beside the host's own: those bats suites run after the
# conformance suite, at the end, and take their TAP from the guest
# (guest_batch_tap, tests/lib/common.bash), as cgroup-v2.bats does.
#
# A unit binary that is missing or crashes, a bats file that dies before
# finishing its plan, a runner without a summary line: each counts as failed,
# never as silently passed.
#
# Environment:
#   RUNTIME=/path/to/runtime   test another runtime (default ./tinyrun)
#   TESTS="lifecycle run"      only these bats suites (names without .bats): the
#                              unit tests, fuzz replay and conformance suite are
#                              left out unless also named (TESTS="unit fuzz-replay
#                              conformance lifecycle"), so `make demo`'s build is enough
#   SKIP_UNIT=1 SKIP_BATS=1 SKIP_CONFORMANCE=1   leave a part out
#   VERBOSE=1                  print the full TAP of passing suites too
#   BATS_FILE_TIMEOUT=1800 CONFORMANCE_TIMEOUT=4800   hang guards (seconds)
#   CONFORMANCE_NO_VM=1        leave out the conformance suite's cgroup v2 guest
#   APPARMOR_NO_VM=1           apparmor.bats skips instead of running in the guest
#   GUEST_BATCH=0              no shared guest: each such suite boots its own
# Logs: build/test-logs/ (one .tap per suite, one .log per unit binary).
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo" || exit 1
export RUNTIME="${RUNTIME:-$repo/tinyrun}"

# shellcheck source=lib/common.bash
source tests/lib/common.bash

passed=0
failed=0
skipped=0
logdir="$repo/build/test-logs"
mkdir -p "$logdir"

note() { printf '%s\n' "$*"; }

# --- the one vm-run guest -------------------------------------------------

guest_dir="$repo/build/guest-batch"
guest_files=" "   # the bats files whose TAP comes from the guest
guest_vm_pid=""
guest_timeout=0
guest_conformance=""   # the guest runs the conformance suite's cgroup-v2.bats

# guest_line FILE: "NAME<TAB>TIMEOUT<TAB>FILTER" when FILE's setup_file runs it
# in a guest on this host (its guest_setup_file call, read literally)
guest_line() {
	local line re='^[[:space:]]*guest_setup_file[[:space:]]+([^[:space:]]+)[[:space:]]+([0-9]+)'
	re+='([[:space:]]+("([^"]*)"|([^[:space:]"]+)))?([[:space:]]+([a-z0-9]+))?'
	line="$(grep -m1 -E '^[[:space:]]*guest_setup_file[[:space:]]' "$1")" || return 1
	[[ "$line" =~ $re ]] || return 1
	guest_needed "${BASH_REMATCH[8]:-cgroup2}" || return 1
	printf '%s\t%s\t%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[5]}${BASH_REMATCH[6]}"
}

# conformance_in_guest: the conformance suite will run, whole, and its
# cgroup-v2.bats needs a guest here
conformance_in_guest() {
	[[ -z "${SKIP_CONFORMANCE:-}" && -f tests/conformance/cgroup-v2.bats ]] && asked conformance &&
		[[ -z "${CONFORMANCE_NO_VM:-}${CONFORMANCE_FILES:-}${CONFORMANCE_FILTER:-}" ]] && ! on_cgroup2
}

# guest_batch_start FILE...: boot the guest in the background for those of the
# bats FILEs (and the conformance suite) that need one; their names go to
# $guest_files, and TINYRUN_GUEST_BATCH tells their setup_file where the TAP is
guest_batch_start() {
	local vm_run="${VM_RUN:-$repo/../shared/tools/vm-run}" f line list=""
	[[ "${GUEST_BATCH:-1}" != 0 && -x "$vm_run" ]] || return 0
	for f in "$@"; do
		line="$(guest_line "$f")" || continue
		list+="$line"$'\n'
		guest_files+="$f "
		guest_timeout=$((guest_timeout + $(cut -f2 <<<"$line")))
	done
	if conformance_in_guest; then
		# built here, before the guest needs them (compiling there is slow)
		(source tests/conformance/helpers.bash && conformance_build) || return 0
		list+="conformance/cgroup-v2.bats"$'\t'"3000"$'\t\n'
		guest_timeout=$((guest_timeout + 3000))
		guest_conformance=1
	fi
	[[ -n "$list" ]] || return 0
	rm -rf "$guest_dir"
	mkdir -p "$guest_dir"
	printf '%s' "$list" >"$guest_dir/list"
	export TINYRUN_GUEST_BATCH="$guest_dir"
	note "guest: $(cut -f1 "$guest_dir/list" | paste -sd' ') in one vm-run guest, beside the host's suites"
	guest_timeout=$((guest_timeout + 300))   # and the boot
	# qemu and the guest's kernel, installed (apt) the first time: here, before
	# any suite runs, and not beside one that uses apt
	"$vm_run" --prepare </dev/null >"$guest_dir/prepare.log" 2>&1 3>&- 4>&-
	# "ended" once vm-run is gone, whatever became of the guest; niced, so that
	# the host's suites, which wait on real programs, get the CPUs first
	(
		nice -n 10 "$vm_run" --mem 4G --timeout "$guest_timeout" -e "RUNTIME=$RUNTIME" -- \
			bash tests/lib/guest-batch.sh "$guest_dir" >"$guest_dir/guest.log" 2>&1 &
		echo $! >"$guest_dir/vm-run.pid"
		wait $!
		echo $? >"$guest_dir/ended"
	) </dev/null 3>&- 4>&- &
	guest_vm_pid=$!
}

# guest_kill: vm-run stopped (it stops its guest) if still running
guest_kill() {
	[[ -n "$guest_vm_pid" && ! -e "$guest_dir/ended" ]] || return 0
	kill "$(cat "$guest_dir/vm-run.pid" 2>/dev/null)" 2>/dev/null
}

# guest_batch_end: the guest powered off (it does once its last suite has
# ended), or else, after a minute, stopped
guest_batch_end() {
	local i
	[[ -n "$guest_vm_pid" ]] || return 0
	for ((i = 0; i < 60; i++)); do
		[[ ! -e "$guest_dir/ended" ]] || break
		sleep 1
	done
	guest_kill
	wait "$guest_vm_pid"
	note "guest: vm-run exit status $(cat "$guest_dir/ended" 2>/dev/null || echo unknown); its output: build/guest-batch/guest.log"
}

# Shared cache for the bats suites (base rootfs), removed at exit.
TINYRUN_TEST_CACHE="$(mktemp -d /tmp/tinyrun-tests.XXXXXX)"
export TINYRUN_TEST_CACHE
trap 'rm -rf "$TINYRUN_TEST_CACHE"; guest_kill' EXIT
trap 'exit 143' TERM   # so that the EXIT trap runs
trap 'exit 130' INT
trap 'exit 129' HUP

# count_summary NAME TEXT: add the last "N passed, M failed" of TEXT; a
# missing line is one failure.
count_summary() {
	local name="$1" text="$2" line
	line="$(grep -E '([0-9]+) passed, ([0-9]+) failed' <<<"$text" | tail -n1)"
	if [[ "$line" =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		return 0
	fi
	note "FAIL $name: no 'N passed, M failed' summary"
	failed=$((failed + 1))
	return 1
}

run_unit() {
	local src name bin out rc before
	for src in tests/unit/test_*.c; do
		[[ -e "$src" ]] || continue
		name="$(basename "${src%.c}")"
		bin="build/tests/$name"
		if [[ ! -x "$bin" ]]; then
			note "FAIL unit $name: $bin was not built"
			failed=$((failed + 1))
			continue
		fi
		out="$(timeout -k 5 300 "$bin" 2>&1 </dev/null)"
		rc=$?
		printf '%s\n' "$out" >"$logdir/$name.log"
		before=$failed
		count_summary "unit $name" "$out" || { tail -n 20 <<<"$out"; continue; }
		if ((rc != 0 && failed == before)); then
			note "FAIL unit $name: exit status $rc with no failed check"
			failed=$((failed + 1))
		fi
		if ((rc != 0)); then
			grep -v ' passed, ' <<<"$out" | tail -n 40
		fi
		note "unit $(tail -n1 <<<"$out")"
	done
}

# run_bats FILE [guest]: one bats run; counts from the TAP stream. A suite of
# the guest may first wait for it: its hang guard adds the guest's (vm-run's
# --timeout) to BATS_FILE_TIMEOUT.
run_bats() {
	local file="$1" name tap rc plan=-1 ok=0 notok=0 skip=0 line t0=$SECONDS limit="${BATS_FILE_TIMEOUT:-1800}"
	name="$(basename "$file" .bats)"
	tap="$logdir/$name.tap"
	[[ -n "${2:-}" ]] && limit=$((limit + guest_timeout))
	# A hang guard per file: a hung runtime must not hang `make check`.
	timeout -k 10 "$limit" bats --tap "$file" </dev/null >"$tap" 2>&1
	rc=$?
	((rc == 124)) && note "FAIL $name.bats: killed after $limit s"
	while IFS= read -r line; do
		case "$line" in
		1..*) plan="${line#1..}" ;;
		"ok "*"# skip"*) skip=$((skip + 1)) ;;
		"ok "*) ok=$((ok + 1)) ;;
		"not ok "*) notok=$((notok + 1)) ;;
		esac
	done <"$tap"
	[[ "$plan" =~ ^[0-9]+$ ]] || plan=-1
	if ((plan < 0)); then
		note "FAIL $name.bats: no TAP plan (bats failed to load the file?)"
		notok=$((notok + 1))
	elif ((ok + notok + skip < plan)); then
		note "FAIL $name.bats: only $((ok + notok + skip)) of $plan tests reported"
		notok=$((notok + plan - ok - notok - skip))
	fi
	if ((rc != 0 && notok == 0)); then
		note "FAIL $name.bats: bats exited $rc with no failed test"
		notok=1
	fi
	if ((notok > 0)) || [[ -n "${VERBOSE:-}" ]]; then
		# the failing tests with their diagnostics
		awk '/^not ok /{p=1} /^ok /{p=0} p' "$tap"
	fi
	note "bats $name: $ok passed, $notok failed$( ((skip)) && echo ", $skip skipped") ($((SECONDS - t0)) s)"
	passed=$((passed + ok))
	failed=$((failed + notok))
	skipped=$((skipped + skip))
}

build_helpers() {
	# shellcheck source=/dev/null
	(BATS_RUN_TMPDIR="$TINYRUN_TEST_CACHE" && load() { :; } && source tests/helpers.bash && build_test_lib)
}

# A sanitizer's report in a replay's output: a failure even when the run
# went on and exited 0 (a UBSan check built to recover, a leak report).
sanitizer_re='runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer'
sanitizer_report() {
	grep -qE "$sanitizer_re" <<<"$1"
}

# The fuzz targets' committed corpus (tests/fuzz/corpus/<target>/) through
# build/fuzz-replay/<target> (ASan/UBSan): one file a check.
run_fuzz_replay() {
	local dir name out rc p=0 f=0
	for dir in tests/fuzz/corpus/*/; do
		name="$(basename "$dir")"
		out="$(timeout -k 5 300 "build/fuzz-replay/$name" "$dir" 2>&1 </dev/null)"
		rc=$?
		printf '%s\n' "$out" >"$logdir/fuzz-replay-$name.log"
		if ((rc == 0)) && [[ "$out" =~ ([0-9]+)\ passed,\ 0\ failed ]] && ! sanitizer_report "$out"; then
			p=$((p + BASH_REMATCH[1]))
		else
			note "FAIL fuzz-replay $name (exit $rc):" && grep -E -m 3 "$sanitizer_re" <<<"$out"
			tail -n 20 <<<"$out"
			f=$((f + 1))
		fi
	done
	count_summary fuzz-replay "$p passed, $f failed" && note "fuzz-replay: $p passed, $f failed"
}

# asked NAME: true when TESTS is unset, or names NAME (then it is no bats suite)
asked() {
	[[ -z "${TESTS:-}" ]] || [[ " $TESTS " == *" $1 "* ]]
}
bats_tests=""
files=()
for t in ${TESTS:-}; do
	case "$t" in unit | fuzz-replay | conformance) ;; *) bats_tests+="${bats_tests:+ }$t" ;; esac
done

if [[ -z "${SKIP_UNIT:-}" ]]; then
	asked unit && run_unit
	asked fuzz-replay && run_fuzz_replay
fi

if [[ -z "${SKIP_BATS:-}" ]]; then
	if ! command -v bats >/dev/null; then
		note "FAIL bats is not installed (make deps)"
		failed=$((failed + 1))
	elif ! build_helpers; then
		note "FAIL building the test helpers (tests/lib)"
		failed=$((failed + 1))
	else
		if [[ ! -x "$RUNTIME" ]]; then
			note "WARN $RUNTIME is not built: every bats test will fail"
		fi
		if [[ -n "${TESTS:-}" ]]; then
			for t in $bats_tests; do
				if [[ -f "tests/$t.bats" ]]; then
					files+=("tests/$t.bats")
				else
					note "FAIL no such suite tests/$t.bats"
					failed=$((failed + 1))
				fi
			done
		else
			for f in tests/*.bats; do
				[[ -e "$f" ]] && files+=("$f")
			done
		fi
		guest_batch_start "${files[@]}"
		for f in "${files[@]}"; do
			[[ "$guest_files" == *" $f "* ]] || run_bats "$f"
		done
	fi
fi

# The whole conformance suite, its cgroup v2 statements in a vm-run guest
# (15-25 minutes under emulation here; the guest above runs them beside the
# host's suites from the start); CONFORMANCE_NO_VM=1 skips those.
if [[ -z "${SKIP_CONFORMANCE:-}" && -f tests/conformance/run.sh ]] && asked conformance; then
	t0=$SECONDS
	limit="${CONFORMANCE_TIMEOUT:-4800}"
	[[ -n "$guest_conformance" ]] && limit=$((limit + guest_timeout))
	out="$(CONFORMANCE_NO_VM="${CONFORMANCE_NO_VM:-}" timeout -k 10 "$limit" \
		bash tests/conformance/run.sh "$RUNTIME" </dev/null 2>&1)"
	rc=$?
	printf '%s\n' "$out" >"$logdir/conformance.log"
	before=$failed
	if count_summary conformance "$out"; then
		if ((rc != 0 && failed == before)); then
			note "FAIL conformance: exit status $rc with no failed test"
			failed=$((failed + 1))
		fi
		if ((rc != 0)); then
			grep -E '^not ok ' <<<"$out" | head -n 50
		fi
		note "conformance: $(grep -E '[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n1) ($((SECONDS - t0)) s)"
	else
		tail -n 20 <<<"$out"
	fi
fi

# The suites the guest ran, last: it has had the longest to run them.
for f in "${files[@]}"; do
	[[ "$guest_files" != *" $f "* ]] || run_bats "$f" guest
done

guest_batch_end
((skipped > 0)) && note "($skipped skipped)"
note "(took $SECONDS s)"
echo "$passed passed, $failed failed"
((failed == 0))
