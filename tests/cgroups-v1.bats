#!/usr/bin/env bats
# cgroups on a v1/hybrid host (this machine): placement in every hierarchy,
# linux.resources in the v1 files and in the kernel's behaviour, pause/resume,
# update, kill --all, ps, events, and nothing left after delete.
# The v2 twin is cgroups-v2.bats (run in a cgroup2 VM).

load helpers

setup_file() {
	if [[ "$(stat -f -c %T /sys/fs/cgroup)" != tmpfs ]]; then
		skip "not a cgroup v1/hybrid host"
	fi
}

setup() {
	tr_setup
	CGPARENT="/tinyrun-test-$TOKEN"
	CGPATH="$CGPARENT/$CID"
	update_config '.linux.cgroupsPath = $p' --arg p "$CGPATH"
}

teardown() {
	local d id
	# a process the test put in a "service" cgroup: by its pid, if it is still that one
	if [[ -n "${DECOY:-}" ]] && proc_alive "$DECOY" "$DECOY_START"; then
		kill -9 "$DECOY"
		proc_wait_gone "$DECOY" || true
	fi
	# The containers first, then the parents this suite made (rmdir only:
	# a container dir still inside makes it fail, and teardown reports it).
	for d in "$ROOT"/*/; do
		[[ -d "$d" ]] || continue
		id="$(basename "$d")"
		"$RUNTIME" --root "$ROOT" delete --force "$id" >/dev/null 2>&1 || true
	done
	for d in /sys/fs/cgroup/*"$CGPATH"; do
		[[ -f "$d/freezer.state" ]] && echo THAWED >"$d/freezer.state"
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	for d in /sys/fs/cgroup/*"$CGPARENT" /sys/fs/cgroup/*"$CGPARENT-svc" /sys/fs/cgroup/*/tinyrun/"rel-$TOKEN"; do
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	tr_teardown
}

# cg CTRL FILE: a file of the container's cgroup in hierarchy CTRL.
cg() {
	cat "/sys/fs/cgroup/$1$CGPATH/$2"
}

# The container's directories in every hierarchy (none after delete).
cg_dirs() {
	find /sys/fs/cgroup -mindepth 1 -maxdepth 6 -type d -name "$CID" 2>/dev/null
}

ctr_pid() {
	state_field "$CID" pid
}

# cpu ticks (utime + stime) a process has used
cpu_ticks() {
	local stat
	stat="$(cat "/proc/$1/stat")"
	stat="${stat##*) }"
	# shellcheck disable=SC2086
	set -- $stat
	echo $((${12} + ${13}))
}

events_implemented() {
	run_nohang runtime events --stats "$CID"
	[[ "$output" != *"not implemented"* ]]
}

