# shellcheck shell=bash
# Shared bats helpers for tinyrun's tests. Every suite does `load helpers`.
# What this suite shares with tests/conformance/ (runtime wrapper, static
# helper builds, the busybox rootfs, process checks) is in tests/lib/common.bash.
#
# Each test gets:
#   $BUNDLE   a busybox bundle (rootfs + config.json from tests/lib/config.json,
#             which is `runc spec` with terminal=false)
#   $ROOT     a private --root state directory
#   $CID      a container id unique to this test (more: "$CID-2", ...)
#   $TOKEN    a unique marker: in the container env, in every id, in the
#             environment of every program the test starts; teardown uses it
#             to find leftovers
# and teardown kills/deletes what the test left, then FAILS the test if any
# state dir, mount, cgroup or process of the test survived.
#
# Run against another runtime with RUNTIME=/usr/bin/runc bats tests/x.bats.

TESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$TESTS_DIR/.." && pwd)"
# shellcheck source=lib/common.bash
source "$TESTS_DIR/lib/common.bash"
BATS_LIB_DIR="${BATS_LIB_DIR:-/usr/lib/bats}"

load "$BATS_LIB_DIR/bats-support/load"
load "$BATS_LIB_DIR/bats-assert/load"

# A hang guard only (a container holding a pipe open), never an assertion.
: "${BATS_TEST_TIMEOUT:=120}"

# Static helper programs (checker, subreaper), built once.
TEST_LIB_BIN="${TINYRUN_TEST_LIB:-$REPO_DIR/build/tests/lib}"
# Cached base rootfs, shared by the tests of one run (run-all.sh exports
# TINYRUN_TEST_CACHE so all suites share one).
TEST_CACHE="${TINYRUN_TEST_CACHE:-$BATS_RUN_TMPDIR/tinyrun-cache}"

is_runc() {
	[[ "$(basename "$RUNTIME")" == runc ]]
}

# --- helper programs and rootfs -------------------------------------------

# build_static SRC [GCC ARGS...]: $TEST_LIB_BIN/<name of SRC without .c>, a
# static binary, rebuilt when SRC is newer (tests/lib/common.bash).
build_static() {
	build_static_into "$1" "$TEST_LIB_BIN" "${@:2}"
}

# The checker (the in-container probe) and the subreaper.
build_test_lib() {
	build_static "$TESTS_DIR/lib/checker.c" && build_static "$TESTS_DIR/lib/subreaper.c"
}

# set_caps BND EFF PRM INH AMB: process.capabilities, each a comma-separated list of names.
set_caps() {
	update_config '.process.capabilities = {
		bounding: ($b | split(",") | map(select(. != ""))),
		effective: ($e | split(",") | map(select(. != ""))),
		permitted: ($p | split(",") | map(select(. != ""))),
		inheritable: ($i | split(",") | map(select(. != ""))),
		ambient: ($a | split(",") | map(select(. != "")))}' \
		--arg b "$1" --arg e "$2" --arg p "$3" --arg i "$4" --arg a "$5"
}

# The base rootfs: static busybox with its applet links, the checker, the
# usual empty mount points and a minimal /etc. Built once per run.
build_base_rootfs() {
	local base="$TEST_CACHE/rootfs"
	[[ -e "$TEST_CACHE/rootfs.done" ]] && return 0
	mkdir -p "$TEST_CACHE"
	(
		flock 9
		[[ -e "$TEST_CACHE/rootfs.done" ]] && exit 0
		busybox_rootfs "$base" "$TEST_LIB_BIN/checker" dev proc sys etc root run var home out || exit 1
		printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$base/etc/passwd"
		printf 'root:x:0:\nnogroup:x:65534:\n' >"$base/etc/group"
		touch "$TEST_CACHE/rootfs.done"
	) 9>"$TEST_CACHE/.lock"
}

# make_bundle DIR: a bundle with a copy (hard links) of the base rootfs and
# the template config, the test's token in the env, args `sleep 3600`.
make_bundle() {
	local dir="$1"
	mkdir -p "$dir"
	cp -al "$TEST_CACHE/rootfs" "$dir/rootfs"
	jq --arg tok "TINYRUN_TEST_TOKEN=$TOKEN" \
		'.process.env += [$tok] | .process.args = ["sleep", "3600"]' \
		"$TESTS_DIR/lib/config.json" >"$dir/config.json"
}

