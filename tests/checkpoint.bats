#!/usr/bin/env bats
# checkpoint / restore through CRIU (criu swrk): runc's command line, the
# errors without a usable criu, and, where CRIU works, what a restored
# container keeps: its process state (a counter in memory), open files, a
# pipe, a tmpfs and its cgroup limits.
#
# CRIU 3.17 fails on this host's kernel (for runc too), so the cases that dump
# run in a vm-run guest (cgroup2, Debian's 6.1 kernel), as cgroups-v2.bats:
# this same file runs there (guest_setup_file) and each such test reports the
# guest's verdict. The error cases run here (and again in the guest).

load helpers

setup_file() {
	guest_setup_file checkpoint.bats 2400
}

# A counter kept in the shell's memory, written to a tmpfs file and to an
# open fd each 0.1 s, with a pipe between two more processes; a marker file
# on the tmpfs.
setup() {
	tr_setup
	update_config '.mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid"]}]
		| .linux.resources = {memory: {limit: 67108864}, pids: {limit: 20}}'
	set_cmd 'echo m-$$-'"$TOKEN"' >/tmp/marker; exec 3>/tmp/held; sleep 1000 | cat &
		i=0; while :; do i=$((i + 1)); echo $i >/tmp/cnt; echo $i >&3; sleep 0.1; done'
	IMG="$BATS_TEST_TMPDIR/img"
}

