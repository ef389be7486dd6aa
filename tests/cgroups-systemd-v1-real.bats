#!/usr/bin/env bats
# --systemd-cgroup against a REAL systemd on a cgroup v1 or hybrid host (this
# project's machines): Debian's systemd booted as PID 1 of a tinyrun system
# container (tests/lib/systemd-container.bash: the host's /usr and /etc
# read-only, its own /tmp, /run, /var, /dev, namespaces and cgroup), and the
# runtime under test run inside it, from a transient service of that
# systemd, as containerd or podman run it. On v1 a systemd that realizes a
# unit's cgroup again (a daemon-reload: any package install runs one) writes
# its own device rules; a unit with none gets "a" in devices.allow: every
# device, to a container that may mknod. tinyrun sends its rules as
# DevicePolicy and DeviceAllow (runtime/cgroup/systemd-props.c). On a pure
# cgroup v2 host these tests skip: cgroups-systemd-real.bats covers v2 in
# the vm-run guest.

load helpers
load lib/systemd-container

setup_file() {
	local why
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]] && skip "a cgroup v2 host (cgroups-systemd-real.bats covers it)"
	why="$(systemd_container_missing)"
	[[ -z "$why" ]] || skip "$why"
	build_test_lib || return 1
	build_base_rootfs || return 1
	export SDC_DIR="$BATS_FILE_TMPDIR/sdc"
	# the runtime and the bundles at the same paths inside
	systemd_container_boot "$SDC_DIR" "$REPO_DIR" "$BATS_RUN_TMPDIR"
	export SDC_ROOT SDC_ID
}

teardown_file() {
	systemd_container_stop
}

setup() {
	tr_setup
	NROOT="/run/tinyrun-$TOKEN"     # the state root, inside the system container
	UNIT="tinyrun-$CID.scope"
	update_config '.linux.cgroupsPath = $p' --arg p "system.slice:tinyrun:$CID"
}

teardown() {
	sdc_exec "$RUNTIME" --root "$NROOT" delete --force "$CID" </dev/null >/dev/null 2>&1 || true
	tr_teardown
}

# the scope's directory in a v1 hierarchy, seen from the host
scope_dir() {
	echo "/sys/fs/cgroup/$1/$SDC_ID/system.slice/$UNIT"
}

# run -d of the bundle in the system container, from a service of its systemd
# (the container keeps its stdio: a file, not bats' pipe)
start_nested() {
	run_nohang sdc_service "$RUNTIME" --root "$NROOT" --systemd-cgroup run -d --bundle "$BUNDLE" "$CID"
	assert_success
}

# a nested runtime command in the system container
nested() {
	sdc_exec "$RUNTIME" --root "$NROOT" "$@"
}

@test "real systemd, cgroup v1: a daemon-reload keeps the container's device rules and limits (DevicePolicy, DeviceAllow)" {
	update_config '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]
		| .linux.resources = {memory: {limit: 67108864}, pids: {limit: 42}}
		| .process.capabilities.bounding += ["CAP_SYSLOG"] | .process.capabilities.effective += ["CAP_SYSLOG"]
		| .process.capabilities.permitted += ["CAP_SYSLOG"]'
	start_nested
	local devices before
	devices="$(scope_dir devices)"
	before="$(cat "$devices/devices.list")"
	# the rules hold: /dev/kmsg is refused, /dev/null works
	run nested exec "$CID" head -c 1 /dev/kmsg
	assert_failure
	assert_output --partial "Operation not permitted"
	run nested exec "$CID" sh -c 'echo x >/dev/null && head -c 3 /dev/zero | wc -c'
	assert_success
	assert_output 3
	# a daemon-reload realizes every unit's cgroup again
	sdc_exec systemctl daemon-reload
	run sdc_exec systemctl show "$UNIT" -p ActiveState
	assert_output ActiveState=active
	# (before tinyrun sent its rules, systemd wrote "a" to devices.allow here: the read worked)
	run nested exec "$CID" head -c 1 /dev/kmsg
	assert_failure
	assert_output --partial "Operation not permitted"
	assert_equal "$(cat "$devices/devices.list")" "$before"
	run nested exec "$CID" sh -c 'echo x >/dev/null && head -c 3 /dev/zero | wc -c'
	assert_success
	assert_output 3
	assert_equal "$(cat "$(scope_dir memory)/memory.limit_in_bytes")" 67108864
	assert_equal "$(cat "$(scope_dir pids)/pids.max")" 42
	# why: systemd holds the list the kernel holds (tinyrun's rules as DeviceAllow)
	run sdc_exec systemctl show "$UNIT" -p DevicePolicy -p DeviceAllow
	assert_line DevicePolicy=strict
	assert_line "DeviceAllow=/dev/char/1:3 rwm"
	assert_line "DeviceAllow=char-pts rwm"
	assert_line "DeviceAllow=char-* m"
	refute_line --partial "1:11"
	# delete stops the unit; nothing is left in systemd or in the hierarchies
	run nested delete --force "$CID"
	assert_success
	run sdc_exec systemctl show "$UNIT" -p LoadState
	assert_output LoadState=not-found
	[[ ! -e "$devices" && ! -e "$(scope_dir memory)" ]]
	run sdc_exec ls "$NROOT"
	assert_output ""
}