# --- config edits --------------------------------------------------------

# update_config 'jq expr' [jq args...]: edit $BUNDLE/config.json in place.
# Use BUNDLE=... update_config ... for another bundle.
update_config() {
	local expr="$1"
	shift
	jq "$@" "$expr" "$BUNDLE/config.json" >"$BUNDLE/config.json.new" &&
		mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"
}

# set_args ARG...: process.args = the arguments.
set_args() {
	jq_array "$@"
	update_config ".process.args = $JQ_ARRAY_EXPR" "${JQ_ARRAY_ARGS[@]}"
}

# jq_array ARG...: sets JQ_ARRAY_EXPR to a jq expression "[$a0,$a1,...]" and
# JQ_ARRAY_ARGS to the matching --arg options (any string survives).
jq_array() {
	local i=0 a
	JQ_ARRAY_EXPR=""
	JQ_ARRAY_ARGS=()
	for a in "$@"; do
		JQ_ARRAY_ARGS+=(--arg "a$i" "$a")
		JQ_ARRAY_EXPR+="${JQ_ARRAY_EXPR:+,}\$a$i"
		i=$((i + 1))
	done
	JQ_ARRAY_EXPR="[$JQ_ARRAY_EXPR]"
}

# set_cmd 'shell command': process.args = ["sh", "-c", CMD].
set_cmd() {
	set_args sh -c "$1"
}

# bind_out_dir: bind-mount $OUT (host, writable) at /out in the container,
# for files the container writes.
bind_out_dir() {
	mkdir -p "$OUT"
	update_config '.mounts += [{"destination": "/out", "type": "bind", "source": $src, "options": ["rbind", "rw"]}]' \
		--arg src "$OUT"
}

# open_path DIR: o+x on DIR and every parent, so a mapped (user namespace)
# root can reach it.
open_path() {
	local d="$1"
	while [[ "$d" != / ]]; do chmod o+x "$d"; d="$(dirname "$d")"; done
}

# A rootless test user, trrootless (uid 4244, 65536 subordinate ids from
# 2000000), for a real client run by a user (rootless podman, rootless
# Docker). rootless_user_dir DIR: copies of /etc/passwd, group, subuid and
# subgid that add it, in DIR/etc (the host's files are never touched:
# rootless_user_run binds the copies in a private mount namespace), its
# HOME DIR/home, XDG_RUNTIME_DIR DIR/run (0700) and DIR/tmp, all its own.
# Files a caller adds later are the caller's to chown.
rootless_user_dir() {
	local f
	mkdir -p "$1/etc" "$1/home" "$1/run" "$1/tmp"
	for f in passwd group subuid subgid; do cp "/etc/$f" "$1/etc/$f"; done
	echo "trrootless:x:4244:4244::$1/home:/bin/sh" >>"$1/etc/passwd"
	echo "trrootless:x:4244:" >>"$1/etc/group"
	echo "trrootless:2000000:65536" >>"$1/etc/subuid"
	echo "trrootless:2000000:65536" >>"$1/etc/subgid"
	chown -R 4244:4244 "$1"
	chmod 700 "$1/run"
	open_path "$1"
}

