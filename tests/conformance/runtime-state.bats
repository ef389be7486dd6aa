#!/usr/bin/env bats
# runtime.md: Scope of a Container, State, Query State

load helpers

@test "runtime.md/scope: MUST let the creating entity use every operation on its container" {
	check waitsig
	create
	expect_eq "$(status)" created "status after create"
	start
	wait_status running
	kill_ct "$ID" TERM
	wait_stopped
	delete
	expect_no_container
}

@test "runtime.md/state: MUST include ociVersion as a string" {
	check pause
	create
	run state
	[ "$status" -eq 0 ]
	jq -e '(.ociVersion | type) == "string" and (.ociVersion | length) > 0' <<<"$output"
}

@test "runtime.md/state: MUST include the container id" {
	check pause
	create
	run state
	[ "$status" -eq 0 ]
	expect_eq "$(jq -r .id <<<"$output")" "$ID" id
}

@test "runtime.md/state: MUST report status created after create, before the program runs" {
	check pause
	create
	expect_eq "$(status)" created status
}

@test "runtime.md/state: MUST report status running while the user program runs" {
	check pause
	create_running
	expect_eq "$(status)" running status
	grep -q checker "/proc/$(ct_pid)/cmdline"
}

@test "runtime.md/state: MUST report status stopped after the container process exited" {
	check echo:done
	create
	start
	wait_stopped
	expect_eq "$(val echo:done)" done
}

@test "runtime.md/state: MUST NOT use an additional status value for a defined state" {
	check waitsig
	create
	local s1 s2 s3
	s1=$(status)
	start
	wait_status running || true
	s2=$(status)
	kill_ct "$ID" TERM
	wait_stopped || true
	s3=$(status)
	expect_eq "$s1 $s2 $s3" "created running stopped" "statuses"
}

@test "runtime.md/state: MUST include pid when status is created" {
	check pause
	create
	run state
	jq -e '(.pid | type) == "number" and .pid > 0' <<<"$output"
	[ -d "/proc/$(jq .pid <<<"$output")" ]
}

@test "runtime.md/state: MUST include pid when status is running" {
	check pause
	create_running
	run state
	jq -e '(.pid | type) == "number" and .pid > 0' <<<"$output"
	grep -q checker "/proc/$(jq .pid <<<"$output")/cmdline"
}

@test "runtime.md/state: MUST give pid as the container process seen by the host" {
	check pause
	create_running
	local pid nspid
	pid=$(state | jq .pid)
	nspid=$(awk '/^NSpid:/ {print $2, $NF}' "/proc/$pid/status")
	# first NSpid is the pid in our namespace, last is 1 inside the container pid namespace
	expect_eq "$nspid" "$pid 1" "NSpid of the state pid"
}

@test "runtime.md/state: MUST give the same pid as the one written to --pid-file" {
	check pause
	create
	expect_eq "$(state | jq .pid)" "$(ct_pid)" "pid"
}

@test "runtime.md/state: MUST give bundle as the absolute path of the bundle directory" {
	check pause
	create
	expect_eq "$(state | jq -r .bundle)" "$(realpath "$B")" bundle
}

@test "runtime.md/state: MUST give an absolute bundle when create got a relative bundle path" {
	check pause
	echo "$ID" >>"$T/.ids"
	(cd "$T" && rt create --bundle bundle --pid-file "$T/$ID.pid" "$ID" </dev/null >"$T/$ID.out" 2>"$T/$ID.err")
	expect_eq "$(state | jq -r .bundle)" "$(realpath "$B")" bundle
}

@test "runtime.md/state: MUST list the annotations of the configuration" {
	cfg '.annotations = {"com.example.key1": "value1", "org.example.empty": ""}'
	check pause
	create
	run state
	jq -e '.annotations == {"com.example.key1": "value1", "org.example.empty": ""}' <<<"$output"
}

@test "runtime.md/state: MAY omit annotations or give an empty map when none were provided" {
	check pause
	create
	run state
	jq -e '(has("annotations") | not) or .annotations == {} or .annotations == null' <<<"$output"
}

@test "runtime.md/state: MUST serialize the state as JSON following the state pattern" {
	cfg '.annotations = {"myKey": "myValue"}'
	check pause
	create_running
	run state
	jq -e '(.ociVersion | type) == "string" and (.id | type) == "string" and
	       (.status | type) == "string" and (.pid | type) == "number" and
	       (.bundle | type) == "string" and (.annotations | type) == "object" and
	       (.annotations.myKey == "myValue")' <<<"$output"
}

@test "runtime.md/state: MUST keep ids unique across the containers of the runtime" {
	check pause
	make_bundle "$T/b2" "$ID-2"
	check -b "$T/b2" pause
	create
	create "$ID-2" "$T/b2"
	expect_eq "$(state | jq -r .id) $(state "$ID-2" | jq -r .id)" "$ID $ID-2" ids
	[ "$(state | jq .pid)" != "$(state "$ID-2" | jq .pid)" ]
}

@test "runtime.md/query-state: MUST generate an error when no container id is given" {
	run rt state
	[ "$status" -ne 0 ]
}

@test "runtime.md/query-state: MUST generate an error for a container that does not exist" {
	run rt state "does-not-exist-$$"
	[ "$status" -ne 0 ]
}

@test "runtime.md/query-state: MUST return the state of a stopped container" {
	check echo:x
	create
	start
	wait_stopped
	run state
	[ "$status" -eq 0 ]
	jq -e '.id == "'"$ID"'" and .status == "stopped" and (.bundle | startswith("/"))' <<<"$output"
}
