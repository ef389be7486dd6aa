#!/usr/bin/env bats
# runtime.md: Lifecycle, Errors, Operations (create, start, kill, delete)

load helpers

# no process of the test container is left anywhere on the host
no_ct_process() {
	local p
	for p in /proc/[0-9]*; do
		grep -qs "$CG_PARENT/$ID\$" "$p/cgroup" && { echo "left: ${p#/proc/}" >&2; return 1; }
	done
	return 0
}
no_ct_cgroup() {
	local d
	for d in $(cgroup_dirs); do
		[ -e "$d/$CG_PARENT/$ID" ] && { echo "left: $d/$CG_PARENT/$ID" >&2; return 1; }
	done
	return 0
}

# ---------------------------------------------------------------- lifecycle --

@test "runtime.md/lifecycle: MUST create the runtime environment according to config.json at create" {
	cfg '.hostname = "lifecycle-host"'
	check pause
	create
	local pid
	pid=$(ct_pid)
	expect_eq "$(nsenter -t "$pid" -u hostname)" lifecycle-host hostname
	[ "$(readlink "/proc/$pid/ns/net")" != "$(host_ns net)" ]
	grep -q ' /dev/shm ' "/proc/$pid/mountinfo"
}

@test "runtime.md/lifecycle: MUST generate an error if the environment cannot be created" {
	add_mount '{"destination": "/x", "type": "no-such-filesystem", "source": "none"}'
	run create
	[ "$status" -ne 0 ]
}

@test "runtime.md/lifecycle: MUST NOT run the user-specified program at create" {
	check touch:/marker
	create
	[ ! -e "$B/rootfs/marker" ]
	start
	wait_stopped
	[ -e "$B/rootfs/marker" ]
}

@test "runtime.md/lifecycle: MUST NOT let updates to config.json after create affect the container" {
	cfg '.hostname = "before"'
	check hostname echo:original
	create
	cfg '.hostname = "after"'
	check echo:changed
	start
	wait_stopped
	expect_eq "$(val echo:original)" original
	expect_eq "$(val hostname)" before hostname
	[ -z "$(val echo:changed)" ]
}

@test "runtime.md/lifecycle: MUST run the user-specified program when start is invoked" {
	check echo:ran
	create
	start
	wait_stopped
	expect_eq "$(val echo:ran)" ran
}

@test "runtime.md/lifecycle: MUST report stopped once the process exits on its own" {
	check exit:3
	create
	start
	wait_stopped
}

@test "runtime.md/lifecycle: MUST report stopped once the process crashes" {
	cfg '.process.args = ["/bin/sh", "-c", "kill -SEGV $$"]'
	create
	start
	wait_stopped
}

@test "runtime.md/lifecycle: MUST report stopped once the process is killed" {
	check pause
	create_running
	kill_ct "$ID" KILL
	wait_stopped
}

@test "runtime.md/lifecycle: MUST destroy the container at delete by undoing create" {
	check echo:x
	create
	local pid
	pid=$(ct_pid)
	no_ct_cgroup && { echo "runtime made no cgroup at $CG_PARENT/$ID" >&2; false; }
	start
	wait_stopped
	delete
	expect_no_container
	no_ct_cgroup
	! alive "$pid"
}

# ------------------------------------------------------------------- errors --

bad_create() {
	add_mount '{"destination": "/data", "type": "bind", "source": "'"$T"'/missing-source", "options": ["rbind"]}'
	run create
	[ "$status" -ne 0 ]
}

@test "runtime.md/errors: MUST leave no container behind after a failed create" {
	bad_create
	expect_no_container
}

@test "runtime.md/errors: MUST leave no process behind after a failed create" {
	bad_create
	no_ct_process
}

@test "runtime.md/errors: MUST leave no cgroup behind after a failed create" {
	bad_create
	no_ct_cgroup
}

@test "runtime.md/errors: MUST leave no host mount behind after a failed create" {
	bad_create
	! grep -qF "$B" /proc/self/mountinfo
}

@test "runtime.md/errors: MUST leave the id free after a failed create" {
	bad_create
	make_bundle "$T/b2" "$ID"
	check -b "$T/b2" echo:second
	run_ct "$ID" "$T/b2"
	expect_eq "$(val echo:second)" second
}

