#!/usr/bin/env bats
# config.md: POSIX-platform Hooks (prestart, createRuntime, createContainer,
# startContainer, poststart, poststop), and runtime.md State pid for hooks.

load helpers
load hooks

setup() {
	conformance_setup
	mkdir -p "$T/hooklog"
}

# ------------------------------------------------------------------ prestart --

@test "config.md/hooks-prestart: MUST call prestart hooks as part of create" {
	add_hook prestart "$(hook_json pre)"
	check pause
	create
	hook_ran pre
	expect_eq "$(status)" created
}

@test "config.md/hooks-prestart: MUST call prestart hooks after the runtime environment is created" {
	add_hook prestart "$(hook_json pre)"
	check pause
	create
	# the container's namespaces exist when the hook runs
	expect_eq "$(hook_key pre target.txt net)" "$(readlink "/proc/$(ct_pid)/ns/net")" "container net namespace seen by the hook"
	[ "$(hook_key pre target.txt net)" != "$(host_ns net)" ]
}

# before pivot_root, the container process still has the runtime's root: the
# bundle is visible through /proc/PID/root; afterwards it is not.
@test "config.md/hooks-prestart: MUST call prestart hooks before pivot_root" {
	add_hook prestart "$(hook_json pre "see:$B/rootfs/bin/checker")"
	check pause
	create
	expect_eq "$(hook_key pre target.txt "see:$B/rootfs/bin/checker")" yes "bundle under /proc/PID/root during the hook"
	[ ! -e "/proc/$(ct_pid)/root$B/rootfs/bin/checker" ]
}

@test "config.md/hooks-prestart: MUST call prestart hooks before createRuntime hooks" {
	add_hook createRuntime "$(hook_json cr)"
	add_hook prestart "$(hook_json pre)"
	check pause
	create
	expect_eq "$(hook_order)" "pre cr" "hook order"
}

@test "config.md/hooks-prestart: MUST resolve the prestart path in the runtime namespace" {
	[ ! -e "$B/rootfs$CHECKER" ]
	add_hook prestart "$(hook_json pre)"
	check pause
	create
	hook_ran pre
}

@test "config.md/hooks-prestart: MUST execute prestart hooks in the runtime namespace" {
	add_hook prestart "$(hook_json pre)"
	check pause
	create
	expect_eq "$(hook_key pre self.txt mnt) $(hook_key pre self.txt pid) $(hook_key pre self.txt net)" \
		"$(host_ns mnt) $(host_ns pid) $(host_ns net)" "hook namespaces"
}

# ------------------------------------------------------------- createRuntime --

@test "config.md/hooks-createRuntime: MUST call createRuntime hooks as part of create" {
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	hook_ran cr
	expect_eq "$(status)" created
}

@test "config.md/hooks-createRuntime: MUST call createRuntime hooks after the runtime environment is created" {
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	expect_eq "$(hook_key cr target.txt mnt)" "$(readlink "/proc/$(ct_pid)/ns/mnt")" "container mount namespace seen by the hook"
	[ "$(hook_key cr target.txt mnt)" != "$(host_ns mnt)" ]
}

@test "config.md/hooks-createRuntime: MUST call createRuntime hooks before pivot_root" {
	add_hook createRuntime "$(hook_json cr "see:$B/rootfs/bin/checker")"
	check pause
	create
	expect_eq "$(hook_key cr target.txt "see:$B/rootfs/bin/checker")" yes "bundle under /proc/PID/root during the hook"
	[ ! -e "/proc/$(ct_pid)/root$B/rootfs/bin/checker" ]
}

@test "config.md/hooks-createRuntime: MUST resolve the createRuntime path in the runtime namespace" {
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	hook_ran cr
}

@test "config.md/hooks-createRuntime: MUST execute createRuntime hooks in the runtime namespace" {
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	expect_eq "$(hook_key cr self.txt mnt) $(hook_key cr self.txt pid) $(hook_key cr self.txt net)" \
		"$(host_ns mnt) $(host_ns pid) $(host_ns net)" "hook namespaces"
}

# ----------------------------------------------------------- createContainer --

@test "config.md/hooks-createContainer: MUST call createContainer hooks as part of create" {
	add_hook createContainer "$(hook_json cc)"
	check pause
	create
	hook_ran cc
	expect_eq "$(status)" created
}

@test "config.md/hooks-createContainer: MUST call createContainer hooks after createRuntime hooks" {
	add_hook createContainer "$(hook_json cc)"
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	expect_eq "$(hook_order)" "cr cc" "hook order"
}

@test "config.md/hooks-createContainer: MUST call createContainer hooks before pivot_root" {
	add_hook createContainer "$(hook_json cc "see:$B/rootfs/bin/checker")"
	check pause
	create
	# not pivoted yet: the hook still sees the runtime's file system
	expect_eq "$(hook_key cc self.txt "see:$B/rootfs/bin/checker")" yes "bundle rootfs visible to the hook"
}

