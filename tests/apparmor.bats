#!/usr/bin/env bats
# process.apparmorProfile for real: profiles loaded with apparmor_parser
# confine the container's process and `exec`'d ones (exec --apparmor picks
# another); a profile that is not loaded fails create; and the label cannot be
# dodged by the image (CVE-2025-52881 class): the runtime asks the host's /sys
# whether AppArmor is on (not the image's /sys after pivot_root), and writes
# the label only through a /proc proven to be procfs (no image directory, no
# mount over the attr file).
#
# On a host without AppArmor (our hybrid machines), this same file runs in a
# ../shared/tools/vm-run guest (its stock Debian kernel has AppArmor on): the
# one run-all.sh boots for every suite that needs one, or one of its own
# (guest_setup_file). Every test here reports the guest's verdict for itself.
# APPARMOR_NO_VM=1 skips instead.

load helpers

AA_ENABLED=/sys/module/apparmor/parameters/enabled

aa_enabled_here() {
	[[ "$(cat "$AA_ENABLED" 2>/dev/null)" == Y* ]]
}

aa_profile() { # NAME DENIED-PATH: everything a busybox container needs, but DENIED-PATH
	cat <<EOF
profile $1 flags=(attach_disconnected,mediate_deleted) {
  file,
  capability,
  network,
  signal,
  ptrace,
  unix,
  mount,
  umount,
  pivot_root,
  deny $2 r,
}
EOF
}

# Sets AA_MODE: local (AppArmor here, profiles loaded), guest (the guest's
# TAP is in $VM_TAP) or skip (AA_SKIP says why; bats 1.8 cannot skip from
# setup_file).
setup_file() {
	export AA_MODE=skip AA_SKIP=""
	if aa_enabled_here; then
		if ! command -v apparmor_parser >/dev/null; then
			export AA_SKIP="apparmor_parser is not installed (make deps: apparmor)"
			return 0
		fi
		if [[ ! -d /sys/kernel/security/apparmor ]]; then
			if ! mount -t securityfs securityfs /sys/kernel/security; then
				export AA_SKIP="AppArmor is enabled but securityfs cannot be mounted"
				return 0
			fi
			export AA_MOUNTED_SECURITYFS=1
		fi
		export AA_DENY="tinyrun-test-$$-deny-secret" AA_OTHER="tinyrun-test-$$-deny-other"
		export AA_MISSING="tinyrun-test-$$-not-loaded"
		aa_profile "$AA_DENY" /secret >"$BATS_FILE_TMPDIR/deny.aa"
		aa_profile "$AA_OTHER" /other >"$BATS_FILE_TMPDIR/other.aa"
		if ! apparmor_parser -r "$BATS_FILE_TMPDIR/deny.aa" "$BATS_FILE_TMPDIR/other.aa"; then
			export AA_SKIP="apparmor_parser cannot load the test profiles"
			return 0
		fi
		export AA_MODE=local
		return 0
	fi
	local why="AppArmor is not enabled on this host ($AA_ENABLED: $(cat "$AA_ENABLED" 2>/dev/null || echo missing))"
	if [[ -n "${TINYRUN_IN_GUEST:-}" ]]; then
		export AA_SKIP="$why: not in the vm-run guest either"
	elif [[ -n "${APPARMOR_NO_VM:-}" ]]; then
		export AA_SKIP="$why and APPARMOR_NO_VM is set"
	else
		export AA_MODE=guest
		guest_setup_file apparmor.bats 900 "" apparmor
	fi
}

teardown_file() {
	if [[ "${AA_MODE:-}" == local ]]; then
		apparmor_parser -R "$BATS_FILE_TMPDIR/deny.aa" "$BATS_FILE_TMPDIR/other.aa" || true
	fi
	if [[ -n "${AA_MOUNTED_SECURITYFS:-}" ]]; then
		umount /sys/kernel/security || true
	fi
	return 0
}

# Not local: skip (AA_SKIP), or the guest's verdict (helpers.bash; it skips
# when there is no vm-run).
aa_guest_verdict() {
	[[ "$AA_MODE" != skip ]] || skip "$AA_SKIP"
	guest_verdict
}

not_local() {
	[[ "$AA_MODE" != local ]]
}

setup() {
	not_local && return 0
	tr_setup
	echo s3cret >"$BUNDLE/rootfs/secret"
	echo 0ther >"$BUNDLE/rootfs/other"
}

teardown() {
	not_local && return 0
	tr_teardown
}

set_profile() {
	update_config '.process.apparmorProfile = $p' --arg p "$1"
}

READ_BOTH='cat /proc/self/attr/current; cat /secret; echo "secret=$?"; cat /other; echo "other=$?"'

@test "apparmor: without a profile the container is unconfined and reads /secret (control)" {
	if not_local; then aa_guest_verdict; return; fi
	set_cmd "$READ_BOTH"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line unconfined
	assert_line s3cret
	assert_line secret=0
}