teardown() {
	# the namespaces' holder of the joined-by-path case (and its unshare)
	# (the init of a pid namespace takes no SIGTERM from outside it); the
	# lazy case's checkpoint and criu lazy-pages, if the test failed before they ended
	local p
	for p in $(cat "$BATS_TEST_TMPDIR/holder" "$BATS_TEST_TMPDIR/bg" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	tr_teardown
}

# run --detach with stdio on /dev/null (CRIU cannot dump a file of the
# host's mounts: a log file would make every dump fail, for runc too)
start_ctr() {
	local id="$1"
	# not bats' run: its $(...) pipe would be the container's stdout, held for good
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" --log "$BATS_TEST_TMPDIR/$id.log" \
		run --detach --bundle "$BUNDLE" "$id" </dev/null >/dev/null 2>&1 3>&- 4>&- ||
		{ cat "$BATS_TEST_TMPDIR/$id.log"; return 1; }
	record_container_pid "$id"
}

restore_ctr() {
	timeout -k 5 300 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" --log "$BATS_TEST_TMPDIR/restore.log" \
		restore --detach --bundle "$BUNDLE" --image-path "$IMG" "$@" </dev/null >/dev/null 2>&1 3>&- 4>&- ||
		{ cat "$BATS_TEST_TMPDIR/restore.log"; return 1; }
	record_container_pid "${@: -1}"
}

counter() {
	runtime_timeout 60 exec "$1" cat /tmp/cnt
}

# cr ARGS: the runtime, bounded (CRIU is slow in an emulated guest), without bats' fds
cr() {
	timeout -k 5 300 "$RUNTIME" --root "$ROOT" "$@" </dev/null 3>&- 4>&-
}

# wait_count ID N: until the counter is at least N
wait_count() {
	local i n
	for ((i = 0; i < 100; i++)); do
		n="$(counter "$1" 2>/dev/null)" || n=0
		[[ "$n" -ge "$2" ]] && return 0
		sleep 0.1
	done
	echo "counter of $1 at $n, wanted $2" >&2
	return 1
}

# counts_on ID: the counter goes on (3 more ticks from where it is now)
counts_on() {
	local n
	n="$(counter "$1")"
	wait_count "$1" $((n + 3))
}

# the test's container started, counting, dumped (and so deleted)
start_and_dump() {
	start_ctr "$CID"
	wait_count "$CID" 5
	run cr checkpoint --image-path "$IMG" "$CID"
	assert_success
}

cgroup_of() {
	echo "/sys/fs/cgroup/tinyrun/$1"
}

# ---- without CRIU's kernel: the errors ----------------------------------------

@test "checkpoint/restore: no criu on PATH is a clear error, the container untouched, nothing made" {
	start_ctr "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run env PATH=/nonexistent "$RUNTIME" --root "$ROOT" checkpoint --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output "tinyrun: checkpoint: criu not found in PATH (install criu)"
	[ "$(state_field "$CID" status)" = running ]
	[ "$(state_field "$CID" pid)" = "$pid" ]
	[[ ! -e "$IMG" ]]
	mkdir "$IMG"
	echo '["/dev/null","/dev/null","/dev/null"]' >"$IMG/descriptors.json"
	run env PATH=/nonexistent "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG" "$CID-r"
	assert_failure 1
	assert_output "tinyrun: restore: criu not found in PATH (install criu)"
	[[ ! -e "$ROOT/$CID-r" ]]
}

@test "checkpoint/restore: a criu older than 3.14 is refused, naming its version" {
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho Version: 3.13\n' >"$BATS_TEST_TMPDIR/bin/criu"
	chmod +x "$BATS_TEST_TMPDIR/bin/criu"
	start_ctr "$CID"
	run env PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" "$RUNTIME" --root "$ROOT" checkpoint "$CID"
	assert_failure 1
	assert_output "tinyrun: checkpoint: criu 3.13 at $BATS_TEST_TMPDIR/bin/criu is too old (3.14 or later needed)"
}

@test "restore --lsm-profile or --lsm-mount-context with a criu older than 3.16: refused naming it (runc's rule), nothing made" {
	mkdir "$BATS_TEST_TMPDIR/bin" "$IMG"
	printf '#!/bin/sh\necho Version: 3.15\n' >"$BATS_TEST_TMPDIR/bin/criu"
	chmod +x "$BATS_TEST_TMPDIR/bin/criu"
	run env PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" "$RUNTIME" --root "$ROOT" restore --lsm-profile apparmor:x \
		-b "$BUNDLE" --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output "tinyrun: restore: --lsm-profile requires at least CRIU 3.16 ($BATS_TEST_TMPDIR/bin/criu is 3.15)"
	run env PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" "$RUNTIME" --root "$ROOT" restore --lsm-mount-context c \
		-b "$BUNDLE" --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output --partial "restore: --lsm-mount-context requires at least CRIU 3.16"
	[[ ! -e "$ROOT/$CID" ]]
	assert_no_leftovers
}

@test "checkpoint: an unknown id, a created container, bad options: errors naming them" {
	run "$RUNTIME" --root "$ROOT" checkpoint nosuch-"$TOKEN"
	assert_failure 1
	assert_output "tinyrun: container \"nosuch-$TOKEN\" does not exist"
	create_container "$CID"
	run "$RUNTIME" --root "$ROOT" checkpoint --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output "tinyrun: container \"$CID\" cannot be checkpointed in created state"
	[[ ! -e "$IMG" ]]
	run "$RUNTIME" --root "$ROOT" checkpoint --manage-cgroups-mode bogus "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --manage-cgroups-mode: invalid value "bogus" (expected soft|full|strict|ignore)'
	run "$RUNTIME" --root "$ROOT" checkpoint --empty-ns bogus "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --empty-ns: invalid value "bogus"'
	run "$RUNTIME" --root "$ROOT" checkpoint --page-server 27277 "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --page-server: invalid value "27277" (expected ADDRESS:PORT)'
	run "$RUNTIME" --root "$ROOT" checkpoint --page-server 127.0.0.1:70000 "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --page-server: invalid value "127.0.0.1:70000"'
	run "$RUNTIME" --root "$ROOT" checkpoint --lazy-pages --status-fd x "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --status-fd: invalid value "x" (expected FD)'
	# an fd the caller has not open (bats' run closes none above 9), or only for reading
	run "$RUNTIME" --root "$ROOT" checkpoint --lazy-pages --status-fd 77 "$CID"
	assert_failure 1
	assert_output --partial 'checkpoint: --status-fd 77: not an fd of the caller'"'"'s open for writing'
	run "$RUNTIME" --root "$ROOT" checkpoint --lazy-pages --status-fd 0 "$CID" </dev/null
	assert_failure 1
	assert_output --partial 'checkpoint: --status-fd 0: not an fd'
	run "$RUNTIME" --root "$ROOT" checkpoint
	assert_failure 1
	assert_output --partial 'checkpoint: expected exactly one container id'
	[ "$(state_field "$CID" status)" = created ]
}

@test "checkpoint --parent-path: absolute, missing or not a directory: runc's errors, the container untouched" {
	start_ctr "$CID"
	mkdir "$IMG"
	touch "$IMG/afile"
	run "$RUNTIME" --root "$ROOT" checkpoint --image-path "$IMG" --parent-path /abs "$CID"
	assert_failure 1
	assert_output "tinyrun: checkpoint: --parent-path must be relative"
	run "$RUNTIME" --root "$ROOT" checkpoint --image-path "$IMG" --parent-path ../none "$CID"
	assert_failure 1
	assert_output "tinyrun: checkpoint: invalid --parent-path: $IMG/../none: No such file or directory"
	run "$RUNTIME" --root "$ROOT" checkpoint --image-path "$IMG" --parent-path afile "$CID"
	assert_failure 1
	assert_output "tinyrun: checkpoint: invalid --parent-path: $IMG/afile: Not a directory"
	[ "$(state_field "$CID" status)" = running ]
	[ "$(ls "$IMG")" = afile ]
}

@test "restore: an existing id, a missing image dir or descriptors.json: errors, nothing left" {
	command -v criu >/dev/null || skip "no criu"
	create_container "$CID"
	mkdir "$IMG"
	echo '["/dev/null","/dev/null","/dev/null"]' >"$IMG/descriptors.json"
	run "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output "tinyrun: container \"$CID\" already exists"
	[ "$(state_field "$CID" status)" = created ]
	run "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG" --console-socket "$IMG/sock" "$CID-2"
	assert_failure 1
	assert_output "tinyrun: restore: --console-socket given but process.terminal is false"
	run "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG.none" "$CID-2"
	assert_failure 1
	assert_output "tinyrun: --image-path $IMG.none: No such file or directory"
	rm "$IMG/descriptors.json"
	run "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG" "$CID-2"
	assert_failure 1
	assert_output --partial "restore: $IMG/descriptors.json"
	[[ ! -e "$ROOT/$CID-2" ]]
	# a cgroup namespace joined by path: CRIU cannot join one (runc refuses too)
	echo '["/dev/null","/dev/null","/dev/null"]' >"$IMG/descriptors.json"
	update_config '.linux.namespaces += [{"type": "cgroup", "path": "/proc/self/ns/cgroup"}]'
	run "$RUNTIME" --root "$ROOT" restore -b "$BUNDLE" --image-path "$IMG" "$CID-2"
	assert_failure 1
	assert_output "tinyrun: restore: linux.namespaces: a cgroup namespace joined by path (/proc/self/ns/cgroup) cannot be restored: CRIU cannot join one"
	[[ ! -e "$ROOT/$CID-2" ]]
}

@test "features: checkpoint/restore as runc says it, org.criu.config among the unsafe annotations" {
	run "$RUNTIME" features
	assert_success
	[ "$(jq -r '.annotations["org.opencontainers.runc.checkpoint.enabled"]' <<<"$output")" = true ]
	jq -e '.potentiallyUnsafeConfigAnnotations | index("org.criu.config")' <<<"$output"
}

# ---- in the guest: CRIU at work ----------------------------------------------

@test "checkpoint/restore: the process goes on where it was, with its open file, pipe, tmpfs and cgroup limits" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_ctr "$CID"
	wait_count "$CID" 20
	local marker before after pid
	marker="$(runtime_timeout 60 exec "$CID" cat /tmp/marker)"
	run cr checkpoint --image-path "$IMG" "$CID"
	assert_success
	# runc: the dumped container is gone (process, cgroup, state)
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
	[[ -s "$IMG/inventory.img" && -s "$IMG/descriptors.json" ]]
	restore_ctr "$CID"
	[ "$(state_field "$CID" status)" = running ]
	pid="$(state_field "$CID" pid)"
	[ "$(cat "/proc/$pid/cgroup")" = "0::/tinyrun/$CID" ]
	[ "$(cat "$(cgroup_of "$CID")/memory.max")" = 67108864 ]
	[ "$(cat "$(cgroup_of "$CID")/pids.max")" = 20 ]
	grep -qx "$pid" "$(cgroup_of "$CID")/cgroup.procs"
	# the tmpfs came back with its files; the counter goes on from its value
	[ "$(runtime_timeout 60 exec "$CID" cat /tmp/marker)" = "$marker" ]
	after="$(counter "$CID")"
	[[ "$after" -ge 20 ]]
	wait_count "$CID" $((after + 3))
	# the open file, and the pipe between the two other processes
	[ "$(readlink "/proc/$pid/fd/3")" = /tmp/held ]
	[[ "$(tail -1 "/proc/$pid/root/tmp/held")" -ge "$after" ]]
	local p pipes_out="" pipes_in=""
	for p in $(cat "$(cgroup_of "$CID")/cgroup.procs"); do
		# (a `sleep 0.1` may be gone by now)
		pipes_out+="$(readlink "/proc/$p/fd/1" || true)"$'\n'
		pipes_in+="$(readlink "/proc/$p/fd/0" || true)"$'\n'
	done
	grep -q '^pipe:' <<<"$pipes_out"
	grep -qxF "$(grep '^pipe:' <<<"$pipes_out" | head -1)" <<<"$pipes_in"
	runtime delete --force "$CID"
	[[ ! -e "$(cgroup_of "$CID")" ]]
}

