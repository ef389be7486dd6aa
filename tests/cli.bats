#!/usr/bin/env bats
# The command line: --version, --help, COMMAND --help, usage errors, global
# flags (--log, --log-format, --debug, --systemd-cgroup, --root), list,
# spec, features.

load helpers

COMMANDS=(create start state kill delete run exec ps pause resume list update events spec features bundle check checkpoint restore)

# Usage errors exit 1 (runc: 3 for an unknown command).
assert_usage_error() {
	if is_runc; then
		[ "$status" -ne 0 ] || fail "succeeded: $output"
	else
		assert_failure 1
	fi
	[ -n "$output" ] || fail "no message"
}

@test "--version prints the version and the spec version" {
	run "$RUNTIME" --version
	assert_success
	assert_line --index 0 --regexp '[0-9]+\.[0-9]+\.[0-9]+'
	assert_line --regexp '^spec: 1\.[0-9]+\.[0-9]+'
}

@test "-v is --version" {
	run "$RUNTIME" -v
	assert_success
	assert_line --regexp '^spec: 1\.'
}

@test "--help lists every command" {
	run "$RUNTIME" --help
	assert_success
	local c
	for c in "${COMMANDS[@]}"; do
		assert_output --regexp "(^|[[:space:]])$c([[:space:],]|$)"
	done
}

@test "COMMAND --help prints the command's usage and exits 0" {
	local c
	for c in "${COMMANDS[@]}"; do
		run "$RUNTIME" "$c" --help
		[ "$status" -eq 0 ] || fail "$c --help: status $status: $output"
		[[ "$output" == *"$c"* ]] || fail "$c --help does not name the command: $output"
	done
	run "$RUNTIME" create --help
	assert_output --partial --bundle
	assert_output --partial --pid-file
	assert_output --partial --console-socket
	run "$RUNTIME" delete --help
	assert_output --partial --force
	run "$RUNTIME" kill --help
	assert_output --partial --all
	run "$RUNTIME" run --help
	assert_output --partial --detach
}

@test "an unknown command is a usage error" {
	run runtime no-such-command
	assert_usage_error
	assert_output --partial no-such-command
}

@test "an unknown global flag is a usage error" {
	run runtime --no-such-flag list
	assert_usage_error
	assert_output --partial no-such-flag
}

@test "an unknown command flag is a usage error" {
	run runtime list --no-such-flag
	assert_usage_error
	assert_output --partial no-such-flag
}

@test "extra arguments are a usage error" {
	run runtime state "$CID" extra-arg
	assert_usage_error
}

@test "--log FILE receives the error line" {
	run runtime --log "$BATS_TEST_TMPDIR/log" state "$CID-missing"
	assert_failure 1
	[ -s "$BATS_TEST_TMPDIR/log" ]
	grep -q "container does not exist\|$CID-missing" "$BATS_TEST_TMPDIR/log"
}

@test "--log-format json writes {level,msg,time} lines" {
	run runtime --log "$BATS_TEST_TMPDIR/log" --log-format json state "$CID-missing"
	assert_failure 1
	[ -s "$BATS_TEST_TMPDIR/log" ]
	local line
	while IFS= read -r line; do
		jq -e 'type == "object" and (.level | type == "string") and (.msg | type == "string") and (.time | type == "string")' \
			<<<"$line" >/dev/null || fail "not a JSON log line: $line"
	done <"$BATS_TEST_TMPDIR/log"
	run jq -r 'select(.level == "error") | .msg' "$BATS_TEST_TMPDIR/log"
	assert_success
	[ -n "$output" ]
	# time is RFC 3339
	run jq -r '.time' "$BATS_TEST_TMPDIR/log"
	assert_line --index 0 --regexp '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}'
}

@test "--log-format json escapes what it logs" {
	run_nohang runtime --log "$BATS_TEST_TMPDIR/log" --log-format json create --bundle "$BATS_TEST_TMPDIR/quote\"back\\slash" "$CID"
	assert_failure 1
	local line
	while IFS= read -r line; do
		jq -e . <<<"$line" >/dev/null || fail "not JSON: $line"
	done <"$BATS_TEST_TMPDIR/log"
}

# containerd's shim passes the container's stdio pipes to `create` as the
# runtime's own stdio: with --log, a warning on stderr would show in the
# container's output (`docker logs`). As runc: warnings in the file only,
# also those of the container's process (an ungrantable capability, found
# after the runtime has become the container's process).
@test "--log: warnings go to the log file only, never into the container's output" {
	local held ungrantable=""
	held="$(awk '/^CapBnd/ {print $2}' /proc/self/status)"
	# runc fails the start for one (EPERM): only tinyrun gets it
	is_runc || (((0x$held >> 24) & 1)) || ungrantable=CAP_SYS_RESOURCE
	set_caps "CAP_KILL,CAP_NOPE,$ungrantable" "CAP_KILL,CAP_NOPE,$ungrantable" "CAP_KILL,CAP_NOPE,$ungrantable" "" ""
	set_args echo container-out
	run_nohang runtime --log "$BATS_TEST_TMPDIR/log" --log-format json run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output container-out
	is_runc && return 0
	run jq -r 'select(.level == "warning") | .msg' "$BATS_TEST_TMPDIR/log"
	assert_line --partial 'CAP_NOPE'
	[[ -z "$ungrantable" ]] || assert_line --partial 'CAP_SYS_RESOURCE cannot be granted'
	# without --log the warning is the runtime's stderr, as before
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line container-out
	assert_line --partial 'CAP_NOPE'
}

@test "--log-format text is accepted" {
	run runtime --log "$BATS_TEST_TMPDIR/log" --log-format text state "$CID-missing"
	assert_failure 1
	[ -s "$BATS_TEST_TMPDIR/log" ]
}

@test "--log-format with an unknown value is an error" {
	run runtime --log-format xml list
	assert_usage_error
}

@test "--debug and --systemd-cgroup are accepted" {
	run runtime --debug list
	assert_success
	run runtime --systemd-cgroup list
	assert_success
}