@test "cgroups v1: the container is in every hierarchy at the default path /tinyrun/<id>" {
	update_config 'del(.linux.cgroupsPath)'
	CGPATH="/tinyrun/$CID"
	create_container "$CID"
	local pid n=0 line
	pid="$(ctr_pid)"
	# name=systemd, the unified hierarchy (hybrid) and every v1 controller
	while read -r line; do
		[[ "$line" == *":$CGPATH" ]] || fail "not in $CGPATH: $line"
		n=$((n + 1))
	done <"/proc/$pid/cgroup"
	[[ $n -ge 8 ]]
	assert_equal "$(cg pids cgroup.procs)" "$pid"
	assert_equal "$(cg unified cgroup.procs)" "$pid"
	assert_equal "$(cg systemd cgroup.procs)" "$pid"
	runtime delete --force "$CID"
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: an absolute cgroupsPath is used as is, a relative one goes under /tinyrun" {
	create_container "$CID"
	grep -q ":memory:$CGPATH\$" "/proc/$(ctr_pid)/cgroup"
	runtime delete --force "$CID"

	update_config '.linux.cgroupsPath = $p' --arg p "rel-$TOKEN/$CID"
	CGPATH="/tinyrun/rel-$TOKEN/$CID"
	create_container "$CID"
	grep -q "pids:$CGPATH\$" "/proc/$(ctr_pid)/cgroup"
	runtime delete --force "$CID"
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: linux.resources land in the v1 files" {
	local blk
	blk="$(cat /sys/block/vda/dev 2>/dev/null || cat /sys/block/loop0/dev)"
	update_config '.linux.resources += {
		"memory": {"limit": 67108864, "reservation": 33554432, "swap": 100663296, "swappiness": 20, "kernelTCP": 16777216},
		"cpu": {"shares": 512, "quota": 25000, "period": 50000, "cpus": "0", "mems": "0"},
		"pids": {"limit": 50},
		"blockIO": {"throttleReadBpsDevice": [{"major": ($b|split(":")[0]|tonumber), "minor": ($b|split(":")[1]|tonumber), "rate": 1048576}]}
	}' --arg b "$blk"
	create_container "$CID"
	assert_equal "$(cg memory memory.limit_in_bytes)" 67108864
	assert_equal "$(cg memory memory.soft_limit_in_bytes)" 33554432
	assert_equal "$(cg memory memory.memsw.limit_in_bytes)" 100663296
	assert_equal "$(cg memory memory.swappiness)" 20
	assert_equal "$(cg memory memory.kmem.tcp.limit_in_bytes)" 16777216
	assert_equal "$(cg cpu cpu.shares)" 512
	assert_equal "$(cg cpu cpu.cfs_quota_us)" 25000
	assert_equal "$(cg cpu cpu.cfs_period_us)" 50000
	assert_equal "$(cg cpuset cpuset.cpus)" 0
	assert_equal "$(cg cpuset cpuset.mems)" 0
	assert_equal "$(cg pids pids.max)" 50
	assert_equal "$(cg blkio blkio.throttle.read_bps_device)" "$blk 1048576"
	# deny all but the defaults: a whitelist with /dev/null, no "a *:* rwm"
	run cg devices devices.list
	assert_line "c 1:3 rwm"
	refute_line "a *:* rwm"
}

@test "cgroups v1: a fork bomb stops at pids.limit" {
	bind_out_dir
	update_config '.linux.resources.pids = {"limit": 8}'
	# The inner shell forks until the kernel refuses (ash then gives up);
	# the outer one reports. In the cgroup: outer sh + inner sh + 6 sleeps.
	set_cmd 'sh -c "for i in \$(seq 30); do sleep 1000 & done"; echo "rc=$?" >/out/done; exec sleep 1001'
	run_detached "$CID"
	wait_for_file "$OUT/done" "rc="
	run cg pids pids.events
	[[ "${output#max }" -ge 1 ]]
	run runtime ps "$CID"
	assert_success
	assert_equal "$(grep -c 'sleep 1000' <<<"$output")" 6
	assert_line --partial "sleep 1001"
	grep -q "can't fork" "$(container_log "$CID")"
}

# runtime-spec 1.3: 0 is a real pids limit (never "no limit"); runc 1.4
# writes 1, as systemd has no TasksMax=0. The init then cannot fork, and
# update --pids-limit 0 does the same; -1 is max.
@test "cgroups v1: pids.limit 0 is a limit (pids.max 1: the init cannot fork), in create and update" {
	update_config '.linux.resources.pids = {"limit": 0}'
	set_cmd 'sleep 0 & wait; echo forked'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure
	assert_output --partial "can't fork"
	refute_line forked
	set_args sleep 1000
	run_detached "$CID"
	assert_equal "$(cg pids pids.max)" 1
	runtime update --pids-limit -1 "$CID"
	assert_equal "$(cg pids pids.max)" max
	runtime update --pids-limit 0 "$CID"
	assert_equal "$(cg pids pids.max)" 1
}

@test "cgroups v1: an allocation beyond memory.limit is OOM-killed" {
	bind_out_dir
	update_config '.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
	set_cmd 'dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null; echo "dd=$?" >/out/dd; exec sleep 1000'
	run_detached "$CID"
	wait_for_file "$OUT/dd" "dd="
	assert_equal "$(cat "$OUT/dd")" "dd=137"
	run cg memory memory.oom_control
	assert_line "oom_kill 1"
}

