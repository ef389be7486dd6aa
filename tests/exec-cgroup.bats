#!/usr/bin/env bats
# exec --cgroup (runc's sub-cgroup exec) on this cgroup v1 (hybrid) host: a
# plain PATH is a sub-cgroup of the container's in every hierarchy,
# CTRL[,CTRL]:PATH only in those controllers' hierarchies; the process sees
# itself there (/proc/self/cgroup inside). Bad arguments fail before anything
# runs. The v2 case is in cgroups-v2.bats (vm-run guest).

load helpers

v1_host() { [[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs && -d /sys/fs/cgroup/memory ]]; }

setup() {
	tr_setup
	v1_host || skip "not a cgroup v1 host (the v2 case is in cgroups-v2.bats)"
	CGPATH="/tinyrun-test-$TOKEN"
	update_config '.linux.cgroupsPath = $p' --arg p "$CGPATH"
	set_cmd 'exec sleep 1000'
	run_detached "$CID"
}

teardown() {
	rmdir /sys/fs/cgroup/memory"${CGPATH:-/nonexistent}-sib" 2>/dev/null
	tr_teardown
}

# mk_sub NAME [HIERARCHY...]: the sub-cgroup in those hierarchies (default:
# every one the container is in), cpuset filled from its parent.
mk_sub() {
	local name="$1" h d
	shift
	(($#)) || set -- $(ls -d /sys/fs/cgroup/*"$CGPATH" | sed "s|^/sys/fs/cgroup/||; s|$CGPATH\$||")
	for h in "$@"; do
		d="/sys/fs/cgroup/$h$CGPATH/$name"
		mkdir -p "$d"
		if [[ "$h" == cpuset ]]; then
			cat "/sys/fs/cgroup/cpuset$CGPATH/cpuset.cpus" >"$d/cpuset.cpus"
			cat "/sys/fs/cgroup/cpuset$CGPATH/cpuset.mems" >"$d/cpuset.mems"
		fi
	done
}

@test "exec --cgroup PATH: the process is in that sub-cgroup of every hierarchy" {
	mk_sub sub
	run_nohang runtime exec --cgroup sub "$CID" cat /proc/self/cgroup
	assert_success
	assert_line --regexp "^[0-9]+:memory:$CGPATH/sub\$"
	assert_line --regexp "^[0-9]+:(cpu,cpuacct|cpu):$CGPATH/sub\$"
	assert_line --regexp "^[0-9]+:pids:$CGPATH/sub\$"
	# every line names the sub-cgroup
	refute_line --regexp ":$CGPATH\$"
	# a leading slash is the same sub-cgroup (relative to the container's)
	run_nohang runtime exec --cgroup /sub "$CID" grep memory /proc/self/cgroup
	assert_output --regexp ":memory:$CGPATH/sub\$"
	# the init stays where it was
	run cat "/proc/$(state_field "$CID" pid)/cgroup"
	refute_output --partial "$CGPATH/sub"
}

@test "exec --cgroup PATH made in some hierarchies only: joined there, the container's own elsewhere (crun)" {
	mk_sub part memory pids
	run_nohang runtime exec --cgroup part "$CID" cat /proc/self/cgroup
	assert_success
	assert_line --regexp "^[0-9]+:memory:$CGPATH/part\$"
	assert_line --regexp "^[0-9]+:pids:$CGPATH/part\$"
	assert_line --regexp "^[0-9]+:freezer:$CGPATH\$"
	assert_line --regexp "^[0-9]+:(cpu,cpuacct|cpu):$CGPATH\$"
	# in no hierarchy at all: an error, nothing runs
	bind_out_dir 2>/dev/null
	run_nohang runtime exec --cgroup nowhere "$CID" touch /tmp/ran
	assert_equal "$status" 255
	assert_output --regexp " adding pid to its cgroup: .*$CGPATH/nowhere.*: No such file or directory"
	run_nohang runtime exec "$CID" test -e /tmp/ran
	assert_failure
}

@test "exec --cgroup CTRL:PATH: only those controllers' hierarchies move" {
	mk_sub msub memory
	# cpu and cpuacct: one hierarchy or two, as the host mounts them
	mk_sub csub cpu cpuacct
	run_nohang runtime exec --cgroup memory:msub --cgroup cpu,cpuacct:csub "$CID" cat /proc/self/cgroup
	assert_success
	assert_line --regexp "^[0-9]+:memory:$CGPATH/msub\$"
	assert_line --regexp "^[0-9]+:cpu(,cpuacct)?:$CGPATH/csub\$"
	assert_line --regexp "^[0-9]+:(cpu,)?cpuacct:$CGPATH/csub\$"
	assert_line --regexp "^[0-9]+:pids:$CGPATH\$"
	assert_line --regexp "^[0-9]+:freezer:$CGPATH\$"
	# --cgroup / is the container's own cgroup
	run_nohang runtime exec --cgroup / "$CID" grep memory /proc/self/cgroup
	assert_output --regexp ":memory:$CGPATH\$"
}

@test "exec --cgroup: a missing sub-cgroup, .., unknown or repeated controllers fail; nothing runs" {
	bind_out_dir 2>/dev/null
	run_nohang runtime exec --cgroup memory:nope "$CID" touch /tmp/ran
	assert_equal "$status" 255
	assert_output --partial "memory$CGPATH/nope"
	assert_output --regexp " adding pid to its cgroup: .*/nope/tasks: No such file or directory"
	run_nohang runtime exec --cgroup ../../escape "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial 'bad sub cgroup path: `..` components are not allowed'
	assert_output --partial ' ../../escape is not a sub cgroup path'
	# runc's suite: `exec --cgroup ..` fails with " .. is not a sub cgroup path"
	run_nohang runtime exec --cgroup .. "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial ' .. is not a sub cgroup path'
	# a cgroup beside the container's exists: ".." would reach it (and its
	# limits, or none); refused before anything is opened
	mkdir "/sys/fs/cgroup/memory$CGPATH-sib"
	run_nohang runtime exec --cgroup "memory:../${CGPATH#/}-sib" "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial 'bad sub cgroup path'
	run_nohang runtime exec --cgroup "memory:sub/../../${CGPATH#/}-sib" "$CID" touch /tmp/ran
	assert_failure
	[[ -z "$(cat "/sys/fs/cgroup/memory$CGPATH-sib/cgroup.procs")" ]]
	run_nohang runtime exec --cgroup nosuch:x "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial 'unknown controller nosuch'
	run_nohang runtime exec --cgroup memory:a --cgroup memory:b "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial 'controller memory specified multiple times'
	run_nohang runtime exec --cgroup a --cgroup b "$CID" touch /tmp/ran
	assert_failure
	assert_output --partial 'missing <controller>: prefix'
	run_nohang runtime exec "$CID" test -e /tmp/ran
	assert_failure
}