@test "config.md/hooks-createContainer: MUST resolve the createContainer path in the runtime namespace" {
	[ ! -e "$B/rootfs$CHECKER" ]
	add_hook createContainer "$(hook_json cc)"
	check pause
	create
	hook_ran cc
}

@test "config.md/hooks-createContainer: MUST execute createContainer hooks in the container namespace" {
	add_hook createContainer "$(hook_json cc)"
	check pause
	create
	local pid=$(ct_pid)
	expect_eq "$(hook_key cc self.txt mnt)" "$(readlink "/proc/$pid/ns/mnt")" "hook mount namespace"
	expect_eq "$(hook_key cc self.txt uts) $(hook_key cc self.txt net)" \
		"$(readlink "/proc/$pid/ns/uts") $(readlink "/proc/$pid/ns/net")" "hook uts and net namespaces"
}

# ------------------------------------------------------------ startContainer --

@test "config.md/hooks-startContainer: MUST call startContainer hooks as part of start, not create" {
	hooklog_mount
	add_hook startContainer "$(chook_json sc)"
	check pause
	create
	! hook_ran sc
	start
	wait_status running
	hook_ran sc
}

@test "config.md/hooks-startContainer: MUST call startContainer hooks before the user-specified process is executed" {
	hooklog_mount
	add_hook startContainer "$(chook_json sc)"
	check stat:/hooklog/sc/done.txt
	run_ct
	expect_match "$(val stat:/hooklog/sc/done.txt)" '^type=f' "hook record seen by the program"
}

@test "config.md/hooks-startContainer: MUST resolve the startContainer path in the container namespace" {
	[ ! -e /bin/checker ] || skip "/bin/checker exists on the host"
	hooklog_mount
	add_hook startContainer "$(chook_json sc)"
	check pause
	create_running
	hook_ran sc
}

@test "config.md/hooks-startContainer: MUST execute startContainer hooks in the container namespace" {
	hooklog_mount
	add_hook startContainer "$(chook_json sc)"
	check pause
	create_running
	local pid=$(ct_pid)
	expect_eq "$(hook_key sc self.txt mnt) $(hook_key sc self.txt pid) $(hook_key sc self.txt uts)" \
		"$(readlink "/proc/$pid/ns/mnt") $(readlink "/proc/$pid/ns/pid") $(readlink "/proc/$pid/ns/uts")" "hook namespaces"
}

# ----------------------------------------------------------------- poststart --

@test "config.md/hooks-poststart: MUST call poststart hooks after the user-specified process is executed" {
	add_hook poststart "$(hook_json ps)"
	check echo:user-program pause
	create_running
	hook_ran ps
	expect_match "$(hook_key ps target.txt cmdline)" 'checker echo:user-program pause' "cmdline of the container process seen by the hook"
}

@test "config.md/hooks-poststart: MUST call poststart hooks before start returns" {
	add_hook poststart "$(hook_json ps sleep:1)"
	check pause
	create
	start
	hook_done ps
}

@test "config.md/hooks-poststart: MUST resolve the poststart path in the runtime namespace" {
	add_hook poststart "$(hook_json ps)"
	check pause
	create_running
	hook_ran ps
}

@test "config.md/hooks-poststart: MUST execute poststart hooks in the runtime namespace" {
	add_hook poststart "$(hook_json ps)"
	check pause
	create_running
	expect_eq "$(hook_key ps self.txt mnt) $(hook_key ps self.txt pid) $(hook_key ps self.txt net)" \
		"$(host_ns mnt) $(host_ns pid) $(host_ns net)" "hook namespaces"
}

# ------------------------------------------------------------------ poststop --

@test "config.md/hooks-poststop: MUST call poststop hooks after the container is deleted" {
	add_hook poststop "$(hook_json pst)"
	check echo:x
	create
	local pid=$(ct_pid)
	start
	wait_stopped
	! hook_ran pst
	delete
	hook_ran pst
	# the state may carry no pid any more; if it does, that process is gone
	[ "$(hook_key pst target.txt alive)" != yes ]
	! alive "$pid"
}

@test "config.md/hooks-poststop: MUST call poststop hooks before delete returns" {
	add_hook poststop "$(hook_json pst sleep:1)"
	check echo:x
	run_ct
	hook_done pst
}

@test "config.md/hooks-poststop: MUST resolve the poststop path in the runtime namespace" {
	add_hook poststop "$(hook_json pst)"
	check echo:x
	run_ct
	hook_ran pst
}

@test "config.md/hooks-poststop: MUST execute poststop hooks in the runtime namespace" {
	add_hook poststop "$(hook_json pst)"
	check echo:x
	run_ct
	expect_eq "$(hook_key pst self.txt mnt) $(hook_key pst self.txt pid) $(hook_key pst self.txt net)" \
		"$(host_ns mnt) $(host_ns pid) $(host_ns net)" "hook namespaces"
}

# ------------------------------------------------------------------- general --