@test "cgroups v1: events reports the OOM kill and --stats the usage" {
	bind_out_dir
	update_config '.linux.resources.memory = {"limit": 33554432, "swap": 33554432} | .linux.resources.pids = {"limit": 20}'
	set_cmd 'while [ ! -e /out/go ]; do sleep 0.1; done; dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null; echo "dd=$?" >/out/dd; exec sleep 1000'
	run_detached "$CID"
	events_implemented || skip "events is not implemented yet"
	assert_success
	assert_equal "$(jq -r .type <<<"$output")" stats
	assert_equal "$(jq -r .data.pids.limit <<<"$output")" 20
	assert_equal "$(jq -r .data.memory.usage.limit <<<"$output")" 33554432
	[[ "$(jq -r .data.pids.current <<<"$output")" -ge 1 ]]

	local log="$BATS_TEST_TMPDIR/events.log" epid
	"$RUNTIME" --root "$ROOT" events --interval 1s "$CID" >"$log" 2>&1 </dev/null 3>&- 4>&- &
	epid=$!
	record_pid "$epid"
	touch "$OUT/go"
	wait_for_file "$OUT/dd" "dd=137"
	wait_for_file "$log" '"type":"oom"'
	kill "$epid"
	wait "$epid" || true
}

@test "cgroups v1: events --stats has runc's cpuset and per-CPU kernel and user times" {
	update_config '.linux.resources.cpu = {"cpus": "0", "mems": "0"}'
	set_cmd 'exec sleep 1000'
	run_detached "$CID"
	run_nohang runtime events --stats "$CID"
	assert_success
	assert_equal "$(jq -c .data.cpuset.cpus <<<"$output")" "[0]"
	assert_equal "$(jq -c .data.cpuset.mems <<<"$output")" "[0]"
	assert_equal "$(jq .data.cpuset.sched_load_balance <<<"$output")" "$(cg cpuset cpuset.sched_load_balance)"
	assert_equal "$(jq .data.cpuset.sched_relax_domain_level <<<"$output")" \
		"$(cg cpuset cpuset.sched_relax_domain_level)"
	assert_equal "$(jq .data.cpuset.mem_exclusive <<<"$output")" "$(cg cpuset cpuset.mem_exclusive)"
	# one entry per CPU, as cpuacct shows them (sleep uses no more cpu time)
	local f="/sys/fs/cgroup/cpuacct$CGPATH/cpuacct.usage_percpu"
	assert_equal "$(jq -r '.data.cpu.usage.percpu_kernel | join(" ")' <<<"$output")" "$(echo $(cat "${f}_sys"))"
	assert_equal "$(jq -r '.data.cpu.usage.percpu_user | join(" ")' <<<"$output")" "$(echo $(cat "${f}_user"))"
	assert_equal "$(jq '.data.cpu.usage.percpu | length' <<<"$output")" "$(wc -w <"$f")"
}

@test "cgroups v1: a denied device cannot be opened while an allowed one can" {
	mknod "$BUNDLE/rootfs/fuse" c 10 229
	set_cmd 'cat /dev/null && echo null-ok; (exec 3</fuse) && echo read-ok; (exec 4>/fuse) && echo write-ok; true'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line null-ok
	refute_line read-ok
	assert_output --partial "Operation not permitted"

	update_config '.linux.resources.devices += [{"allow": true, "type": "c", "major": 10, "minor": 229, "access": "r"}]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line read-ok
	refute_line write-ok
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: pause stops the process, resume restarts it" {
	set_cmd 'while :; do :; done'
	run_detached "$CID"
	local pid t1 t2 i
	pid="$(ctr_pid)"
	runtime pause "$CID"
	assert_equal "$(state_field "$CID" status)" paused
	assert_equal "$(cg freezer freezer.state)" FROZEN
	t1="$(cpu_ticks "$pid")"
	sleep 0.3
	t2="$(cpu_ticks "$pid")"
	assert_equal "$t2" "$t1"
	runtime resume "$CID"
	assert_equal "$(state_field "$CID" status)" running
	assert_equal "$(cg freezer freezer.state)" THAWED
	for ((i = 0; i < 200; i++)); do
		[[ "$(cpu_ticks "$pid")" -gt "$t2" ]] && break
		sleep 0.05
	done
	[[ "$(cpu_ticks "$pid")" -gt "$t2" ]]
}