# rootless_user_run DIR [NAME=VALUE...] -- SCRIPT [ARG...]: SCRIPT (sh -e,
# the ARGs as $1...) as that user, under a subreaper (run_nohang: $status,
# $output, $lines), with a clean environment: PATH, HOME, XDG_RUNTIME_DIR,
# USER, LOGNAME and the NAME=VALUE words.
rootless_user_run() {
	local dir="$1" cmd
	shift
	cmd=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$dir/home" XDG_RUNTIME_DIR="$dir/run"
		USER=trrootless LOGNAME=trrootless)
	while [[ $# -gt 0 && "$1" != -- ]]; do
		cmd+=("$1")
		shift
	done
	shift
	cmd+=(sh -ec "$1" _ "${@:2}")
	run_nohang "$TEST_LIB_BIN/subreaper" unshare -m --propagation private sh -c '
		d="$1"
		shift
		for f in passwd group subuid subgid; do mount --bind "$d/etc/$f" "/etc/$f" || exit 1; done
		exec setpriv --reuid 4244 --regid 4244 --clear-groups "$@"' _ "$dir" "${cmd[@]}"
}

# as_users_root UID XDG CMD...: CMD as root of a user namespace that the
# unprivileged UID made (`unshare --map-root-user`: one id, setgroups
# denied), with that user's USER and XDG_RUNTIME_DIR. Rootless podman calls
# the runtime so (its namespace maps more ids): euid 0, not the initial
# user namespace, no cgroup of its own to write.
as_users_root() {
	local uid="$1" xdg="$2"
	shift 2
	setpriv --reuid "$uid" --regid "$uid" --clear-groups env USER=trtest XDG_RUNTIME_DIR="$xdg" \
		unshare --user --map-root-user "$@"
}

# users_root_bundle UID XDG: $BUNDLE without a user namespace, owned by UID,
# its devpts without gid=5 (unmapped); XDG made, the user's
users_root_bundle() {
	local uid="$1" xdg="$2"
	update_config '.process.terminal = false
		| .mounts |= map(if .options then .options -= ["gid=5"] else . end)'
	chown -R "$uid:$uid" "$BUNDLE"
	open_path "$BUNDLE"
	mkdir -m 700 "$xdg"
	chown "$uid:$uid" "$xdg"
}

# userns_devices: the linux.devices of the user-namespace cases (devices.bats,
# kernel61.bats): a node the host lacks, one in a subdirectory, a FIFO, and a
# command that shows them; assert_userns_devices: what the container saw.
userns_devices() {
	update_config '.linux.devices = [
			{"path": "/dev/tr-none", "type": "b", "major": 1, "minor": 5, "uid": 10, "gid": 11, "fileMode": 111},
			{"path": "/dev/sub/zero2", "type": "c", "major": 1, "minor": 5, "fileMode": 416},
			{"path": "/dev/fifo", "type": "p"}]'
	set_cmd 'stat -c "%n %F %t:%T %a %u:%g" /dev/tr-none /dev/sub/zero2 /dev/fifo; head -c 4 /dev/sub/zero2 | wc -c'
}

assert_userns_devices() {
	assert_success
	# fileMode is decimal: 111 is 0157, 416 is 0640
	assert_line "/dev/tr-none block special file 1:5 157 10:11"
	assert_line "/dev/sub/zero2 character special file 1:5 640 0:0"
	assert_line "/dev/fifo fifo 0:0 666 0:0"
	assert_line 4
	[ ! -e /dev/tr-none ] || fail "made on the host"
}

# tmpfs_idmap_ok: tmpfs takes idmapped mounts from Linux 6.3 on (Debian 12's
# 6.1 does not: tinyrun then says "the filesystem of X cannot be idmapped").
tmpfs_idmap_ok() {
	local v maj min
	v="$(uname -r)"
	maj="${v%%.*}"
	v="${v#*.}"
	min="${v%%[!0-9]*}"
	((maj > 6 || (maj == 6 && min >= 3)))
}

# map_userns: a user namespace mapping 0-65535 to host 100000-165535.
map_userns() {
	update_config '.linux.namespaces += [{"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	open_path "$BUNDLE"
}

# guest_verdict: for a suite whose tests ran in a vm-run guest, whose TAP is
# in $VM_TAP: pass, fail (with the guest's diagnostics) or skip as the guest
# did for the test of the same name.
guest_verdict() {
	local verdict status
	[[ -z "${GUEST_SKIP:-}" ]] || skip "$GUEST_SKIP"
	verdict="$(awk -v name="$BATS_TEST_DESCRIPTION" '
		/^(ok|not ok) [0-9]+ / {
			found = 0
			d = $0
			sub(/^(ok|not ok) [0-9]+ /, "", d)
			if (d == name) { found = 1; print ($1 == "ok" ? "ok" : "fail"); next }
			if (index(d, name " # skip") == 1) { found = 1; print "skip" substr(d, length(name) + 8); next }
			next
		}
		found && /^#/ { print }' "$VM_TAP")"
	status="${verdict%%$'\n'*}"
	case "$status" in
	ok) return 0 ;;
	skip*) skip "in the guest:${status#skip}" ;;
	fail) tail -n +2 <<<"$verdict" | fail ;;
	*) { echo "the guest ran no test of this name; the end of its output:"; tail -40 "$VM_TAP"; } | fail ;;
	esac
}

# cgroup v1 file of a controller, or the cgroup2 file (unified hosts).
cg_file() { # CONTROLLER V1FILE V2FILE CGROUP-PATH
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
		echo "/sys/fs/cgroup/$4/$3"
	else
		echo "/sys/fs/cgroup/$1/$4/$2"
	fi
}