# crun's checkpoint-restore-ext-ns, runc's handleRestoringNamespaces: the
# pid (and network) namespace joined by path is dumped as external and the
# restore must hand it back to CRIU; the ipc and uts ones CRIU joins by path.
# Before, the restore passed only the network one: "Unable to find an
# external pidns: extRootPidNS".
@test "checkpoint/restore of a container in pid, ipc and uts namespaces joined by path: restored into the same ones" {
	if ! on_cgroup2; then guest_verdict; return; fi
	# the namespaces' init, a shell that reaps what it adopts: the dumped
	# init's pid must be free again for CRIU to restore it there
	unshare --pid --ipc --uts --fork bash -c 'while :; do sleep 0.2; done' </dev/null >/dev/null 2>&1 3>&- 4>&- &
	local i ns pid
	for ((i = 0; i < 100; i++)); do
		HOLDER="$(pgrep -P $! bash)" && break
		sleep 0.05
	done
	[[ -n "$HOLDER" ]]
	echo "$HOLDER" >"$BATS_TEST_TMPDIR/holder"
	update_config 'del(.hostname) | .linux.namespaces |= map(if (.type == "pid" or .type == "ipc" or .type == "uts")
		then .path = "/proc/\($h)/ns/\(.type)" else . end)' --arg h "$HOLDER"
	start_and_dump
	restore_ctr "$CID"
	pid="$(state_field "$CID" pid)"
	for ns in pid ipc uts; do
		[ "$(readlink "/proc/$pid/ns/$ns")" = "$(readlink "/proc/$HOLDER/ns/$ns")" ] || fail "not in the $ns namespace"
	done
	counts_on "$CID"
	runtime delete --force "$CID"
}

