#!/bin/bash
# guest-batch.sh DIR: run in ONE vm-run guest (cgroup v2 only, Debian's kernel,
# AppArmor on) by run-all.sh, every suite that needs such a guest. DIR/list has
# a line per suite: FILE TAB TIMEOUT TAB FILTER, FILE a path under tests/.
# Two workers side by side, so that both of the guest's CPUs work: each takes
# the next suite no worker has claimed yet, the conformance suite's first (the
# longest; run-all.sh asks for it before the others), then the list's order.
# Suites keep to their own containers, cgroups and state roots, so two run at
# once as on any host. Each suite's TAP is written as DIR/FILE.tap (/ as _)
# once the suite has ended, for guest_batch_tap (tests/lib/common.bash) on the
# host. A suite past its TIMEOUT is killed: its TAP then lacks the tests it had
# not reported.
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

# worker: run each suite of the queue that the other worker has not claimed
worker() {
	local file timeout filter
	while IFS=$'\t' read -r file timeout filter; do
		mkdir "$claims/${file//\//_}" 2>/dev/null || continue
		run_suite "$file" "$timeout" "$filter"
	done <"$queue"
}

queue=$(mktemp) claims=$(mktemp -d)   # the guest's own /tmp: mkdir is atomic there
{ grep '^conformance/' "$dir/list"; grep -v '^conformance/' "$dir/list"; } >"$queue"
worker &
worker &
wait
