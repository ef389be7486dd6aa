#!/usr/bin/env bats
# shellcheck disable=SC2154 # $result: run_result (helpers.bash)
# The CPU-time limit on pure cgroup v2, where the usage is cpu.stat's
# usage_usec (sandbox-limits.bats covers v1's cpuacct.usage on the hybrid
# host): with tinyrun-init (the sandbox profile) and by a foreground run
# without it. On a host without cgroup2 at /sys/fs/cgroup, this same file runs
# in a ../shared/tools/vm-run guest (guest_setup_file), and every test reports
# the guest's verdict for itself (as cgroups-v2.bats).

load helpers

setup_file() {
	guest_setup_file sandbox-limits-v2.bats 900
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

# run_result of a task spread over 4 processes, each under RLIMIT_CPU's 1 s
# (0.8 s each, 3.2 s together): stopped at cpu-time 1
spread_is_stopped() {
	set_cmd 'for i in 1 2 3 4; do checker spin:0.8 & done; wait; echo all-done'
	run_result
	assert_equal "$status" 137
	refute_output --partial "spin:0.8=ok"
	refute_output --partial all-done
	assert_equal "$(jq -r .reason <<<"$result")" cpu-time
}

@test "sandbox limits v2: the init stops a task spread over 4 processes at its cgroup's cpu.stat usage" {
	if ! on_cgroup2; then guest_verdict; return; fi
	sandbox_bundle "$BUNDLE" --cpu-time 1
	spread_is_stopped
}

@test "sandbox limits v2: without the init a foreground run stops it at cpu.stat's usage" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.annotations["run.tinyrun.cpu-time"] = "1"'
	spread_is_stopped
}
