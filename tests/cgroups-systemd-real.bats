#!/usr/bin/env bats
# --systemd-cgroup against a real systemd, where cgroups-systemd.bats and
# cgroups-systemd-user.bats talk to tests/lib/mock-systemd.py: what systemd
# itself does with the scopes tinyrun asks for. One systemd for the file
# (Debian 12's 252, setup_file: real_systemd_boot, tests/lib/real-systemd.bash),
# PID 1 of its own namespaces, in a cgroup of its own. The runtime runs as a
# transient service of it (sd_run), as containerd's shim runs it under
# containerd.service: in its pid namespace, from a service's cgroup, the
# cgroup paths as that systemd sees them (/system.slice/tinyrun-<id>.scope).
# The tests ask systemd (systemctl, sd_in) and read the cgroup files from
# outside ($RSD_CG is that systemd's /sys/fs/cgroup). Every unit a test makes
# carries its token; teardown fails the test when one is left, or a scope, a
# state dir, a cgroup or a process. Clients too: containerd as a service of
# it (ctr --runc-systemd-cgroup), podman --cgroup-manager systemd.
#
# cgroup v2 only. On a host without cgroup2 at /sys/fs/cgroup (our hybrid
# machines), this same file runs in a vm-run guest (guest_setup_file), and
# every test here reports the guest's verdict for itself.

load helpers
load lib/real-systemd

setup_file() {
	local a
	guest_setup_file cgroups-systemd-real.bats 900
	on_cgroup2 || return 0
	export RSD_SKIP
	RSD_SKIP="$(real_systemd_missing)"
	[[ -z "$RSD_SKIP" ]] || return 0   # bats 1.8 cannot skip from setup_file
	# the rootfs of every test's bundle (read-only) and of the image: busybox
	# with the applets the tests run (the suites' base rootfs links every
	# applet, 40 s in an emulated guest)
	export RSD_ROOTFS="$BATS_FILE_TMPDIR/rootfs"
	mkdir -p "$RSD_ROOTFS/bin" "$RSD_ROOTFS/dev" "$RSD_ROOTFS/proc" "$RSD_ROOTFS/sys" "$RSD_ROOTFS/etc" \
		"$RSD_ROOTFS/tmp" || return 1
	cp /bin/busybox "$RSD_ROOTFS/bin/" || return 1
	for a in sh cat sleep stat head wc; do
		ln -s busybox "$RSD_ROOTFS/bin/$a" || return 1
	done
	real_systemd_boot "$BATS_FILE_TMPDIR/sd"
}

teardown_file() {
	on_cgroup2 || return 0
	[[ -n "${RSD_DIR:-}" ]] || return 0
	real_systemd_stop
}

setup() {
	on_cgroup2 || return 0
	[[ -z "${RSD_SKIP:-}" ]] || skip "$RSD_SKIP"
	TOKEN="trt$$r$RANDOM"
	export TINYRUN_TEST_TOKEN="$TOKEN"
	CID="$TOKEN"
	UNIT="tinyrun-$CID.scope"
	ROOT="$BATS_TEST_TMPDIR/state"
	BUNDLE="$BATS_TEST_TMPDIR/bundle"
	NOHANG_SEQ=0
	mkdir -p "$ROOT" "$BUNDLE"
	jq --arg tok "TINYRUN_TEST_TOKEN=$TOKEN" --arg root "$RSD_ROOTFS" --arg p "system.slice:tinyrun:$CID" \
		'.root.path = $root | .process.env += [$tok] | .process.args = ["sleep", "3600"]
		| .linux.cgroupsPath = $p' "$TESTS_DIR/lib/config.json" >"$BUNDLE/config.json"
}

