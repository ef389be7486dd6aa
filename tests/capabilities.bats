#!/usr/bin/env bats
# Capabilities and privileges, seen from inside real containers: the five
# capability sets in /proc/self/status (hex masks decoded against the bit
# numbers of <linux/capability.h>, not the runtime's own table), unknown and
# too-new names, noNewPrivileges against a setuid-root binary, `exec --cap`
# (never inheritable: CVE-2022-29162 class), `exec -p`,
# process.oomScoreAdj and the per-container session keyring.
#
# The status is read by the container process itself (process.args =
# `cat /proc/self/status`), so the sets are the ones after the runtime's
# execve. The kernel recomputes them there (capabilities(7)):
#   root (no file caps):  P' = bounding | inheritable | ambient, E' = P'
#   non-root:             P' = E' = ambient
#   bounding, inheritable and ambient pass through unchanged.
# The expectations below follow those rules; each test says which applies.

load helpers

CAP_HEADER="${CAP_HEADER:-/usr/include/linux/capability.h}"

# --- capability names and masks ------------------------------------------

declare -gA CAP_BIT=()
declare -ga CAP_NAME=()

# Bit numbers from the kernel's UAPI header: an oracle independent of both
# the runtime's table and the checker's.
load_cap_bits() {
	local name bit
	[[ -r "$CAP_HEADER" ]] || { echo "$CAP_HEADER missing (linux-libc-dev)" >&2; return 1; }
	while read -r name bit; do
		CAP_BIT[$name]=$bit
		CAP_NAME[bit]=$name
	done < <(sed -nE 's/^#define[[:space:]]+(CAP_[A-Z_]+)[[:space:]]+([0-9]+)[[:space:]]*$/\1 \2/p' "$CAP_HEADER")
	[[ -n "${CAP_BIT[CAP_CHOWN]:-}" && -n "${CAP_BIT[CAP_KILL]:-}" ]]
}

# cap_mask A,B,...: the 16-digit hex mask /proc/PID/status prints for them.
cap_mask() {
	local mask=0 name
	local IFS=,
	for name in $1; do
		[[ -n "$name" ]] || continue
		[[ -n "${CAP_BIT[$name]:-}" ]] || { echo "cap_mask: no bit for $name" >&2; return 1; }
		mask=$((mask | (1 << CAP_BIT[$name])))
	done
	printf '%016x\n' "$mask"
}