# --- containerd (clients.bats, docker.bats, cri.bats, cgroups-systemd-real.bats)

# containerd_config DIR: DIR/config.toml for a containerd of its own under
# DIR: its root, state, sockets; no CRI, none of the snapshotters this host
# lacks.
containerd_config() {
	local d="$1"
	mkdir -p "$d"
	cat >"$d/config.toml" <<-EOF
		version = 2
		root = "$d/root"
		state = "$d/state"
		disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs",
		  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
		  "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp",
		  "io.containerd.internal.v1.tracing"]
		[grpc]
		  address = "$d/containerd.sock"
		[ttrpc]
		  address = "$d/containerd.sock.ttrpc"
		[debug]
		  address = "$d/debug.sock"
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$d/opt"
	EOF
}

# private_containerd DIR [BINDIR]: a containerd of its own under DIR
# (containerd_config), under a subreaper in its own session (the shims it
# starts are orphans), BINDIR first in its PATH; its pid in
# DIR/containerd.pid. 0 once `ctr version` answers, 1 if it died or never
# answered (its log: DIR/containerd.log).
private_containerd() {
	local d="$1" bindir="${2:-}" i
	containerd_config "$d"
	PATH="${bindir:+$bindir:}$PATH" setsid "$TEST_LIB_BIN/subreaper" \
		sh -c 'echo $$ >"$1"; exec containerd --config "$2"' \
		sh "$d/containerd.pid" "$d/config.toml" </dev/null >"$d/containerd.log" 2>&1 3>&- 4>&- &
	for ((i = 0; i < 1200; i++)); do
		ctr --address "$d/containerd.sock" version >/dev/null 2>&1 </dev/null 3>&- 4>&- && return 0
		[[ -f "$d/containerd.pid" ]] && ! proc_alive "$(cat "$d/containerd.pid")" && break
		sleep 0.05
	done
	return 1
}

# make_oci_archive LAYER.tar NAME CONFIG-JQ OUT.tar: a one-layer OCI image
# layout (as `podman save --format oci-archive` writes it) named NAME (e.g.
# localhost/tinyrun-test:latest), its config CONFIG-JQ (a jq object, e.g.
# '{Env: ["PATH=/bin"], Cmd: ["/bin/sh"]}'), for `ctr images import`.
make_oci_archive() {
	local layer="$1" name="$2" conf="$3" out="$4" t ldig ldiff lsize cdig csize mdig msize
	t="$(mktemp -d "$(dirname "$out")/oci.XXXXXX")"
	mkdir -p "$t/blobs/sha256"
	gzip -c -n "$layer" >"$t/layer.tgz"
	ldiff="$(sha256sum "$layer" | cut -d' ' -f1)"
	ldig="$(sha256sum "$t/layer.tgz" | cut -d' ' -f1)"
	lsize="$(stat -c %s "$t/layer.tgz")"
	mv "$t/layer.tgz" "$t/blobs/sha256/$ldig"
	jq -n -c --arg diff "sha256:$ldiff" "{architecture: \"amd64\", os: \"linux\",
		config: $conf, rootfs: {type: \"layers\", diff_ids: [\$diff]}}" >"$t/config"
	cdig="$(sha256sum "$t/config" | cut -d' ' -f1)"
	csize="$(stat -c %s "$t/config")"
	mv "$t/config" "$t/blobs/sha256/$cdig"
	jq -n -c --arg cd "sha256:$cdig" --argjson cs "$csize" --arg ld "sha256:$ldig" --argjson ls "$lsize" \
		'{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
		layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $ld, size: $ls}]}' >"$t/manifest"
	mdig="$(sha256sum "$t/manifest" | cut -d' ' -f1)"
	msize="$(stat -c %s "$t/manifest")"
	mv "$t/manifest" "$t/blobs/sha256/$mdig"
	jq -n -c --arg md "sha256:$mdig" --argjson ms "$msize" --arg name "$name" --arg tag "${name##*:}" \
		'{schemaVersion: 2, manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json",
		digest: $md, size: $ms, platform: {architecture: "amd64", os: "linux"},
		annotations: {"io.containerd.image.name": $name, "org.opencontainers.image.ref.name": $tag}}]}' >"$t/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' >"$t/oci-layout"
	tar -C "$t" -cf "$out" oci-layout index.json blobs
	rm -rf "$t"
}

