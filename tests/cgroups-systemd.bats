#!/usr/bin/env bats
# --systemd-cgroup with systemd "running" (without it, create is refused: cli.bats): the container's cgroup is a
# transient scope asked for over D-Bus (StartTransientUnit, StopUnit), as
# runc and crun do. No real systemd here: each test makes a private mount
# namespace with a tmpfs on /run holding /run/systemd/system (sd_booted) and
# a private dbus-daemon on /run/dbus/system_bus_socket, where
# tests/lib/mock-systemd.py plays systemd's Manager (it makes the scope's
# cgroup in its own hierarchies: the cgroup2 and name=systemd on a hybrid host,
# /sys/fs/cgroup on cgroup v2; and records each call). Runs on the hybrid
# host and in a cgroup v2 guest (vm-run -- bats tests/cgroups-systemd.bats).
# Every runtime command of a test runs in that namespace (RUNTIME is a
# wrapper that nsenters it), with --systemd-cgroup.

load helpers
load lib/fake-systemd

setup_file() {
	local why
	why="$(fake_systemd_missing)"
	[[ -z "$why" ]] || skip "$why"
	command -v strace >/dev/null || skip "strace is not installed (make deps)"
	if [[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]]; then
		[[ -d /sys/fs/cgroup/unified ]] || skip "a v1-only host: the mock needs a cgroup2 (hybrid or v2)"
	fi
	return 0
}

v2() {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]]
}

setup() {
	tr_setup
	REAL_RUNTIME="$RUNTIME"
	SD="$BATS_TEST_TMPDIR/sd"
	mkdir -p "$SD"
	SLICE="$TOKEN-sub.slice"
	UNIT="tinyrun-$CID.scope"
	CGPATH="/$TOKEN.slice/$TOKEN-sub.slice/$UNIT"
	update_config '.linux.cgroupsPath = $p' --arg p "$SLICE:tinyrun:$CID"
	fake_systemd "$SD" system /run/dbus/system_bus_socket
	RUNTIME="$BATS_TEST_TMPDIR/tinyrun-in-ns"
	printf '#!/bin/sh\nexec nsenter -t %s -m --wd="$PWD" -- %q --systemd-cgroup "$@"\n' "$NS_PID" "$REAL_RUNTIME" >"$RUNTIME"
	chmod +x "$RUNTIME"
}

teardown() {
	local d id pid
	# containers first, while the fake systemd still answers StopUnit
	for d in "$ROOT"/*/; do
		[[ -d "$d" ]] || continue
		id="$(basename "$d")"
		timeout -k 2 20 "$RUNTIME" --root "$ROOT" delete --force "$id" </dev/null >/dev/null 2>&1 3>&- 4>&- || true
	done
	fake_systemd_stop
	# the slices (tinyrun and systemd leave parents); a scope left fails below
	for d in /sys/fs/cgroup/{,*/}"$TOKEN.slice/$TOKEN-sub.slice" /sys/fs/cgroup/{,*/}"$TOKEN.slice"; do
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	RUNTIME="$REAL_RUNTIME" tr_teardown
}

calls() {
	fake_systemd_calls "$@"
}

# Every directory of the container's scope, in any hierarchy.
scope_dirs() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 5 -type d -name "$UNIT" 2>/dev/null
}