@test "checkpoint --leave-running: the container keeps running and counting; restore into a new id" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_ctr "$CID"
	wait_count "$CID" 20
	local pid before dumped n
	pid="$(state_field "$CID" pid)"
	before="$(counter "$CID")"
	run cr checkpoint --leave-running --image-path "$IMG" "$CID"
	assert_success
	dumped="$(counter "$CID")"
	[ "$(state_field "$CID" status)" = running ]
	[ "$(state_field "$CID" pid)" = "$pid" ]
	wait_count "$CID" $((dumped + 5))
	# the same image as a second container, next to the first
	restore_ctr "$CID-2"
	[ "$(state_field "$CID-2" status)" = running ]
	[ "$(cat "/proc/$(state_field "$CID-2" pid)/cgroup")" = "0::/tinyrun/$CID-2" ]
	# it goes on from where the dump found it (at least where it was before)
	n="$(counter "$CID-2")"
	[[ "$n" -ge "$before" ]]
	wait_count "$CID-2" $((n + 3))
	[ "$(state_field "$CID" status)" = running ]
	runtime delete --force "$CID-2"
	runtime delete --force "$CID"
}

@test "restore: --pid-file, prestart and createRuntime hooks with the restored pid" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_and_dump
	update_config '.hooks.prestart = [{path: "/bin/sh", args: ["sh", "-c", "cat >" + $out + "/prestart.json"]}]
		| .hooks.createRuntime = [{path: "/bin/sh", args: ["sh", "-c", "cat >" + $out + "/createRuntime.json"]}]' \
		--arg out "$BATS_TEST_TMPDIR"
	restore_ctr --pid-file "$BATS_TEST_TMPDIR/pid" "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	[ "$(cat "$BATS_TEST_TMPDIR/pid")" = "$pid" ]
	[ "$(jq -r .id "$BATS_TEST_TMPDIR/prestart.json")" = "$CID" ]
	[ "$(jq -r .pid "$BATS_TEST_TMPDIR/prestart.json")" = "$pid" ]
	[ "$(jq -r .pid "$BATS_TEST_TMPDIR/createRuntime.json")" = "$pid" ]
}

@test "restore: a restore CRIU fails leaves no state dir, cgroup, mount or process" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_and_dump
	rm "$IMG"/pagemap-*.img
	run cr restore -b "$BUNDLE" --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output --partial "tinyrun: criu failed"
	assert_output --partial "(see $IMG/restore.log"
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
	! grep -q criu-root /proc/self/mountinfo
}