# --- running things ------------------------------------------------------

# run_nohang CMD...: like bats `run`, but CMD's stdio goes to a file, so a
# container that inherits it cannot block the test. stdin is /dev/null.
# Sets status, output, lines; NOHANG_LOG is the file (the container's
# later output lands there too).
run_nohang() {
	NOHANG_LOG="$BATS_TEST_TMPDIR/nohang.$((++NOHANG_SEQ)).log"
	run_nohang_to "$NOHANG_LOG" "$@"
}

run_nohang_to() {
	local log="$1"
	shift
	# 3>&- 4>&-: bats' own pipes must not reach a runtime or a container.
	if "$@" </dev/null >"$log" 2>&1 3>&- 4>&-; then status=0; else status=$?; fi
	output="$(cat "$log")"
	mapfile -t lines <"$log"
}

# The file that holds the runtime's and the container's output for
# containers started with create_container / run_detached.
container_log() {
	local sum
	sum="$(cksum <<<"$1")"
	echo "$BATS_TEST_TMPDIR/ctr-${1:0:40}-${sum%% *}.log"
}

# create_container ID [create flags...]: `create` under a subreaper, output to
# container_log ID, bundle $BUNDLE. Asserts success and records the pid.
create_container() {
	local id="$1"
	shift
	run_nohang_to "$(container_log "$id")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$@" "$id"
	assert_success
	record_container_pid "$id"
}

# run_detached ID [run flags...]: `run --detach`, like create_container.
run_detached() {
	local id="$1"
	shift
	run_nohang_to "$(container_log "$id")" \
		"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$@" "$id"
	assert_success
	record_container_pid "$id"
}

# Record a pid (with its start time) that must be gone by teardown.
record_pid() {
	local pid="$1" start
	start="$(proc_start_time "$pid")" || return 0
	echo "$pid $start" >>"$BATS_TEST_TMPDIR/pids"
}

record_container_pid() {
	local pid
	pid="$(runtime_timeout 10 state "$1" 2>/dev/null | jq -r '.pid // 0' 2>/dev/null)" || return 0
	[[ "$pid" =~ ^[0-9]+$ && "$pid" -gt 0 ]] && record_pid "$pid"
	return 0
}

# state_field ID FIELD: one field of `state ID` (jq -r).
state_field() {
	runtime state "$1" | jq -r ".$2"
}

# wait_for_state ID STATUS: poll `state` until status is STATUS (up to 10 s).
wait_for_state() {
	local id="$1" want="$2" got="" i
	for ((i = 0; i < 200; i++)); do
		got="$(runtime_timeout 10 state "$id" 2>/dev/null | jq -r .status 2>/dev/null)" || got=""
		[[ "$got" == "$want" ]] && return 0
		sleep 0.05
	done
	echo "container $id: status '$got', wanted '$want'" >&2
	return 1
}

# recv_tty NAME: checker's console-socket receiver in the background (copies
# the pty's output to $BATS_TEST_TMPDIR/NAME.out until the pty closes).
recv_tty() {
	SOCK="$BATS_TEST_TMPDIR/$1.sock"
	TTY_OUT="$BATS_TEST_TMPDIR/$1.out"
	"$TEST_LIB_BIN/checker" recvtty "$SOCK" "$TTY_OUT" </dev/null >"$BATS_TEST_TMPDIR/$1.log" 2>&1 3>&- 4>&- &
	RECV_PID=$!
	wait_for_file "$SOCK"
}

# wait_for_file FILE [PATTERN]: until FILE exists (and contains PATTERN).
wait_for_file() {
	local file="$1" pattern="${2:-}" i
	for ((i = 0; i < 200; i++)); do
		if [[ -e "$file" ]] && { [[ -z "$pattern" ]] || grep -q -- "$pattern" "$file"; }; then
			return 0
		fi
		sleep 0.05
	done
	echo "timed out waiting for $file${pattern:+ to contain '$pattern'}" >&2
	[[ -e "$file" ]] && sed 's/^/  | /' "$file" >&2
	return 1
}

# wait_for_exit PID: until PID is gone or a zombie (up to 10 s).
wait_for_exit() {
	proc_wait_gone "$1" && return 0
	echo "process $1 still alive" >&2
	return 1
}

# --- the sandbox profile, why a process ended, the v2 guest ---------------

