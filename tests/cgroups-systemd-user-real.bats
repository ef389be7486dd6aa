#!/usr/bin/env bats
# --systemd-cgroup for a rootless caller against a REAL user manager: Debian's
# systemd booted as PID 1 of a tinyrun system container
# (tests/lib/systemd-container.bash), user@65534.service started in it
# (`nobody`: systemd --user with its session bus, dbus-user-session's, at
# /run/user/65534/bus; PAM left out, so XDG_RUNTIME_DIR is set in a drop-in),
# and tinyrun run as root of a user namespace of that user, as rootless podman
# runs it; then rootless podman itself (cgroup_manager systemd) with tinyrun
# as its runtime. cgroup v2 only: on our hybrid machines the file runs in the vm-run
# guest (guest_setup_file) and each test reports the guest's verdict.

load helpers
load lib/systemd-container

USER_ID=65534

setup_file() {
	guest_setup_file cgroups-systemd-user-real.bats 900
	on_cgroup2 || return 0
	local why
	why="$(systemd_container_missing)"
	[[ -z "$why" ]] || skip "$why"
	[[ -e /usr/lib/systemd/user/dbus.socket ]] || skip "no session bus for systemd --user (make deps: dbus-user-session)"
	command -v setpriv >/dev/null || skip "setpriv is not installed (make deps)"
	build_test_lib || return 1
	build_base_rootfs || return 1
	export SDC_DIR="$BATS_FILE_TMPDIR/sdc" UDIR="$BATS_FILE_TMPDIR/user"
	mkdir -p "$SDC_DIR/units/user@.service.d" "$UDIR"
	chown "$USER_ID:$USER_ID" "$UDIR"
	open_path "$UDIR"
	printf '[Service]\nPAMName=\nEnvironment=XDG_RUNTIME_DIR=/run/user/%%i\n' >"$SDC_DIR/units/user@.service.d/no-pam.conf"
	systemd_container_boot "$SDC_DIR" "$REPO_DIR" "$BATS_RUN_TMPDIR"
	export SDC_ROOT SDC_ID
	sdc_exec systemctl start "user@$USER_ID.service"
}

teardown_file() {
	on_cgroup2 || return 0
	systemd_container_stop
}

setup() {
	on_cgroup2 || return 0
	tr_setup
	BUNDLE="$UDIR/$CID"
	mkdir -p "$BUNDLE"
	cp -a "$TEST_CACHE/rootfs" "$BUNDLE/rootfs"
	jq --arg tok "TINYRUN_TEST_TOKEN=$TOKEN" '.process.env += [$tok] | .process.args = ["sleep", "3600"]
		| .process.terminal = false | .mounts |= map(if .options then .options -= ["gid=5"] else . end)
		| del(.linux.cgroupsPath)' "$TESTS_DIR/lib/config.json" >"$BUNDLE/config.json"
	chown -R "$USER_ID:$USER_ID" "$BUNDLE"
	UNIT="tinyrun-$CID.scope"
}

teardown() {
	on_cgroup2 || return 0
	as_user unshare --user --map-root-user "$RUNTIME" --systemd-cgroup delete --force "$CID" </dev/null >/dev/null 2>&1 || true
	tr_teardown
}

# as_user CMD...: CMD as the user, in the system container, with the user's
# runtime dir (its bus, the runtime's default --root), outside the user's
# manager's subtree (the container's init cgroup)
as_user() {
	sdc_exec setpriv --reuid "$USER_ID" --regid "$USER_ID" --clear-groups \
		env XDG_RUNTIME_DIR="/run/user/$USER_ID" USER=nobody HOME=/tmp "$@"
}

