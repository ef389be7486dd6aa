#!/usr/bin/env bats
# --systemd-cgroup for a rootless caller (rootless podman's default where
# systemd runs): the container's cgroup is a transient scope of the user's
# own systemd, asked for over the caller's session bus (DBUS_SESSION_BUS_ADDRESS,
# else $XDG_RUNTIME_DIR/bus), under that manager's own cgroup, in user.slice
# by default, as runc does. cgroup v2 only.
#
# No real systemd: each test makes a private mount namespace whose /run has
# /run/systemd/system (sd_booted) and no system bus at all, a session
# dbus-daemon on $XDG_RUNTIME_DIR/bus, and tests/lib/mock-systemd.py --user
# playing the user's manager there (its cgroup /<token>.slice/user@UID.service,
# given to the user; it makes each unit's cgroup as the user's manager would,
# the user's own). The runtime runs as root of a user namespace made by the
# unprivileged UID, as rootless podman runs it (as_users_root).
#
# On a host without cgroup2 at /sys/fs/cgroup (our hybrid machines), this
# same file runs in a vm-run guest (guest_setup_file), and every test here
# reports the guest's verdict for itself; the refusal on such a host is
# tested in cgroups-systemd.bats.

load helpers
load lib/fake-systemd

# a uid with a passwd entry: dbus-daemon's policy looks its groups up, and
# drops a peer whose uid has none after authenticating it
USER_ID=65534

setup_file() {
	guest_setup_file cgroups-systemd-user.bats 900
}

setup() {
	on_cgroup2 || return 0
	local why
	why="$(fake_systemd_missing)"
	[[ -z "$why" ]] || skip "$why"
	command -v setpriv >/dev/null || skip "setpriv is not installed (make deps)"
	tr_setup
	XDG="$BATS_TEST_TMPDIR/xdg"
	users_root_bundle "$USER_ID" "$XDG"
	update_config 'del(.linux.cgroupsPath)'
	MANAGER_CG="/$TOKEN.slice/user@$USER_ID.service"
	UNIT="tinyrun-$CID.scope"
	CGPATH="$MANAGER_CG/user.slice/$UNIT"
	SD="$BATS_TEST_TMPDIR/sd"
	mkdir -p "$SD"
	REAL_RUNTIME="$RUNTIME"
	# the user's manager (its cgroup made and given to the user), on a session bus in $XDG
	fake_systemd "$SD" session "$XDG/bus" --user "$USER_ID" "$MANAGER_CG"
	chown "$USER_ID:$USER_ID" "$XDG/bus"
}