# A lease range no host user has (this machine's users stay below 100000,
# and /etc/subuid is empty), unless the suite set its own; each test has its
# own --root, so its own leases.
: "${RANGE_FIRST:=1900000000}"
: "${RANGE_LAST:=1900065535}"

# sandbox_bundle [DIR [SPEC OPTIONS...]]: DIR (default $BUNDLE) with `spec
# --sandbox`'s config, the test's range and token.
sandbox_bundle() {
	local dir="${1:-$BUNDLE}"
	[[ -d "$dir/rootfs" ]] || { mkdir -p "$dir" && cp -al "$TEST_CACHE/rootfs" "$dir/rootfs"; }
	rm -f "$dir/config.json" "$dir/request.key"
	"$RUNTIME" spec --sandbox -b "$dir" "${@:2}"
	BUNDLE="$dir" update_config '.annotations["run.tinyrun.userns.range"] = $r | .process.env += [$t]' \
		--arg r "$RANGE_FIRST-$RANGE_LAST" --arg t "TINYRUN_TEST_TOKEN=$TOKEN"
}

# run_result: `run --result` of $BUNDLE in the foreground; sets $status,
# $output and $result
run_result() {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --result "$OUT/result.json" \
		--bundle "$BUNDLE" "$CID"
	result="$(cat "$OUT/result.json" 2>/dev/null)"
}

# guest_setup_file FILE TIMEOUT [FILTER [NEED]]: (setup_file of a suite whose
# tests need a vm-run guest) where guest_needed NEED, the TAP of tests/FILE run
# in the guest (only the tests whose name matches FILTER, bats -f) into
# $VM_TAP, for guest_verdict: from run-all.sh's one guest for every such suite
# (guest_batch_tap), or else from ONE guest of its own (at most TIMEOUT s).
# run-all.sh reads the call's words, so they stay literal: FILE and TIMEOUT
# plain, FILTER in double quotes when it has a space.
guest_setup_file() {
	local vm_run="${VM_RUN:-$REPO_DIR/../shared/tools/vm-run}" filter=()
	local env=(-e BATS_TEST_TIMEOUT=360 -e TINYRUN_IN_GUEST=1)   # emulated: slow
	guest_needed "${4:-cgroup2}" || return 0
	export VM_TAP="$BATS_FILE_TMPDIR/guest.tap" GUEST_SKIP=""
	guest_batch_tap "$1" >"$VM_TAP" && return 0
	if [[ ! -x "$vm_run" ]]; then
		export GUEST_SKIP="this host lacks ${4:-cgroup2} and there is no vm-run at $vm_run"   # no skip in setup_file
		return 0
	fi
	[[ -n "${3:-}" ]] && filter=(-f "$3")
	build_test_lib   # on the host: compiling in the guest is slow
	[[ -n "${RUNTIME:-}" ]] && env+=(-e "RUNTIME=$RUNTIME")
	(cd "$REPO_DIR" && "$vm_run" --timeout "$2" "${env[@]}" -- \
		env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bats --tap "${filter[@]}" "tests/$1") \
		>"$VM_TAP" 2>&1 </dev/null 3>&- 4>&- || true
}

# --- leftovers -----------------------------------------------------------