@test "real systemd, rootless: the user's systemd makes the scope under its own cgroup with the limits, keeps them across its daemon-reload; exec from outside its subtree is moved in; delete stops it" {
	if ! on_cgroup2; then guest_verdict; return; fi
	jq '.linux.resources = {memory: {limit: 67108864}, pids: {limit: 33}}' "$BUNDLE/config.json" >"$BUNDLE/c" &&
		mv "$BUNDLE/c" "$BUNDLE/config.json"
	local rt cg pid
	rt="$(printf '%q --systemd-cgroup' "$RUNTIME")"
	# one user namespace for all of it (podman's pause process plays that
	# part); run -d from a scope of the user's systemd, as podman runs the
	# runtime; exec from where the shell is: outside that systemd's subtree
	run as_user unshare --user --map-root-user sh -c "
		cd $(printf '%q' "$BUNDLE") || exit 1
		systemd-run --user --scope --quiet -- $rt run -d $CID </dev/null >$(printf '%q' "$UDIR/$CID.log") 2>&1 || exit 2
		echo exec: \$($rt exec $CID cat /proc/self/cgroup)
		systemctl --user daemon-reload
		echo state: \$($rt state $CID | grep -c running)
	"
	assert_success
	cg="/user.slice/user-$USER_ID.slice/user@$USER_ID.service/user.slice/$UNIT"
	assert_line "exec: 0::$cg"
	assert_line "state: 1"
	# the limits: in the files after the reload (the user's systemd wrote
	# the unit's own properties again), and as the unit's properties
	assert_equal "$(sdc_exec cat "/sys/fs/cgroup$cg/memory.max" "/sys/fs/cgroup$cg/pids.max" | paste -sd' ')" "67108864 33"
	run as_user systemctl --user show "$UNIT" -p MemoryMax -p TasksMax -p ControlGroup
	assert_line MemoryMax=67108864
	assert_line TasksMax=33
	assert_line "ControlGroup=$cg"
	pid="$(sdc_exec cat "/sys/fs/cgroup$cg/cgroup.procs" | head -1)"
	[[ -n "$pid" ]]
	run as_user unshare --user --map-root-user sh -c "$rt delete --force $CID"
	assert_success
	run as_user systemctl --user show "$UNIT" -p LoadState
	assert_output LoadState=not-found
	run sdc_exec test -e "/sys/fs/cgroup$cg"
	assert_failure
}

# Rootless podman as most users on a systemd host run it: cgroup_manager
# systemd, the user's own manager over the session bus. podman gives the
# runtime `--systemd-cgroup` and `user.slice:libpod:ID` (conmon and its
# pause process get scopes of their own); one id mapped (the user has no
# subordinate ids here), the catatonit pause process holding the namespace.
@test "real systemd, rootless podman (cgroup manager systemd): the container's libpod scope under the user's manager with podman's limits, across a daemon-reload; exec, stop, rm leave no unit" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local p
	for p in podman conmon catatonit; do
		command -v "$p" >/dev/null || skip "$p is not installed (make deps)"
	done
	local home="$UDIR/podman-$CID" name="u-$CID" id cg pid
	mkdir -p "$home"
	tar -C "$TEST_CACHE/rootfs" -cf "$home/rootfs.tar" .
	chown -R "$USER_ID:$USER_ID" "$home"
	pm_user() {
		as_user env HOME="$home" podman --cgroup-manager systemd --runtime "$RUNTIME" \
			--events-backend file "$@" </dev/null
	}
	run pm_user import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$home/rootfs.tar" localhost/u:latest
	assert_success
	run pm_user run -d --name "$name" --network none --memory 64m --pids-limit 33 \
		-e "TINYRUN_TEST_TOKEN=$TOKEN" localhost/u sleep 1000
	assert_success
	id="${lines[-1]}"
	[[ "$id" =~ ^[0-9a-f]{64}$ ]] || fail "no container id: $output"
	pid="$(pm_user inspect -f '{{.State.Pid}}' "$name")"
	cg="/user.slice/user-$USER_ID.slice/user@$USER_ID.service/user.slice/libpod-$id.scope"
	run sdc_exec cat "/proc/$pid/cgroup"
	assert_output "0::$cg"
	assert_equal "$(sdc_exec cat "/sys/fs/cgroup$cg/memory.max" "/sys/fs/cgroup$cg/pids.max" | paste -sd' ')" "67108864 33"
	run as_user systemctl --user show "libpod-$id.scope" -p MemoryMax -p TasksMax -p ActiveState
	assert_line MemoryMax=67108864
	assert_line TasksMax=33
	assert_line ActiveState=active
	run as_user systemctl --user daemon-reload
	assert_success
	assert_equal "$(sdc_exec cat "/sys/fs/cgroup$cg/memory.max" "/sys/fs/cgroup$cg/pids.max" | paste -sd' ')" "67108864 33"
	run pm_user exec "$name" sh -c 'echo exec-ok; cat /proc/self/uid_map | tr -s " "'
	assert_success
	assert_line exec-ok
	assert_line " 0 $USER_ID 1"
	run pm_user stop -t 0 "$name"
	assert_success
	run pm_user rm "$name"
	assert_success
	run as_user systemctl --user show "libpod-$id.scope" -p LoadState
	assert_output LoadState=not-found
	run sdc_exec test -e "/sys/fs/cgroup$cg"
	assert_failure
	# no state left in the runtime's default root (the user's runtime dir)
	run sdc_exec sh -c "find /run/user/$USER_ID/$(basename "$RUNTIME") -mindepth 1 2>/dev/null; true"
	assert_output ""
}