# cap_names HEX: the names of the bits set in a mask (for messages).
cap_names() {
	local mask=$((16#$1)) bit out=""
	for ((bit = 0; bit < 64; bit++)); do
		((mask & (1 << bit))) || continue
		out+="${out:+,}${CAP_NAME[$bit]:-bit$bit}"
	done
	echo "$out"
}

cap_last_cap() {
	cat /proc/sys/kernel/cap_last_cap
}

# Every capability this kernel knows that the test (so the runtime) holds in
# its permitted set: the largest set a container can be given here (e.g.
# this machine's supervisor withholds CAP_SYS_RESOURCE).
held_caps() {
	local prm last bit out=""
	prm="$(sed -n 's/^CapPrm:[[:space:]]*//p' /proc/self/status)"
	last="$(cap_last_cap)"
	for ((bit = 0; bit <= last; bit++)); do
		(((16#$prm) & (1 << bit))) || continue
		[[ -n "${CAP_NAME[$bit]:-}" ]] || continue
		out+="${out:+,}${CAP_NAME[$bit]}"
	done
	echo "$out"
}

# --- config and observation ------------------------------------------------

# set_caps BND EFF PRM INH AMB: see helpers.bash

# run_status: run the container in the foreground with process.args =
# cat /proc/self/status; its status in $output.
run_status() {
	set_args cat /proc/self/status
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
}

# status_value FIELD: FIELD's value in $output (one /proc/PID/status).
status_value() {
	local v
	v="$(sed -n "s/^$1:[[:space:]]*//p" <<<"$output")"
	[[ -n "$v" && "$v" != *$'\n'* ]] || { echo "status field $1: '$v'" >&2; return 1; }
	echo "$v"
}

# assert_cap FIELD NAMES: FIELD (CapBnd, CapEff, ...) of the status in
# $output is exactly the mask of NAMES.
assert_cap() {
	local field="$1" want got
	want="$(cap_mask "$2")" || fail "bad names: $2"
	got="$(status_value "$field")" || fail "no $field in: $output"
	got="$(printf '%016x' "$((16#$got))")"
	[[ "$got" == "$want" ]] ||
		fail "$field is $got ($(cap_names "$got")), config asks for $want ($2)"
}

# assert_caps BND EFF PRM INH AMB: all five at once.
assert_caps() {
	assert_cap CapBnd "$1"
	assert_cap CapEff "$2"
	assert_cap CapPrm "$3"
	assert_cap CapInh "$4"
	assert_cap CapAmb "$5"
}

assert_status() { # FIELD VALUE
	local got
	got="$(status_value "$1")" || fail "no $1 in: $output"
	[[ "$got" == "$2" ]] || fail "$1 is '$got', expected '$2'"
}

# --- helper programs -------------------------------------------------------

# The keyring helper (tests/lib/caps/keyring.c), built static once.
build_caps_lib() {
	local src="$TESTS_DIR/lib/caps/keyring.c" bin="$TEST_LIB_BIN/keyring"
	[[ -x "$bin" && ! "$src" -nt "$bin" ]] && return 0
	(
		flock 9
		if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
			gcc -static -O2 -Wall -Wextra -Werror -o "$bin.tmp" "$src" && mv "$bin.tmp" "$bin"
		fi
	) 9>"$TEST_LIB_BIN/.lock"
}

# A setuid-root copy of the checker in the bundle's rootfs (a copy: the
# rootfs is hard links to the shared cache).
add_suid_checker() {
	cp "$TEST_LIB_BIN/checker" "$BUNDLE/rootfs/bin/suid-checker"
	chown 0:0 "$BUNDLE/rootfs/bin/suid-checker"
	chmod 4755 "$BUNDLE/rootfs/bin/suid-checker"
}

add_keyring_helper() {
	cp "$TEST_LIB_BIN/keyring" "$BUNDLE/rootfs/bin/keyring"
}

# write_process FILE JQ-EXPR [jq args]: a process.json for `exec -p`, the
# bundle's process object edited by JQ-EXPR.
write_process() {
	local file="$1" expr="$2"
	shift 2
	jq "$@" ".process | $expr" "$BUNDLE/config.json" >"$file"
}

setup() {
	tr_setup || return 1
	build_caps_lib || return 1
	load_cap_bits
}

# --- the five sets ---------------------------------------------------------

@test "caps: the full set (every capability the runtime holds) in all five sets" {
	local all
	all="$(held_caps)"
	[[ -n "$all" ]]
	set_caps "$all" "$all" "$all" "$all" "$all"
	run_status
	assert_caps "$all" "$all" "$all" "$all" "$all"
}

@test "caps: empty sets give five zero masks (root too)" {
	set_caps "" "" "" "" ""
	run_status
	assert_caps "" "" "" "" ""
	assert_status Uid $'0\t0\t0\t0'
}

@test "caps: a mix, ambient within inheritable and permitted is raised" {
	local bnd=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_KILL,CAP_SETUID,CAP_SETGID,CAP_NET_BIND_SERVICE,CAP_NET_RAW,CAP_SYS_CHROOT
	set_caps "$bnd" "$bnd" "$bnd" CAP_KILL,CAP_NET_BIND_SERVICE,CAP_NET_RAW CAP_KILL,CAP_NET_BIND_SERVICE
	run_status
	assert_caps "$bnd" "$bnd" "$bnd" CAP_KILL,CAP_NET_BIND_SERVICE,CAP_NET_RAW CAP_KILL,CAP_NET_BIND_SERVICE
}

@test "caps: ambient outside inheritable is not raised, the container still starts (root)" {
	local bnd=CAP_CHOWN,CAP_KILL,CAP_NET_RAW,CAP_SYS_CHROOT
	# CAP_SYS_CHROOT is ambient but not inheritable: PR_CAP_AMBIENT_RAISE
	# fails; runc ignores that, so does a drop-in.
	set_caps "$bnd" "$bnd" "$bnd" CAP_KILL CAP_KILL,CAP_SYS_CHROOT
	run_status
	assert_caps "$bnd" "$bnd" "$bnd" CAP_KILL CAP_KILL
	# silently, as runc and crun (the stock `runc spec` config is this case)
	refute_output --partial "ambient capability"
	# --debug says so, in runc's words, naming only the one left out
	run_nohang runtime --debug run --bundle "$BUNDLE" "$CID-d"
	assert_success
	assert_output --partial "can't raise ambient capability CAP_SYS_CHROOT: "
	refute_output --partial "ambient capability CAP_KILL"
}

@test "caps: the stock runc spec config (ambient without inheritable) runs without a warning" {
	is_runc && skip "tinyrun's messages"
	command -v runc >/dev/null || skip "runc not installed"
	local stock="$BATS_TEST_TMPDIR/stock"
	mkdir -p "$stock"
	(cd "$stock" && runc spec)
	jq '.process.capabilities' "$stock/config.json" >"$BATS_TEST_TMPDIR/caps.json"
	[[ "$(jq 'has("inheritable")' "$BATS_TEST_TMPDIR/caps.json")" == false ]] || skip "this runc spec has inheritable"
	update_config '.process.capabilities = $c' --slurpfile c "$BATS_TEST_TMPDIR/caps.json"
	update_config '.process.capabilities = .process.capabilities[0]'
	set_args true
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output ''
}

@test "caps: ambient outside inheritable or permitted is not raised (non-root, ambient is all it keeps)" {
	update_config '.process.user = {uid: 1000, gid: 1000}'
	# NET_RAW: inheritable, not permitted. SYS_CHROOT: permitted, not
	# inheritable. KILL: both. Only KILL can be raised; after execve a
	# non-root process keeps P' = E' = ambient.
	set_caps CAP_KILL,CAP_NET_RAW,CAP_SYS_CHROOT CAP_KILL,CAP_SYS_CHROOT CAP_KILL,CAP_SYS_CHROOT \
		CAP_KILL,CAP_NET_RAW CAP_KILL,CAP_NET_RAW,CAP_SYS_CHROOT
	run_status
	assert_status Uid $'1000\t1000\t1000\t1000'
	assert_caps CAP_KILL,CAP_NET_RAW,CAP_SYS_CHROOT CAP_KILL CAP_KILL CAP_KILL,CAP_NET_RAW CAP_KILL
}

@test "caps: bounding smaller than permitted (root: permitted becomes bounding | inheritable)" {
	# capset accepts permitted bits outside the bounding set; root's execve
	# then gives P' = bounding | inheritable (| ambient).
	set_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_RAW \
		CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_RAW "" ""
	run_status
	assert_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL "" ""
}

@test "caps: bounding smaller than permitted, with inheritable inside bounding" {
	set_caps CAP_CHOWN,CAP_KILL,CAP_NET_RAW CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_RAW,CAP_SYS_CHROOT \
		CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_RAW,CAP_SYS_CHROOT CAP_NET_RAW CAP_NET_RAW
	run_status
	assert_caps CAP_CHOWN,CAP_KILL,CAP_NET_RAW CAP_CHOWN,CAP_KILL,CAP_NET_RAW \
		CAP_CHOWN,CAP_KILL,CAP_NET_RAW CAP_NET_RAW CAP_NET_RAW
}

@test "caps: a non-root user keeps exactly the configured sets across the uid change" {
	local bnd=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_NET_RAW
	local set=CAP_CHOWN,CAP_NET_BIND_SERVICE,CAP_NET_RAW
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps "$bnd" "$set" "$set" "$set" "$set"
	run_status
	assert_status Uid $'1000\t1000\t1000\t1000'
	assert_status Gid $'1000\t1000\t1000\t1000'
	assert_caps "$bnd" "$set" "$set" "$set" "$set"
}

@test "caps: a non-root user's effective CAP_CHOWN works, and is missing without it" {
	bind_out_dir
	touch "$OUT/a" "$OUT/b"
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL
	set_cmd 'chown 2000 /out/a && echo chown-ok'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line chown-ok
	[ "$(stat -c %u "$OUT/a")" = 2000 ]

	set_caps CAP_KILL CAP_KILL CAP_KILL CAP_KILL CAP_KILL
	set_cmd 'chown 2000 /out/b && echo chown-ok || echo chown-denied'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_line chown-denied
	[ "$(stat -c %u "$OUT/b")" = 0 ]
}

# --- names -----------------------------------------------------------------

@test "caps: a capability newer than the running kernel is skipped" {
	local last
	last="$(cap_last_cap)"
	[[ "$last" -lt 40 ]] || skip "kernel knows CAP_CHECKPOINT_RESTORE (cap_last_cap=$last): no newer name to use"
	set_caps CAP_KILL,CAP_CHECKPOINT_RESTORE CAP_KILL,CAP_CHECKPOINT_RESTORE CAP_KILL,CAP_CHECKPOINT_RESTORE \
		CAP_KILL,CAP_CHECKPOINT_RESTORE CAP_KILL,CAP_CHECKPOINT_RESTORE
	run_status
	assert_caps CAP_KILL CAP_KILL CAP_KILL CAP_KILL CAP_KILL
}

@test "caps: an unknown name is warned about on stderr and ignored, the known ones apply" {
	set_caps CAP_KILL,CAP_NOPE,CAP_CHOWN CAP_KILL,CAP_NOPE,CAP_CHOWN CAP_KILL,CAP_NOPE,CAP_CHOWN \
		CAP_NOPE,CAP_KILL CAP_KILL,CAP_NOPE
	set_args cat /proc/self/status
	run_nohang bash -c '"$0" --root "$1" run --bundle "$2" "$3" 2>"$4"' \
		"$RUNTIME" "$ROOT" "$BUNDLE" "$CID" "$BATS_TEST_TMPDIR/stderr"
	assert_success
	assert_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_KILL CAP_KILL
	run grep -c CAP_NOPE "$BATS_TEST_TMPDIR/stderr"
	[[ "$output" -ge 1 ]] || fail "no warning naming CAP_NOPE on stderr: $(cat "$BATS_TEST_TMPDIR/stderr")"
}

# --- noNewPrivileges -------------------------------------------------------

@test "noNewPrivileges: NoNewPrivs 1 in the status, 0 when false" {
	update_config '.process.noNewPrivileges = true'
	run_status
	assert_status NoNewPrivs 1

	update_config '.process.noNewPrivileges = false'
	run_status
	assert_status NoNewPrivs 0
}

@test "noNewPrivileges: a setuid-root binary does not elevate uid 1000; without it, it does" {
	add_suid_checker
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps CAP_CHOWN,CAP_KILL "" "" "" ""

	update_config '.process.noNewPrivileges = true'
	set_args /bin/suid-checker uid euid CapEff NoNewPrivs
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line uid=1000
	assert_line euid=1000
	assert_line CapEff=
	assert_line NoNewPrivs=1

	# the control: the same binary does elevate without no_new_privs (euid
	# 0, and root's P' = E' = bounding)
	update_config '.process.noNewPrivileges = false'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line uid=1000
	assert_line euid=0
	assert_line CapEff=CAP_CHOWN,CAP_KILL
	assert_line NoNewPrivs=0
}

@test "noNewPrivileges: children of the process cannot elevate through setuid either" {
	add_suid_checker
	update_config '.process.user = {uid: 1000, gid: 1000} | .process.noNewPrivileges = true'
	set_cmd '/bin/suid-checker euid; id -u'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line euid=1000
	refute_line euid=0
}

# --- exec --------------------------------------------------------------------

@test "exec --cap adds to bounding, effective and permitted, never to inheritable; ambient only within inheritable (root)" {
	local bnd=CAP_CHOWN,CAP_KILL
	set_caps "$bnd" "$bnd" "$bnd" CAP_KILL CAP_KILL
	run_detached "$CID"
	run_nohang runtime exec --cap CAP_NET_RAW --cap CAP_SYS_CHROOT "$CID" cat /proc/self/status
	assert_success
	local more=CAP_CHOWN,CAP_KILL,CAP_NET_RAW,CAP_SYS_CHROOT
	assert_caps "$more" "$more" "$more" CAP_KILL CAP_KILL

	# without --cap: the container's sets
	run_nohang runtime exec "$CID" cat /proc/self/status
	assert_success
	assert_caps "$bnd" "$bnd" "$bnd" CAP_KILL CAP_KILL
}

@test "exec --cap: a capability the config's inheritable set holds is raised into ambient too (runc)" {
	# runc adds --cap to ambient when the process has an inheritable set;
	# only what inheritable already holds can be raised there
	local bnd=CAP_CHOWN,CAP_KILL,CAP_SYSLOG
	set_caps "$bnd" CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_SYSLOG CAP_CHOWN
	run_detached "$CID"
	run_nohang runtime exec "$CID" cat /proc/self/status
	assert_success
	# noNewPrivileges (the suite's config): P' stays within P
	assert_caps "$bnd" CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_SYSLOG CAP_CHOWN
	run_nohang runtime exec --cap CAP_SYSLOG "$CID" cat /proc/self/status
	assert_success
	assert_caps "$bnd" "$bnd" "$bnd" CAP_CHOWN,CAP_SYSLOG CAP_CHOWN,CAP_SYSLOG
}

@test "exec --cap gives a non-root process nothing beyond bounding (CVE-2022-29162)" {
	# Were --cap added to inheritable and ambient, uid 1000 would keep it in
	# its effective set across execve.
	update_config '.process.user = {uid: 1000, gid: 1000}'
	set_caps CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_KILL CAP_KILL
	run_detached "$CID"
	run_nohang runtime exec --cap CAP_NET_RAW "$CID" cat /proc/self/status
	assert_success
	assert_status Uid $'1000\t1000\t1000\t1000'
	assert_caps CAP_CHOWN,CAP_KILL,CAP_NET_RAW CAP_KILL CAP_KILL CAP_KILL CAP_KILL
}

@test "exec --cap with no inheritable set in the config: inheritable and ambient stay empty" {
	# the runc spec default: ambient listed, inheritable absent
	update_config '.process.capabilities = {
		bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"], ambient: ["CAP_KILL"]}'
	run_detached "$CID"
	run_nohang runtime exec --cap CAP_NET_RAW "$CID" cat /proc/self/status
	assert_success
	assert_caps CAP_KILL,CAP_NET_RAW CAP_KILL,CAP_NET_RAW CAP_KILL,CAP_NET_RAW "" ""
}

@test "exec -p process.json gets exactly its own capabilities, not the container's" {
	set_caps CAP_KILL CAP_KILL CAP_KILL "" ""
	run_detached "$CID"
	local p="$BATS_TEST_TMPDIR/process.json"
	write_process "$p" '.args = ["cat", "/proc/self/status"] | .capabilities = {
		bounding: ["CAP_CHOWN", "CAP_SYS_CHROOT", "CAP_NET_RAW"],
		effective: ["CAP_CHOWN", "CAP_SYS_CHROOT", "CAP_NET_RAW"],
		permitted: ["CAP_CHOWN", "CAP_SYS_CHROOT", "CAP_NET_RAW"],
		inheritable: ["CAP_SYS_CHROOT"], ambient: ["CAP_SYS_CHROOT"]}'
	run_nohang runtime exec -p "$p" "$CID"
	assert_success
	assert_caps CAP_CHOWN,CAP_NET_RAW,CAP_SYS_CHROOT CAP_CHOWN,CAP_NET_RAW,CAP_SYS_CHROOT \
		CAP_CHOWN,CAP_NET_RAW,CAP_SYS_CHROOT CAP_SYS_CHROOT CAP_SYS_CHROOT

	# a non-root process.json keeps its own (coherent) sets too
	write_process "$p" '.args = ["cat", "/proc/self/status"] | .user = {uid: 1000, gid: 1000} |
		.capabilities = {bounding: ["CAP_NET_RAW", "CAP_KILL"], effective: ["CAP_NET_RAW"],
		permitted: ["CAP_NET_RAW"], inheritable: ["CAP_NET_RAW"], ambient: ["CAP_NET_RAW"]}'
	run_nohang runtime exec -p "$p" "$CID"
	assert_success
	assert_status Uid $'1000\t1000\t1000\t1000'
	assert_caps CAP_KILL,CAP_NET_RAW CAP_NET_RAW CAP_NET_RAW CAP_NET_RAW CAP_NET_RAW
}

@test "exec inherits the container's noNewPrivileges (true)" {
	add_suid_checker
	update_config '.process.noNewPrivileges = true'
	run_detached "$CID"
	run_nohang runtime exec "$CID" cat /proc/self/status
	assert_success
	assert_status NoNewPrivs 1

	run_nohang runtime exec --user 1000:1000 "$CID" /bin/suid-checker euid NoNewPrivs
	assert_success
	assert_line euid=1000
	assert_line NoNewPrivs=1
}

@test "exec inherits the container's noNewPrivileges (false), --no-new-privs sets it" {
	add_suid_checker
	update_config '.process.noNewPrivileges = false'
	run_detached "$CID"
	run_nohang runtime exec "$CID" cat /proc/self/status
	assert_success
	assert_status NoNewPrivs 0

	run_nohang runtime exec --user 1000:1000 "$CID" /bin/suid-checker euid NoNewPrivs
	assert_success
	assert_line euid=0
	assert_line NoNewPrivs=0

	run_nohang runtime exec --no-new-privs --user 1000:1000 "$CID" /bin/suid-checker euid NoNewPrivs
	assert_success
	assert_line euid=1000
	assert_line NoNewPrivs=1
}

@test "exec -p takes noNewPrivileges from process.json" {
	update_config '.process.noNewPrivileges = false'
	run_detached "$CID"
	local p="$BATS_TEST_TMPDIR/process.json"
	write_process "$p" '.args = ["cat", "/proc/self/status"] | .noNewPrivileges = true'
	run_nohang runtime exec -p "$p" "$CID"
	assert_success
	assert_status NoNewPrivs 1
}

# --- oomScoreAdj -------------------------------------------------------------

@test "oomScoreAdj: raised to 500 for the container (and seen from the host)" {
	update_config '.process.oomScoreAdj = 500'
	set_args cat /proc/self/oom_score_adj
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output 500

	set_args sleep 3600
	run_detached "$CID-2"
	local pid
	pid="$(state_field "$CID-2" pid)"
	[ "$(cat "/proc/$pid/oom_score_adj")" = 500 ]
}

@test "oomScoreAdj: without it the container keeps the caller's value" {
	update_config 'del(.process.oomScoreAdj)'
	set_args cat /proc/self/oom_score_adj
	# raise only our child's value (lowering needs CAP_SYS_RESOURCE)
	run_nohang bash -c 'echo 300 >/proc/self/oom_score_adj && exec "$0" --root "$1" run --bundle "$2" "$3"' \
		"$RUNTIME" "$ROOT" "$BUNDLE" "$CID"
	assert_success
	assert_output 300
}

@test "oomScoreAdj: an exec'd process gets the container's value" {
	update_config '.process.oomScoreAdj = 500'
	run_detached "$CID"
	run_nohang runtime exec "$CID" cat /proc/self/oom_score_adj
	assert_success
	assert_output 500

	# also with a process.json that does not set it (runc takes the
	# container's value for every process that joins it)
	local p="$BATS_TEST_TMPDIR/process.json"
	write_process "$p" '.args = ["cat", "/proc/self/oom_score_adj"] | del(.oomScoreAdj)'
	run_nohang runtime exec -p "$p" "$CID"
	assert_success
	assert_output 500
}

# --- session keyring ---------------------------------------------------------

@test "keyring: each container gets its own session keyring, not the caller's" {
	add_keyring_helper
	set_args /bin/keyring
	run_nohang "$TEST_LIB_BIN/keyring"
	assert_success
	local host
	host="$(sed -n 's/^session=//p' <<<"$output")"
	[[ -n "$host" ]]

	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	local one name_one
	one="$(sed -n 's/^session=//p' <<<"$output")"
	name_one="$(sed -n 's/^name=//p' <<<"$output")"
	assert_line --regexp '^describe=keyring;'

	run_nohang runtime run --bundle "$BUNDLE" "$CID-2"
	assert_success
	local two
	two="$(sed -n 's/^session=//p' <<<"$output")"

	[[ -n "$one" && -n "$two" ]]
	[[ "$one" != "$host" ]] || fail "container 1 has the caller's session keyring $host"
	[[ "$two" != "$host" ]] || fail "container 2 has the caller's session keyring $host"
	[[ "$one" != "$two" ]] || fail "both containers share session keyring $one"
	# runc names it after the container (\"_ses.<id>\" in 1.1)
	[[ "$name_one" == *"$CID"* ]] || fail "session keyring of $CID is named '$name_one'"
}

@test "keyring: create --no-new-keyring keeps the caller's session keyring" {
	add_keyring_helper
	set_args /bin/keyring
	run_nohang "$TEST_LIB_BIN/keyring"
	assert_success
	local host
	host="$(sed -n 's/^session=//p' <<<"$output")"
	[[ -n "$host" ]]

	create_container "$CID" --no-new-keyring
	run_nohang runtime start "$CID"
	assert_success
	local log
	log="$(container_log "$CID")"
	wait_for_file "$log" '^name='
	run grep '^session=' "$log"
	assert_output "session=$host"

	# the control: the same bundle without the flag gets a new one
	create_container "$CID-2"
	run_nohang runtime start "$CID-2"
	assert_success
	log="$(container_log "$CID-2")"
	wait_for_file "$log" '^name='
	run grep '^session=' "$log"
	refute_output "session=$host"
}

@test "keyring: an exec'd process joins the container's session keyring, not the caller's" {
	add_keyring_helper
	run_nohang "$TEST_LIB_BIN/keyring"
	assert_success
	local host
	host="$(sed -n 's/^session=//p' <<<"$output")"
	[[ -n "$host" ]]

	bind_out_dir
	set_cmd '/bin/keyring >/out/init; exec sleep 3600'
	run_detached "$CID"
	wait_for_file "$OUT/init" '^name='
	local init
	init="$(sed -n 's/^session=//p' "$OUT/init")"
	[[ -n "$init" && "$init" != "$host" ]] || fail "container init: session keyring '$init' (caller's: $host)"

	run_nohang runtime exec "$CID" /bin/keyring
	assert_success
	local ex
	ex="$(sed -n 's/^session=//p' <<<"$output")"
	[[ "$ex" != "$host" ]] || fail "the exec'd process has the caller's session keyring $host ($output)"
	[[ "$ex" == "$init" ]] || fail "the exec'd process has session keyring '$ex', the container $init"
}