@test "systemd cgroup: the container's cgroup is a transient scope made with StartTransientUnit" {
	update_config '.linux.resources.memory = {"limit": 67108864}'
	bind_out_dir
	set_cmd 'cat /proc/self/cgroup >/out/cgroup; exec sleep 3600'
	create_container "$CID"
	local pid line n=0
	pid="$(state_field "$CID" pid)"
	# the call: the unit name, Slice, Delegate, PIDs = [the init], no dependencies
	run calls StartTransientUnit
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jq -r .name <<<"$output")" "$UNIT"
	assert_equal "$(jq -r .mode <<<"$output")" fail
	assert_equal "$(jq -r .properties.Slice <<<"$output")" "$SLICE"
	assert_equal "$(jq -r .properties.Delegate <<<"$output")" true
	assert_equal "$(jq -c .properties.PIDs <<<"$output")" "[$pid]"
	assert_equal "$(jq -r .properties.DefaultDependencies <<<"$output")" false
	assert_equal "$(jq -r .properties.MemoryAccounting <<<"$output")" true
	[[ "$(jq -r .properties.Description <<<"$output")" == *"$CID"* ]]
	# the init is in the scope's path in every hierarchy (systemd's and the v1 controllers)
	while read -r line; do
		[[ "$line" == *":$CGPATH" ]] || fail "not in $CGPATH: $line"
		n=$((n + 1))
	done <"/proc/$pid/cgroup"
	grep -q "^0::$CGPATH\$" "/proc/$pid/cgroup"
	# the resources are tinyrun's own cgroupfs writes at the same path
	if v2; then
		assert_equal "$(cat "/sys/fs/cgroup$CGPATH/memory.max")" 67108864
	else
		[[ $n -ge 8 ]]
		grep -q ":name=systemd:$CGPATH\$" "/proc/$pid/cgroup"
		assert_equal "$(cat "/sys/fs/cgroup/memory$CGPATH/memory.limit_in_bytes")" 67108864
	fi
	# and the container sees itself there too once started
	runtime start "$CID"
	wait_for_file "$OUT/cgroup"
	while read -r line; do
		[[ "$line" == *":$CGPATH" ]] || fail "the container sees: $line"
	done <"$OUT/cgroup"
	runtime delete --force "$CID"
	run calls StopUnit
	assert_equal "$(jq -r .name <<<"$output")" "$UNIT"
	assert_equal "$(jq -r .mode <<<"$output")" replace
	assert_equal "$(scope_dirs)" ""
}

# runc's properties: systemd keeps the limits when it next realizes the
# unit's cgroup (a daemon-reload), where it would reset cgroupfs writes of
# its units' own attributes
@test "systemd cgroup: linux.resources become the unit's properties, and update sets them with SetUnitProperties" {
	update_config '.linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 42},
		"cpu": {"shares": 512, "quota": 25000, "period": 50000, "cpus": "0"}}'
	create_container "$CID"
	run calls StartTransientUnit
	local props
	props="$(jq -c .properties <<<"$output")"
	assert_equal "$(jq -r .TasksMax <<<"$props")" 42
	# 25 ms per 50 ms: 500 ms of CPU a second; cpu 0: the bitmask [1]
	assert_equal "$(jq -r .CPUQuotaPerSecUSec <<<"$props")" 500000
	assert_equal "$(jq -r .CPUQuotaPeriodUSec <<<"$props")" 50000
	assert_equal "$(jq -c .AllowedCPUs <<<"$props")" "[1]"
	# systemd's Version asked first (CPUQuotaPeriodUSec 242, AllowedCPUs 244)
	assert_equal "$(calls Get | jq -r .name)" Version
	# cgroup v1: the device rules too (systemd would write "a" to devices.allow at its next
	# daemon-reload otherwise); v2: systemd leaves tinyrun's BPF program alone, so none
	if v2; then
		assert_equal "$(jq -r '.DevicePolicy, .DeviceAllow' <<<"$props" | paste -sd' ')" "null null"
	else
		assert_equal "$(jq -r .DevicePolicy <<<"$props")" strict
		run jq -r '.DeviceAllow[] | join(" ")' <<<"$props"
		assert_line "/dev/char/1:3 rwm"
		assert_line "/dev/char/10:200 rwm"
		assert_line "char-* m"
		assert_line "block-* m"
		assert_line "char-pts rwm"
		assert_equal "${#lines[@]}" 11   # the defaults (runc's list)
	fi
	if v2; then
		assert_equal "$(jq -r .MemoryMax <<<"$props")" 67108864
		# the weight tinyrun wrote itself (shares -> weight, crun's and runc 1.3's formula)
		assert_equal "$(jq -r .CPUWeight <<<"$props")" "$(cat "/sys/fs/cgroup$CGPATH/cpu.weight")"
	else
		assert_equal "$(jq -r .MemoryLimit <<<"$props")" 67108864
		assert_equal "$(jq -r .CPUShares <<<"$props")" 512
	fi
	# update: the new values in cgroupfs and in the unit (runtime), nothing else
	runtime update --memory 134217728 --pids-limit -1 "$CID"
	run calls SetUnitProperties
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jq -r '.name + " " + .mode' <<<"$output")" "$UNIT runtime"
	props="$(jq -c .properties <<<"$output")"
	# infinity: UINT64_MAX (jq reads it as a double)
	assert_equal "$(jq -r '.TasksMax >= 18446744073709551615' <<<"$props")" true
	assert_equal "$(jq -r 'if has("MemoryMax") then .MemoryMax else .MemoryLimit end' <<<"$props")" 134217728
	assert_equal "$(jq -r 'has("CPUShares") or has("CPUWeight") or has("AllowedCPUs")' <<<"$props")" false
	if v2; then
		assert_equal "$(cat "/sys/fs/cgroup$CGPATH/memory.max")" 134217728
	else
		assert_equal "$(cat "/sys/fs/cgroup/memory$CGPATH/memory.limit_in_bytes")" 134217728
	fi
	# a systemd older than 244 does not know AllowedCPUs, nor one older than 242 the period:
	# left out (cgroupfs has them), so that the unit still starts
	runtime delete --force "$CID"
	echo 241 >"$SD/version"
	: >"$SD/calls"
	create_container "$CID"
	props="$(calls StartTransientUnit | jq -c .properties)"
	assert_equal "$(jq -r '.AllowedCPUs, .CPUQuotaPeriodUSec, .CPUQuotaPerSecUSec' <<<"$props" | paste -sd' ')" \
		"null null 500000"
	runtime delete --force "$CID"
	assert_equal "$(scope_dirs)" ""
}