# runc: "systemd not running on this host, cannot use systemd cgroups manager"
# (IsRunningSystemd: /run/systemd/system). Until 2026-12-04 tinyrun made the
# slice's path on cgroupfs instead: an empty /system.slice in every hierarchy.
@test "--systemd-cgroup without systemd: create fails naming it, exit 1, no cgroup or state left" {
	is_runc && skip "tinyrun's message"
	local ns="unshare -m sh -c"
	# a private /run/systemd without system/ (sd_booted false on any host)
	local hide='mount --make-rprivate / && { [ ! -d /run/systemd ] || mount -t tmpfs none /run/systemd; } && exec "$@"'
	local before after
	before="$(find /sys/fs/cgroup -maxdepth 3 -name '*.slice' 2>/dev/null | sort)"
	for m in --systemd-cgroup "--cgroup-manager systemd"; do
		# shellcheck disable=SC2086
		run_nohang $ns "$hide" sh "$RUNTIME" $m --root "$ROOT" create --bundle "$BUNDLE" "$CID"
		assert_failure 1
		assert_output "tinyrun: --systemd-cgroup: systemd is not running on this host (no /run/systemd/system): cannot use the systemd cgroup manager (use cgroupfs: no --systemd-cgroup)"
		[ ! -e "$ROOT/$CID" ] || fail "state dir left"
	done
	after="$(find /sys/fs/cgroup -maxdepth 3 -name '*.slice' 2>/dev/null | sort)"
	[ "$before" = "$after" ] || fail "slices made: $(comm -13 <(echo "$before") <(echo "$after"))"
	run find /sys/fs/cgroup -maxdepth 4 -name "tinyrun-$CID.scope"
	assert_output ""
}

@test "--root keeps containers apart" {
	create_container "$CID"
	mkdir "$BATS_TEST_TMPDIR/other-root"
	run "$RUNTIME" --root "$BATS_TEST_TMPDIR/other-root" list -q
	assert_success
	refute_output --partial "$CID"
	run runtime list -q
	assert_output "$CID"
}

@test "list: table header and a row per container" {
	create_container "$CID"
	run runtime list
	assert_success
	assert_line --index 0 --regexp '^ID +PID +STATUS +BUNDLE +CREATED +OWNER'
	assert_line --index 1 --regexp "^$CID +[0-9]+ +created +$BUNDLE "
}

@test "list -q prints the ids only" {
	create_container "$CID-1"
	create_container "$CID-2"
	run runtime list -q
	assert_success
	assert_equal "$(sort <<<"$output")" "$(printf '%s\n' "$CID-1" "$CID-2")"
}

@test "list --format json: an array with id status pid bundle" {
	create_container "$CID"
	runtime start "$CID"
	create_container "$CID-2"
	run runtime list --format json
	assert_success
	jq -e 'type == "array" and length == 2' <<<"$output" >/dev/null
	assert_equal "$(jq -r --arg id "$CID" '.[] | select(.id == $id) | .status' <<<"$output")" running
	assert_equal "$(jq -r --arg id "$CID-2" '.[] | select(.id == $id) | .status' <<<"$output")" created
	assert_equal "$(jq -r --arg id "$CID" '.[] | select(.id == $id) | .pid' <<<"$output")" "$(state_field "$CID" pid)"
	assert_equal "$(jq -r --arg id "$CID" '.[] | select(.id == $id) | .bundle' <<<"$output")" "$BUNDLE"
	run runtime list -f json
	assert_success
	jq -e 'length == 2' <<<"$output" >/dev/null
}

@test "list with no containers: empty output / empty JSON" {
	run runtime list -q
	assert_success
	assert_output ""
	run runtime list --format json
	assert_success
	# runc prints null; [] is as good for a consumer
	[[ "$output" == null || "$(jq -c . <<<"$output")" == "[]" ]]
}

# runc 1.2+: a missing --root given on the command line is an error; the
# default root not made yet just holds no container.
@test "list: a missing --root given fails naming it; a missing default root is empty" {
	run "$RUNTIME" --root "$BATS_TEST_TMPDIR/never-made" list -q
	assert_failure 1
	assert_output "tinyrun: --root $BATS_TEST_TMPDIR/never-made: No such file or directory"
	[ ! -e "$BATS_TEST_TMPDIR/never-made" ]
	# a private /run without /run/tinyrun
	run unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /run && "$1" list -q && "$1" list' sh "$RUNTIME"
	assert_success
	assert_output "ID          PID         STATUS      BUNDLE      CREATED     OWNER"
}

# runc and crun: a user other than root keeps its state in
# $XDG_RUNTIME_DIR/<runtime> (runc: made 0700 with the sticky bit, so the XDG
# cleanup leaves it); root, and a user without XDG_RUNTIME_DIR, the /run one.
@test "default --root: \$XDG_RUNTIME_DIR/tinyrun (0700, sticky) for a user other than root, for every command" {
	is_runc && skip "tinyrun's directory name"
	local d xdg user=(setpriv --reuid 65534 --regid 65534 --clear-groups)
	d="$(mktemp -d /tmp/tinyrun-xdg.XXXXXX)"
	chmod 755 "$d"
	xdg="$d/xdg"
	mkdir "$xdg" && chown 65534:65534 "$xdg"
	run "${user[@]}" env XDG_RUNTIME_DIR="$xdg" "$RUNTIME" list -q
	local made mode
	made="$(stat -c '%u %a' "$xdg/tinyrun" 2>&1)" || true
	# state and delete look there: a state dir planted in it is found
	"${user[@]}" mkdir "$xdg/tinyrun/planted"
	local state delete
	state="$("${user[@]}" env XDG_RUNTIME_DIR="$xdg" "$RUNTIME" state planted 2>&1)" || true
	delete="$("${user[@]}" env XDG_RUNTIME_DIR="$xdg" "$RUNTIME" delete --force planted 2>&1)" || true
	# root ignores XDG_RUNTIME_DIR (runc: /run/runc)
	rm -rf "$xdg/tinyrun"
	XDG_RUNTIME_DIR="$xdg" "$RUNTIME" list -q >/dev/null
	mode="$(ls -A "$xdg")"
	rm -rf "$d"
	assert_success
	assert_output ""
	[ "$made" = "65534 1700" ] || fail "\$XDG_RUNTIME_DIR/tinyrun: $made"
	jq -e '.id == "planted" and .status == "creating"' <<<"$state" >/dev/null || fail "state: $state"
	[ -z "$delete" ] || fail "delete --force: $delete"
	[ -z "$mode" ] || fail "root's list made $mode in XDG_RUNTIME_DIR"
}

@test "spec writes a valid config.json in the current directory" {
	mkdir "$BATS_TEST_TMPDIR/s" && cd "$BATS_TEST_TMPDIR/s"
	run runtime spec
	assert_success
	jq -e '.ociVersion and (.process.args | length > 0) and .root.path == "rootfs" and (.linux.namespaces | length > 0) and (.mounts | length > 0)' config.json >/dev/null
}