@test "restore --lazy-pages with no criu lazy-pages daemon to ask: fails, leaves no state dir, cgroup, mount or process" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_and_dump
	run timeout -k 5 300 "$RUNTIME" --root "$ROOT" restore --lazy-pages -b "$BUNDLE" --image-path "$IMG" "$CID" </dev/null 3>&- 4>&-
	assert_failure 1
	assert_output --partial "tinyrun: criu failed"
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
	! grep -q criu-root /proc/self/mountinfo
	[[ -z "$(test_pids)" ]]
}

@test "restore --lsm-profile reaches CRIU: an unknown LSM fails leaving nothing, none: restores" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_and_dump
	run timeout -k 5 300 "$RUNTIME" --root "$ROOT" restore --lsm-profile bogus:x -d -b "$BUNDLE" --image-path "$IMG" "$CID" </dev/null 3>&- 4>&-
	assert_failure 1
	assert_output --partial "tinyrun: criu failed"
	grep -q "unknown lsm bogus" "$IMG/restore.log"
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
	restore_ctr --lsm-profile none:x "$CID"
	counts_on "$CID"
	runtime delete --force "$CID"
}

@test "restore in the foreground: the container's exit status, then it is deleted" {
	if ! on_cgroup2; then guest_verdict; return; fi
	set_cmd 'i=0; while [ ! -e /tmp/stop ]; do i=$((i + 1)); echo $i >/tmp/cnt; sleep 0.1; done; exit 7'
	start_and_dump
	cr restore -b "$BUNDLE" --image-path "$IMG" "$CID" >/dev/null 2>&1 &
	local bg=$! rc=0
	wait_count "$CID" 6
	runtime_timeout 60 exec "$CID" touch /tmp/stop
	wait "$bg" || rc=$?
	[ "$rc" = 7 ]
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
}

# the bind mounts of the mount-point cases: a dir at /cr-data/in, a file at
# /cr-file; a tmpfs at /cr-scratch and one nested in the dir bind (its mount
# point is made in the bind's source); none of them in the image
mountpoint_bundle() {
	mkdir "$BATS_TEST_TMPDIR/src"
	echo "dir-$TOKEN" >"$BATS_TEST_TMPDIR/src/f"
	echo "file-$TOKEN" >"$BATS_TEST_TMPDIR/file"
	update_config '.mounts += [{destination: "/cr-data/in", type: "bind", source: ($t + "/src"), options: ["rbind"]},
		{destination: "/cr-file", type: "bind", source: ($t + "/file"), options: ["bind"]},
		{destination: "/cr-scratch", type: "tmpfs", source: "tmpfs"},
		{destination: "/cr-data/in/sub", type: "tmpfs", source: "tmpfs"}]' --arg t "$BATS_TEST_TMPDIR"
	[[ ! -e "$BUNDLE/rootfs/cr-data" && ! -e "$BUNDLE/rootfs/cr-file" && ! -e "$BUNDLE/rootfs/cr-scratch" ]]
}

@test "restore: mount points the rootfs lacks (a dir and a file bind, a tmpfs) are made again, as runc" {
	if ! on_cgroup2; then guest_verdict; return; fi
	mountpoint_bundle
	start_and_dump
	# run made them; a fresh copy of the image would not have them
	[[ -d "$BUNDLE/rootfs/cr-data/in" && -f "$BUNDLE/rootfs/cr-file" && -d "$BUNDLE/rootfs/cr-scratch" ]]
	[[ -d "$BATS_TEST_TMPDIR/src/sub" ]]
	rm -r "$BUNDLE/rootfs/cr-data" "$BUNDLE/rootfs/cr-file" "$BUNDLE/rootfs/cr-scratch" "$BATS_TEST_TMPDIR/src/sub"
	restore_ctr "$CID"
	[[ -d "$BUNDLE/rootfs/cr-data/in" && -f "$BUNDLE/rootfs/cr-file" && -d "$BUNDLE/rootfs/cr-scratch" ]]
	# the nested one in the bind's source, as at run; the source unbound again
	[[ -d "$BATS_TEST_TMPDIR/src/sub" && ! -e "$BUNDLE/rootfs/cr-data/in/sub" ]]
	! awk '{ print $5 }' /proc/self/mountinfo | grep -qF "$BUNDLE/rootfs/"
	[ "$(runtime_timeout 60 exec "$CID" cat /proc/self/mountinfo | awk '$5 == "/cr-data/in/sub" { print $9 }')" = tmpfs ]
	[ "$(runtime_timeout 60 exec "$CID" cat /cr-data/in/f)" = "dir-$TOKEN" ]
	[ "$(runtime_timeout 60 exec "$CID" cat /cr-file)" = "file-$TOKEN" ]
	counts_on "$CID"
	runtime delete --force "$CID"
}

