#!/usr/bin/env bats
# tinyrun check: the host report. On this host everything is there; then,
# for each facility with a fallback, tests/lib/nosys.c makes its syscalls
# ENOSYS: the report says it is missing and what tinyrun does instead, and a
# container still runs through that fallback. For the required ones without
# a fallback the report says so and the container indeed fails.

load helpers

setup() {
	tr_setup
	build_static "$TESTS_DIR/lib/nosys.c"
	NOSYS="$TEST_LIB_BIN/nosys"
}

# nosys_check SYSCALLS: `check --format json` with SYSCALLS missing; $status, $output
nosys_check() {
	run "$NOSYS" "$1" -- "$RUNTIME" check --format json
}

# facility NAME FIELD: a field of one facility of the JSON in $output
facility() {
	jq -r --arg f "$1" ".facilities[] | select(.facility == \$f) | .$2" <<<"$output"
}

# A bind mount whose destination the rootfs walk resolves, and a marker the
# container prints: the container ran and saw the bind.
bind_marker() {
	mkdir -p "$OUT"
	echo "vol-$TOKEN" >"$OUT/f"
	update_config '.mounts += [{"destination": "/mnt/deep/vol", "type": "bind", "source": $src, "options": ["rbind", "ro"]}]' \
		--arg src "$OUT"
	set_cmd 'echo "ran-$TINYRUN_TEST_TOKEN"; cat /mnt/deep/vol/f'
}

run_under_nosys() {
	run_nohang "$NOSYS" "$1" -- "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
}

# container_runs_without SYSCALLS: a container with a bind runs through the
# fallback and sees the bind
container_runs_without() {
	bind_marker
	run_under_nosys "$1"
	assert_success
	assert_line "ran-$TOKEN"
	assert_line "vol-$TOKEN"
}

@test "check: every facility on this host, exit 0, the minimum kernel stated" {
	run "$RUNTIME" check
	assert_success
	assert_line --regexp "^kernel $(uname -r | sed 's/[.+]/\\&/g') \(tinyrun needs Linux 5\.12 or later\)$"
	local f
	for f in clone3 CLONE_INTO_CGROUP openat2 'open_tree, move_mount' 'fsopen, fsmount' mount_setattr \
		MOUNT_ATTR_IDMAP 'pidfd_open, pidfd_send_signal' 'setns(pidfd)' close_range 'time namespace' \
		'seccomp filter flags' 'seccomp user notification' Landlock 'cgroup layout' 'user namespaces' criu \
		'hidden proc or sysfs'; do
		assert_line --regexp "^$(sed 's/[][().*+]/\\&/g' <<<"$f") "
	done
	assert_line --regexp '^clone3 +5\.3 +required +present'
	assert_line --regexp '^cgroup layout .* (hybrid|v2|v1): '
	assert_line 'ok: everything tinyrun requires is there'
	refute_line --regexp ' required +missing '
}

@test "check --format json: the same rows for a machine; the host's facts" {
	run "$RUNTIME" check --format json
	assert_success
	[ "$(jq -r .ok <<<"$output")" = true ]
	[ "$(jq -r .minimumKernel <<<"$output")" = 5.12 ]
	[ "$(jq -r .kernel <<<"$output")" = "$(uname -r)" ]
	[ "$(facility openat2 status)" = present ]
	[ "$(facility openat2 need)" = required ]
	[ "$(facility 'fsopen, fsmount' need)" = fallback ]
	# what the probes say agrees with the host
	local max
	max="$(cat /proc/sys/user/max_user_namespaces)"
	[[ "$(facility 'user namespaces' found)" == *"user.max_user_namespaces=$max "* ]]
	if [[ -e /sys/kernel/security/landlock ]] || grep -qw landlock /sys/kernel/security/lsm 2>/dev/null; then
		[[ "$(facility Landlock found)" == "ABI "* ]]
	fi
	if command -v criu >/dev/null; then
		[ "$(facility criu status)" = present ]
	else
		[ "$(facility criu status)" = missing ]
	fi
	[[ "$(facility criu without)" == *"no checkpoint/restore"* ]]
}