# How many `sleep 1000` the cgroup holds.
count_sleeps() {
	local p n=0
	for p in $(cg pids cgroup.procs); do
		[[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" == "sleep 1000 " ]] && n=$((n + 1))
	done
	echo "$n"
}

# wait_sleeps N: until the cgroup holds N `sleep 1000`.
wait_sleeps() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ "$(count_sleeps)" == "$1" ]] && return 0
		sleep 0.05
	done
	echo "$(count_sleeps) sleeps, wanted $1" >&2
	return 1
}

@test "cgroups v1: update changes live limits (flags and -r)" {
	update_config '.linux.resources += {"memory": {"limit": 67108864}, "pids": {"limit": 5}}'
	# An inner shell forks sleeps until refused, then gives up; the outer
	# starts another one: the cgroup fills up to the limit, again and again.
	# Stable: outer sh + (limit - 2) sleeps + 1 slot for the retrying shell.
	set_cmd 'while :; do sh -c "while :; do sleep 1000 & done" 2>/dev/null; sleep 0.05; done'
	run_detached "$CID"
	wait_sleeps 3

	runtime update --memory 134217728 --memory-swap 268435456 --pids-limit 9 --cpu-shares 256 \
		--cpu-quota 10000 --cpu-period 100000 --cpuset-cpus 0 "$CID"
	assert_equal "$(cg memory memory.limit_in_bytes)" 134217728
	assert_equal "$(cg memory memory.memsw.limit_in_bytes)" 268435456
	assert_equal "$(cg pids pids.max)" 9
	assert_equal "$(cg cpu cpu.shares)" 256
	assert_equal "$(cg cpu cpu.cfs_quota_us)" 10000
	assert_equal "$(cg cpuset cpuset.cpus)" 0
	# the raised limit lets more processes in
	wait_sleeps 7

	echo '{"memory": {"limit": 100663296}, "pids": {"limit": 12}}' >"$BATS_TEST_TMPDIR/r.json"
	runtime update -r "$BATS_TEST_TMPDIR/r.json" "$CID"
	assert_equal "$(cg memory memory.limit_in_bytes)" 100663296
	assert_equal "$(cg pids pids.max)" 12
	wait_sleeps 10
}

@test "cgroups v1: update --cpu-burst, --cpu-idle, and a real-time period below the current runtime (runtime first)" {
	[[ -f /sys/fs/cgroup/cpu/cpu.idle && -f /sys/fs/cgroup/cpu/cpu.cfs_burst_us ]] || skip "no cpu.idle / cpu.cfs_burst_us here"
	# the test's parent gets real-time time of its own to hand down
	mkdir -p "/sys/fs/cgroup/cpu$CGPARENT"
	echo 500000 >"/sys/fs/cgroup/cpu$CGPARENT/cpu.rt_runtime_us" || skip "no real-time time left to give"
	update_config '.linux.resources.cpu = {"quota": 50000, "period": 100000, "realtimePeriod": 100000, "realtimeRuntime": 40000}'
	set_args sleep 1000
	run_detached "$CID"
	runtime update --cpu-burst 20000 --cpu-idle 1 "$CID"
	assert_equal "$(cg cpu cpu.cfs_burst_us)" 20000
	assert_equal "$(cg cpu cpu.idle)" 1
	runtime update --cpu-idle 0 "$CID"
	assert_equal "$(cg cpu cpu.idle)" 0
	run runtime update --cpu-burst -1 "$CID"
	assert_failure 1
	# 10000 < the current runtime 40000: the kernel takes the period only
	# once the runtime is down (runc issue 4094)
	run runtime update --cpu-rt-period 10000 --cpu-rt-runtime 3000 "$CID"
	assert_success
	assert_equal "$(cg cpu cpu.rt_period_us)" 10000
	assert_equal "$(cg cpu cpu.rt_runtime_us)" 3000
	run runtime update --cpu-rt-period 100000 --cpu-rt-runtime 20000 "$CID"
	assert_success
	assert_equal "$(cg cpu cpu.rt_period_us)" 100000
	assert_equal "$(cg cpu cpu.rt_runtime_us)" 20000
}