@test "checkpoint/restore: a bind whose destination is a link in the rootfs (runc's /conf -> /real/conf) dumps and comes back" {
	if ! on_cgroup2; then guest_verdict; return; fi
	mkdir -p "$BUNDLE/rootfs/real/conf" "$BATS_TEST_TMPDIR/conf"
	echo "conf-$TOKEN" >"$BATS_TEST_TMPDIR/conf/f"
	ln -s /real/conf "$BUNDLE/rootfs/conf"
	update_config '.mounts += [{destination: "/conf", type: "bind", source: $s, options: ["bind"]}]' \
		--arg s "$BATS_TEST_TMPDIR/conf"
	start_and_dump
	restore_ctr "$CID"
	[ "$(runtime_timeout 60 exec "$CID" cat /real/conf/f)" = "conf-$TOKEN" ]
	counts_on "$CID"
	runtime delete --force "$CID"
}

@test "checkpoint/restore twice with a process exec'd in between: exec joins the time namespace CRIU restored the init in" {
	if ! on_cgroup2; then guest_verdict; return; fi
	start_and_dump
	restore_ctr "$CID"
	local pid e
	pid="$(state_field "$CID" pid)"
	# CRIU restores into a new time namespace; an exec'd process must share it (runc
	# joins every namespace of the init), or the next dump is two trees
	e="$(runtime_timeout 60 exec "$CID" sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 & echo $!')"
	[ "$(readlink "/proc/$pid/ns/time")" != "$(readlink /proc/self/ns/time)" ]
	local p same=0
	for p in $(cat "$(cgroup_of "$CID")/cgroup.procs"); do
		[[ "$(readlink "/proc/$p/ns/time")" == "$(readlink "/proc/$pid/ns/time")" ]] && same=$((same + 1))
	done
	[[ "$same" -ge 2 ]]
	run cr checkpoint --image-path "$IMG" "$CID"
	assert_success
	restore_ctr "$CID"
	runtime_timeout 60 exec "$CID" test -d "/proc/$e"
	runtime delete --force "$CID"
}

@test "restore: a mount point's parent planted as a symlink out of the rootfs: made inside it, nothing outside" {
	if ! on_cgroup2; then guest_verdict; return; fi
	mountpoint_bundle
	start_and_dump
	mkdir "$BATS_TEST_TMPDIR/outside"
	rm -r "$BUNDLE/rootfs/cr-data" "$BUNDLE/rootfs/cr-file" "$BUNDLE/rootfs/cr-scratch"
	# absolute and through "..": both lead to the host's dir if followed there
	ln -s "$BATS_TEST_TMPDIR/outside" "$BUNDLE/rootfs/cr-data"
	ln -s "../../../../../../../../../../$BATS_TEST_TMPDIR/outside/file" "$BUNDLE/rootfs/cr-file"
	run restore_ctr "$CID"
	# the host's dir stays empty: the mount points are made where the links
	# lead inside the rootfs, and CRIU, which finds none on its own walk, fails
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/outside")" ]
	[[ -d "$BUNDLE/rootfs$BATS_TEST_TMPDIR/outside/in" && -f "$BUNDLE/rootfs$BATS_TEST_TMPDIR/outside/file" ]]
	assert_failure 1
	assert_output --partial "criu failed"
	[[ ! -e "$ROOT/$CID" && ! -e "$(cgroup_of "$CID")" ]]
}

@test "checkpoint --pre-dump, then a dump with --parent-path: restored from the second, it counts on" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local pre="$BATS_TEST_TMPDIR/pre" n pid
	IMG="$BATS_TEST_TMPDIR/final"
	start_ctr "$CID"
	wait_count "$CID" 10
	pid="$(state_field "$CID" pid)"
	run cr checkpoint --pre-dump --image-path "$pre" "$CID"
	assert_success
	# the container runs on, the pre-dump holds its memory, no descriptors.json
	[ "$(state_field "$CID" status)" = running ]
	[ "$(state_field "$CID" pid)" = "$pid" ]
	compgen -G "$pre/pages-*.img" >/dev/null
	[[ ! -e "$pre/descriptors.json" ]]
	counts_on "$CID"
	run cr checkpoint --parent-path ../pre --image-path "$IMG" "$CID"
	assert_success
	[[ ! -e "$ROOT/$CID" ]]
	# CRIU's link to the parent, and fewer pages: the unchanged ones stay there
	[ "$(readlink "$IMG/parent")" = ../pre ]
	[[ "$(cat "$IMG"/pages-*.img | wc -c)" -lt "$(cat "$pre"/pages-*.img | wc -c)" ]]
	restore_ctr "$CID"
	n="$(counter "$CID")"
	[[ "$n" -ge 13 ]]
	wait_count "$CID" $((n + 3))
	runtime delete --force "$CID"
}