@test "config.md/hooks: MUST call hooks in the listed order" {
	local t n
	for t in prestart createRuntime createContainer poststart poststop; do
		for n in 1 2 3; do add_hook "$t" "$(hook_json "$t$n")"; done
	done
	check echo:x
	run_ct
	expect_eq "$(hook_order)" "prestart1 prestart2 prestart3 createRuntime1 createRuntime2 createRuntime3 createContainer1 createContainer2 createContainer3 poststart1 poststart2 poststart3 poststop1 poststop2 poststop3" "hook order"
}

@test "config.md/hooks: MUST call startContainer hooks in the listed order" {
	hooklog_mount
	local n
	for n in 1 2 3; do add_hook startContainer "$(chook_json "sc$n")"; done
	check echo:x
	run_ct
	expect_eq "$(hook_order)" "sc1 sc2 sc3" "hook order"
}

@test "config.md/hooks: MUST pass the state of the container to every hook on stdin" {
	hooklog_mount
	local t
	for t in prestart createRuntime createContainer poststart poststop; do add_hook "$t" "$(hook_json "$t")"; done
	add_hook startContainer "$(chook_json startContainer)"
	cfg '.annotations = {"org.example.hook": "yes"}'
	check echo:x
	run_ct
	for t in prestart createRuntime createContainer startContainer poststart poststop; do
		jq -e --arg id "$ID" --arg b "$(realpath "$B")" \
			'.id == $id and .bundle == $b and (.ociVersion | type) == "string" and (.status | type) == "string" and .annotations["org.example.hook"] == "yes"' \
			"$T/hooklog/$t/stdin.json" >/dev/null || { echo "bad state for $t: $(cat "$T/hooklog/$t/stdin.json")" >&2; false; }
	done
}

@test "config.md/hooks: MUST pass a state with the container pid to createRuntime hooks" {
	add_hook createRuntime "$(hook_json cr)"
	check pause
	create
	expect_eq "$(hook_stdin cr | jq .pid)" "$(ct_pid)" "pid in the createRuntime state"
}

@test "config.md/hooks: MUST pass a state with status running to poststart hooks" {
	add_hook poststart "$(hook_json ps)"
	check pause
	create_running
	expect_eq "$(hook_stdin ps | jq -r .status)" running "status in the poststart state"
}

@test "config.md/hooks: MUST pass a state with status stopped to poststop hooks" {
	add_hook poststop "$(hook_json pst)"
	check echo:x
	run_ct
	expect_eq "$(hook_stdin pst | jq -r .status)" stopped "status in the poststop state"
}

@test "runtime.md/state: MUST give the pid as seen by the runtime to hooks run in the runtime namespace" {
	add_hook createRuntime "$(hook_json cr)"
	add_hook poststart "$(hook_json ps)"
	check pause
	create_running
	expect_eq "$(hook_stdin cr | jq .pid) $(hook_stdin ps | jq .pid)" "$(ct_pid) $(ct_pid)" "pids"
}

@test "runtime.md/state: MUST give the pid as seen by the container to hooks run in the container namespace" {
	hooklog_mount
	add_hook createContainer "$(hook_json cc)"
	add_hook startContainer "$(chook_json sc)"
	check pause
	create_running
	# the container process is pid 1 of its pid namespace
	expect_eq "$(hook_stdin cc | jq .pid) $(hook_stdin sc | jq .pid)" "1 1" "pids"
}

@test "config.md/hooks: MUST pass args with execv argv semantics" {
	add_hook createRuntime "$(hook_json cr first "second arg")"
	check pause
	create
	expect_eq "$(tr '\n' '|' <"$T/hooklog/cr/argv.txt")" "conformance-hook|$T/hooklog/cr|first|second arg|" "hook argv"
}

@test "config.md/hooks: MUST pass env with environ semantics" {
	add_hook createRuntime "$(hook_json cr | jq -c '.env = ["HOOK_A=1", "HOOK_B=two words", "PATH=/nowhere"]')"
	check pause
	create
	expect_eq "$(tr '\n' '|' <"$T/hooklog/cr/env.txt")" "HOOK_A=1|HOOK_B=two words|PATH=/nowhere|" "hook environment"
}

@test "config.md/hooks: MUST abort a hook that runs longer than its timeout" {
	add_hook createRuntime "$(hook_json cr sleep:30 | jq -c '.timeout = 1')"
	check pause
	run create
	[ "$status" -ne 0 ]
	hook_ran cr
	! hook_done cr
	expect_no_container
}

@test "config.md/hooks: MUST generate an error for a timeout that is not greater than zero" {
	add_hook createRuntime "$(hook_json cr | jq -c '.timeout = 0')"
	check pause
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config.md/hooks: MUST generate an error for a hook path that is not absolute" {
	cp "$CHECKER" "$B/relative-hook"
	add_hook createRuntime "$(jq -cn --arg d "$T/hooklog/cr" '{path: "relative-hook", args: ["conformance-hook", $d]}')"
	check pause
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}