# cpu_files: the container's cgroup files update's flags write (one line each)
cpu_files() {
	local f
	for f in cpu/cpu.shares cpu/cpu.cfs_quota_us cpu/cpu.cfs_period_us cpu/cpu.rt_period_us \
		cpu/cpu.rt_runtime_us memory/memory.limit_in_bytes memory/memory.soft_limit_in_bytes pids/pids.max; do
		echo "$f $(cg "${f%%/*}" "${f#*/}")"
	done
}

# Each flag has config.json's range for its field (oci_resources_set_number):
# --cpu-shares -1 was the maximum weight, --cpu-period -1 a kernel error
# after the other writes, as runc's ParseUint/ParseInt refuse them.
@test "cgroups v1: update refuses a value outside config.json's range, names the flag, writes nothing" {
	update_config '.linux.resources += {"cpu": {"shares": 512, "quota": 20000, "period": 100000}, "pids": {"limit": 50}}'
	set_args sleep 1000
	run_detached "$CID"
	local before args
	before="$(cpu_files)"
	run runtime update --cpu-shares -1 --pids-limit 40 "$CID"
	assert_failure 1
	assert_output "tinyrun: update: --cpu-shares: -1 is out of range (0 to 18446744073709551615) (see tinyrun update --help)"
	for args in "--cpu-period -1" "--cpu-rt-period -1" "--cpu-burst -1" "--cpu-shares 18446744073709551616" \
		"--cpu-quota 9223372036854775808" "--cpu-rt-runtime -9223372036854775809" "--cpu-idle 1.5" \
		"--pids-limit -2" "--blkio-weight 65536" "--blkio-weight -1" "--memory -2" "--memory-reservation -3" \
		"--memory-swap -4" "--cpu-shares 0x10" "--cpu-quota 1e3"; do
		# shellcheck disable=SC2086
		run runtime update $args --memory 64m "$CID"
		assert_failure 1
		[[ "$output" == "tinyrun: update: ${args%% *}: "* ]] || fail "$args: $output"
	done
	assert_equal "$(cpu_files)" "$before"
	# what runc takes stays: a negative quota is no limit
	runtime update --cpu-quota -1 --cpu-shares 256 "$CID"
	assert_equal "$(cg cpu cpu.cfs_quota_us)" -1
	assert_equal "$(cg cpu cpu.shares)" 256
}

@test "cgroups v1: kill --all reaches every process of the cgroup, delete removes it everywhere" {
	set_cmd 'sleep 1000 & sleep 1000 & exec sleep 1001'
	run_detached "$CID"
	local pids p
	for ((i = 0; i < 200; i++)); do [[ "$(cg pids pids.current)" == 3 ]] && break; sleep 0.05; done
	pids="$(cg pids cgroup.procs)"
	assert_equal "$(wc -l <<<"$pids")" 3
	run runtime ps -f json "$CID"
	assert_success
	for p in $pids; do jq -e --argjson p "$p" 'index($p) != null' <<<"$output" >/dev/null; done
	runtime kill --all "$CID" KILL
	for p in $pids; do wait_for_exit "$p"; done
	assert_equal "$(cg pids cgroup.procs)" ""
	runtime delete --force "$CID"
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: delete --force of a paused container removes its cgroup everywhere" {
	run_detached "$CID"
	runtime pause "$CID"
	runtime delete --force "$CID"
	assert_equal "$(cg_dirs)" ""
}

# freeze_into DIR: a running container whose init ($pid) is moved into the
# freezer cgroup DIR (made here), which is then frozen.
freeze_into() {
	run_detached "$CID"
	pid="$(state_field "$CID" pid)"
	mkdir "$1"
	echo "$pid" >"$1/cgroup.procs"
	echo FROZEN >"$1/freezer.state"
}

