#!/bin/bash
# guest-batch.sh DIR: run in ONE vm-run guest (cgroup v2 only, Debian's kernel,
# AppArmor on) by run-all.sh, every suite that needs such a guest. DIR/list has
# a line per suite: FILE TAB TIMEOUT TAB FILTER, FILE a path under tests/.
# Two lanes side by side, so that both of the guest's CPUs work: tinyrun's own
# suites one after the other in the list's order (the order in which run-all.sh
# asks for them), and beside them the conformance suite's (which run-all.sh
# asks for last; its cgroup-v2.bats keeps to its own cgroups and state roots).
# Each suite's TAP is written as DIR/FILE.tap (/ as _) once the suite has
# ended, for guest_batch_tap (tests/lib/common.bash) on the host. A suite past
# its TIMEOUT is killed: its TAP then lacks the tests it had not reported.
set -u
dir=$1
cd "$(dirname "$0")/../.." || exit 1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export TINYRUN_IN_GUEST=1
CONF_BUILD=${CONF_BUILD:-$PWD/build/conformance}   # what run-all.sh built there

# run_suite FILE TIMEOUT FILTER
run_suite() {
	local file=$1 key=${1//\//_} args=(--tap) cmd start rc
	[[ -n "$3" ]] && args+=(-f "$3")
	case "$file" in
	# the conformance suite's own way (its cgroup-v2.bats setup_file)
	conformance/*) cmd=("$CONF_BUILD/subreaper" bats "${args[@]}" "tests/$file") ;;
	# an emulated guest: a test's hang guard as guest_setup_file's
	*) cmd=(env BATS_TEST_TIMEOUT=360 bats "${args[@]}" "tests/$file") ;;
	esac
	start=$SECONDS
	timeout -k 10 "$2" "${cmd[@]}" </dev/null >"$dir/$key.tap.part" 2>&1
	rc=$?
	echo "# guest-batch: tests/$file: exit status $rc after $((SECONDS - start)) s" >>"$dir/$key.tap.part"
	mv "$dir/$key.tap.part" "$dir/$key.tap"
	echo "tests/$file: exit status $rc after $((SECONDS - start)) s (at $SECONDS s)"
}

# lane [-v] PREFIX: the suites whose FILE starts with PREFIX (with -v: does not)
lane() {
	local file timeout filter
	grep "$@" "$dir/list" | while IFS=$'\t' read -r file timeout filter; do
		run_suite "$file" "$timeout" "$filter"
	done
}

lane -v '^conformance/' &
lane '^conformance/' &
wait
