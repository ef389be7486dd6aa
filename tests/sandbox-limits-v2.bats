#!/usr/bin/env bats
# The CPU-time limit on pure cgroup v2, where the usage is cpu.stat's
# usage_usec (sandbox-limits.bats covers v1's cpuacct.usage on the hybrid
# host): with tinyrun-init (the sandbox profile) and by a foreground run
# without it. On a host without cgroup2 at /sys/fs/cgroup, setup_file boots
# ONE guest with ../shared/tools/vm-run that runs this same file, and every
# test reports the guest's verdict for itself (as cgroups-v2.bats).

load helpers

VM_RUN="${VM_RUN:-$REPO_DIR/../shared/tools/vm-run}"

RANGE_FIRST=1900000000
RANGE_LAST=1900065535

on_cgroup2() {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]]
}

setup_file() {
	on_cgroup2 && return 0
	[[ -x "$VM_RUN" ]] || skip "no cgroup2 here and no vm-run at $VM_RUN"
	build_test_lib   # on the host: compiling in the guest is slow
	export VM_TAP="$BATS_FILE_TMPDIR/guest.tap"
	local env=(-e BATS_TEST_TIMEOUT=360)
	[[ -n "${RUNTIME:-}" ]] && env+=(-e "RUNTIME=$RUNTIME")
	(cd "$REPO_DIR" && "$VM_RUN" --timeout 900 "${env[@]}" -- \
		env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bats --tap tests/sandbox-limits-v2.bats) \
		>"$VM_TAP" 2>&1 </dev/null 3>&- 4>&- || true
}

setup() {
	on_cgroup2 || return 0
	tr_setup
	mkdir -p "$OUT"
}

teardown() {
	on_cgroup2 || return 0
	tr_teardown
}

sandbox_bundle() {
	rm -f "$BUNDLE/config.json"
	"$RUNTIME" spec --sandbox -b "$BUNDLE" "$@"
	update_config '.annotations["run.tinyrun.userns.range"] = $r | .process.env += [$t]' \
		--arg r "$RANGE_FIRST-$RANGE_LAST" --arg t "TINYRUN_TEST_TOKEN=$TOKEN"
}

run_result() {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" \
		--bundle "$BUNDLE" "$CID"
	result="$(cat "$OUT/result.json" 2>/dev/null)"
}

@test "sandbox limits v2: the init stops a task spread over 4 processes at its cgroup's cpu.stat usage" {
	if ! on_cgroup2; then guest_verdict; return; fi
	# each spins 0.8 s, under RLIMIT_CPU's 1 s: together 3.2 s, over the limit
	sandbox_bundle --cpu-time 1
	set_cmd 'for i in 1 2 3 4; do checker spin:0.8 & done; wait; echo all-done'
	run_result
	assert_equal "$status" 137
	refute_output --partial "spin:0.8=ok"
	refute_output --partial all-done
	assert_equal "$(jq -r .reason <<<"$result")" cpu-time
}

@test "sandbox limits v2: without the init a foreground run stops it at cpu.stat's usage" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.annotations["run.tinyrun.cpu-time"] = "1"'
	set_cmd 'for i in 1 2 3 4; do checker spin:0.8 & done; wait; echo all-done'
	run_result
	assert_equal "$status" 137
	refute_output --partial "spin:0.8=ok"
	refute_output --partial all-done
	assert_equal "$(jq -r .reason <<<"$result")" cpu-time
}