@test "apparmor: apparmorProfile confines the container (attr/current, /secret EACCES)" {
	if not_local; then aa_guest_verdict; return; fi
	set_profile "$AA_DENY"
	set_cmd "$READ_BOTH"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line "$AA_DENY (enforce)"
	assert_line --partial "can't open '/secret': Permission denied"
	refute_line s3cret
	assert_line secret=1
	assert_line 0ther
}

@test "apparmor: exec into the confined container gets the container's profile" {
	if not_local; then aa_guest_verdict; return; fi
	set_profile "$AA_DENY"
	run_detached "$CID"
	assert_equal "$(cat "/proc/$(state_field "$CID" pid)/attr/current")" "$AA_DENY (enforce)"
	run_nohang runtime exec "$CID" sh -c "$READ_BOTH"
	assert_success
	assert_line "$AA_DENY (enforce)"
	assert_line --partial "can't open '/secret': Permission denied"
	assert_line secret=1
	assert_line other=0
}

@test "apparmor: exec --apparmor OTHER gets OTHER, the container keeps its own" {
	if not_local; then aa_guest_verdict; return; fi
	set_profile "$AA_DENY"
	run_detached "$CID"
	run_nohang runtime exec --apparmor "$AA_OTHER" "$CID" sh -c "$READ_BOTH"
	assert_success
	assert_line "$AA_OTHER (enforce)"
	assert_line s3cret
	assert_line secret=0
	assert_line --partial "can't open '/other': Permission denied"
	assert_line other=1
	assert_equal "$(cat "/proc/$(state_field "$CID" pid)/attr/current")" "$AA_DENY (enforce)"
}

@test "apparmor: a profile that is not loaded fails run (exit 1, clear error, no state dir)" {
	if not_local; then aa_guest_verdict; return; fi
	set_profile "$AA_MISSING"
	set_cmd 'echo started'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "process.apparmorProfile \"$AA_MISSING\": profile not loaded"
	refute_line started
	assert_equal "$(test_state_dirs)" ""
}

@test "apparmor: exec --apparmor with a profile that is not loaded fails, the container goes on" {
	if not_local; then aa_guest_verdict; return; fi
	run_detached "$CID"
	run_nohang runtime exec --apparmor "$AA_MISSING" "$CID" echo started
	assert_failure 255
	assert_output --partial "process.apparmorProfile \"$AA_MISSING\": profile not loaded"
	refute_line started
	assert_equal "$(state_field "$CID" status)" running
}

@test "apparmor: hostile image, a fake /sys/module/apparmor/parameters/enabled saying N: still confined" {
	if not_local; then aa_guest_verdict; return; fi
	# no sysfs in the container: its /sys is the image's, with the fake file
	update_config '.mounts |= map(select(.destination | startswith("/sys") | not))'
	mkdir -p "$BUNDLE/rootfs/sys/module/apparmor/parameters"
	echo N >"$BUNDLE/rootfs/sys/module/apparmor/parameters/enabled"
	set_profile "$AA_DENY"
	set_cmd "cat /sys/module/apparmor/parameters/enabled; $READ_BOTH"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line N
	assert_line "$AA_DENY (enforce)"
	refute_line s3cret
	assert_line secret=1
}

@test "apparmor: hostile image, no /proc mount and a fake /proc/self/attr: refused, nothing left" {
	if not_local; then aa_guest_verdict; return; fi
	update_config '.mounts |= map(select(.destination != "/proc"))
		| .linux.maskedPaths |= map(select(startswith("/proc") | not))
		| .linux.readonlyPaths |= map(select(startswith("/proc") | not))'
	mkdir -p "$BUNDLE/rootfs/proc/self/attr/apparmor"
	: >"$BUNDLE/rootfs/proc/self/attr/apparmor/exec"
	: >"$BUNDLE/rootfs/proc/self/attr/exec"
	set_profile "$AA_DENY"
	set_cmd "$READ_BOTH"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "not procfs"
	refute_line s3cret
	assert_equal "$(cat "$BUNDLE/rootfs/proc/self/attr/apparmor/exec" "$BUNDLE/rootfs/proc/self/attr/exec")" ""
	assert_equal "$(test_state_dirs)" ""
}

@test "apparmor: hostile mounts over /proc/1/attr/{apparmor/,}exec (CVE-2025-52881): refused, nothing left" {
	if not_local; then aa_guest_verdict; return; fi
	# the container's first process is pid 1 of its pid namespace: its
	# /proc/self/attr/... is /proc/1/attr/..., here a plain file of the host
	: >"$BATS_TEST_TMPDIR/absorb"
	update_config '.mounts += [
		{destination: "/proc/1/attr/apparmor/exec", type: "bind", source: $f, options: ["bind", "rw"]},
		{destination: "/proc/1/attr/exec", type: "bind", source: $f, options: ["bind", "rw"]}]' \
		--arg f "$BATS_TEST_TMPDIR/absorb"
	set_profile "$AA_DENY"
	set_cmd "$READ_BOTH"
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "not procfs"
	refute_line s3cret
	assert_equal "$(cat "$BATS_TEST_TMPDIR/absorb")" ""
	assert_equal "$(test_state_dirs)" ""
}
