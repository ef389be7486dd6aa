#!/usr/bin/env bats
# runtime.md: Lifecycle steps 3-13 (what a failing hook does), Warnings.

load helpers
load hooks

setup() {
	conformance_setup
	mkdir -p "$T/hooklog"
}

no_ct_process() {
	local p
	for p in /proc/[0-9]*; do
		grep -qs "$CG_PARENT/$ID\$" "$p/cgroup" && { echo "left: ${p#/proc/}" >&2; return 1; }
	done
	return 0
}

# create_with_failing TYPE: a failing TYPE hook, plus a poststop hook
create_with_failing() {
	add_hook "$1" "$(hook_json failing exit:1)"
	add_hook poststop "$(hook_json pst)"
	check echo:user-program
	run create
}

@test "runtime.md/lifecycle: MUST generate an error when a prestart hook fails" {
	create_with_failing prestart
	[ "$status" -ne 0 ]
	hook_ran failing
}

@test "runtime.md/lifecycle: MUST stop and destroy the container when a prestart hook fails" {
	create_with_failing prestart
	expect_no_container
	no_ct_process
	[ -z "$(out_of)" ]
}

@test "runtime.md/lifecycle: MUST invoke the poststop hooks when a prestart hook fails" {
	create_with_failing prestart
	hook_ran pst
}

@test "runtime.md/lifecycle: MUST generate an error when a createRuntime hook fails" {
	create_with_failing createRuntime
	[ "$status" -ne 0 ]
	hook_ran failing
}

@test "runtime.md/lifecycle: MUST stop and destroy the container when a createRuntime hook fails" {
	create_with_failing createRuntime
	expect_no_container
	no_ct_process
	[ -z "$(out_of)" ]
}

@test "runtime.md/lifecycle: MUST invoke the poststop hooks when a createRuntime hook fails" {
	create_with_failing createRuntime
	hook_ran pst
}

@test "runtime.md/lifecycle: MUST generate an error when a createContainer hook fails" {
	create_with_failing createContainer
	[ "$status" -ne 0 ]
	hook_ran failing
}

@test "runtime.md/lifecycle: MUST stop and destroy the container when a createContainer hook fails" {
	create_with_failing createContainer
	expect_no_container
	no_ct_process
	[ -z "$(out_of)" ]
}

@test "runtime.md/lifecycle: MUST invoke the poststop hooks when a createContainer hook fails" {
	create_with_failing createContainer
	hook_ran pst
}

start_with_failing_startContainer() {
	hooklog_mount
	add_hook startContainer "$(chook_json failing exit:1)"
	add_hook poststop "$(hook_json pst)"
	check echo:user-program
	create
	run start
}

@test "runtime.md/lifecycle: MUST generate an error when a startContainer hook fails" {
	start_with_failing_startContainer
	[ "$status" -ne 0 ]
	hook_ran failing
}

@test "runtime.md/lifecycle: MUST stop the container and not run the program when a startContainer hook fails" {
	start_with_failing_startContainer
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(status)" = stopped ] || [ "$(status)" = none ] && break
		sleep 0.05
	done
	expect_match "$(status)" '^(stopped|none)$' status
	[ -z "$(val echo:user-program)" ]
}

@test "runtime.md/lifecycle: MUST destroy the container and invoke poststop hooks when a startContainer hook fails" {
	start_with_failing_startContainer
	local i
	for ((i = 0; i < 100; i++)); do hook_ran pst && break; sleep 0.05; done
	hook_ran pst
	no_ct_process
}

# runtime-spec 1.3 (PR #1262), lifecycle step 9: a failing poststart hook is
# an error, the container is stopped and destroyed (steps 12, 13).
start_with_failing_poststart() {
	add_hook poststart "$(hook_json failing exit:1)"
	add_hook poststart "$(hook_json after)"
	add_hook poststop "$(hook_json pst)"
	check pause
	create
	run start
}

@test "runtime.md/lifecycle: MUST generate an error when a poststart hook fails" {
	start_with_failing_poststart
	[ "$status" -ne 0 ]
	hook_ran failing
	! hook_ran after
}

@test "runtime.md/lifecycle: MUST stop and destroy the container and invoke poststop hooks when a poststart hook fails" {
	start_with_failing_poststart
	expect_no_container
	no_ct_process
	hook_ran pst
}

@test "runtime.md/lifecycle: MUST continue delete as if a failing poststop hook had succeeded" {
	add_hook poststop "$(hook_json failing exit:1)"
	check echo:x
	create
	start
	wait_stopped
	run delete
	[ "$status" -eq 0 ]
	expect_no_container
}

@test "runtime.md/lifecycle: MUST run the remaining poststop hooks after one fails" {
	add_hook poststop "$(hook_json failing exit:1)"
	add_hook poststop "$(hook_json after)"
	check echo:x
	create
	start
	wait_stopped
	delete || true
	hook_ran after
	expect_eq "$(hook_order)" "failing after" order
}

@test "runtime.md/warnings: MUST continue the operation as if a logged warning had not been logged" {
	# a poststop failure is a warning (lifecycle step 13): delete goes on,
	# the container is gone and its process with it
	add_hook poststop "$(hook_json failing exit:1)"
	check waitsig
	create
	start
	wait_status running
	kill_ct "$ID" TERM
	wait_stopped
	expect_eq "$(val waitsig)" 15 signal
	run delete
	[ "$status" -eq 0 ]
	hook_ran failing
	expect_no_container
	no_ct_process
}