@test "spec --bundle DIR writes DIR/config.json" {
	mkdir "$BATS_TEST_TMPDIR/s"
	run runtime spec --bundle "$BATS_TEST_TMPDIR/s"
	assert_success
	jq -e .ociVersion "$BATS_TEST_TMPDIR/s/config.json" >/dev/null
}

@test "spec refuses to overwrite an existing config.json" {
	mkdir "$BATS_TEST_TMPDIR/s"
	echo keep >"$BATS_TEST_TMPDIR/s/config.json"
	run runtime spec --bundle "$BATS_TEST_TMPDIR/s"
	assert_failure 1
	assert_output --partial config.json
	assert_equal "$(cat "$BATS_TEST_TMPDIR/s/config.json")" keep
}

@test "spec --oci-version writes that ociVersion (--sandbox too); a version tinyrun cannot read is refused, nothing written" {
	is_runc && skip "runc's spec has no --oci-version"
	local d="$BATS_TEST_TMPDIR/s" v
	mkdir "$d"
	run runtime spec --oci-version 1.0.2 --bundle "$d"
	assert_success
	assert_equal "$(jq -r .ociVersion "$d/config.json")" 1.0.2
	rm "$d/config.json"
	run runtime spec --sandbox --oci-version 1.1.0-rc.1 --bundle "$d"
	assert_success
	assert_equal "$(jq -r .ociVersion "$d/config.json")" 1.1.0-rc.1
	rm "$d/config.json"
	for v in 2.0.0 1.4.0 0.9.0 1.0 01.0.0 "1.0.0 " '1.0.0-"x' ""; do
		run runtime spec --oci-version "$v" --bundle "$d"
		assert_failure 1
		assert_output --partial "spec: --oci-version: \"$v\" is not a version tinyrun supports (MAJOR.MINOR.PATCH from 1.0.0 to 1.3.x)"
		[[ ! -e "$d/config.json" ]] || fail "--oci-version '$v' wrote $(cat "$d/config.json")"
	done
}

@test "spec --rootless adds a user namespace with mappings, no network ns" {
	mkdir "$BATS_TEST_TMPDIR/s"
	run runtime spec --rootless --bundle "$BATS_TEST_TMPDIR/s"
	assert_success
	local c="$BATS_TEST_TMPDIR/s/config.json"
	jq -e '[.linux.namespaces[].type] | index("user")' "$c" >/dev/null
	jq -e '[.linux.namespaces[].type] | index("network") | not' "$c" >/dev/null
	jq -e '.linux.uidMappings | length > 0' "$c" >/dev/null
	jq -e '.linux.gidMappings | length > 0' "$c" >/dev/null
}

@test "the spec output runs with busybox once terminal is off" {
	mkdir "$BATS_TEST_TMPDIR/s"
	runtime spec --bundle "$BATS_TEST_TMPDIR/s"
	cp -al "$BUNDLE/rootfs" "$BATS_TEST_TMPDIR/s/rootfs"
	BUNDLE="$BATS_TEST_TMPDIR/s" update_config \
		'.process.terminal = false | .process.args = ["echo", "spec-runs"] | .process.env += [("TINYRUN_TEST_TOKEN=" + $t)]' --arg t "$TOKEN"
	run_nohang runtime run --bundle "$BATS_TEST_TMPDIR/s" "$CID"
	assert_success
	assert_line spec-runs
}

@test "features prints valid JSON with ociVersionMin/Max" {
	run runtime features
	assert_success
	jq -e '(.ociVersionMin | type == "string") and (.ociVersionMax | type == "string")' <<<"$output" >/dev/null
	assert_equal "$(jq -r .ociVersionMin <<<"$output")" 1.0.0
	jq -e '.hooks | index("createRuntime")' <<<"$output" >/dev/null
	jq -e '.linux.namespaces | index("pid")' <<<"$output" >/dev/null
	jq -e '.linux.capabilities | index("CAP_KILL")' <<<"$output" >/dev/null
}

@test "features: ociVersionMax is 1.3.x" {
	is_runc && skip "runc 1.1 supports spec 1.0.2"
	run runtime features
	assert_success
	[[ "$(jq -r .ociVersionMax <<<"$output")" == 1.3.* ]]
}

# --- exec options (runc's semantics) ---------------------------------------

@test "exec never runs a process outside the container's cgroup: a recorded cgroup that is gone fails exec (v1), exec joins the init's (v2)" {
	bind_out_dir
	set_args sleep 3600
	run_detached "$CID"
	local state="$ROOT/$CID/state.json"
	jq -e '.cgroup_path | length > 0' "$state" >/dev/null || skip "no cgroup recorded for the container"
	cp "$state" "$BATS_TEST_TMPDIR/state.saved"
	# the container's cgroup as the state names it is gone
	jq --arg p "/tinyrun-gone-$TOKEN/$CID" '.cgroup_path = $p' "$BATS_TEST_TMPDIR/state.saved" >"$state.new"
	mv "$state.new" "$state"
	run_nohang runtime exec "$CID" sh -c 'grep "^0::" /proc/self/cgroup /proc/1/cgroup | cut -d: -f2- >/out/exec-ran'
	cp "$BATS_TEST_TMPDIR/state.saved" "$state"
	if on_cgroup2; then
		# v2 (runc's addIntoCgroupV2): the init's cgroup is the container's
		# too, and exec joins it when the recorded one is gone
		assert_success
		assert_equal "$(wc -l <"$OUT/exec-ran")" 2
		assert_equal "$(sed -n 1p "$OUT/exec-ran")" "$(sed -n 2p "$OUT/exec-ran")"
	else
		[ "$status" -ne 0 ] || fail "exec succeeded without the container's cgroup: $output"
		assert_output --partial "adding pid to its cgroup"
		sleep 0.2
		[ ! -e "$OUT/exec-ran" ] || fail "the exec'd process ran outside the container's cgroup"
	fi
	run_nohang runtime delete --force "$CID"
	assert_success
}


# A container whose config.json has process.terminal = true, run in the
# foreground under script(1) (which gives it a terminal), left running.
run_terminal_container() {
	update_config '.process.terminal = true'
	set_args sleep 3600
	script -qec "$(printf '%q ' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID")" /dev/null \
		</dev/null >/dev/null 2>&1 3>&- 4>&- &
	wait_for_state "$CID" running
	record_container_pid "$CID"
}