# runc's (and youki's) "checkpoint --lazy-pages and restore": the dump serves
# the pages at --page-server and says so on --status-fd; criu's lazy-pages
# daemon fetches them for a restore --lazy-pages into a new id; the
# checkpoint ends (and deletes the first container) once all are moved.
@test "checkpoint --lazy-pages --page-server --status-fd, restore --lazy-pages through criu lazy-pages: it counts on" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local port=27277 ready="$BATS_TEST_TMPDIR/ready" lazy cpt lp out n
	start_ctr "$CID"
	wait_count "$CID" 10
	# the status fd: a FIFO the test holds open read-write (no open blocks)
	mkfifo "$ready"
	exec {lazy}<>"$ready"
	cr checkpoint --lazy-pages --page-server "0.0.0.0:$port" --status-fd "$lazy" \
		--manage-cgroups-mode ignore --image-path "$IMG" "$CID" >"$BATS_TEST_TMPDIR/cpt.out" 2>&1 &
	cpt=$!
	echo "$cpt" >>"$BATS_TEST_TMPDIR/bg"
	# the one byte, a \0, once the page server is up (od prints 000000)
	out="$(timeout 120 dd if="$ready" bs=1 count=1 2>/dev/null | od -An -b | tr -d ' ')"
	exec {lazy}>&-
	[ "$out" = 000 ] || { cat "$BATS_TEST_TMPDIR/cpt.out"; false; }
	[[ -s "$IMG/inventory.img" ]]
	criu lazy-pages --page-server --address 127.0.0.1 --port "$port" -D "$IMG" </dev/null >/dev/null 2>&1 3>&- 4>&- &
	lp=$!
	echo "$lp" >>"$BATS_TEST_TMPDIR/bg"
	# a new id, so a cgroup of its own: the first one is there until the last page moved
	restore_ctr --lazy-pages --manage-cgroups-mode ignore "$CID-2"
	wait "$cpt" || { cat "$BATS_TEST_TMPDIR/cpt.out"; false; }
	wait "$lp"
	# the dumped container is gone, the restored one counts on from where it was
	[[ ! -e "$ROOT/$CID" ]]
	n="$(counter "$CID-2")"
	[[ "$n" -ge 10 ]]
	wait_count "$CID-2" $((n + 3))
	runtime delete --force "$CID-2"
}

# youki's checkpoint_and_restore_with_link_remap (runc 1.3's --link-remap): an
# open file unlinked under its name while another link to it remains is
# dumped only with CRIU's link remap; after the restore the fd reads it.
@test "checkpoint --link-remap: an open file unlinked under one of its two names comes back (without it the dump fails)" {
	if ! on_cgroup2; then guest_verdict; return; fi
	local lr="$BATS_TEST_TMPDIR/lr"
	mkdir -p "$lr"
	update_config '.mounts += [{destination: "/lr", type: "bind", source: $src, options: ["rbind", "rw"]}]' --arg src "$lr"
	set_cmd 'echo -n lr-'"$TOKEN"' >/lr/data; ln /lr/data /lr/keep; exec 5</lr/data; rm /lr/data
		i=0; while :; do i=$((i + 1)); echo $i >/tmp/cnt; sleep 0.1; done'
	start_ctr "$CID"
	wait_count "$CID" 5
	run cr checkpoint --image-path "$IMG" "$CID"
	assert_failure 1
	[ "$(state_field "$CID" status)" = running ]
	rm -rf "$IMG"
	run cr checkpoint --link-remap --image-path "$IMG" "$CID"
	assert_success
	[[ ! -e "$ROOT/$CID" ]]
	restore_ctr "$CID"
	[ "$(runtime_timeout 60 exec "$CID" cat /proc/1/fd/5)" = "lr-$TOKEN" ]
	counts_on "$CID"
	runtime delete --force "$CID"
}