teardown() {
	on_cgroup2 || return 0
	local d
	# containers first, while the mock still answers StopUnit
	for d in "$XDG"/tinyrun/*/; do
		[[ -d "$d" ]] || continue
		timeout -k 2 20 as_user "$REAL_RUNTIME" --systemd-cgroup delete --force "$(basename "$d")" \
			</dev/null >/dev/null 2>&1 3>&- 4>&- || true
	done
	fake_systemd_stop
	# the user's manager's cgroup and its slice (a scope left fails the test itself)
	for d in "/sys/fs/cgroup$MANAGER_CG/user.slice" "/sys/fs/cgroup$MANAGER_CG" "/sys/fs/cgroup/$TOKEN.slice"; do
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	tr_teardown
}

# as_user CMD...: CMD as rootless podman runs the runtime, in the private
# mount namespace, with the session bus of $XDG_RUNTIME_DIR (no DBUS_* set)
as_user() {
	nsenter -t "$NS_PID" -m --wd="$PWD" -- env -u DBUS_SESSION_BUS_ADDRESS -u DBUS_SYSTEM_BUS_ADDRESS \
		setpriv --reuid "$USER_ID" --regid "$USER_ID" --clear-groups env USER=trtest XDG_RUNTIME_DIR="$XDG" \
		unshare --user --map-root-user "$@"
}

calls() {
	fake_systemd_calls "$@"
}

@test "systemd cgroup, rootless: the scope is the user's systemd's, under its own cgroup, over the session bus; limits in it; exec joins it through that systemd; delete stops it" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.linux.resources = {"pids": {"limit": 42}, "memory": {"limit": 67108864}}
		| .process.args = ["sleep", "1000"]'
	# one user namespace for every command, as podman's (exec must join the
	# container's pid namespace, which is that namespace's); the cgroup as
	# seen between exec and delete
	run_nohang as_user "$TEST_LIB_BIN/subreaper" sh -c '
		"$1" --systemd-cgroup run --detach --bundle "$2" "$3" || exit 1
		pid=$("$1" state "$3" | jq -r .pid)
		echo "pid $pid"
		echo "init $(cat /proc/$pid/cgroup)"
		echo "pids.max $(cat /sys/fs/cgroup$4/pids.max)"
		echo "memory.max $(cat /sys/fs/cgroup$4/memory.max)"
		echo "exec $("$1" exec "$3" cat /proc/self/cgroup 2>&1)"
		"$1" delete --force "$3"
		echo "left: $(ls "$XDG_RUNTIME_DIR/tinyrun")"' _ "$REAL_RUNTIME" "$BUNDLE" "$CID" "$CGPATH"
	assert_success
	local pid
	pid="$(awk '$1 == "pid" { print $2 }' <<<"$output")"
	[[ "$pid" =~ ^[0-9]+$ ]] || fail "no pid: $output"
	# the init was there, and the limits were tinyrun's writes into the user's own scope
	assert_line "init 0::$CGPATH"
	assert_line "pids.max 42"
	assert_line "memory.max 67108864"
	# exec from outside the user's systemd's subtree (here the root cgroup), where the
	# kernel lets the user move nothing into the unit: that systemd moved it
	assert_line "exec 0::$CGPATH"
	assert_equal "$(calls AttachProcessesToUnit | jq -r '.name + " [" + .mode + "] " + (.properties.PIDs | length | tostring)')" \
		"$UNIT [] 1"
	assert_line "left: "
	# asked: the manager's cgroup, then the scope in user.slice with the init in it
	assert_equal "$(calls Get | jq -r .name)" ControlGroup
	run calls StartTransientUnit
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jq -r .name <<<"$output")" "$UNIT"
	assert_equal "$(jq -r .properties.Slice <<<"$output")" user.slice
	assert_equal "$(jq -r .properties.Delegate <<<"$output")" true
	assert_equal "$(jq -c .properties.PIDs <<<"$output")" "[$pid]"
	# the limits as the unit's own properties too, v2's names (systemd-props.h)
	assert_equal "$(jq -r '.properties | "\(.MemoryMax) \(.TasksMax)"' <<<"$output")" "67108864 42"
	# delete stopped it
	assert_equal "$(calls StopUnit | jq -r '.name + " " + .mode')" "$UNIT replace"
	[[ ! -e "/sys/fs/cgroup$CGPATH" ]] || fail "the scope is left"
	proc_wait_gone "$pid"
}

@test "systemd cgroup, rootless: a slice of the config's (podman's pod slices) is under the manager's cgroup too" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.linux.cgroupsPath = $p | .process.args = ["cat", "/proc/self/cgroup"]' \
		--arg p "user-pod_$TOKEN.slice:libpod:$CID"
	run_nohang as_user "$REAL_RUNTIME" --systemd-cgroup run --bundle "$BUNDLE" "$CID"
	assert_success
	# the container ran in the scope, under the manager's cgroup
	assert_output "0::$MANAGER_CG/user.slice/user-pod_$TOKEN.slice/libpod-$CID.scope"
	run calls StartTransientUnit
	assert_equal "$(jq -r .name <<<"$output")" "libpod-$CID.scope"
	assert_equal "$(jq -r .properties.Slice <<<"$output")" "user-pod_$TOKEN.slice"
	assert_equal "$(calls StopUnit | jq -r .name)" "libpod-$CID.scope"
	[[ ! -e "/sys/fs/cgroup$MANAGER_CG/user.slice/user-pod_$TOKEN.slice/libpod-$CID.scope" ]]
	rmdir "/sys/fs/cgroup$MANAGER_CG/user.slice/user-pod_$TOKEN.slice"
	assert_equal "$(ls "$XDG/tinyrun")" ""
}

@test "systemd cgroup, rootless: without a session bus create fails naming it and leaves nothing; the system bus is never asked" {
	if ! on_cgroup2; then guest_verdict; return; fi
	# the bus's socket gone: $XDG_RUNTIME_DIR/bus is the address
	mv "$XDG/bus" "$XDG/bus.away"
	run_nohang as_user "$TEST_LIB_BIN/subreaper" "$REAL_RUNTIME" --systemd-cgroup create --bundle "$BUNDLE" "$CID"
	mv "$XDG/bus.away" "$XDG/bus"
	assert_failure 1
	assert_output "tinyrun: --systemd-cgroup: connecting to the session bus (unix:path=$XDG/bus): No such file or directory"
	assert_equal "$(ls "$XDG/tinyrun")" ""
	assert_equal "$(calls StartTransientUnit)" ""
	# neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR: named, nothing made
	run_nohang nsenter -t "$NS_PID" -m --wd="$PWD" -- setpriv --reuid "$USER_ID" --regid "$USER_ID" --clear-groups \
		env -u XDG_RUNTIME_DIR -u DBUS_SESSION_BUS_ADDRESS "$REAL_RUNTIME" --systemd-cgroup \
		--root "$XDG/tinyrun" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set"
	assert_equal "$(ls "$XDG/tinyrun")" ""
}

@test "systemd cgroup, rootless: the caller's DBUS_SESSION_BUS_ADDRESS comes first, never the image's" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.process.env += ["DBUS_SESSION_BUS_ADDRESS=unix:path=/image/bus"] | .process.args = ["true"]'
	mv "$XDG/bus" "$BATS_TEST_TMPDIR/elsewhere"
	chmod o+x "$BATS_TEST_TMPDIR"
	run_nohang nsenter -t "$NS_PID" -m --wd="$PWD" -- setpriv --reuid "$USER_ID" --regid "$USER_ID" --clear-groups \
		env USER=trtest XDG_RUNTIME_DIR="$XDG" DBUS_SESSION_BUS_ADDRESS="unix:path=$BATS_TEST_TMPDIR/elsewhere" \
		unshare --user --map-root-user "$REAL_RUNTIME" --systemd-cgroup run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_equal "$(calls StartTransientUnit | jq -r .name)" "$UNIT"
	assert_equal "$(calls StopUnit | jq -r .name)" "$UNIT"
}

# runc's rootless cgroupfs manager goes on without a cgroup it may not make
# when no limit is asked for; a systemd's refusal (AccessDenied, EACCES too)
# is not that, and stands
@test "systemd cgroup, rootless: the user's systemd refusing fails create with its error, even with no limit asked for; nothing left" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config 'del(.linux.resources) | .process.args = ["true"]'
	printf 'org.freedesktop.DBus.Error.AccessDenied\nmock: not yours\n' >"$SD/fail-get"
	run_nohang as_user "$REAL_RUNTIME" --systemd-cgroup run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output "tinyrun: --systemd-cgroup: Get ControlGroup: mock: not yours"
	assert_equal "$(ls "$XDG/tinyrun")" ""
	assert_equal "$(calls StartTransientUnit)" ""
}