@test "systemd cgroup: a cgroup namespace is made inside the scope (the init joins it first)" {
	update_config '.linux.namespaces += [{"type": "cgroup"}]'
	bind_out_dir
	set_cmd 'cat /proc/self/cgroup >/out/cgroup; exec sleep 3600'
	create_container "$CID"
	grep -q ":$CGPATH\$" "/proc/$(state_field "$CID" pid)/cgroup"
	runtime start "$CID"
	wait_for_file "$OUT/cgroup"
	# the namespace's root is the scope: every hierarchy reads "/"
	run grep -cv ':/$' "$OUT/cgroup"
	assert_output 0
	runtime delete --force "$CID"
	assert_equal "$(scope_dirs)" ""
}

@test "systemd cgroup: an init forked into a new time namespace is in the scope too" {
	update_config '.linux.namespaces += [{"type": "time"}]'
	create_container "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	# the unit got the first child (gone since); its fork, the init, is in the scope
	[[ "$(jq -c .properties.PIDs <<<"$(calls StartTransientUnit)")" != "[$pid]" ]]
	run grep -cv ":$CGPATH\$" "/proc/$pid/cgroup"
	assert_output 0
	grep -q "^0::$CGPATH\$" "/proc/$pid/cgroup"
	runtime delete --force "$CID"
	assert_equal "$(scope_dirs)" ""
}

@test "systemd cgroup: a unit systemd refuses fails create with the bus error and leaves nothing" {
	printf 'org.freedesktop.DBus.Error.AccessDenied\nmock: no scopes today\n' >"$SD/fail-start"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_equal "$status" 1
	assert_output --partial "--systemd-cgroup: StartTransientUnit $UNIT: mock: no scopes today"
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(scope_dirs)" ""
	# nothing was started, so nothing is stopped
	assert_equal "$(calls StopUnit)" ""
}

@test "systemd cgroup: a scope that already exists is named, and the container owning it is left alone" {
	create_container "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID-2"
	assert_equal "$status" 1
	assert_output --partial "StartTransientUnit $UNIT: Unit $UNIT was already loaded or has a fragment file."
	[[ ! -e "$ROOT/$CID-2" ]]
	proc_alive "$pid"
	grep -q "^0::$CGPATH\$" "/proc/$pid/cgroup"
	assert_equal "$(calls StopUnit)" ""
	assert_equal "$(state_field "$CID" status)" created
}

@test "systemd cgroup: a failed start job fails create, stops the unit and leaves nothing" {
	echo failed >"$SD/job-result"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_equal "$status" 1
	assert_output --partial "StartTransientUnit $UNIT: the job ended \"failed\""
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(jq -r .name <<<"$(calls StopUnit)")" "$UNIT"
	assert_equal "$(scope_dirs)" ""
}

@test "systemd cgroup: a name ending in .slice makes that slice" {
	local name="$TOKEN-sub-$CID.slice"
	update_config '.linux.cgroupsPath = $p' --arg p "$SLICE:tinyrun:$name"
	UNIT="$name"
	CGPATH="/$TOKEN.slice/$TOKEN-sub.slice/$name"
	create_container "$CID"
	run calls StartTransientUnit
	assert_equal "$(jq -r .name <<<"$output")" "$name"
	assert_equal "$(jq -c .properties.Wants <<<"$output")" "[\"$SLICE\"]"
	assert_equal "$(jq -r .properties.PIDs <<<"$output")" null
	run grep -cv ":$CGPATH\$" "/proc/$(state_field "$CID" pid)/cgroup"
	assert_output 0
	runtime delete --force "$CID"
	assert_equal "$(jq -r .name <<<"$(calls StopUnit)")" "$name"
	assert_equal "$(scope_dirs)" ""
}