@test "real systemd, cgroup v1: an allow-all container (privileged) is DevicePolicy=auto, and stays allow-all after a daemon-reload" {
	update_config '.linux.devices = [{path: "/dev/kmsg", type: "c", major: 1, minor: 11}]
		| .linux.resources = {devices: [{allow: true, access: "rwm"}]}
		| .process.capabilities.bounding += ["CAP_SYSLOG"] | .process.capabilities.effective += ["CAP_SYSLOG"]
		| .process.capabilities.permitted += ["CAP_SYSLOG"]'
	start_nested
	run sdc_exec systemctl show "$UNIT" -p DevicePolicy -p DeviceAllow
	assert_output DevicePolicy=auto   # and no DeviceAllow: allow-all
	run nested exec "$CID" head -c 1 /dev/kmsg
	assert_success
	sdc_exec systemctl daemon-reload
	assert_equal "$(cat "$(scope_dir devices)/devices.list")" "a *:* rwm"
	run nested exec "$CID" head -c 1 /dev/kmsg
	assert_success
	run nested delete --force "$CID"
	assert_success
}

# pm ARGS: podman (storage of the test's own, the systemd cgroup manager:
# RHEL 8's and Ubuntu 20.04's default) in the system container, from a
# service of its systemd, as if from a login shell: without the service's
# INVOCATION_ID, by which podman would leave conmon in the service's cgroup
pm() {
	local p="$BATS_TEST_TMPDIR/pm"
	run_nohang sdc_service timeout -k 5 120 env -u INVOCATION_ID podman --root "$p/storage" \
		--runroot "$p/run" --tmpdir "$p/tmp" --storage-driver overlay --cgroup-manager systemd \
		--events-backend file --runtime "$RUNTIME" "$@"
}

# podman gives the runtime --systemd-cgroup and machine.slice:libpod:ID. With
# CAP_MKNOD (podman 4 no longer grants it by default) only the devices cgroup
# stands between the container and a node it makes of the host's block
# device (opened for reading without any other capability).
@test "real systemd, cgroup v1: podman --cgroup-manager systemd: machine.slice/libpod-ID.scope in every hierarchy with podman's limits and device rules across a daemon-reload; stop, rm leave no unit" {
	local t
	for t in podman conmon; do
		command -v "$t" >/dev/null || skip "$t is not installed (make deps)"
	done
	local tar="$BATS_TEST_TMPDIR/rootfs.tar" img=localhost/tinyrun-test:latest id unit d blk
	blk="$(find /sys/dev/block -mindepth 1 -maxdepth 1 -printf '%f\n' | head -n 1)"
	[[ "$blk" =~ ^[0-9]+:[0-9]+$ ]] || skip "no block device on this host"
	tar -C "$TEST_CACHE/rootfs" -cf "$tar" .
	# a host's /var/tmp (podman copies images through it): the container's /var is a tmpfs
	sdc_exec mkdir -p -m 1777 /var/tmp
	pm import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$tar" "$img"
	assert_success
	pm run -d --name "p$CID" --network none --memory 64m --pids-limit 33 --cap-add MKNOD \
		-e "TINYRUN_TEST_TOKEN=$TOKEN" "$img" sleep 600
	assert_success
	id="${lines[-1]}"
	[[ "$id" =~ ^[0-9a-f]{64}$ ]] || fail "no container id: $output"
	unit="libpod-$id.scope"
	d="$SDC_ID/machine.slice/$unit"
	run sdc_exec systemctl show "$unit" -p ActiveState -p DevicePolicy -p MemoryLimit -p TasksMax
	assert_line ActiveState=active
	assert_line DevicePolicy=strict
	assert_line MemoryLimit=67108864
	assert_line TasksMax=33
	# block nodes may be made (podman's "b *:* m"), not opened
	pm exec "p$CID" sh -c "mknod /tmp/disk b ${blk/:/ } && exec 3</tmp/disk && echo opened"
	assert_failure
	assert_output --partial "Operation not permitted"
	refute_line opened
	# the rules are systemd's too (the first test shows what a reload did
	# to a unit without them), and hold after a reload
	sdc_exec systemctl daemon-reload
	pm exec "p$CID" sh -c "exec 3</tmp/disk && echo opened"
	assert_failure
	assert_output --partial "Operation not permitted"
	refute_line opened
	assert_equal "$(cat "/sys/fs/cgroup/memory/$d/memory.limit_in_bytes")" 67108864
	assert_equal "$(cat "/sys/fs/cgroup/pids/$d/pids.max")" 33
	pm exec "p$CID" sh -c 'echo x >/dev/null && head -c 3 /dev/zero | wc -c'
	assert_success
	assert_output 3
	pm stop -t 0 "p$CID"
	assert_success
	pm rm "p$CID"
	assert_success
	run sdc_exec systemctl show "$unit" -p LoadState
	assert_output LoadState=not-found
	[[ ! -e "/sys/fs/cgroup/devices/$d" && ! -e "/sys/fs/cgroup/memory/$d" ]] || fail "the scope's cgroups are left"
	pm rmi -a -f
}