@test "exec: a terminal only with -t, whatever config.json's process.terminal says" {
	run_terminal_container
	run_nohang runtime exec "$CID" sh -c '[ -t 1 ] && echo tty || echo no-tty'
	assert_success
	assert_output no-tty
	# no pty: no \r added to the lines
	run_nohang runtime exec "$CID" printf 'a\nb\n'
	[[ "$output" != *$'\r'* ]] || fail "CR in the output: pty used"
	# --detach without --console-socket is fine then
	run_nohang runtime exec -d "$CID" sleep 1
	assert_success
	run_nohang script -qec "$(printf '%q ' "$RUNTIME" --root "$ROOT" exec -t "$CID" sh -c '[ -t 1 ] && echo tty || echo no-tty')" /dev/null
	assert_success
	assert_output --partial tty
	refute_output --partial no-tty
}

@test "exec --user UID keeps the process's gid; --additional-gids adds to process.user's" {
	update_config '.process.user = {uid: 0, gid: 7, additionalGids: [20]}'
	run_detached "$CID"
	run_nohang runtime exec --user 1000 "$CID" sh -c 'echo "$(id -u) $(id -g)"'
	assert_success
	assert_output "1000 7"
	run_nohang runtime exec --user 1000:9 "$CID" sh -c 'echo "$(id -u) $(id -g)"'
	assert_output "1000 9"
	run_nohang runtime exec --additional-gids 30 "$CID" sh -c 'grep ^Groups: /proc/self/status'
	assert_success
	assert_output --regexp '^Groups:[[:space:]]+20 30[[:space:]]*$'
}

@test "exec failures exit 255 (the command's own status passes through)" {
	run_nohang runtime exec "$CID-missing" true
	assert_failure 255
	assert_output --partial "does not exist"
	set_args sleep 3600
	run_detached "$CID"
	run_nohang runtime exec "$CID" /nonexistent
	assert_failure 255
	run_nohang runtime exec --pid-file /nonexistent/dir/pid "$CID" true
	assert_failure 255
	run_nohang runtime exec "$CID" sh -c 'exit 7'
	assert_failure 7
	runtime pause "$CID"
	run_nohang runtime exec "$CID" true
	assert_failure 255
	assert_output --partial "cannot exec in a paused container"
	runtime resume "$CID"
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	run_nohang runtime exec "$CID" true
	assert_failure 255
	assert_output --partial "container not running"
	# usage errors stay 1
	run_nohang runtime exec
	assert_failure 1
}

@test "exec --ignore-paused: the process runs once the container is resumed" {
	set_args sleep 3600
	run_detached "$CID"
	runtime pause "$CID"
	runtime exec -d --ignore-paused --pid-file "$BATS_TEST_TMPDIR/exec.pid" "$CID" sleep 3600 &
	local execpid=$!
	sleep 1
	# it is in the frozen cgroup: nothing has run yet
	assert_equal "$(state_field "$CID" status)" paused
	runtime resume "$CID"
	wait "$execpid"
	[ -s "$BATS_TEST_TMPDIR/exec.pid" ]
	record_pid "$(cat "$BATS_TEST_TMPDIR/exec.pid")"
	proc_alive "$(cat "$BATS_TEST_TMPDIR/exec.pid")"
}

@test "exec --cgroup: / is the container's cgroup; a sub-cgroup that does not exist fails naming it" {
	set_args sleep 3600
	run_detached "$CID"
	run_nohang runtime exec --cgroup / "$CID" true
	assert_success
	# joining existing sub-cgroups: exec-cgroup.bats, cgroups-v2.bats
	run_nohang runtime exec --cgroup nosub "$CID" true
	assert_failure 255
	assert_output --partial "nosub"
}

# --- options after the container id, list order, ps ------------------------

@test "update ID --pids-limit N: options after the container id" {
	set_args sleep 3600
	run_detached "$CID"
	run runtime update "$CID" --pids-limit 42
	assert_success
	local f
	f="$(find /sys/fs/cgroup/pids /sys/fs/cgroup -maxdepth 8 -path "*$CID*" -name pids.max 2>/dev/null | head -1)"
	[ -n "$f" ] || skip "no pids controller"
	assert_equal "$(cat "$f")" 42
}

@test "list: sorted by id; --format json on one line" {
	set_args sleep 3600
	local id
	for id in "$CID-c" "$CID-a" "$CID-b"; do
		run_detached "$id"
	done
	run runtime list -q
	assert_success
	assert_output "$(printf '%s\n' "$CID-a" "$CID-b" "$CID-c")"
	# --format json: one line, as runc (scripts grep it)
	run runtime list --format json
	assert_success
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jq -r '.[].id' <<<"$output")" "$(printf '%s\n' "$CID-a" "$CID-b" "$CID-c")"
}

@test "ps on a stopped container: 0, the header only / an empty JSON array" {
	set_args sleep 3600
	run_detached "$CID"
	run runtime ps "$CID"
	assert_success
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	run runtime ps "$CID"
	assert_success
	assert_equal "${#lines[@]}" 1
	assert_line --index 0 --partial PID
	run runtime ps --format json "$CID"
	assert_success
	[[ "$output" == "[]" || "$output" == null ]] || fail "ps json: $output"
}

@test "crun's spellings: --cgroup-manager cgroupfs|systemd, create/run --config FILE" {
	cp "$BUNDLE/config.json" "$BUNDLE/other.json"
	jq '.process.args = ["sh", "-c", "echo from-other"]' "$BUNDLE/other.json" >"$BUNDLE/o.json"
	mv "$BUNDLE/o.json" "$BUNDLE/other.json"
	set_args sh -c 'echo from-config-json'
	run_nohang "$RUNTIME" --cgroup-manager cgroupfs --root "$ROOT" run --bundle "$BUNDLE" --config other.json "$CID"
	assert_success
	assert_output from-other
	run_nohang "$RUNTIME" --cgroup-manager=cgroupfs --root "$ROOT" run --bundle "$BUNDLE" --config "$BUNDLE/other.json" "$CID"
	assert_output from-other
	run_nohang "$RUNTIME" --cgroup-manager bogus --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "--cgroup-manager"
	run_nohang runtime run --bundle "$BUNDLE" --config missing.json "$CID"
	assert_failure 1
	assert_output --partial missing.json
	[[ ! -e "$ROOT/$CID" ]]
}