@test "checkpoint/restore of a terminal container (runc's way): the new pty's master to --console-socket, it ticks on there" {
	if ! on_cgroup2; then guest_verdict; return; fi
	update_config '.process.terminal = true'
	set_cmd 'i=0; while :; do i=$((i + 1)); echo $i >/tmp/cnt; echo "tick-$i"; sleep 0.1; done'
	recv_tty run
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --console-socket "$SOCK" --bundle "$BUNDLE" \
		"$CID" </dev/null >/dev/null 2>&1 3>&- 4>&-
	record_container_pid "$CID"
	wait_count "$CID" 10
	run cr checkpoint --image-path "$IMG" "$CID"
	assert_success
	wait "$RECV_PID" || true
	local first n pid
	first="$(tail -1 "$TTY_OUT" | tr -d '\r')"
	# without a console socket: refused, nothing made
	run cr restore -d -b "$BUNDLE" --image-path "$IMG" "$CID"
	assert_failure 1
	assert_output "tinyrun: restore: process.terminal is true: --console-socket is required"
	[[ ! -e "$ROOT/$CID" ]]
	recv_tty restored
	restore_ctr --console-socket "$SOCK" "$CID"
	pid="$(state_field "$CID" pid)"
	[[ "$(readlink "/proc/$pid/fd/1")" == /dev/pts/* ]]
	n="$(counter "$CID")"
	wait_count "$CID" $((n + 5))
	# the ticks go on from where the first pty left them, on the new one
	grep -q "tick-$((n + 2))" "$TTY_OUT"
	[[ "${first#tick-}" -le "$n" ]]
	runtime delete --force "$CID"
	wait "$RECV_PID" || true
}

# podman with private storage and tinyrun as its runtime (as clients.bats)
podman_cr() {
	timeout -k 5 300 "$TEST_LIB_BIN/subreaper" podman --root "$PM/storage" --runroot "$PM/run" \
		--tmpdir "$PM/tmp" --storage-driver overlay --cgroup-manager cgroupfs --events-backend file \
		--runtime tinyrun "$@" </dev/null 3>&- 4>&-
}

@test "podman container checkpoint/restore of a running container, tinyrun as its runtime: it counts on" {
	if ! on_cgroup2; then guest_verdict; return; fi
	command -v podman >/dev/null && command -v conmon >/dev/null || skip "podman/conmon not installed"
	PM="$BATS_TEST_TMPDIR/pm"
	mkdir -p "$PM"
	printf '[containers]\ndefault_ulimits = []\nnetns = "none"\ndefault_sysctls = []\n[engine.runtimes]\ntinyrun = ["%s"]\n' \
		"$RUNTIME" >"$PM/containers.conf"
	export CONTAINERS_CONF="$PM/containers.conf"
	tar -C "$BUNDLE/rootfs" -cf "$PM/rootfs.tar" .
	podman_cr import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$PM/rootfs.tar" localhost/cr:1 >/dev/null
	podman_cr run -d --name "c-$CID" localhost/cr:1 \
		sh -c 't=$RANDOM$RANDOM; i=0; while :; do i=$((i + 1)); echo "$t $i" >/cnt; sleep 0.1; done' >/dev/null
	# "T N": T a random number the shell drew once and keeps in memory (a
	# restarted shell draws another), N its counter
	local n before after
	for ((n = 0; n < 300; n++)); do
		before="$(podman_cr exec "c-$CID" cat /cnt 2>/dev/null || true)"
		[[ "${before#* }" -ge 20 ]] 2>/dev/null && break
		sleep 0.1
	done
	[[ "${before#* }" -ge 20 ]]
	run podman_cr container checkpoint "c-$CID"
	assert_success
	run podman_cr inspect --format '{{.State.Status}}' "c-$CID"
	assert_output exited
	run podman_cr container restore "c-$CID"
	assert_success
	run podman_cr inspect --format '{{.State.Status}} {{.OCIRuntime}}' "c-$CID"
	assert_output "running tinyrun"
	# the shell's counter, in its memory, goes on from where it was
	after="$(podman_cr exec "c-$CID" cat /cnt)"
	[ "${after% *}" = "${before% *}" ]
	[[ "${after#* }" -ge "${before#* }" ]]
	sleep 1
	n="$(podman_cr exec "c-$CID" cat /cnt)"
	[[ "${n#* }" -gt "${after#* }" ]]
	podman_cr rm -f -t 0 "c-$CID" >/dev/null
	podman_cr rmi -f localhost/cr:1 >/dev/null
	awk -v d="$PM/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r | xargs -r -n1 umount -l
}