@test "systemd cgroup: the bus is connected to only with --systemd-cgroup and systemd running, no library loaded" {
	run ldd "$REAL_RUNTIME"
	refute_output --partial libsystemd
	# here (the fake systemd runs): our own client connects to the bus; nothing is dlopen'd
	run_nohang "$TEST_LIB_BIN/subreaper" strace -o "$BATS_TEST_TMPDIR/with.strace" -e trace=openat,open,connect \
		"$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_success
	record_container_pid "$CID"
	grep -q 'connect(.*/run/dbus/system_bus_socket' "$BATS_TEST_TMPDIR/with.strace"
	run grep -c 'libsystemd' "$BATS_TEST_TMPDIR/with.strace"
	assert_output 0
	runtime delete --force "$CID"
	# on the host (no /run/systemd/system): refused as runc does, no bus
	run_nohang "$TEST_LIB_BIN/subreaper" strace -o "$BATS_TEST_TMPDIR/host.strace" -e trace=openat,open,connect \
		"$REAL_RUNTIME" --systemd-cgroup --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "systemd is not running on this host"
	run grep -cE 'libsystemd|system_bus_socket' "$BATS_TEST_TMPDIR/host.strace"
	assert_output 0
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(scope_dirs)" ""
	# without --systemd-cgroup, even with systemd running: no bus
	update_config '.linux.cgroupsPath = $p' --arg p "/$TOKEN.slice/plain-$CID"
	run_nohang "$TEST_LIB_BIN/subreaper" strace -o "$BATS_TEST_TMPDIR/plain.strace" -e trace=openat,open,connect \
		nsenter -t "$NS_PID" -m -- "$REAL_RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_success
	record_container_pid "$CID"
	run grep -cE 'libsystemd|system_bus_socket' "$BATS_TEST_TMPDIR/plain.strace"
	assert_output 0
	"$REAL_RUNTIME" --root "$ROOT" delete --force "$CID"
}

# The bus address is the caller's DBUS_SYSTEM_BUS_ADDRESS (read from the
# caller's environment as captured, oci/callerenv.h), whatever the image's
# process.env says.
@test "systemd cgroup: the caller's DBUS_SYSTEM_BUS_ADDRESS is used, never the image's" {
	update_config '.process.env += ["DBUS_SYSTEM_BUS_ADDRESS=unix:path=/image/bus"]'
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$BATS_TEST_TMPDIR/no-bus" \
		run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_equal "$status" 1
	assert_output --partial "--systemd-cgroup: connecting to the system bus"
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(calls StartTransientUnit)" ""
	# the same bus by another name: the caller's address is the one used
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=/proc/$NS_PID/root/run/dbus/system_bus_socket" create_container "$CID"
	assert_equal "$(calls StartTransientUnit | jq -r .name)" "$UNIT"
	runtime delete --force "$CID"
	assert_equal "$(scope_dirs)" ""
}

# A rootless caller's --systemd-cgroup asks the user's own systemd
# (cgroups-systemd-user.bats, in a cgroup v2 guest); such a systemd manages
# no v1 hierarchy, so on a hybrid or v1 host it is refused, as runc does,
# before any bus is asked.
@test "systemd cgroup: a rootless caller on a host that is not cgroup v2 is refused naming it; no bus is asked, nothing left" {
	v2 && skip "this host is cgroup v2 (cgroups-systemd-user.bats covers it)"
	local uid=65534 xdg="$BATS_TEST_TMPDIR/xdg"
	users_root_bundle "$uid" "$xdg"
	run_nohang strace -f -o "$BATS_TEST_TMPDIR/strace" -e trace=connect nsenter -t "$NS_PID" -m --wd="$PWD" -- \
		setpriv --reuid "$uid" --regid "$uid" --clear-groups env USER=trtest XDG_RUNTIME_DIR="$xdg" \
		unshare --user --map-root-user "$REAL_RUNTIME" --systemd-cgroup run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output "tinyrun: --systemd-cgroup: a rootless caller's systemd manages cgroup v2 only, and this host is hybrid (use cgroupfs: no --systemd-cgroup)"
	run grep -cE 'connect\(.*bus' "$BATS_TEST_TMPDIR/strace"
	assert_output 0
	assert_equal "$(ls "$xdg/tinyrun")" ""
	assert_equal "$(calls StartTransientUnit)" ""
}