# ------------------------------------------------------------------- create --

@test "runtime.md/create: MUST generate an error when no container id is given" {
	run rt create --bundle "$B"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
}

@test "runtime.md/create: MUST generate an error when no bundle is given" {
	# runc-style CLI: without --bundle the bundle is the cwd; an empty cwd is no bundle
	mkdir "$T/empty"
	echo "$ID" >>"$T/.ids"
	run bash -c 'cd "$1" && shift && "$@"' _ "$T/empty" timeout 30 "$RUNTIME" --root "$ROOT" create --pid-file "$T/$ID.pid" "$ID"
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "runtime.md/create: MUST generate an error if the id is already in use" {
	check pause
	create
	local pid
	pid=$(ct_pid)
	make_bundle "$T/b2" "$ID-dup"
	run rt create --bundle "$T/b2" --pid-file "$T/dup.pid" "$ID"
	[ "$status" -ne 0 ]
	expect_eq "$(state | jq -r '.status + " " + (.pid | tostring) + " " + .bundle')" "created $pid $(realpath "$B")" "original container"
}

@test "runtime.md/create: MUST generate an error for an id with a slash and create nothing" {
	echo "a/b" >>"$T/.ids"
	run rt create --bundle "$B" --pid-file "$T/bad.pid" "a/b"
	[ "$status" -ne 0 ]
	[ -z "$(find "$ROOT" -mindepth 1 -maxdepth 3 -name b 2>/dev/null)" ]
	no_ct_process
}

@test "runtime.md/create: MUST generate an error for the id '..' and create nothing" {
	run rt create --bundle "$B" --pid-file "$T/bad.pid" ".."
	[ "$status" -ne 0 ]
	no_ct_process
}

@test "runtime.md/create: MUST generate an error for the id '../escape' and create nothing" {
	run rt create --bundle "$B" --pid-file "$T/bad.pid" "../escape"
	[ "$status" -ne 0 ]
	[ ! -e "$T/escape" ]
	no_ct_process
}

@test "runtime.md/create: MUST generate an error for an empty id" {
	run rt create --bundle "$B" --pid-file "$T/bad.pid" ""
	[ "$status" -ne 0 ]
	no_ct_process
}

@test "runtime.md/create: MUST create a new container" {
	check pause
	create
	expect_eq "$(state | jq -r .status)" created
	alive "$(ct_pid)"
}

@test "runtime.md/create: MUST apply the cgroup configuration at create" {
	need_v1 pids
	cfg '.linux.resources.pids = {"limit": 42}'
	check pause
	create
	local d
	d=$(ct_cgroup_dir "$(v1_dir pids)")
	expect_eq "$(cat "$d/pids.max")" 42 pids.max
	grep -qx "$(ct_pid)" "$d/cgroup.procs"
}

@test "runtime.md/create: MUST apply the namespaces at create" {
	check pause
	create
	local pid t
	pid=$(ct_pid)
	for t in pid net ipc uts mnt; do
		[ "$(readlink "/proc/$pid/ns/$t")" != "$(host_ns "$t")" ] || { echo "$t namespace not created" >&2; false; }
	done
}

@test "runtime.md/create: MUST apply the mounts at create" {
	add_mount '{"destination": "/created-mount", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}'
	check pause
	create
	grep -q ' /created-mount .* - tmpfs ' "/proc/$(ct_pid)/mountinfo"
}

@test "runtime.md/create: MUST apply the hostname at create" {
	cfg '.hostname = "at-create"'
	check pause
	create
	expect_eq "$(nsenter -t "$(ct_pid)" -u hostname)" at-create
}

@test "runtime.md/create: MUST NOT apply process.args until start" {
	check touch:/created-marker pause
	create
	! grep -q 'touch:/created-marker' "/proc/$(ct_pid)/cmdline"
	[ ! -e "$B/rootfs/created-marker" ]
}

@test "runtime.md/create: MUST generate an error and create no container when a property cannot be applied" {
	cfg '.linux.sysctl = {"kernel.no_such_sysctl_at_all": "1"}'
	run create
	[ "$status" -ne 0 ]
	expect_no_container
	no_ct_process
}

# -------------------------------------------------------------------- start --

@test "runtime.md/start: MUST generate an error when no container id is given" {
	run rt start
	[ "$status" -ne 0 ]
}

@test "runtime.md/start: MUST generate an error for a container that does not exist" {
	run rt start "does-not-exist-$$"
	[ "$status" -ne 0 ]
}

@test "runtime.md/start: MUST generate an error and have no effect when the container is running" {
	check echo:once pause
	create_running
	local pid
	pid=$(ct_pid)
	run rt start "$ID"
	[ "$status" -ne 0 ]
	expect_eq "$(state | jq -r '.status + " " + (.pid | tostring)')" "running $pid"
	sleep 0.2
	expect_eq "$(grep -c '^echo:once=' "$T/$ID.out")" 1 "runs of the program"
}

@test "runtime.md/start: MUST generate an error and have no effect when the container is stopped" {
	check echo:once
	create
	start
	wait_stopped
	run rt start "$ID"
	[ "$status" -ne 0 ]
	expect_eq "$(status)" stopped
	sleep 0.2
	expect_eq "$(grep -c '^echo:once=' "$T/$ID.out")" 1 "runs of the program"
}

@test "runtime.md/start: MUST run the user-specified program as specified by process" {
	cfg '.process.args = ["/bin/checker", "echo:arg1", "cwd"] | .process.cwd = "/tmp"'
	run_ct
	expect_eq "$(val echo:arg1) $(val cwd)" "arg1 /tmp"
}

@test "runtime.md/start: MUST generate an error if process was not set" {
	cfg 'del(.process)'
	echo "$ID" >>"$T/.ids"
	if rt create --bundle "$B" --pid-file "$T/$ID.pid" "$ID" </dev/null >"$T/$ID.out" 2>"$T/$ID.err"; then
		run rt start "$ID"
		[ "$status" -ne 0 ]
	fi
	# either create or start refused it; nothing ran
	[ ! -s "$T/$ID.out" ]
}

# --------------------------------------------------------------------- kill --

@test "runtime.md/kill: MUST generate an error when no container id is given" {
	run rt kill
	[ "$status" -ne 0 ]
}

@test "runtime.md/kill: MUST generate an error for a container that does not exist" {
	run rt kill "does-not-exist-$$" KILL
	[ "$status" -ne 0 ]
}

@test "runtime.md/kill: MUST generate an error and have no effect when the container is stopped" {
	check echo:x
	create
	start
	wait_stopped
	run rt kill "$ID" KILL
	[ "$status" -ne 0 ]
	expect_eq "$(status)" stopped
}

@test "runtime.md/kill: MUST send the signal to a created container" {
	check pause
	create
	local pid
	pid=$(ct_pid)
	kill_ct "$ID" KILL
	wait_stopped
	! alive "$pid"
}

@test "runtime.md/kill: MUST send the specified signal to the container process (TERM)" {
	check waitsig
	create_running
	kill_ct "$ID" TERM
	wait_stopped
	expect_eq "$(val waitsig)" 15 signal
}

@test "runtime.md/kill: MUST send the specified signal to the container process (USR1)" {
	check waitsig
	create_running
	kill_ct "$ID" USR1
	wait_stopped
	expect_eq "$(val waitsig)" 10 signal
}

@test "runtime.md/kill: MUST send the specified signal to the container process (SIGHUP)" {
	check waitsig
	create_running
	kill_ct "$ID" SIGHUP
	wait_stopped
	expect_eq "$(val waitsig)" 1 signal
}

@test "runtime.md/kill: MUST send the specified signal to the container process (by number 12)" {
	check waitsig
	create_running
	kill_ct "$ID" 12
	wait_stopped
	expect_eq "$(val waitsig)" 12 signal
}

@test "runtime.md/kill: MUST send SIGKILL to the container process" {
	check pause
	create_running
	local pid
	pid=$(ct_pid)
	kill_ct "$ID" KILL
	wait_stopped
	! alive "$pid"
}

# ------------------------------------------------------------------- delete --

@test "runtime.md/delete: MUST generate an error when no container id is given" {
	run rt delete
	[ "$status" -ne 0 ]
}

@test "runtime.md/delete: MUST generate an error for a container that does not exist" {
	run rt delete "does-not-exist-$$"
	[ "$status" -ne 0 ]
}

@test "runtime.md/delete: MUST generate an error and have no effect when the container is running" {
	check pause
	create_running
	local pid
	pid=$(ct_pid)
	run rt delete "$ID"
	[ "$status" -ne 0 ]
	expect_eq "$(state | jq -r '.status + " " + (.pid | tostring)')" "running $pid"
	alive "$pid"
}

@test "runtime.md/delete: MUST generate an error and have no effect when the container is created" {
	documented_deviation tinyrun "delete removes a created container, as runc does: containerd's runc shim deletes created tasks without --force (SPEC-NOTES.md, Operations: delete)"
	check pause
	create
	local pid
	pid=$(ct_pid)
	run rt delete "$ID"
	[ "$status" -ne 0 ]
	expect_eq "$(state | jq -r '.status + " " + (.pid | tostring)')" "created $pid"
	alive "$pid"
}

@test "runtime.md/delete: MUST delete the state of the container" {
	check echo:x
	run_ct
	expect_no_container
}

@test "runtime.md/delete: MUST delete the cgroups created at create" {
	check echo:x
	create
	no_ct_cgroup && { echo "runtime made no cgroup at $CG_PARENT/$ID" >&2; false; }
	start
	wait_stopped
	delete
	no_ct_cgroup
}

@test "runtime.md/delete: MUST delete the container processes and namespaces" {
	# without a pid namespace, a second process outlives the container process
	cfg '.linux.namespaces |= map(select(.type != "pid"))'
	cfg '.process.args = ["/bin/sh", "-c", "(trap \"\" TERM; exec /bin/checker pause) & exit 0"]'
	create
	local pid
	pid=$(ct_pid)
	start
	wait_stopped
	delete
	no_ct_process
}

@test "runtime.md/delete: MUST NOT delete the bundle and rootfs" {
	check echo:x
	run_ct
	[ -f "$B/config.json" ] && [ -x "$B/rootfs/bin/checker" ]
}

@test "runtime.md/delete: MUST NOT delete a bind-mount source" {
	mkdir -p "$T/volume"
	echo keep >"$T/volume/file"
	add_mount '{"destination": "/data", "type": "bind", "source": "'"$T"'/volume", "options": ["rbind", "rw"]}'
	check write:/data/new
	run_ct
	expect_eq "$(cat "$T/volume/file")" keep
	[ -f "$T/volume/new" ]
}

@test "runtime.md/delete: MUST NOT delete a namespace the container joined" {
	need_cmd unshare
	touch "$T/netns"
	unshare --net="$T/netns" true
	track_mount "$T/netns"
	cfg '.linux.namespaces = [.linux.namespaces[] | if .type == "network" then .path = $p else . end]' --arg p "$T/netns"
	check ns:net
	run_ct
	expect_eq "$(stat -fc %T "$T/netns")" nsfs "namespace file type"
}

@test "runtime.md/delete: MUST NOT delete a parent cgroup it did not create" {
	local d cgp
	cgp=/$CG_PARENT/preexisting-$ID
	for d in $(cgroup_dirs); do
		mkdir -p "$d$cgp" && track_cgroup "$d$cgp"
		# a cpuset made by someone else is usable: it has cpus and mems
		if [ -e "$d$cgp/cpuset.cpus" ]; then
			cat "$d/cpuset.cpus" >"$d/$CG_PARENT/cpuset.cpus" 2>/dev/null
			cat "$d/cpuset.mems" >"$d/$CG_PARENT/cpuset.mems" 2>/dev/null
			cat "$d/cpuset.cpus" >"$d$cgp/cpuset.cpus"
			cat "$d/cpuset.mems" >"$d$cgp/cpuset.mems"
		fi
	done
	cfg '.linux.cgroupsPath = $p' --arg p "$cgp/$ID"
	check echo:x
	run_ct
	for d in $(cgroup_dirs); do
		[ -d "$d$cgp" ] || { echo "$d$cgp was removed" >&2; false; }
	done
}

@test "runtime.md/delete: MAY let a new container use the id once deleted" {
	check echo:first
	run_ct
	make_bundle "$T/b2" "$ID"
	check -b "$T/b2" echo:second
	run_ct "$ID" "$T/b2" || skip "runtime does not reuse ids"
	expect_eq "$(val echo:second)" second
}