# A whole proc that no path reaches (a root stacked over one, as busybox's
# switch_root stacks the real root over the initramfs and its /proc) is in no
# mountinfo: no runtime can detach it, and the kernel lets any user namespace
# mount a fresh, unmasked proc while it is there. Made here in a private mount
# namespace as switch_root makes it (an rbind of / moved onto /): the report
# says so, and a container there (pivot_root, no masks missing) indeed mounts
# a fresh proc from a nested user namespace. On this host: none.
@test "check: a whole proc hidden below a stacked / is reported, and a container there can mount a fresh proc" {
	run "$RUNTIME" check --format json
	assert_success
	[ "$(facility 'hidden proc or sysfs' status)" = missing ]
	[ "$(facility 'hidden proc or sysfs' found)" = none ]

	local stack="$BATS_TEST_TMPDIR/stack" in_stack
	mkdir "$stack"
	in_stack="mount --rbind / '$stack' && cd '$stack' && mount --move . / && exec chroot ."
	run unshare -m --propagation private sh -c "$in_stack $(printf '%q ' "$RUNTIME") check --format json"
	assert_success
	[ "$(facility 'hidden proc or sysfs' status)" = present ]
	[[ "$(facility 'hidden proc or sysfs' found)" == "a whole proc and sysfs below a stacked /"* ]]

	update_config '.process.capabilities.bounding += ["CAP_SETFCAP"]
		| .process.capabilities.permitted += ["CAP_SETFCAP"]'
	set_cmd 'unshare -mrpf sh -c "mount -t proc none /proc && echo mounted-proc"; echo done'
	run_nohang unshare -m --propagation private sh -c \
		"$in_stack $(printf '%q ' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID")"
	assert_success
	assert_line mounted-proc
	# and on this host the same container cannot
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line done
	refute_line mounted-proc
}

@test "check: a bad --format or an argument is a usage error naming it" {
	run "$RUNTIME" check --format xml
	assert_failure 1
	assert_output --partial '--format: invalid value "xml"'
	run "$RUNTIME" check extra
	assert_failure 1
	assert_output --partial 'check: takes no arguments'
}

@test "check without clone3: missing, create/run use clone(2); a container runs, exec fails as said" {
	nosys_check clone3
	assert_failure 1
	[ "$(facility clone3 status)" = missing ]
	[[ "$(facility clone3 without)" == *"create, run: clone(2)"* ]]
	[ "$(facility CLONE_INTO_CGROUP status)" = missing ]
	container_runs_without clone3
	set_args sleep 3600
	run_detached "$CID-2"
	run_nohang "$NOSYS" clone3 -- "$RUNTIME" --root "$ROOT" exec "$CID-2" true
	assert_failure
	assert_output --partial 'clone: Function not implemented'
}

@test "check without openat2: missing, rootfs paths walked with O_PATH; a container runs with a bind" {
	nosys_check openat2
	assert_failure 1
	[ "$(facility openat2 status)" = missing ]
	[[ "$(facility openat2 without)" == *"component walk with O_PATH"* ]]
	# the report reads its sysctls without openat2 too
	[[ "$(facility 'user namespaces' found)" == *"user.max_user_namespaces=$(cat /proc/sys/user/max_user_namespaces) "* ]]
	container_runs_without openat2
}

@test "check without fsopen: a fallback only (exit 0); a container runs" {
	nosys_check fsopen,fsconfig,fsmount
	assert_success
	[ "$(jq -r .ok <<<"$output")" = true ]
	[ "$(facility 'fsopen, fsmount' status)" = missing ]
	[[ "$(facility 'fsopen, fsmount' without)" == *"sealed memfd copy"* ]]
	run "$NOSYS" fsopen,fsconfig,fsmount -- "$RUNTIME" check
	assert_success
	assert_line --regexp '^fsopen, fsmount +5\.2 +fallback +missing'
	assert_line --regexp '^ +without it: runtime binary: a sealed memfd copy'
	container_runs_without fsopen,fsconfig,fsmount
}

@test "check without pidfd_open: missing, run goes on without it; kill fails as said" {
	nosys_check pidfd_open
	assert_failure 1
	[ "$(facility 'pidfd_open, pidfd_send_signal' status)" = missing ]
	[[ "$(facility 'pidfd_open, pidfd_send_signal' without)" == *"kill, exec: none"* ]]
	[ "$(facility 'setns(pidfd)' status)" = missing ]
	container_runs_without pidfd_open
	set_args sleep 3600
	run_detached "$CID-2"
	run_nohang "$NOSYS" pidfd_open -- "$RUNTIME" --root "$ROOT" kill "$CID-2" KILL
	assert_failure 1
	assert_output --partial 'Function not implemented'
	[ "$(state_field "$CID-2" status)" = running ]
}

@test "check without a required facility (close_range, mount_setattr): exit 1 naming it; a container fails" {
	local sys
	for sys in close_range mount_setattr; do
		run "$NOSYS" "$sys" -- "$RUNTIME" check
		assert_failure 1
		assert_line --regexp "^$sys +[0-9.]+ +required +missing"
		assert_line --regexp "^not ok: required but missing: .*$sys"
		run_under_nosys "$sys"
		assert_failure
		assert_output --partial 'Function not implemented'
		refute_output --partial "ran-"
		[ ! -e "$ROOT/$CID" ]
	done
}