teardown() {
	on_cgroup2 || return 0
	[[ -n "${ROOT:-}" ]] || return 0
	local d left names rc=0
	export -n TINYRUN_TEST_TOKEN
	for d in "$ROOT"/*/; do
		[[ -d "$d" ]] || continue
		sd_run timeout -k 5 30 "$RUNTIME" --root "$ROOT" delete --force "$(basename "$d")" \
			</dev/null >/dev/null 2>&1 || true
	done
	# the units of the test (their names carry the token), and any scope but
	# systemd's own: stopped, and forgotten when they failed
	left="$(units_left)"
	if [[ -n "$left" ]]; then
		names="$(awk '{print $1}' <<<"$left")"
		# shellcheck disable=SC2086 # one unit a word
		sd_in systemctl stop $names </dev/null >/dev/null 2>&1
		# shellcheck disable=SC2086
		sd_in systemctl reset-failed $names </dev/null >/dev/null 2>&1
		{ printf 'systemd units left:\n%s\n' "$left" | batslib_decorate "leftovers" | fail; } || rc=1
	fi
	assert_no_leftovers || rc=1
	[[ $rc -eq 0 ]] || force_cleanup
	return $rc
}

# units_left: the units whose name has the test's token (loaded, any state),
# and every scope but init.scope
units_left() {
	sd_in systemctl list-units --all --plain --no-legend --full </dev/null 2>&1 |
		awk -v t="$TOKEN" 'index($1, t) || ($1 ~ /\.scope$/ && $1 != "init.scope")'
}

# rt ARGS: the runtime, with the test's --root, as a service of the test's
# systemd (like run_nohang: $status, $output, $lines; a container's stdio is
# the log file)
rt() {
	run_nohang sd_run timeout -k 5 120 "$RUNTIME" --root "$ROOT" "$@"
}

# rt_sd ARGS: the same with --systemd-cgroup
rt_sd() {
	run_nohang sd_run timeout -k 5 120 "$RUNTIME" --systemd-cgroup --root "$ROOT" "$@"
}

# unit_prop UNIT PROP: one property of a unit, as systemctl shows it
unit_prop() {
	sd_in systemctl show "$1" -p "$2" --value </dev/null
}

# the only process of the cgroup dir $1 (as seen here)
only_pid() {
	local pids
	pids="$(cat "$1/cgroup.procs")" || return 1
	[[ -n "$pids" && "$pids" != *$'\n'* ]] || { echo "not one process in $1: $pids" >&2; return 1; }
	echo "$pids"
}

# limits DIR: the v2 files that linux.resources sets, NAME=VALUE on one line
limits() {
	local f out=""
	for f in memory.max pids.max cpu.max cpu.weight cpuset.cpus; do
		out+="${out:+ }$f=$(cat "$1/$f")"
	done
	echo "$out"
}

@test "real systemd: linux.resources are the scope's properties: the limits survive daemon-reload, update and set-property; exec joins the scope; delete removes it" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.linux.resources += {"memory": {"limit": 67108864}, "pids": {"limit": 42},
		"cpu": {"shares": 512, "quota": 25000, "period": 50000, "cpus": "0"}, "blockIO": {"weight": 500},
		"unified": {"memory.high": "52428800"}}'
	rt_sd run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	local cg="$RSD_CG/system.slice/$UNIT" pid want io=""
	pid="$(only_pid "$cg")"
	assert_equal "$(cat "/proc/$pid/cgroup")" "0::${cg#/sys/fs/cgroup}"
	want="memory.max=67108864 pids.max=42 cpu.max=25000 50000 cpu.weight=59 cpuset.cpus=0"
	assert_equal "$(limits "$cg")" "$want"
	# a daemon-reload makes systemd write each unit's own settings to its
	# cgroup again (systemctl returns once it has): they are the limits
	[[ -e "$cg/io.weight" ]] && io="$(cat "$cg/io.weight")"
	sd_in systemctl daemon-reload
	assert_equal "after daemon-reload: $(limits "$cg")" "after daemon-reload: $want"
	# unified's memory.high (MemoryHigh) and blockIO.weight (IOWeight) too
	assert_equal "memory.high $(cat "$cg/memory.high")" "memory.high 52428800"
	[[ -z "$io" ]] || assert_equal "io.weight $(cat "$cg/io.weight")" "io.weight $io"
	[[ -z "$io" || "$io" == *4950* ]] || fail "io.weight before the reload: $io"
	run sd_in systemctl show "$UNIT" -p MemoryMax,TasksMax,CPUWeight,CPUQuotaPerSecUSec,CPUQuotaPeriodUSec \
		-p AllowedCPUs,Delegate,Slice,ControlGroup,ActiveState
	assert_success
	assert_line MemoryMax=67108864
	assert_line TasksMax=42
	assert_line CPUWeight=59
	assert_line CPUQuotaPerSecUSec=500ms
	assert_line CPUQuotaPeriodUSec=50ms
	assert_line AllowedCPUs=0
	assert_line Delegate=yes
	assert_line Slice=system.slice
	assert_line "ControlGroup=/system.slice/$UNIT"
	assert_line ActiveState=active
	# update: in the files and in the unit, so the next reload keeps it
	rt update --memory 134217728 --pids-limit 100 "$CID"
	assert_success
	run sd_in systemctl show "$UNIT" -p MemoryMax,TasksMax
	assert_line MemoryMax=134217728
	assert_line TasksMax=100
	sd_in systemctl daemon-reload
	want="memory.max=134217728 pids.max=100 cpu.max=25000 50000 cpu.weight=59 cpuset.cpus=0"
	assert_equal "after update and daemon-reload: $(limits "$cg")" "after update and daemon-reload: $want"
	# set-property of one attribute: systemd applies the unit's settings
	# again, the others kept (the next call to systemd comes after that)
	sd_in systemctl set-property --runtime "$UNIT" CPUWeight=77
	assert_equal "$(unit_prop "$UNIT" CPUWeight)" 77
	assert_equal "after set-property: $(limits "$cg")" "after set-property: ${want/cpu.weight=59/cpu.weight=77}"
	# exec: the process is in the scope (no cgroup namespace: the path shows)
	rt exec "$CID" cat /proc/self/cgroup
	assert_success
	assert_output "0::/system.slice/$UNIT"
	rt delete --force "$CID"
	assert_success
	assert_equal "$(unit_prop "$UNIT" LoadState)" not-found
	[[ ! -e "$cg" ]] || fail "the scope's cgroup is left"
	proc_wait_gone "$pid"
}

# update gives the changed fields only; the unit's CPUQuotaPerSecUSec is the
# quota over the period, so the one not given is the container's (runc merges
# the update into the container's resources first). A wrong value here is
# written by systemd itself, at once (cgroupfs gets the right one: runc's
# semantics, cgroups-v2.bats).
@test "real systemd: update --cpu-quota or --cpu-period alone keeps the other, in the unit and the files" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.linux.resources += {"cpu": {"quota": 25000, "period": 50000}}'
	rt_sd run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	local cg="$RSD_CG/system.slice/$UNIT"
	assert_equal "$(cat "$cg/cpu.max")" "25000 50000"
	rt update --cpu-quota 20000 "$CID"
	assert_success
	assert_equal "cpu.max $(cat "$cg/cpu.max") $(unit_prop "$UNIT" CPUQuotaPerSecUSec)" "cpu.max 20000 50000 400ms"
	rt update --cpu-period 100000 "$CID"
	assert_success
	assert_equal "cpu.max $(cat "$cg/cpu.max") $(unit_prop "$UNIT" CPUQuotaPerSecUSec)" "cpu.max 20000 100000 200ms"
	sd_in systemctl daemon-reload
	assert_equal "after daemon-reload: $(cat "$cg/cpu.max")" "after daemon-reload: 20000 100000"
	rt delete --force "$CID"
	assert_success
}

# The device rules are tinyrun's own eBPF program on the scope (cgroup v2),
# which systemd does not know of: a daemon-reload, where systemd applies each
# unit's settings to its cgroup again, its device policy among them (its own
# programs, attached beside others), must leave it in place. /dev/fuse opens
# without capabilities: only the device rules refuse it (/dev/kmsg would need
# CAP_SYSLOG to be read).
@test "real systemd: the device rules still hold after daemon-reload: a node they do not allow is refused, /dev/null and /dev/zero work" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.linux.devices = [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229}]'
	rt_sd run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	local probe='stat -c %t:%T /dev/fuse; head -c 4 /dev/zero | wc -c; echo x >/dev/null && echo null-ok; cat /dev/fuse'
	rt exec "$CID" sh -c "$probe"
	assert_failure 1
	assert_line a:e5
	assert_line 4
	assert_line null-ok
	assert_line "cat: can't open '/dev/fuse': Operation not permitted"
	sd_in systemctl daemon-reload
	assert_equal "$(unit_prop "$UNIT" ActiveState)" active
	rt exec "$CID" sh -c "$probe"
	assert_failure 1
	assert_line 4
	assert_line null-ok
	assert_line "cat: can't open '/dev/fuse': Operation not permitted"
	rt delete --force "$CID"
	assert_success
}

@test "real systemd: a kubelet pod slice (kubepods-burstable-pod<uid>.slice) nests as systemd's slices; no cgroupsPath is system.slice/tinyrun-<id>.scope" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local pod="kubepods-burstable-pod$TOKEN.slice"
	local podpath="/kubepods.slice/kubepods-burstable.slice/$pod"
	update_config '.linux.cgroupsPath = $p | .process.args = ["cat", "/proc/self/cgroup"]' \
		--arg p "$pod:cri-containerd:$CID"
	rt_sd run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "0::$podpath/cri-containerd-$CID.scope"
	# the slices are systemd's units now, the scope gone with the container
	assert_equal "$(unit_prop "$pod" ActiveState) $(unit_prop "$pod" ControlGroup)" "active $podpath"
	assert_equal "$(unit_prop "cri-containerd-$CID.scope" LoadState)" not-found
	[[ ! -e "$RSD_CG$podpath/cri-containerd-$CID.scope" ]] || fail "the scope's cgroup is left"
	# as kubelet does once the pod is gone (kubepods.slice: no other test uses it)
	sd_in systemctl stop "$pod" kubepods-burstable.slice kubepods.slice
	[[ ! -e "$RSD_CG/kubepods.slice" ]] || fail "kubepods.slice's cgroup is left after stop"
	update_config '.linux.cgroupsPath = ""'
	rt_sd run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "0::/system.slice/tinyrun-$CID.scope"
	assert_equal "$(unit_prop "$UNIT" LoadState)" not-found
}

@test "real systemd: a scope that already exists fails create with systemd's own error and leaves nothing; the container owning it is untouched" {
	if ! on_cgroup2; then guest_verdict; return; fi
	rt_sd run --detach --bundle "$BUNDLE" "$CID"
	assert_success
	local cg="$RSD_CG/system.slice/$UNIT" pid i
	pid="$(only_pid "$cg")"
	# another container, the same cgroupsPath
	rt_sd create --bundle "$BUNDLE" "$CID-2"
	assert_failure 1
	assert_output "tinyrun: --systemd-cgroup: StartTransientUnit $UNIT: Unit $UNIT was already loaded or has a fragment file."
	[[ ! -e "$ROOT/$CID-2" ]] || fail "the second container's state dir is left"
	# its init is gone; the first container's is the scope's only process
	for ((i = 0; i < 100; i++)); do
		[[ "$(test_pids)" == "$pid" ]] && break
		sleep 0.05
	done
	assert_equal "$(test_pids)" "$pid"
	assert_equal "$(cat "$cg/cgroup.procs")" "$pid"
	assert_equal "$(unit_prop "$UNIT" ActiveState)" active
	rt state "$CID"
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" running
	rt delete --force "$CID"
	assert_success
	[[ ! -e "$cg" ]] || fail "the scope's cgroup is left"
}

# containerd as systemd runs it (a service, Delegate=yes), ctr asking for
# the systemd driver: the shim runs tinyrun --systemd-cgroup with the
# container's cgroupsPath slice:prefix:name.
@test "real systemd: containerd as a service and ctr --runc-systemd-cgroup: run --rm, run -d, task exec in the scope, pause/resume, kill, delete; nothing left" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local t
	for t in containerd ctr containerd-shim-runc-v2; do
		command -v "$t" >/dev/null || skip "$t is not installed (make deps)"
	done
	local c="$BATS_TEST_TMPDIR/cd" img=localhost/tinyrun-test:latest i
	local r="r$CID" d="d$CID"
	local cg="$RSD_CG/system.slice/trt-$d.scope"
	local unit="containerd-$TOKEN.service"
	mkdir -p "$c/bin"
	# `runc` on its PATH too, as when a client names no binary
	ln -s "$RUNTIME" "$c/bin/runc"
	containerd_config "$c"
	sd_in systemd-run --unit="$unit" --collect --quiet -p DefaultDependencies=no -p Delegate=yes \
		--setenv=PATH="$c/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		containerd --config "$c/config.toml" </dev/null
	for ((i = 0; i < 600; i++)); do
		cx version >/dev/null 2>&1 && break
		sleep 0.1
	done
	cx version >/dev/null 2>&1 || fail "containerd does not answer: $(sd_in systemctl status "$unit" --no-pager)"
	tar -C "$RSD_ROOTFS" -cf "$c/rootfs.tar" .
	make_oci_archive "$c/rootfs.tar" "$img" '{Env: ["PATH=/bin"], Cmd: ["/bin/sh"]}' "$c/image.tar"
	cx images import "$c/image.tar" >/dev/null
	# run --rm: the container's output and exit status, its scope
	run_nohang cx run --rm --runc-binary "$RUNTIME" --runc-systemd-cgroup --cgroup "system.slice:trt:$r" \
		--env "TINYRUN_TEST_TOKEN=$TOKEN" "$img" "$r" sh -c 'cat /proc/self/cgroup; exit 3'
	assert_failure 3
	assert_line "0::/system.slice/trt-$r.scope"
	assert_equal "$(unit_prop "trt-$r.scope" LoadState)" not-found
	# run -d: the task's scope, active, with its init
	run_nohang cx run -d --runc-binary "$RUNTIME" --runc-systemd-cgroup --cgroup "system.slice:trt:$d" \
		--env "TINYRUN_TEST_TOKEN=$TOKEN" "$img" "$d" sleep 600
	assert_success
	assert_equal "$(unit_prop "trt-$d.scope" ActiveState)" active
	only_pid "$cg" >/dev/null
	run_nohang cx task exec --exec-id e1 "$d" cat /proc/self/cgroup
	assert_success
	assert_output "0::/system.slice/trt-$d.scope"
	cx task pause "$d"
	assert_equal "$(cat "$cg/cgroup.freeze")" 1
	assert_equal "$(task_status "$d")" PAUSED
	cx task resume "$d"
	assert_equal "$(cat "$cg/cgroup.freeze")" 0
	assert_equal "$(task_status "$d")" RUNNING
	cx task kill -s KILL "$d"
	for ((i = 0; i < 100; i++)); do
		[[ "$(task_status "$d")" == STOPPED ]] && break
		sleep 0.1
	done
	assert_equal "$(task_status "$d")" STOPPED
	cx task delete "$d" >/dev/null
	cx containers delete "$d"
	assert_equal "$(unit_prop "trt-$d.scope" LoadState)" not-found
	[[ ! -e "$cg" ]] || fail "the scope's cgroup is left"
	# containerd stopped as systemd stops it, its unit gone
	sd_in systemctl stop "$unit"
	assert_equal "$(unit_prop "$unit" LoadState)" not-found
}

# cx ARGS: ctr of the test's containerd, in the systemd's namespaces (its
# FIFOs are in that /run), the test's token as the namespace
cx() {
	sd_in ctr --address "$BATS_TEST_TMPDIR/cd/containerd.sock" --namespace "$TOKEN" "$@" </dev/null
}

task_status() {
	cx task ls | awk -v id="$1" '$1 == id {print $3}'
}

# pm ARGS: podman with storage of the test's own and the systemd cgroup
# manager (podman's default on a systemd host), as a service of the test's
# systemd (like rt), as if from a login shell: without the service's
# INVOCATION_ID, by which podman would leave conmon in the service's cgroup
# (where `podman generate systemd` units want it) instead of a scope
pm() {
	local p="$BATS_TEST_TMPDIR/pm"
	run_nohang sd_run timeout -k 5 300 env -u INVOCATION_ID podman --root "$p/storage" --runroot "$p/run" --tmpdir "$p/tmp" \
		--storage-driver overlay --cgroup-manager systemd --events-backend file --runtime "$RUNTIME" "$@"
}

# Rootful podman as a systemd host runs it: conmon in a scope of its own
# (libpod-conmon-ID.scope), the container in machine.slice/libpod-ID.scope,
# made by the runtime (podman passes --systemd-cgroup and machine.slice:libpod:ID).
@test "real systemd: podman --cgroup-manager systemd: run --rm, run -d in machine.slice/libpod-ID.scope with its limits across a daemon-reload, exec, pause, stop, rm; no unit left" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local t
	for t in podman conmon; do
		command -v "$t" >/dev/null || skip "$t is not installed (make deps)"
	done
	local tar="$BATS_TEST_TMPDIR/rootfs.tar" img=localhost/tinyrun-test:latest id cg
	tar -C "$RSD_ROOTFS" -cf "$tar" .
	pm import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$tar" "$img"
	assert_success
	pm run --rm --network none --cgroupns host -e "TINYRUN_TEST_TOKEN=$TOKEN" "$img" \
		sh -c 'cat /proc/self/cgroup; exit 3'
	assert_failure 3
	assert_line --regexp '^0::/machine.slice/libpod-[0-9a-f]{64}\.scope$'
	pm run -d --name "p$CID" --network none --cgroupns host --memory 64m --pids-limit 33 \
		-e "TINYRUN_TEST_TOKEN=$TOKEN" "$img" sleep 600
	assert_success
	id="${lines[-1]}"
	[[ "$id" =~ ^[0-9a-f]{64}$ ]] || fail "no container id: $output"
	cg="$RSD_CG/machine.slice/libpod-$id.scope"
	assert_equal "$(unit_prop "libpod-$id.scope" ActiveState)" active
	assert_equal "$(unit_prop "libpod-$id.scope" MemoryMax)" 67108864
	assert_equal "$(unit_prop "libpod-$id.scope" TasksMax)" 33
	assert_equal "$(unit_prop "libpod-conmon-$id.scope" ActiveState)" active
	only_pid "$cg" >/dev/null
	sd_in systemctl daemon-reload
	assert_equal "$(cat "$cg/memory.max") $(cat "$cg/pids.max")" "67108864 33"
	pm exec "p$CID" cat /proc/self/cgroup
	assert_success
	assert_output "0::/machine.slice/libpod-$id.scope"
	pm pause "p$CID"
	assert_success
	assert_equal "$(cat "$cg/cgroup.freeze")" 1
	pm unpause "p$CID"
	assert_success
	assert_equal "$(cat "$cg/cgroup.freeze")" 0
	pm stop -t 0 "p$CID"
	assert_success
	pm rm "p$CID"
	assert_success
	assert_equal "$(unit_prop "libpod-$id.scope" LoadState)" not-found
	[[ ! -e "$cg" ]] || fail "the scope's cgroup is left"
	pm rmi -a -f
}

# A pod under the systemd manager: podman makes the pod's slice
# (machine-libpod_pod_ID.slice, a child of machine.slice by its name) and
# gives each container of the pod that slice in its cgroupsPath.
@test "real systemd: a podman pod: the infra container's scope in the pod's slice, a member in the pod's pid namespace; pod rm leaves no unit" {
	if ! on_cgroup2; then guest_verdict; return; fi
	command -v podman >/dev/null && command -v conmon >/dev/null && command -v catatonit >/dev/null ||
		skip "podman, conmon or catatonit is not installed (make deps)"
	local tar="$BATS_TEST_TMPDIR/rootfs.tar" img=localhost/tinyrun-test:latest pod infra slice
	tar -C "$RSD_ROOTFS" -cf "$tar" .
	pm import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$tar" "$img"
	assert_success
	pm pod create --name "pod$CID" --share ipc,uts,net,pid
	assert_success
	pod="${lines[-1]}"
	pm pod start "pod$CID"
	assert_success
	infra="$(sd_run podman --root "$BATS_TEST_TMPDIR/pm/storage" --runroot "$BATS_TEST_TMPDIR/pm/run" \
		--tmpdir "$BATS_TEST_TMPDIR/pm/tmp" --storage-driver overlay --cgroup-manager systemd \
		--events-backend file pod inspect -f '{{.InfraContainerID}}' "pod$CID" </dev/null)"
	slice="machine-libpod_pod_$pod.slice"
	assert_equal "$(unit_prop "libpod-$infra.scope" ControlGroup)" "/machine.slice/$slice/libpod-$infra.scope"
	assert_equal "$(unit_prop "libpod-$infra.scope" ActiveState)" active
	only_pid "$RSD_CG/machine.slice/$slice/libpod-$infra.scope" >/dev/null
	pm run --rm --pod "pod$CID" --cgroupns host -e "TINYRUN_TEST_TOKEN=$TOKEN" "$img" \
		sh -c 'tr "\0" " " </proc/1/cmdline; echo; cat /proc/self/cgroup'
	assert_success
	assert_line --index 0 "/catatonit -P "
	assert_line --regexp "^0::/machine.slice/$slice/libpod-[0-9a-f]{64}\\.scope\$"
	pm pod rm -f -t 0 "pod$CID"
	assert_success
	assert_equal "$(unit_prop "libpod-$infra.scope" LoadState)" not-found
	[[ ! -e "$RSD_CG/machine.slice/$slice/libpod-$infra.scope" ]] || fail "the infra container's cgroup is left"
	pm rmi -a -f
}