@test "--cgroup-manager disabled (crun): no cgroup is made, the container is in the caller's, resources only warn" {
	update_config '.linux.cgroupsPath = $p | .linux.resources.pids.limit = 50' --arg p "/tinyrun-nocg-$TOKEN"
	set_args cat /proc/self/cgroup
	run_nohang "$RUNTIME" --cgroup-manager disabled --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --partial "linux.resources ignored: --cgroup-manager disabled"
	# the caller's (this test's) cgroup, not one of the container's
	if on_cgroup2; then
		assert_line "0::$(sed -n 's/^0:://p' /proc/self/cgroup)"
	else
		assert_line --regexp "^[0-9]+:pids:$(awk -F: '$2 == "pids" {print $3}' /proc/self/cgroup)\$"
	fi
	refute_output --partial "tinyrun-nocg-$TOKEN"
	local d
	for d in /sys/fs/cgroup/"tinyrun-nocg-$TOKEN" /sys/fs/cgroup/*/"tinyrun-nocg-$TOKEN"; do
		[ ! -e "$d" ]
	done
	[[ ! -e "$ROOT/$CID" ]]
}

@test "socket activation: LISTEN_FDS=N passes fds 3.. and sets LISTEN_FDS/LISTEN_PID=1 in the container (as runc)" {
	set_args sh -c 'echo "fds=$LISTEN_FDS pid=$LISTEN_PID"; cat <&3'
	echo through-fd-3 >"$BATS_TEST_TMPDIR/fd3"
	# (run_nohang closes fds 3 and 4 for the command: open fd 3 inside it)
	with_fd3() { sh -c 'exec 3<"$0"; exec "$@"' "$BATS_TEST_TMPDIR/fd3" "$@"; }
	run_nohang with_fd3 env LISTEN_FDS=1 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "fds=1 pid=1"
	assert_line through-fd-3
	# LISTEN_PID naming another process: not for us
	run_nohang with_fd3 env LISTEN_FDS=1 LISTEN_PID=1 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_line "fds= pid="
}

@test "exec --cap with an unknown name warns and goes on (as runc)" {
	set_args sleep 3600
	run_detached "$CID"
	run runtime exec --cap CAP_NOT_A_THING --cap CAP_NET_RAW "$CID" sh -c 'grep CapEff /proc/self/status'
	assert_success
	assert_output --partial CAP_NOT_A_THING
	assert_output --partial CapEff
}

# SigBlk and SigIgn of the process, as "blk ign" hex masks.
SIGS_CMD='echo "$(grep ^SigBlk: /proc/self/status | cut -f2) $(grep ^SigIgn: /proc/self/status | cut -f2)"'
NO_SIGS="0000000000000000 0000000000000000"

# CMD... with SIGUSR1 and SIGHUP ignored, as nohup or a shell's `&` leave them.
ignoring_signals() {
	(
		trap '' USR1 HUP
		"$@"
	)
}

@test "run, create+start: the container's process starts with no signal blocked or ignored" {
	set_cmd "$SIGS_CMD"
	run_nohang ignoring_signals runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "$NO_SIGS"
	bind_out_dir
	set_cmd "$SIGS_CMD >/out/sigs"
	ignoring_signals create_container "$CID-2"
	runtime start "$CID-2"
	wait_for_file "$OUT/sigs"
	wait_for_state "$CID-2" stopped
	run cat "$OUT/sigs"
	assert_output "$NO_SIGS"
	runtime delete "$CID-2"
}

@test "exec, exec -d, exec -p: the process starts with no signal blocked or ignored" {
	bind_out_dir
	run_detached "$CID"
	run_nohang ignoring_signals runtime exec "$CID" sh -c "$SIGS_CMD"
	assert_success
	assert_output "$NO_SIGS"
	jq --arg c "$SIGS_CMD" '.process | .args = ["sh", "-c", $c] | .terminal = false' \
		"$BUNDLE/config.json" >"$BATS_TEST_TMPDIR/process.json"
	run_nohang ignoring_signals runtime exec -p "$BATS_TEST_TMPDIR/process.json" "$CID"
	assert_success
	assert_output "$NO_SIGS"
	run_nohang ignoring_signals runtime exec -d "$CID" sh -c "$SIGS_CMD >/out/sigs"
	assert_success
	wait_for_file "$OUT/sigs"
	sleep 0.2
	run cat "$OUT/sigs"
	assert_output "$NO_SIGS"
}

@test "exec: SIGTERM and SIGINT sent to a foreground exec reach its process" {
	run_detached "$CID"
	for sig in TERM INT; do
		"$RUNTIME" --root "$ROOT" exec "$CID" sleep 3600 </dev/null >/dev/null 2>&1 3>&- 4>&- &
		local pid=$!
		local n=0
		# the header, the container's sleep and exec's
		until [ "$(runtime ps "$CID" 2>/dev/null | wc -l)" -ge 3 ]; do
			sleep 0.1
			n=$((n + 1))
			[ $n -lt 100 ] || fail "exec did not start"
		done
		kill -$sig $pid
		local st=0
		timeout 10 tail --pid=$pid -f /dev/null || fail "exec still runs after SIG$sig"
		wait $pid || st=$?
		[ "$st" -eq $((128 + $(kill -l $sig))) ] || fail "exit status $st after SIG$sig"
	done
}

@test "exec ID without a command fails with 255, as runc" {
	run_detached "$CID"
	run_nohang runtime exec "$CID"
	assert_failure 255
	assert_output --partial "process args cannot be empty"
}

@test "run ./ inside a bundle: the id is the directory's name; a bare . or .. and a missing dir/ are ids, refused" {
	is_runc && skip "tinyrun extension: runc takes the argument as an id"
	local b="$BATS_TEST_TMPDIR/$CID-b"
	BUNDLE="$b" make_bundle "$b"
	cd "$b"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run -d ./
	assert_success
	assert_output "$CID-b"
	assert_equal "$(state_field "$CID-b" status)" running
	BUNDLE="$b" set_cmd 'echo in-dot-form'
	run_nohang runtime run "$b/"
	assert_success
	assert_output in-dot-form
	# as runc and crun: the argument is the id (crun's invalid-id tests)
	run_nohang runtime run .
	assert_failure 1
	assert_output --partial "invalid container id \".\""
	run_nohang runtime run ..
	assert_failure 1
	run_nohang runtime run no/such/dir
	assert_failure 1
	assert_output --partial "invalid character '/' (a container ID"
	[[ -z "$(ls "$ROOT" | grep -v "^$CID-b\$")" ]] || fail "left in --root: $(ls "$ROOT")"
}

@test "run -b DIR with an id holding '/': invalid container id" {
	run_nohang runtime run -b "$BUNDLE" "a/$CID"
	[ "$status" -ne 0 ] || fail "accepted: $output"
	assert_output --regexp '[Ii]nvalid container [Ii][Dd]'
	refute_output --partial "both --bundle"
}

@test "an invalid id's bytes are shown escaped, as runc's %q: the user sees which byte" {
	run_nohang runtime run -b "$BUNDLE" "$(printf 'caf\xc3\xa9\tx')"
	assert_failure 1
	assert_output --partial 'invalid container id "caf\xc3\xa9\tx": invalid character '"'"'\xc3'"'"
	run_nohang runtime state "$(printf 'a"b')"
	assert_failure 1
	assert_output --partial 'invalid container id "a\"b": invalid character '"'"'\"'"'"
}

@test "help CMD is CMD --help: each option with what it does; create lists --no-subreaper" {
	is_runc && skip "runc's help CMD lists the commands"
	local c
	for c in "${COMMANDS[@]}"; do
		run "$RUNTIME" help "$c"
		assert_success
		local via_help="$output"
		run "$RUNTIME" "$c" --help
		assert_equal "$output" "$via_help"
	done
	run "$RUNTIME" help create
	assert_line --regexp '^ +--no-subreaper +[a-z]'
	assert_line --regexp '^ +-b, --bundle DIR +the bundle directory'
	run "$RUNTIME" help update
	assert_line --regexp '^ +--memory BYTES +memory limit: bytes'
	assert_line --regexp '^ +--cpu-quota USEC +.*microseconds'
	run "$RUNTIME" help nosuch
	assert_failure 1
}

@test "every option in a command's help is accepted by the command, and no other" {
	is_runc && skip "tinyrun's help --options"
	local c opt arg
	# a value "x" may name a file (run --result x writes its not-started result): not in the checkout
	cd "$BATS_TEST_TMPDIR"
	for c in "${COMMANDS[@]}"; do
		while read -r opt arg; do
			# an unknown option is refused before anything else is looked at
			run "$RUNTIME" --root "$ROOT" "$c" "$opt" ${arg:+x} "$CID-none"
			refute_output --regexp "unknown (or incomplete )?option"
		done < <("$RUNTIME" help --options "$c")
	done
	run "$RUNTIME" --root "$ROOT" create --detach "$CID-none"
	assert_failure 1
	assert_output --regexp "unknown (or incomplete )?option"
}

@test "man page: tinyrun(8) renders without warnings, with every command and option of the help" {
	is_runc && skip "tinyrun's man page"
	make -C "$REPO_DIR" -s build/tinyrun.8 >/dev/null
	local page="$REPO_DIR/build/tinyrun.8" text c
	run man --warnings -l "$page"
	assert_success
	text="$(MANWIDTH=100 man -l "$page" 2>/dev/null)"
	[[ "$text" == *"TINYRUN(8)"* ]] || fail "no TINYRUN(8) header"
	for c in "${COMMANDS[@]}"; do
		grep -q "^   $c\$" <<<"$text" || fail "no section for $c"
	done
	grep -q -- "--no-subreaper" <<<"$text" || fail "--no-subreaper missing"
	grep -q -- "--keep" <<<"$text" || fail "--keep missing"
	grep -q "EXIT STATUS" <<<"$text" || fail "no EXIT STATUS"
	# make install puts it where man finds it
	local dest="$BATS_TEST_TMPDIR/inst"
	make -C "$REPO_DIR" -s install DESTDIR="$dest" PREFIX=/usr >/dev/null
	[ -f "$dest/usr/share/man/man8/tinyrun.8" ] || fail "not installed"
	MANPATH="$dest/usr/share/man" run man -w tinyrun
	assert_output "$dest/usr/share/man/man8/tinyrun.8"
}

# complete WORD...: what the bash completion offers for the last WORD.
complete_words() {
	(
		source "$REPO_DIR/contrib/completions/tinyrun.bash"
		COMP_WORDS=("$RUNTIME" --root "$ROOT" "$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_tinyrun
		printf '%s\n' "${COMPREPLY[@]}"
	)
}

@test "bash completion: ids after delete -f, kill, exec...; none after an option taking a value; help" {
	is_runc && skip "tinyrun's completion"
	run_detached "$CID"
	local words
	for words in "delete -f" "delete" "kill" "kill -a" "exec" "exec -t" "exec -u 0" "state" "ps" "pause" "update --memory 1m"; do
		# shellcheck disable=SC2086
		run complete_words $words ""
		assert_output "$CID"
	done
	for words in "exec --cwd" "exec -u" "exec --env" "update --memory" "kill --all $CID"; do
		# shellcheck disable=SC2086
		run complete_words $words ""
		refute_output --partial "$CID"
	done
	run complete_words help ""
	assert_line exec
	assert_line create
	run complete_words create --no-s
	assert_output --no-subreaper
	run complete_words list -f ""
	assert_output $'table\njson'
}

@test "bash completion: bundle's kind, its options and values, then an image directory or id" {
	is_runc && skip "tinyrun's completion"
	local images="$BATS_TEST_TMPDIR/images"
	mkdir -p "$images/alpine-app" "$images/busybox" "$BATS_TEST_TMPDIR/imgdir"
	run complete_words bundle ""
	assert_output tinyaws
	run complete_words bundle --no-s
	assert_output --no-seccomp
	run complete_words bundle tinyaws --type ""
	assert_output $'nano\nmicro\nsmall\nmedium\nlarge'
	run complete_words bundle -o "$BATS_TEST_TMPDIR/out" ""
	assert_output tinyaws
	TINYAWS_IMAGES_DIR="$images" run complete_words bundle tinyaws al
	assert_output alpine-app
	run complete_words bundle tinyaws "$BATS_TEST_TMPDIR/img"
	assert_output "$BATS_TEST_TMPDIR/imgdir"
	TINYAWS_IMAGES_DIR="$images" run complete_words bundle tinyaws busybox -o x -- ""
	assert_output ""
	TINYAWS_IMAGES_DIR="$images" run complete_words bundle tinyaws busybox ""
	refute_output --partial busybox
}

@test "--version: the commit, the libseccomp version, the built-in features" {
	is_runc && skip "crun-style feature line"
	run "$RUNTIME" --version
	assert_success
	# git describe of the tree it was built from: a commit of this repository
	local commit
	commit="$(sed -n 's/^commit: //p' <<<"$output")"
	[ -n "$commit" ] || fail "no commit line"
	commit="${commit%-dirty}"
	git -C "$REPO_DIR" cat-file -e "${commit##*-g}^{commit}" || fail "commit $commit is not in the repository"
	assert_line --regexp '^libseccomp: [0-9]+\.[0-9]+\.[0-9]+$'
	refute_line --partial 'libselinux'   # not linked: SELinux by its files (attrs.c)
	assert_line --regexp '^\+SECCOMP \+SELINUX .*\+CAP'
	assert_line --regexp '^\+SECCOMP .* \+(MUSL|GLIBC)$'   # the libc of the build (make LIBC=)
}

# make falls back to glibc when musl's libraries cannot be built (and LIBC=glibc
# asks for it); the default build is musl's, so only this test links the other.
# It once failed to link (pow, of the cpu.weight conversion, is in glibc's
# libm, in musl's libc).
@test "the glibc build (make's fallback, LIBC=glibc) links and runs a container" {
	is_runc && skip "tinyrun's build"
	make -C "$REPO_DIR" -s LIBC=glibc build/glibc/tinyrun >/dev/null
	run "$REPO_DIR/build/glibc/tinyrun" --version
	assert_success
	assert_line --regexp '^\+SECCOMP .* \+GLIBC$'
	set_cmd 'grep ^NoNewPrivs: /proc/self/status; echo "ran-$TINYRUN_TEST_TOKEN"'
	run_nohang "$REPO_DIR/build/glibc/tinyrun" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "ran-$TOKEN"
	assert_line --regexp '^NoNewPrivs:[[:space:]]+[01]$'
}

@test "--debug: a line per step with its level, on stderr and in --log" {
	set_args true
	run runtime --debug run --bundle "$BUNDLE" "$CID"
	assert_success
	if is_runc; then
		assert_output --partial 'level=debug'
		return
	fi
	local step
	for step in "config: " "namespaces: .*mount" "cgroup" "mount: /proc " "root: pivot_root" "exec: true"; do
		assert_line --regexp "^tinyrun: debug: $step"
	done
	# the container's cgroup once (cgroup_create says it; create said it again)
	[[ "$(grep -c "^tinyrun: debug: .*cgroup.*$CID" <<<"$output")" == 1 ]] ||
		fail "the cgroup not shown exactly once: $(grep "cgroup" <<<"$output")"
	# with --log, the file only (runc's logrus output)
	run runtime --debug --log "$BATS_TEST_TMPDIR/log" run --bundle "$BUNDLE" "$CID"
	assert_success
	refute_output --partial 'debug'
	run grep -c 'level=debug msg="mount: ' "$BATS_TEST_TMPDIR/log"
	assert_output "$(jq '.mounts | length' "$BUNDLE/config.json")"
	run runtime --debug --log "$BATS_TEST_TMPDIR/log.json" --log-format json run --bundle "$BUNDLE" "$CID"
	assert_success
	run jq -r 'select(.level == "debug") | .msg' "$BATS_TEST_TMPDIR/log.json"
	assert_line "root: pivot_root into $BUNDLE/rootfs"
}

@test "text --log lines carry a timestamp and a level; --log-format json applies to stderr without --log" {
	run runtime --log "$BATS_TEST_TMPDIR/log" state "$CID-missing"
	assert_failure 1
	run cat "$BATS_TEST_TMPDIR/log"
	assert_line --regexp '^time="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)" level=error msg=".*does not exist.*"$'
	run runtime --log-format json state "$CID-missing"
	assert_failure 1
	jq -e 'select(.level == "error") | .msg | test("does not exist")' <<<"$output" >/dev/null ||
		fail "not a JSON error line: $output"
}

@test "value errors name the flag and print the value once; exec --cwd names --cwd" {
	is_runc && skip "runc's wording differs"
	run_detached "$CID"
	local args
	for args in "update --memory abc1" "update --pids-limit -5" "events --interval abc1" "list --format abc1" \
		"ps -f abc1" "exec --preserve-fds abc1" "spec --seccomp abc1"; do
		# shellcheck disable=SC2086
		run runtime $args $([[ "$args" == spec* ]] || echo "$CID")
		assert_failure 1
		local flag="${args#* }"
		flag="${flag%% *}"
		[[ "$output" == *"$flag"* ]] || fail "$args: the flag is not named: $output"
		local v="${args##* }"
		[ "$(grep -o -- "$v" <<<"$output" | wc -l)" -eq 1 ] || fail "$args: the value is not printed once: $output"
	done
	run_nohang runtime exec --cwd /nope "$CID" true
	assert_failure 255
	assert_output --partial -- "--cwd /nope"
	refute_output --partial "process.cwd"
}

@test "a JSON error in config.json gives its line and column and the text around it" {
	is_runc && skip "runc's JSON errors have no position"
	printf '{\n  "ociVersion": "1.0.2",\n  "process": {"args": ["a",]}\n}\n' >"$BUNDLE/config.json"
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "config.json: invalid JSON: parse error"
	assert_output --partial "line 3, column 28, near '"
	assert_output --partial '"args": ["a",]'
}

@test "list: columns sized to their content, long ids and bundles stay aligned; -q unchanged" {
	local long="$CID-$(printf 'x%.0s' {1..60})" b="$BATS_TEST_TMPDIR/a-rather-long-bundle-directory-name-$(printf 'y%.0s' {1..40})"
	BUNDLE="$b" make_bundle "$b"
	run_detached "$CID"
	BUNDLE="$b" run_detached "$long"
	run runtime list
	assert_success
	[ "${#lines[@]}" -eq 3 ] || fail "expected a header and 2 rows: $output"
	local l col
	for col in PID STATUS BUNDLE CREATED OWNER; do
		local at
		at="$(awk -v c="$col" 'NR == 1 { print index($0, c) }' <<<"$output")"
		for l in "${lines[@]:1}"; do
			[ "${l:at-2:1}" = " " ] && [ "${l:at-1:1}" != " " ] || fail "$col not aligned at $at: $output"
		done
	done
	assert_line --regexp "^$long +[0-9]+ +running +$b "
	run runtime list -q
	assert_output "$(printf '%s\n' "$CID" "$long" | sort)"
}

# The "### ..." section of README.md whose heading names COMMAND.
readme_section() {
	awk -v c="$1" '/^### / { on = 0; n = split(substr($0, 5), w, /[ ,]+/); for (i = 1; i <= n; i++) if (w[i] == c) on = 1 } on' \
		"$REPO_DIR/README.md"
}

@test "man page: ENVIRONMENT has every variable tinyrun reads (each callerenv_get name, macros resolved)" {
	is_runc && skip "tinyrun's man page"
	local env name names=() macro
	env="$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$REPO_DIR/contrib/man/tinyrun.8.in")"
	while read -r name; do
		if [[ "$name" == \"*\" ]]; then
			names+=("${name//\"/}")
		else
			macro="$(grep -rhoE "#define $name \"[A-Za-z_0-9]+\"" "$REPO_DIR"/{oci,runtime,rootfs,seccomp} | awk '{print $3}')"
			[[ -n "$macro" ]] || fail "callerenv_get($name): not a literal nor a string macro"
			names+=("${macro//\"/}")
		fi
	done < <(grep -rhoE 'callerenv_get\([^)]*\)' --include='*.c' "$REPO_DIR"/{oci,runtime,rootfs,seccomp} |
		sed -E 's/callerenv_get\((.*)\)/\1/' | grep -vx 'const char \*name' | sort -u)
	[[ ${#names[@]} -ge 8 ]] || fail "found only: ${names[*]}"
	for name in "${names[@]}"; do
		grep -qx "\.B $name" <<<"$env" || fail "the man page's ENVIRONMENT lacks $name"
	done
}

@test "README and the man page name every option of every command, and exec's 255" {
	is_runc && skip "tinyrun's documents"
	make -C "$REPO_DIR" -s build/tinyrun.8 >/dev/null
	local man c opt arg
	man="$(MANWIDTH=200 man -l "$REPO_DIR/build/tinyrun.8" 2>/dev/null)"
	for c in "${COMMANDS[@]}"; do
		local sec
		sec="$(readme_section "$c")"
		[ "$c" = run ] && sec+="$(readme_section create)"
		[ -n "$sec" ] || fail "README has no section for $c"
		while read -r opt arg; do
			[[ "$opt" == --* ]] || continue
			grep -q -- "$opt\b" <<<"$sec" || fail "README's $c does not name $opt"
			grep -q -- "$opt\b" <<<"$man" || fail "the man page does not name $opt"
		done < <("$RUNTIME" help --options "$c")
	done
	while read -r opt arg; do
		[[ "$opt" == --* ]] || continue
		grep -q -- "\`$opt" "$REPO_DIR/README.md" || fail "README's global options lack $opt"
	done < <("$RUNTIME" help --options --global)
	grep -q "exits 255 when exec itself fails" "$REPO_DIR/README.md" || fail "README: exec's 255"
	grep -q "255 when exec itself fails" <<<"$man" || fail "man page: exec's 255"
}

@test "bundle: usage errors name the command and exit 1; --help shows the synopsis" {
	run_nohang "$RUNTIME" bundle
	assert_failure 1
	assert_output --partial "bundle: expected a kind: tinyaws (the only one)"
	run_nohang "$RUNTIME" bundle docker /nonexistent-image -o "$BATS_TEST_TMPDIR/x"
	assert_failure 1
	assert_output --partial 'bundle: unknown kind "docker": expected tinyaws (the only one)'
	[[ ! -e "$BATS_TEST_TMPDIR/x" ]] || fail "bundle docker left $BATS_TEST_TMPDIR/x"
	run_nohang "$RUNTIME" bundle tinyaws /nonexistent-image
	assert_failure 1
	assert_output --partial "-o BUNDLE is required"
	run_nohang "$RUNTIME" bundle tinyaws /a /b -o "$BATS_TEST_TMPDIR/x"
	assert_failure 1
	assert_output --partial "expected exactly one IMAGE"
	run_nohang "$RUNTIME" bundle --help
	assert_success
	assert_output --partial "bundle tinyaws IMAGE -o BUNDLE"
	[[ ! -e "$BATS_TEST_TMPDIR/x" ]]
}

@test "gc: nothing to do prints nothing; more than one id is a usage error" {
	is_runc && skip "tinyrun's own command"
	run_nohang "$RUNTIME" --root "$ROOT" gc
	assert_success
	assert_output ""
	run_nohang "$RUNTIME" --root "$BATS_TEST_TMPDIR/no-such-root" gc
	assert_success
	run_nohang "$RUNTIME" --root "$ROOT" gc a b
	assert_failure 1
	assert_output --partial "expected at most one container id"
}

# as delete (runc's words): an id with nothing under --root, or no --root yet
@test "gc ID of no container says it does not exist, exit 1, as delete" {
	is_runc && skip "tinyrun's own command"
	run_nohang "$RUNTIME" --root "$ROOT" delete nosuch
	assert_failure 1
	local delete="$output"
	run_nohang "$RUNTIME" --root "$ROOT" gc nosuch
	assert_failure 1
	assert_output 'tinyrun: container "nosuch" does not exist'
	assert_equal "$output" "$delete"
	run_nohang "$RUNTIME" --root "$BATS_TEST_TMPDIR/no-such-root" gc nosuch
	assert_failure 1
	assert_output 'tinyrun: container "nosuch" does not exist'
}

@test "help with an unknown command: one line, one hint" {
	run "$RUNTIME" help nosuch
	assert_failure 1
	assert_output 'tinyrun: help: unknown command "nosuch" (see tinyrun --help)'
	run "$RUNTIME" help --options nosuch
	assert_failure 1
	assert_output 'tinyrun: help: unknown command "nosuch" (see tinyrun --help)'
}

# runc's list names the owner in both formats; tinyrun's state.json has ""
# for root (runc's `state`), which the table showed as root and json as ""
@test "list -f json: owner is the table's" {
	create_container "$CID"
	run runtime list
	assert_line --regexp "^$CID .* root\$"
	run runtime list -f json
	assert_success
	jq -e --arg id "$CID" '.[] | select(.id == $id) | .owner == "root"' <<<"$output" >/dev/null ||
		fail "owner: $output"
	run runtime state "$CID"
	jq -e '.owner == ""' <<<"$output" >/dev/null || fail "state's owner changed: $output"
}