@test "cgroups v1: delete --force thaws a freezer sub-cgroup of the container's own: the process dies, every cgroup goes" {
	local pid
	# what a container with a writable cgroup mount can do to itself
	freeze_into "/sys/fs/cgroup/freezer$CGPATH/held"
	run_nohang runtime_timeout 60 delete --force "$CID"
	assert_success
	refute_output --partial warning
	wait_for_exit "$pid"
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: delete --force of a process someone froze in another freezer cgroup says so at once and leaves that cgroup alone" {
	local pid f="/sys/fs/cgroup/freezer$CGPARENT-other"
	freeze_into "$f"
	run_nohang runtime_timeout 60 delete --force "$CID"
	local rc=$status out="$output"
	assert_equal "$(cat "$f/freezer.state")" FROZEN
	# let it go: thawed, the SIGKILL the runtime sent lands
	echo THAWED >"$f/freezer.state"
	wait_for_exit "$pid"
	rmdir "$f"
	for d in /sys/fs/cgroup/*"$CGPATH"; do [[ -d "$d" ]] && rmdir "$d"; done
	assert_equal "$rc" 0
	[[ "$out" == *"cgroup $CGPATH: process $pid is frozen in freezer cgroup $CGPARENT-other, not the container's: Device or resource busy"* ]] ||
		{ echo "output: $out"; false; }
}

@test "cgroups v1: a bad resource fails create with the field named and leaves nothing" {
	update_config '.linux.resources.unified = {"foo.bar": "1"}'
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure
	assert_output --partial '"foo.bar"'
	assert_equal "$(cg_dirs)" ""

	update_config 'del(.linux.resources.unified) | .linux.resources.memory = {"limit": 67108864, "swap": 1048576}'
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure
	assert_output --partial "linux.resources.memory.swap"
	assert_equal "$(cg_dirs)" ""
}

@test "cgroups v1: a pre-existing cpuset parent with empty cpus/mems gets its parent's values" {
	mkdir "/sys/fs/cgroup/cpuset$CGPARENT"
	assert_equal "$(cat "/sys/fs/cgroup/cpuset$CGPARENT/cpuset.cpus")" ""
	create_container "$CID"
	assert_equal "$(cat "/sys/fs/cgroup/cpuset$CGPARENT/cpuset.cpus")" "$(cat /sys/fs/cgroup/cpuset/cpuset.cpus)"
	assert_equal "$(cat "/sys/fs/cgroup/cpuset$CGPARENT/cpuset.mems")" "$(cat /sys/fs/cgroup/cpuset/cpuset.mems)"
	assert_equal "$(cg cpuset cpuset.cpus)" "$(cat /sys/fs/cgroup/cpuset/cpuset.cpus)"
	assert_equal "$(cg cpuset cgroup.procs)" "$(ctr_pid)"
}

# refused_at_create TEXT: create and run --detach of $CID both fail, exit 1, saying TEXT.
refused_at_create() {
	local cmd
	for cmd in create "run --detach"; do
		# shellcheck disable=SC2086
		run_nohang timeout 30 "$RUNTIME" --root "$ROOT" $cmd --bundle "$BUNDLE" "$CID"
		assert_failure 1
		assert_output --partial "$1"
	done
}

@test "cgroups v1: a frozen pre-existing cgroup is refused before the container starts" {
	local d=/sys/fs/cgroup/freezer$CGPATH
	mkdir -p "$d"
	echo FROZEN >"$d/freezer.state"
	refused_at_create "container's cgroup unexpectedly frozen"
	# nothing started in it, nothing left of the container
	assert_equal "$(cat "$d/cgroup.procs")" ""
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(cat "$d/freezer.state")" FROZEN
}

@test "cgroups v1: a cgroup that already has processes is refused, and left alone (runc 1.2)" {
	run_detached "$CID"
	local pid
	pid="$(ctr_pid)"
	run_nohang "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$CID-2"
	assert_failure
	assert_output --partial "container's cgroup is not empty: 1 process(es) found"
	[[ ! -e "$ROOT/$CID-2" ]]
	assert_equal "$(cg pids cgroup.procs)" "$pid"
	assert_equal "$(cg memory cgroup.procs)" "$pid"
	kill -0 "$pid"
}

# start_decoy_in DIR: a process of another uid (nobody) moved into the cgroup
# DIR (made here): a service's, someone else's. $DECOY, $DECOY_START.
start_decoy_in() {
	mkdir -p "$1"
	setpriv --reuid 65534 --regid 65534 --clear-groups sleep 1000 </dev/null >/dev/null 2>&1 3>&- 4>&- &
	DECOY=$!
	DECOY_START="$(proc_start_time "$DECOY")"
	echo "$DECOY" >"$1/cgroup.procs"
}

# A v1 path is made hierarchy by hierarchy: one already there with a process
# in it made the whole path the container's (it made the others), and ps,
# kill --all and delete -f reached that process. Each hierarchy that was
# there must be empty, as the one cgroup on v2.
@test "cgroups v1: a path that holds another's process in one hierarchy only is refused, nothing made, that process left alone" {
	local svc="$CGPARENT-svc"
	start_decoy_in "/sys/fs/cgroup/pids$svc"
	update_config '.linux.cgroupsPath = $p' --arg p "$svc"
	refused_at_create "cgroup $svc: pids: container's cgroup is not empty: 1 process(es) found"
	[[ ! -e "$ROOT/$CID" ]]
	# no dir of the path made in the other hierarchies (or left there)
	assert_equal "$(find /sys/fs/cgroup -maxdepth 2 -type d -name "${svc#/}")" "/sys/fs/cgroup/pids$svc"
	proc_alive "$DECOY" "$DECOY_START"
	assert_equal "$(cat "/sys/fs/cgroup/pids$svc/cgroup.procs")" "$DECOY"
}

@test "cgroups v1: a path already there and empty in one hierarchy is joined (as on v2, and runc) and goes with the container" {
	mkdir -p "/sys/fs/cgroup/pids$CGPATH"
	update_config '.linux.resources.pids = {"limit": 20}'
	set_args sleep 1000
	run_detached "$CID"
	local pid
	pid="$(ctr_pid)"
	assert_equal "$(cg pids cgroup.procs)" "$pid"
	assert_equal "$(cg pids pids.max)" 20
	assert_equal "$(cg memory cgroup.procs)" "$pid"
	runtime delete --force "$CID"
	wait_for_exit "$pid"
	assert_equal "$(cg_dirs)" ""
}

# The dirs a failed create removes are those it made: one that was there
# (empty) stays as it was found.
@test "cgroups v1: a create that fails after joining a path already there leaves that dir, removes the ones it made" {
	mkdir -p "/sys/fs/cgroup/pids$CGPATH"
	set_args /no-such-program
	run_nohang timeout 30 "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	[[ ! -e "$ROOT/$CID" ]]
	assert_equal "$(cg_dirs)" "/sys/fs/cgroup/pids$CGPATH"
	assert_equal "$(cg pids cgroup.procs)" ""
}

# runc (ErrV1NoUnified): linux.resources.unified is an invalid configuration
# on cgroup v1, hybrid hosts included (the container's controllers are v1);
# create and update refuse it, nothing is left, nothing is written.
@test "cgroups v1: linux.resources.unified is refused (create and update), nothing left" {
	update_config '.linux.resources.unified = {"pids.max": "7"}'
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "linux.resources.unified"
	assert_output --partial "cannot use unified on cgroup v1"
	assert_equal "$(cg_dirs)" ""
	run runtime state "$CID"
	assert_failure

	update_config 'del(.linux.resources.unified)'
	run_detached "$CID"
	echo '{"unified": {"pids.max": "7"}}' >"$BATS_TEST_TMPDIR/res.json"
	run_nohang runtime update -r "$BATS_TEST_TMPDIR/res.json" "$CID"
	assert_failure
	assert_output --partial "cannot use unified on cgroup v1"
	[ ! -e "/sys/fs/cgroup/unified$CGPATH/pids.max" ] || [ "$(cat "/sys/fs/cgroup/unified$CGPATH/pids.max")" != 7 ]
	runtime delete --force "$CID"
	assert_equal "$(cg_dirs)" ""
}