# Pids of live processes carrying this test's token in their environment
# (everything exec'd by the test after setup, and every container process
# whose env was not replaced), plus recorded pids still alive.
test_pids() {
	local f pid start
	# env -u: the grep itself must not carry the token.
	for f in $(env -u TINYRUN_TEST_TOKEN grep -lsFz "TINYRUN_TEST_TOKEN=$TOKEN" /proc/[0-9]*/environ 2>/dev/null); do
		pid="${f#/proc/}"
		pid="${pid%/environ}"
		[[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
		proc_alive "$pid" && echo "$pid"
	done
	if [[ -f "$BATS_TEST_TMPDIR/pids" ]]; then
		while read -r pid start; do
			proc_alive "$pid" "$start" && echo "$pid"
		done <"$BATS_TEST_TMPDIR/pids"
	fi
	return 0
}

test_state_dirs() {
	[[ -d "$ROOT" ]] && find "$ROOT" -mindepth 1 -maxdepth 1 -type d -not -name '.*'   # .seccomp-cache is a cache, not state
	return 0
}

test_mounts() {
	grep -F -e "$BATS_TEST_TMPDIR" -e "$TOKEN" /proc/self/mountinfo || true
}

test_cgroups() {
	find /sys/fs/cgroup -maxdepth 8 -type d -name "*$TOKEN*" 2>/dev/null || true
}

# assert_no_leftovers: no state dir, mount, cgroup or process of this test.
# Processes get a few seconds to finish exiting (a reaper may lag).
# The token is un-exported meanwhile so the checks' own commands lack it.
assert_no_leftovers() {
	local i pids="" problems="" rc=0
	export -n TINYRUN_TEST_TOKEN
	for ((i = 0; i < 100; i++)); do
		pids="$(test_pids)"
		[[ -z "$pids" ]] && break
		sleep 0.05
	done
	local dirs mounts cgroups
	dirs="$(test_state_dirs)"
	mounts="$(test_mounts)"
	cgroups="$(test_cgroups)"
	[[ -n "$dirs" ]] && problems+="state dirs left:"$'\n'"$dirs"$'\n'
	[[ -n "$mounts" ]] && problems+="mounts left:"$'\n'"$mounts"$'\n'
	[[ -n "$cgroups" ]] && problems+="cgroups left:"$'\n'"$cgroups"$'\n'
	if [[ -n "$pids" ]]; then
		problems+="processes left:"$'\n'
		for i in $(sort -u <<<"$pids"); do
			problems+="  $i $(tr '\0' ' ' <"/proc/$i/cmdline" 2>/dev/null)"$'\n'
		done
	fi
	if [[ -n "$problems" ]]; then
		printf '%s' "$problems" | batslib_decorate "leftovers" | fail
		rc=1
	fi
	export TINYRUN_TEST_TOKEN
	return $rc
}

# Remove by force whatever the runtime did not, so one broken test does not
# poison the machine for the next.
force_cleanup() {
	local pid m cg
	for pid in $(test_pids); do kill -9 "$pid" 2>/dev/null || true; done
	test_mounts | awk '{print $5}' | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done
	test_cgroups | sort -r | while read -r cg; do
		[[ -f "$cg/cgroup.procs" ]] && while read -r pid; do kill -9 "$pid" 2>/dev/null; done <"$cg/cgroup.procs"
		rmdir "$cg" 2>/dev/null || true
	done
	# podman/conmon mkdir -p their cgroup path for controllers this host does
	# not mount (hugetlb, net_cls ...): plain dirs on /sys/fs/cgroup's tmpfs
	test_cgroups | while read -r cg; do
		[[ "$(stat -f -c %T "$cg" 2>/dev/null)" == tmpfs ]] && rm -rf "$cg"
	done
	[[ -d "$ROOT" ]] && rm -rf "${ROOT:?}"/* 2>/dev/null
	return 0
}

# --- setup / teardown ----------------------------------------------------

tr_setup() {
	build_test_lib || return 1
	build_base_rootfs || return 1
	TOKEN="trt$$r$RANDOM"
	export TINYRUN_TEST_TOKEN="$TOKEN"
	CID="$TOKEN"
	ROOT="$BATS_TEST_TMPDIR/state"
	BUNDLE="$BATS_TEST_TMPDIR/bundle"
	OUT="$BATS_TEST_TMPDIR/out"
	NOHANG_SEQ=0
	mkdir -p "$ROOT"
	make_bundle "$BUNDLE"
}

# Kill and delete every container under this test's root, through the
# runtime, then check that nothing is left.
tr_teardown() {
	local d id rc=0
	[[ -n "${ROOT:-}" ]] || return 0
	export -n TINYRUN_TEST_TOKEN
	if [[ -d "$ROOT" ]]; then
		for d in "$ROOT"/*/; do
			[[ -d "$d" ]] || continue
			id="$(basename "$d")"
			# timeout: a runtime that hangs must fail the test, not the run
			runtime_timeout 10 kill "$id" KILL </dev/null >/dev/null 2>&1 || true
			runtime_timeout 10 delete --force "$id" </dev/null >/dev/null 2>&1 || true
		done
	fi
	assert_no_leftovers || rc=1
	export -n TINYRUN_TEST_TOKEN
	[[ $rc -eq 0 ]] || force_cleanup
	# the runtime's default cgroup parent (/tinyrun), once no container is in it
	for d in /sys/fs/cgroup/*/tinyrun; do
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	return $rc
}

setup() {
	tr_setup
}

teardown() {
	tr_teardown
}
