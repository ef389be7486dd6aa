#!/usr/bin/env bats
# Safety regressions: the escapes other runtimes shipped, each as a hostile
# image or config, asserted from inside the container and on the host.
#   /proc/self/exe overwrite        CVE-2019-5736
#   leaked fds, process.cwd         CVE-2024-21626
#   symlinked mount targets         CVE-2021-30465, CVE-2024-45310
#   /proc or /sys a symlink         CVE-2019-19921, CVE-2023-27561
#   /dev/null a procfs link         CVE-2025-31133
#   /dev, /dev/console, /dev/pts/N  CVE-2025-52565 class
#   procfs writes                   CVE-2025-52881 class
#   cgroupfs and masked paths       CVE-2023-25809, remount attempts
# Each test fails when its protection goes away; teardown checks leftovers.
# The other classes of the threat model (SPEC-NOTES.md) have their tests
# beside the code they guard: identities and hostile config input in
# hostile.bats and errors.bats, ids and --root in statedir.bats, hooks'
# environment and fds in hooks.bats, exec's cgroup in cli.bats, AppArmor in
# apparmor.bats (a vm-run guest), the rootless non-dumpable init in
# userns.bats.

load helpers

SECURITY_SRC="$TESTS_DIR/lib/security"

# The static helpers of tests/lib/security/, built once into $TEST_LIB_BIN.
build_security_lib() {
	local src
	for src in "$SECURITY_SRC"/*.c; do
		build_static "$src" || return 1
	done
}

setup() {
	tr_setup || return 1
	build_security_lib
}

teardown() {
	# a test that swapped in a copy of the runtime puts the real one back
	if [[ -n "${REAL_RUNTIME:-}" ]]; then RUNTIME="$REAL_RUNTIME"; fi
	tr_teardown
}

run_ctr() {
	run_nohang runtime run --bundle "$BUNDLE" "$@" "$CID"
}

# no_dev_tmpfs: drop the /dev tmpfs, so the image's own /dev is used (where
# a hostile image plants links); devpts, shm and mqueue stay.
no_dev_tmpfs() {
	update_config '.mounts |= map(select(.destination != "/dev"))'
}

# no_dev_mounts: drop /dev and every mount below it.
no_dev_mounts() {
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
}

# add_caps CAP...: add capabilities to every set of process.capabilities.
add_caps() {
	local c
	for c in "$@"; do
		update_config '.process.capabilities |= with_entries(.value += [$c])' --arg c "$c"
	done
}

# --- /proc/self/exe (CVE-2019-5736) --------------------------------------

# use_runtime_copy: run this test with a private copy of the runtime, so an
# overwrite damages only the copy. Sets RUNTIME_COPY and its sha256 and
# "dev ino" (as a container's fstat sees them).
use_runtime_copy() {
	REAL_RUNTIME="$RUNTIME"
	mkdir -p "$BATS_TEST_TMPDIR/rt"
	RUNTIME_COPY="$BATS_TEST_TMPDIR/rt/$(basename "$REAL_RUNTIME")"
	cp "$REAL_RUNTIME" "$RUNTIME_COPY"
	chmod 0755 "$RUNTIME_COPY"
	RUNTIME_SUM="$(sha256sum <"$RUNTIME_COPY")"
	RUNTIME_ID="$(stat -c '%d %i' "$RUNTIME_COPY")"
	RUNTIME="$RUNTIME_COPY"
}

# start_attacker: the container's init is exe_attack, reporting to
# $OUT/report until $OUT/stop exists.
start_attacker() {
	cp "$TEST_LIB_BIN/exe_attack" "$BUNDLE/rootfs/bin/exe_attack"
	bind_out_dir
	set_args /bin/exe_attack /out/report /out
	run_detached "$CID"
	wait_for_file "$OUT/report" '^ready'
	PONGS=0
}

# ping_attacker: returns once the attacker has tried every process alive now.
ping_attacker() {
	PONGS=$((PONGS + 1))
	touch "$OUT/ping"
	wait_for_file "$OUT/report" "^pong $PONGS\$"
}

stop_attacker() {
	touch "$OUT/stop"
	wait_for_file "$OUT/report" '^done'
}

runtime_copy_intact() {
	[[ "$(sha256sum <"$RUNTIME_COPY")" == "$RUNTIME_SUM" ]]
}

# The binary is intact: no write reached it (a handle on it, e.g. through a
# read-only mount, is harmless; writes to a runtime's private copy too).
assert_runtime_intact() {
	local wrote
	RUNTIME="$REAL_RUNTIME"
	sed 's/^/  report: /' "$OUT/report"
	assert_equal "$(sha256sum <"$RUNTIME_COPY")" "$RUNTIME_SUM"
	wrote="$(awk -v id="$RUNTIME_ID" '$1 == "wrote" && ($2 " " $3) == id' "$OUT/report")"
	[[ -z "$wrote" ]] || fail "the container overwrote the runtime binary: $wrote"
	# the attacker did watch the processes the runtime started
	[[ "$(awk '$1 == "observed" { print $2 }' "$OUT/report")" -gt 0 ]] || fail "the attacker saw no process"
}

@test "exe: a container cannot overwrite the runtime binary through /proc/PID/exe during exec" {
	use_runtime_copy
	# the image's program re-executes whatever runs it: during `exec`, that
	# is the runtime (the published exploit)
	printf '#!/proc/self/exe\n' >"$BUNDLE/rootfs/evil"
	chmod 0755 "$BUNDLE/rootfs/evil"
	start_attacker
	local i
	for ((i = 0; i < 8; i++)); do
		runtime_copy_intact || break
		run_nohang runtime exec "$CID" /evil
		run_nohang runtime exec "$CID" true
		run_nohang runtime exec "$CID" sh -c 'sleep 0.1'
	done
	stop_attacker
	assert_runtime_intact
	# the attacker was the init: it has exited
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "exe: a container cannot overwrite the runtime binary of a container being created in its pid namespace" {
	use_runtime_copy
	start_attacker
	local pid nspid i bundle_a="$BUNDLE"
	pid="$(state_field "$CID" pid)"
	# B joins A's pid namespace (a pod sharing its pid namespace) and stays
	# created: its init waits in the runtime for `start`
	BUNDLE="$BATS_TEST_TMPDIR/bundle-b"
	make_bundle "$BUNDLE"
	update_config '.linux.namespaces |= map(if .type == "pid" then .path = $p else . end)' \
		--arg p "/proc/$pid/ns/pid"
	set_args true
	for ((i = 0; i < 3; i++)); do
		runtime_copy_intact || break
		create_container "$CID-b$i"
		nspid="$(awk '$1 == "NSpid:" { print $NF }' "/proc/$(state_field "$CID-b$i" pid)/status")"
		ping_attacker
		grep -q "^tried $nspid\$" "$OUT/report" || fail "the attacker did not see the created init ($nspid)"
		runtime start "$CID-b$i"
		# bookkeeping with the real runtime: the copy may be damaged by now
		RUNTIME="$REAL_RUNTIME" wait_for_state "$CID-b$i" stopped
		ping_attacker
		"$REAL_RUNTIME" --root "$ROOT" delete "$CID-b$i"
	done
	BUNDLE="$bundle_a"
	stop_attacker
	assert_runtime_intact
	# the attacker was the init: it has exited
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# bundle_in_attacker_pidns ID ARGS...: BUNDLE is a new bundle for a
# container joining the attacker's pid namespace (a pod sharing it).
bundle_in_attacker_pidns() {
	local id="$1" pid
	shift
	pid="$(state_field "$CID" pid)"
	BUNDLE="$BATS_TEST_TMPDIR/bundle-$id"
	make_bundle "$BUNDLE"
	update_config '.linux.namespaces |= map(if .type == "pid" then .path = $p else . end)' \
		--arg p "/proc/$pid/ns/pid"
	set_args "$@"
}

@test "exe: with CAP_SYS_PTRACE, a container cannot overwrite the runtime binary of a created container in its pid namespace" {
	use_runtime_copy
	add_caps CAP_SYS_PTRACE
	start_attacker
	BUNDLE_A="$BUNDLE"
	local i nspid
	for ((i = 0; i < 3; i++)); do
		runtime_copy_intact || break
		bundle_in_attacker_pidns "$CID-b$i" true
		create_container "$CID-b$i"
		nspid="$(awk '$1 == "NSpid:" { print $NF }' "/proc/$(state_field "$CID-b$i" pid)/status")"
		ping_attacker
		grep -q "^tried $nspid\$" "$OUT/report" || fail "the attacker did not see the created init ($nspid)"
		# with CAP_SYS_PTRACE the attacker does get a handle on the init's exe
		grep -q "^held $nspid " "$OUT/report" || fail "the attacker got no handle on the created init ($nspid)"
		runtime start "$CID-b$i"
		RUNTIME="$REAL_RUNTIME" wait_for_state "$CID-b$i" stopped
		ping_attacker
		"$REAL_RUNTIME" --root "$ROOT" delete "$CID-b$i"
	done
	BUNDLE="$BUNDLE_A"
	# the runtime copy is no longer running anywhere: the retries would write now
	ping_attacker
	stop_attacker
	assert_runtime_intact
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# (On the 6.18 development kernel the init's own /proc/self/exe does not
# resolve at execve (ENOENT) whatever it is, so this one passes there even
# without the sealed copy; the CAP_SYS_PTRACE test above is the one that
# escapes without it.)
@test "exe: an entrypoint swapped for '#!/proc/self/exe' between create and start never hands the container the runtime binary" {
	use_runtime_copy
	start_attacker
	BUNDLE_A="$BUNDLE"
	local i
	for ((i = 0; i < 3; i++)); do
		runtime_copy_intact || break
		bundle_in_attacker_pidns "$CID-b$i" /entry
		printf '#!/bin/sh\ntrue\n' >"$BUNDLE/rootfs/entry"
		chmod 0755 "$BUNDLE/rootfs/entry"
		create_container "$CID-b$i"
		# what an `exec` into the container could do before `start`: the
		# program becomes a script whose interpreter is the runtime itself,
		# held running (its --log FIFO blocks) while the attacker looks
		mkfifo "$BUNDLE/rootfs/fifo"
		printf '#!/proc/self/exe --log=/fifo\n' >"$BUNDLE/rootfs/entry"
		# (a start whose exec fails removes the container, as a failed start must)
		run runtime start "$CID-b$i"
		ping_attacker
		# release a blocked interpreter (a read-write open never blocks)
		timeout 5 bash -c ': <>"$1"' _ "$BUNDLE/rootfs/fifo" || true
		if [[ "$status" -eq 0 ]]; then
			RUNTIME="$REAL_RUNTIME" wait_for_state "$CID-b$i" stopped
			"$REAL_RUNTIME" --root "$ROOT" delete "$CID-b$i"
		fi
		ping_attacker
	done
	BUNDLE="$BUNDLE_A"
	ping_attacker
	stop_attacker
	assert_runtime_intact
	# not even a read-only handle on the host's binary
	run awk -v id="$RUNTIME_ID" '$1 == "held" && ($3 " " $4) == id' "$OUT/report"
	assert_output ""
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# exe_of_created ID: what the created init's /proc/PID/exe is, as
# "HOSTFILE" (the runtime binary itself) or "SEALED" (anything else, which
# must then refuse a write even from the host's root).
exe_of_created() {
	local pid
	pid="$(state_field "$1" pid)"
	if [[ "$(stat -L -c '%d %i' "/proc/$pid/exe")" == "$(stat -L -c '%d %i' "$RUNTIME")" ]]; then
		echo HOSTFILE
	elif (: >>"/proc/$pid/exe") 2>/dev/null; then
		echo WRITABLE
	else
		echo SEALED
	fi
}

@test "exe: the runtime runs sealed exactly where the container could write its binary" {
	use_runtime_copy
	chown 0:0 "$RUNTIME_COPY"
	set_args true
	# no user namespace: the container's root is the host's
	create_container "$CID-plain"
	assert_equal "$(exe_of_created "$CID-plain")" SEALED
	# a user namespace mapping no id that owns or may write the binary
	map_userns
	create_container "$CID-userns"
	assert_equal "$(exe_of_created "$CID-userns")" HOSTFILE
	# the binary owned by a mapped uid: sealed again
	chown 100000 "$RUNTIME_COPY"
	create_container "$CID-owner"
	assert_equal "$(exe_of_created "$CID-owner")" SEALED
	chown 0:100005 "$RUNTIME_COPY"
	chmod 0775 "$RUNTIME_COPY"
	create_container "$CID-group"
	assert_equal "$(exe_of_created "$CID-group")" SEALED
	local id
	for id in plain userns owner group; do
		"$REAL_RUNTIME" --root "$ROOT" delete --force "$CID-$id"
	done
	RUNTIME="$REAL_RUNTIME"
}

@test "exe: the look at config.json's text before the parse only ever adds a sealed re-exec" {
	use_runtime_copy
	chown 0:0 "$RUNTIME_COPY"
	set_args true
	# "user" as a value without a user namespace (what the text scan takes as
	# a maybe): the parsed config decides, sealed
	update_config '.annotations["example.com/role"] = "user" | .hostname = "user"'
	create_container "$CID-plain"
	assert_equal "$(exe_of_created "$CID-plain")" SEALED
	# a user namespace spelt with an escape the scan cannot see: the runtime
	# re-executes anyway (sealed where unsealed would do), and the container
	# still gets its user namespace
	update_config 'del(.annotations["example.com/role"]) | .hostname = "c"'
	map_userns
	sed -i 's/"type": *"user"/"type": "\\u0075ser"/' "$BUNDLE/config.json"
	! grep -Eq ':[[:space:]]*"user"' "$BUNDLE/config.json" || fail "config.json still has a value \"user\""
	grep -q 'u0075ser' "$BUNDLE/config.json" || fail "the escape is not in config.json"
	create_container "$CID-escaped"
	assert_equal "$(exe_of_created "$CID-escaped")" SEALED
	[[ "$(readlink "/proc/$(state_field "$CID-escaped" pid)/ns/user")" != "$(readlink /proc/self/ns/user)" ]] ||
		fail "no user namespace"
	local id
	for id in plain escaped; do
		"$REAL_RUNTIME" --root "$ROOT" delete --force "$CID-$id"
	done
	RUNTIME="$REAL_RUNTIME"
}

# reexec_when LOG: when the traced first process (strace -o LOG, no -f) of a
# command re-executed: "early" (an execveat before libc started in it, which
# sets its thread id address first thing), "late" (after), "none".
reexec_when() {
	awk '/^execveat\(/ { print (libc ? "late" : "early"); found = 1; exit }
	     /^set_tid_address\(/ { libc = 1 }
	     END { if (!found) print "none" }' "$1"
}

# traced_create LOG ID ARGS...: `create ARGS... ID` with its first process
# traced into LOG.
traced_create() {
	local log="$1" id="$2"
	shift 2
	run_nohang "$TEST_LIB_BIN/subreaper" strace -o "$log" -e trace=execve,execveat,set_tid_address \
		"$RUNTIME" --root "$ROOT" create "$@" "$id"
	assert_success
	record_container_pid "$id"
}

@test "exe: create and exec re-execute sealed before libc starts, for every spelling of the bundle; a user namespace is left to the parsed config" {
	command -v strace >/dev/null || fail "strace is missing (make deps)"
	use_runtime_copy
	chown 0:0 "$RUNTIME_COPY"
	set_args true
	local log="$BATS_TEST_TMPDIR/trace" ids=() i=0 form
	for form in "--bundle $BUNDLE" "--bundle=$BUNDLE" "-b $BUNDLE" "--config=config.json -b $BUNDLE" cwd; do
		i=$((i + 1))
		if [[ "$form" == cwd ]]; then
			(cd "$BUNDLE" && traced_create "$log" "$CID-$i")
		else
			# shellcheck disable=SC2086
			traced_create "$log" "$CID-$i" $form
		fi
		ids+=("$CID-$i")
		assert_equal "$form: $(reexec_when "$log")" "$form: early"
		assert_equal "$form: $(exe_of_created "$CID-$i")" "$form: SEALED"
	done
	# exec into the created container: the saved config under --root
	run_nohang strace -o "$log" -e trace=execve,execveat,set_tid_address \
		"$RUNTIME" --root "$ROOT" exec --env A=B --cwd / "$CID-1" true
	assert_success
	assert_equal "exec: $(reexec_when "$log")" "exec: early"
	# "user" as a value without a user namespace: main's look at the text or
	# the parse decides (sealed, later)
	update_config '.hostname = "user"'
	traced_create "$log" "$CID-late" --bundle "$BUNDLE"
	ids+=("$CID-late")
	assert_equal "$(reexec_when "$log")" late
	assert_equal "$(exe_of_created "$CID-late")" SEALED
	# a user namespace mapping none of the binary's ids: no re-exec at all
	update_config '.hostname = "c"'
	map_userns
	traced_create "$log" "$CID-userns" --bundle "$BUNDLE"
	ids+=("$CID-userns")
	assert_equal "$(reexec_when "$log")" none
	assert_equal "$(exe_of_created "$CID-userns")" HOSTFILE
	local id
	for id in "${ids[@]}"; do
		"$REAL_RUNTIME" --root "$ROOT" delete --force "$id"
	done
	RUNTIME="$REAL_RUNTIME"
}

# --- leaked fds (CVE-2024-21626) ------------------------------------------

# with_fds [-p N] ARG...: run the runtime with ARGs (through run_nohang)
# with fds 5, 7, 9 and 1000 open on host directories, as a careless caller would
# leave them; with -p N also fds 3..N+2 (for --preserve-fds N).
with_fds() {
	local pre=0
	if [[ "$1" == -p ]]; then
		pre="$2"
		shift 2
	fi
	run_nohang bash -c 'for ((i = 3; i < 3 + $1; i++)); do eval "exec $i</dev/null"; done
		exec 5<"$0" 7</ 9<"$0" 1000</; shift; exec "$@"' "$BUNDLE" "$pre" "$RUNTIME" --root "$ROOT" "$@"
}

# only_fds LIST: $output's "fds=" line (checker) is LIST, and the `ls -l
# /proc/self/fd` lines show no other fd than LIST and ls's own directory.
only_fds() {
	assert_line "fds=$1"
	run awk -v keep=",$1," '$(NF - 1) == "->" {
			fd = $(NF - 2)
			if (index(keep, "," fd ",") == 0 && $NF !~ /^\/proc\/[0-9]+\/fd$/) print
		}' <<<"$output"
	assert_output ""
}

@test "fds: run sees only stdio and the preserved fds" {
	set_cmd '/bin/checker fds; ls -l /proc/self/fd'
	with_fds run --bundle "$BUNDLE" "$CID"
	assert_success
	only_fds 0,1,2
	with_fds -p 2 run --preserve-fds 2 --bundle "$BUNDLE" "$CID"
	assert_success
	only_fds 0,1,2,3,4
}

@test "fds: a created init holds only stdio, the exec fifo, its sync socket and its own fd directory" {
	# seen from the host while it waits for start: nothing of the runtime's
	# (the bundle, the state dir, the host's /proc) stays open in it; the
	# fd directory the fifo is reopened through is its own thread's, the
	# one runc keeps (its suite's fd audit allows /proc/1/task/1/fd)
	create_container "$CID"
	local pid fd target bad="" log
	log="$(container_log "$CID")"
	pid="$(runtime state "$CID" | jq -r .pid)"
	for fd in /proc/"$pid"/fd/*; do
		target="$(readlink "$fd")"
		case "$target" in
		"$log" | /dev/null | socket:\[*\] | "$ROOT/$CID/exec.fifo" | /proc/1/task/1/fd) ;;
		*) bad+=" ${fd##*/}=$target" ;;
		esac
	done
	[[ -z "$bad" ]] || fail "unexpected fds in the created init:$bad"
}

@test "fds: exec sees only stdio and the preserved fds" {
	run_detached "$CID"
	with_fds exec "$CID" sh -c '/bin/checker fds; ls -l /proc/self/fd'
	assert_success
	only_fds 0,1,2
	with_fds -p 1 exec --preserve-fds 1 "$CID" sh -c '/bin/checker fds; ls -l /proc/self/fd'
	assert_success
	only_fds 0,1,2,3
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# The command that reports where the cwd is: ".." from it must end at the
# container's root, as from inside any directory of the container.
CWD_PROBE='echo "root=$(stat -c %d:%i /)"; echo "up=$(stat -c %d:%i ../../../../../../../../../../../../../..)"; echo "cwd=$(readlink /proc/self/cwd)"'

# cwd_escaped N: the run/exec worked and its ".." walk left the container:
# add N and where it was to ESCAPED.
cwd_escaped() {
	local root up
	[[ "$status" -ne 0 ]] && return 0
	root="$(sed -n 's/^root=//p' <<<"$output")"
	up="$(sed -n 's/^up=//p' <<<"$output")"
	[[ -n "$root" && "$root" == "$up" ]] && return 0
	ESCAPED+="  fd $1: $(sed -n 's/^cwd=//p' <<<"$output") ('..' leads to $up, the root is $root)"$'\n'
}

@test "fds: process.cwd /proc/self/fd/N (3..20) never reaches the host (run)" {
	local n
	ESCAPED=""
	for ((n = 3; n <= 20; n++)); do
		update_config '.process.cwd = $c' --arg c "/proc/self/fd/$n"
		set_cmd "$CWD_PROBE"
		with_fds run --bundle "$BUNDLE" "$CID"
		cwd_escaped "$n"
		timeout -k 2 10 "$RUNTIME" --root "$ROOT" delete --force "$CID" >/dev/null 2>&1 </dev/null || true
	done
	[[ -z "$ESCAPED" ]] || fail "process.cwd reached the host:"$'\n'"$ESCAPED"
	# the probe itself works: from / the walk ends at /
	update_config '.process.cwd = "/"'
	with_fds run --bundle "$BUNDLE" "$CID"
	assert_success
	cwd_escaped /
	assert_equal "$ESCAPED" ""
}

@test "fds: exec --cwd /proc/self/fd/N (3..20) never reaches the host" {
	local n
	ESCAPED=""
	run_detached "$CID"
	for ((n = 3; n <= 20; n++)); do
		with_fds exec --cwd "/proc/self/fd/$n" "$CID" sh -c "$CWD_PROBE"
		cwd_escaped "$n"
	done
	[[ -z "$ESCAPED" ]] || fail "exec --cwd reached the host:"$'\n'"$ESCAPED"
	with_fds exec --cwd /tmp "$CID" sh -c "$CWD_PROBE"
	assert_success
	cwd_escaped /tmp
	assert_equal "$ESCAPED" ""
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# The program, PATH and cwd are resolved with no host fd open: a path
# through /proc/self/fd/N for every N the runtime (or a careless caller) can
# hold must never reach a host file. HOST_DIR is a directory that exists
# only on the host, with a static `escape` (tests/lib/security/escape.c) that
# would say ESCAPED.
FD_MAX="${FD_MAX:-64}"
UP='../../../../../../../../../../../../../../../..'

make_host_dir() {
	HOST_DIR="$BATS_TEST_TMPDIR/host-only"
	mkdir -p "$HOST_DIR"
	cp "$TEST_LIB_BIN/escape" "$HOST_DIR/escape"
	ESCAPED=""
}

# fd_escaped N WHAT: the last run printed ESCAPED or created WHAT on the host.
fd_escaped() {
	if [[ "$output" == *ESCAPED* || -e "$OUT/escaped" ]]; then
		ESCAPED+="  fd $1: ran the host's $HOST_DIR/escape"$'\n'
		rm -f "$OUT/escaped"
	fi
	if [[ -n "${2:-}" && -e "$2" ]]; then
		ESCAPED+="  fd $1: created $2 on the host"$'\n'
	fi
	return 0
}

# run_mode MODE: run, or create + start (the program is found at create)
run_mode() {
	local mode="$1"
	if [[ "$mode" == run ]]; then
		with_fds run --bundle "$BUNDLE" "$CID"
	else
		with_fds create --bundle "$BUNDLE" "$CID"
		if [[ "$status" -eq 0 ]]; then
			with_fds start "$CID"
			wait_for_state "$CID" stopped 2>/dev/null || true
		fi
	fi
	timeout -k 2 10 "$RUNTIME" --root "$ROOT" delete --force "$CID" >/dev/null 2>&1 </dev/null || true
}

fd_vectors_run() {
	local mode="$1" n
	make_host_dir
	bind_out_dir
	for n in $(seq 3 "$FD_MAX") 1000; do
		# process.args[0]
		set_args "/proc/self/fd/$n/$UP$HOST_DIR/escape"
		run_mode "$mode"
		fd_escaped "$n"
		# a PATH entry
		update_config '.process.env += [$p] | .process.args = ["escape"]' --arg p "PATH=/proc/self/fd/$n/$UP$HOST_DIR"
		run_mode "$mode"
		fd_escaped "$n"
		update_config '.process.env |= map(select(startswith("PATH=/proc") | not))'
		# process.cwd: created (mkdir -p) and entered
		update_config '.process.cwd = $c' --arg c "/proc/self/fd/$n/$UP$HOST_DIR/made-$n"
		set_args /bin/true
		run_mode "$mode"
		fd_escaped "$n" "$HOST_DIR/made-$n"
		update_config '.process.cwd = "/"'
	done
	[[ -z "$ESCAPED" ]] || fail "a /proc/self/fd path reached the host ($mode):"$'\n'"$ESCAPED"
	# the vectors work: the same paths from the container's own / run a file
	# of the container
	cp "$HOST_DIR/escape" "$BUNDLE/rootfs/escape"
	set_args "/proc/self/root/escape"
	run_mode "$mode"
	[[ -e "$OUT/escaped" ]] || fail "the probe did not run: $output"
}

@test "fds: process.args[0], a PATH entry and process.cwd through /proc/self/fd/N (3..64, 1000) never reach the host (run)" {
	fd_vectors_run run
}

@test "fds: process.args[0], a PATH entry and process.cwd through /proc/self/fd/N (3..64, 1000) never reach the host (create + start)" {
	fd_vectors_run create
}

@test "fds: exec's program, a PATH entry and --cwd through /proc/self/fd/N (3..64, 1000) never reach the host" {
	local n
	make_host_dir
	run_detached "$CID"
	for n in $(seq 3 "$FD_MAX") 1000; do
		with_fds exec "$CID" "/proc/self/fd/$n/$UP$HOST_DIR/escape"
		fd_escaped "$n"
		with_fds exec -e "PATH=/proc/self/fd/$n/$UP$HOST_DIR" "$CID" escape
		fd_escaped "$n"
		with_fds exec --cwd "/proc/self/fd/$n/$UP$HOST_DIR/made-$n" "$CID" true
		fd_escaped "$n" "$HOST_DIR/made-$n"
	done
	[[ -z "$ESCAPED" ]] || fail "a /proc/self/fd path reached the host (exec):"$'\n'"$ESCAPED"
	cp "$HOST_DIR/escape" "$BUNDLE/rootfs/escape"
	with_fds exec "$CID" /proc/self/root/escape
	assert_output --partial ESCAPED
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

# --- symlinked targets ----------------------------------------------------

@test "symlinks: mount destinations through links to / and ../../.. land inside the rootfs; nothing appears on the host" {
	local host="$BATS_TEST_TMPDIR/host"
	mkdir -p "$host/target" "$OUT/vol"
	echo host >"$host/target/host-marker"
	echo host >"$host/file"
	echo vol >"$OUT/vol/vol-marker"
	echo vol-file >"$OUT/vol-file"
	ln -s / "$BUNDLE/rootfs/evil"
	ln -s ../../../../../../../../../.. "$BUNDLE/rootfs/up"
	mkdir -p "$BUNDLE/rootfs/a/b"
	ln -s ../../../../../../../../.. "$BUNDLE/rootfs/a/b/c"
	local m='{"destination": $d, "type": "bind", "source": $s, "options": ["bind"]}'
	update_config ".mounts += [$m]" --arg d "/evil$host/target" --arg s "$OUT/vol"
	update_config ".mounts += [$m]" --arg d "/up$host/new/deep" --arg s "$OUT/vol"
	update_config ".mounts += [$m]" --arg d "/a/b/c$host/file" --arg s "$OUT/vol-file"
	update_config ".mounts += [$m]" --arg d "/evil$host/newfile" --arg s "$OUT/vol-file"
	set_cmd "cat $host/target/vol-marker $host/new/deep/vol-marker $host/file $host/newfile"
	run_ctr
	assert_success
	assert_equal "$output" "$(printf 'vol\nvol\nvol-file\nvol-file')"
	# created inside the rootfs
	[ -d "$BUNDLE/rootfs$host/target" ] && [ -d "$BUNDLE/rootfs$host/new/deep" ]
	[ -f "$BUNDLE/rootfs$host/file" ] && [ -f "$BUNDLE/rootfs$host/newfile" ]
	# and nothing on the host
	[ ! -e "$host/new" ] && [ ! -e "$host/newfile" ]
	assert_equal "$(ls -A "$host/target")" host-marker
	assert_equal "$(cat "$host/file")" host
	assert_equal "$(readlink "$BUNDLE/rootfs/evil")" /
	assert_equal "$(readlink "$BUNDLE/rootfs/a/b/c")" ../../../../../../../../..
}

# A bind source that names a path inside the rootfs (absolute, or relative
# to the bundle) is the image's: the image's links there (to / or ../..)
# resolve inside the rootfs, so they cannot hand the container a host
# directory -- plain binds, and idmapped ones (a host root's file would
# become the container root's to write).
@test "symlinks: bind sources inside the rootfs through the image's links to / and ../.. stay in the rootfs" {
	local host="$BATS_TEST_TMPDIR/host" rootfs
	rootfs="$(realpath "$BUNDLE/rootfs")"
	mkdir -p "$host/dir" "$BUNDLE/rootfs$host/dir" "$BUNDLE/rootfs/m"{1,2,3,4}
	echo host >"$host/dir/marker"
	echo image >"$BUNDLE/rootfs$host/dir/marker"
	ln -s / "$BUNDLE/rootfs/evil"
	ln -s ../../../../../../../../../.. "$BUNDLE/rootfs/up"
	local m='{"destination": $d, "type": "bind", "source": $s, "options": ["rbind"]}'
	local idm='{"destination": $d, "type": "bind", "source": $s, "options": ["rbind", "idmap"],
		"uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
		"gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]}'
	update_config ".mounts += [$m]" --arg d /m1 --arg s "$rootfs/evil$host/dir"
	update_config ".mounts += [$m]" --arg d /m2 --arg s "rootfs/up$host/dir"
	update_config ".mounts += [$idm]" --arg d /m3 --arg s "$rootfs/up$host/dir"
	update_config ".mounts += [$idm]" --arg d /m4 --arg s "rootfs/evil$host/dir"
	set_cmd 'cat /m1/marker /m2/marker /m3/marker /m4/marker'
	run_ctr
	assert_success
	assert_equal "$output" "$(printf 'image\nimage\nimage\nimage')"
}

# The same relative source when the runtime cannot hold an fd for it before
# the entries (RLIMIT_NOFILE 128 leaves open_relative_sources no budget): it is
# still resolved below the rootfs when its entry is mounted, never by its host
# path (that read "host" until 2026-12-06).
@test "symlinks: a relative bind source through the image's ../.. link stays in the rootfs with a low fd limit" {
	local host="$BATS_TEST_TMPDIR/host"
	mkdir -p "$host/dir" "$BUNDLE/rootfs$host/dir" "$BUNDLE/rootfs/m2"
	echo host >"$host/dir/marker"
	echo image >"$BUNDLE/rootfs$host/dir/marker"
	ln -s ../../../../../../../../../.. "$BUNDLE/rootfs/up"
	update_config '.mounts += [{"destination": "/m2", "type": "bind", "source": $s, "options": ["rbind"]}]
		| del(.process.rlimits)' --arg s "rootfs/up$host/dir"
	set_cmd 'cat /m2/marker'
	run_ctr
	assert_success
	assert_output image
	ulimit -n 128
	run_ctr
	assert_success
	assert_output image
}

@test "symlinks: a rootfs whose /proc is a link (inside or out of it) is refused" {
	mkdir -p "$OUT/fakeproc" "$BUNDLE/rootfs/notproc"
	rmdir "$BUNDLE/rootfs/proc"
	set_args true
	ln -s /notproc "$BUNDLE/rootfs/proc"
	run_ctr
	assert_failure 1
	# runc's words (its mask.bats checks them)
	assert_output --partial 'filesystem "proc" must be mounted on ordinary directory'
	rm "$BUNDLE/rootfs/proc"
	ln -s "../../../../../../../../..$OUT/fakeproc" "$BUNDLE/rootfs/proc"
	run_ctr
	assert_failure
	[ -z "$(ls -A "$BUNDLE/rootfs/notproc")" ] && [ -z "$(ls -A "$OUT/fakeproc")" ]
	[ -z "$(test_state_dirs)" ]
}

@test "symlinks: a rootfs whose /sys is a link (inside or out of it) is refused" {
	mkdir -p "$OUT/fakesys" "$BUNDLE/rootfs/notsys"
	rmdir "$BUNDLE/rootfs/sys"
	set_args true
	ln -s /notsys "$BUNDLE/rootfs/sys"
	run_ctr
	assert_failure
	rm "$BUNDLE/rootfs/sys"
	ln -s "../../../../../../../../..$OUT/fakesys" "$BUNDLE/rootfs/sys"
	run_ctr
	assert_failure
	[ -z "$(ls -A "$BUNDLE/rootfs/notsys")" ] && [ -z "$(ls -A "$OUT/fakesys")" ]
	[ -z "$(test_state_dirs)" ]
}

@test "symlinks: a rootfs whose /proc or /sys is not a directory is refused" {
	set_args true
	rmdir "$BUNDLE/rootfs/proc"
	touch "$BUNDLE/rootfs/proc"
	run_ctr
	assert_failure
	rm "$BUNDLE/rootfs/proc"
	mkdir "$BUNDLE/rootfs/proc"
	rmdir "$BUNDLE/rootfs/sys"
	touch "$BUNDLE/rootfs/sys"
	run_ctr
	assert_failure
	[ -f "$BUNDLE/rootfs/sys" ] && [ ! -s "$BUNDLE/rootfs/sys" ]
	[ -z "$(test_state_dirs)" ]
}

@test "symlinks: an image /dev/null linked to a procfs file is never the mask's source" {
	# CVE-2025-31133 class: the masks (and the container's stdio) must come
	# from a real /dev/null. The link goes to a read-only global procfs file:
	# a vulnerable runtime (runc 1.1.5 writes its stdio into core_pattern
	# this way) then shows it without changing the host.
	local osrelease
	osrelease="$(cat /proc/sys/kernel/osrelease)"
	no_dev_mounts
	rm -rf "$BUNDLE/rootfs/dev"
	mkdir "$BUNDLE/rootfs/dev"
	ln -s /proc/sys/kernel/osrelease "$BUNDLE/rootfs/dev/null"
	echo secret >"$BUNDLE/rootfs/secret-file"
	update_config '.linux.maskedPaths += ["/secret-file"]'
	set_cmd 'for f in /secret-file /proc/timer_list /proc/keys; do
			[ -e $f ] && echo "$f $(stat -c "%F %t:%T" $f) [$(head -c 64 $f)]"
		done
		stat -c "%n %F %t:%T" /dev/null'
	run_ctr
	refute_output --partial "$osrelease"
	# refusing the image is safe too (runc 1.1.5 fails reopening its stdio)
	[[ "$status" -ne 0 ]] && return 0
	assert_line "/secret-file character special file 1:3 []"
	assert_line "/proc/timer_list character special file 1:3 []"
	assert_line "/proc/keys character special file 1:3 []"
	assert_line "/dev/null character special file 1:3"
}

# run_tty: `run` with a terminal (script gives the caller one, as runc needs).
run_tty() {
	update_config '.process.terminal = true'
	run_nohang script -qec "$(printf '%q ' "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID")" /dev/null
	# script's pty: CR LF line ends, an echoed ^@ or ^D
	output="$(tr -d '\r' <<<"$output" | sed 's/\^[@D]//g')"
	mapfile -t lines <<<"$output"
}

CONSOLE_PROBE='stat -c "%n %F %t" /dev/console; echo "tty=$(tty)"; echo to-the-console; echo to-console >/dev/console'

@test "symlinks: an image /dev/console linked out of the rootfs does not redirect the console" {
	no_dev_tmpfs
	mkdir -p "$OUT" "$BUNDLE/rootfs/dev/pts"
	echo keep >"$OUT/console-target"
	ln -s "../../../../../../../../..$OUT/console-target" "$BUNDLE/rootfs/dev/console"
	set_cmd "$CONSOLE_PROBE"
	run_tty
	assert_equal "$(cat "$OUT/console-target")" keep
	if mountpoint -q "$OUT/console-target"; then fail "a mount on the host's $OUT/console-target"; fi
	# refusing the image is safe too (runc 1.1.5 does)
	[[ "$status" -ne 0 ]] && return 0
	assert_line "/dev/console character special file 88"
	assert_line --regexp '^tty=/dev/pts/[0-9]+$'
	assert_line to-the-console
}

@test "symlinks: image /dev/pts/N and /dev/ptmx links out of the rootfs do not redirect the terminal" {
	no_dev_tmpfs
	local n
	mkdir -p "$BUNDLE/rootfs/dev/pts" "$OUT/pts"
	for n in 0 1 2 3 4 5 6 7 8 9 ptmx; do
		echo keep >"$OUT/pts/$n"
		ln -s "../../../../../../../../../..$OUT/pts/$n" "$BUNDLE/rootfs/dev/pts/$n"
	done
	echo keep >"$OUT/ptmx"
	ln -s "../../../../../../../../../..$OUT/ptmx" "$BUNDLE/rootfs/dev/ptmx"
	set_cmd "$CONSOLE_PROBE"
	run_tty
	for n in 0 1 2 3 4 5 6 7 8 9 ptmx; do
		assert_equal "$(cat "$OUT/pts/$n")" keep
	done
	assert_equal "$(cat "$OUT/ptmx")" keep
	[[ "$status" -ne 0 ]] && return 0
	assert_line "/dev/console character special file 88"
	assert_line --regexp '^tty=/dev/pts/[0-9]+$'
}

@test "symlinks: without a devpts mount, image /dev/pts/N links to a procfs file never become the console" {
	# CVE-2025-52565 class: the console is bound from the pty itself, never
	# from a path /dev/pts/N of the image
	update_config '.mounts |= map(select(.destination != "/dev" and .destination != "/dev/pts"))'
	local n osrelease
	osrelease="$(cat /proc/sys/kernel/osrelease)"
	mkdir -p "$BUNDLE/rootfs/dev/pts"
	# the image's own ptmx node: a pty of the host's devpts instance
	mknod -m 0666 "$BUNDLE/rootfs/dev/pts/ptmx" c 5 2
	ln -s pts/ptmx "$BUNDLE/rootfs/dev/ptmx"
	for ((n = 0; n < 64; n++)); do
		ln -s /proc/sys/kernel/osrelease "$BUNDLE/rootfs/dev/pts/$n"
	done
	set_cmd "$CONSOLE_PROBE"
	run_tty
	assert_equal "$(cat /proc/sys/kernel/osrelease)" "$osrelease"
	# refusing the image is safe too (both runtimes do on this host)
	[[ "$status" -ne 0 ]] && return 0
	assert_line "/dev/console character special file 88"
}

@test "symlinks: an image /dev linked out of the rootfs keeps devices and the console inside it" {
	no_dev_tmpfs
	mkdir -p "$OUT/hostdev" "$BUNDLE/rootfs$OUT/hostdev"
	rm -rf "$BUNDLE/rootfs/dev"
	ln -s "../../../../../../../../..$OUT/hostdev" "$BUNDLE/rootfs/dev"
	set_cmd "$CONSOLE_PROBE"'; stat -c "%n %F %t:%T" /dev/null'
	run_tty
	if is_runc && [ -n "$(ls -A "$OUT/hostdev")" ]; then
		skip "runc 1.1.5 predates the fix (creates /dev links through the image's /dev link)"
	fi
	[ -z "$(ls -A "$OUT/hostdev")" ] || fail "set-up wrote to the host: $(ls -A "$OUT/hostdev")"
	# refusing the image is safe too (runc 1.1.5 does)
	[[ "$status" -ne 0 ]] && return 0
	assert_line "/dev/console character special file 88"
	# /dev is $OUT/hostdev in the rootfs: the pty lives below it
	assert_line --regexp '^tty=.*/pts/[0-9]+$'
	assert_line "/dev/null character special file 1:3"
	[ -c "$BUNDLE/rootfs$OUT/hostdev/null" ]
}

# --- procfs writes (CVE-2025-52881 class) ---------------------------------

# fake_proc: no proc mount; the image's /proc is a plain directory holding
# files named like the procfs ones, each containing "fake". The rootfs is
# writable, so that a runtime that writes there succeeds (and is caught).
fake_proc() {
	local f
	update_config '.mounts |= map(select(.destination != "/proc"))
		| .linux.maskedPaths = [] | .linux.readonlyPaths = [] | .root.readonly = false'
	for f in sys/kernel/domainname sys/kernel/hostname sys/net/ipv4/ip_forward self/oom_score_adj \
		self/attr/exec self/attr/current self/attr/apparmor/exec self/attr/apparmor/current \
		thread-self/attr/exec; do
		mkdir -p "$(dirname "$BUNDLE/rootfs/proc/$f")"
		echo fake >"$BUNDLE/rootfs/proc/$f"
	done
}

# proc_untouched: every file of the image's fake /proc still says "fake".
proc_untouched() {
	local changed
	changed="$(grep -rLx fake "$BUNDLE/rootfs/proc")"
	[[ -z "$changed" ]] || fail "written into the image's /proc: $changed"
}

@test "procfs: sysctl with an image /proc that is not procfs is refused, not written into the image" {
	fake_proc
	update_config '.linux.sysctl = {"kernel.domainname": "tinyrun-sysctl"}'
	set_args true
	run_ctr
	if is_runc && [[ "$(cat "$BUNDLE/rootfs/proc/sys/kernel/domainname")" == tinyrun-sysctl ]]; then
		skip "runc 1.1.5 predates the fix (CVE-2025-52881)"
	fi
	assert_failure
	assert_output --partial sysctl
	proc_untouched
}

@test "procfs: a mount over a /proc/sys file does not redirect a sysctl write" {
	# the outcome of a racing mount (shared volume) made static: the write
	# must reach procfs itself or be refused, never the file mounted there
	mkdir -p "$OUT"
	echo fake >"$OUT/domainname"
	# no readonlyPaths: a read-only /proc/sys would hide the redirect
	update_config '.mounts += [{"destination": "/proc/sys/kernel/domainname", "type": "bind", "source": $s, "options": ["bind"]}]
		| .linux.sysctl = {"kernel.domainname": "tinyrun-sysctl"} | .linux.readonlyPaths = []' --arg s "$OUT/domainname"
	set_args /bin/checker domainname
	run_ctr
	if is_runc && [[ "$(cat "$OUT/domainname")" == tinyrun-sysctl ]]; then
		skip "runc 1.1.5 predates the fix (CVE-2025-52881)"
	fi
	assert_equal "$(cat "$OUT/domainname")" fake
	[[ "$status" -ne 0 ]] && return 0
	assert_line domainname=tinyrun-sysctl
}

# fake_cap_last_cap: the image's /proc is a plain directory whose
# sys/kernel/cap_last_cap says 0; the real procfs is at /realproc.
fake_cap_last_cap() {
	update_config '(.mounts[] | select(.destination == "/proc")).destination = "/realproc"
		| .linux.maskedPaths = [] | .linux.readonlyPaths = []'
	mkdir -p "$BUNDLE/rootfs/proc/sys/kernel" "$BUNDLE/rootfs/realproc"
	echo 0 >"$BUNDLE/rootfs/proc/sys/kernel/cap_last_cap"
}

@test "procfs: an image's fake /proc/sys/kernel/cap_last_cap does not keep capabilities in the bounding set (run, exec)" {
	fake_cap_last_cap
	set_cmd 'grep -E "^Cap(Bnd|Prm)" /realproc/self/status; sleep 3600'
	run_detached "$CID"
	wait_for_file "$(container_log "$CID")" CapBnd
	run cat "$(container_log "$CID")"
	# runc spec's set: AUDIT_WRITE, KILL, NET_BIND_SERVICE
	assert_line --regexp '^CapBnd:\s+0000000020000420$'
	run_nohang runtime exec "$CID" grep CapBnd /realproc/self/status
	assert_success
	assert_line --regexp '^CapBnd:\s+0000000020000420$'
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "procfs: oomScoreAdj reaches the process, not the image's /proc" {
	fake_proc
	update_config '.process.oomScoreAdj = 123'
	set_args sleep 3600
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --detach --bundle "$BUNDLE" "$CID"
	proc_untouched
	# refusing to run without procfs is safe too (runc 1.1.5 does)
	[[ "$status" -ne 0 ]] && return 0
	record_container_pid "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	assert_equal "$(cat "/proc/$pid/oom_score_adj")" 123
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}

@test "procfs: LSM labels never go into the image's /proc" {
	fake_proc
	update_config '.process.apparmorProfile = "tinyrun-test-profile" | .process.selinuxLabel = "system_u:system_r:container_t:s0"'
	set_args true
	run_ctr
	proc_untouched
	# with an LSM enabled the label cannot be applied: refused
	if [[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" == Y || -d /sys/fs/selinux ]]; then
		assert_failure
	fi
}

# --- cgroupfs and masked paths --------------------------------------------

# try_cgroup_writes: the container's command that tries every cgroup and
# cgroup2 file system under /sys/fs/cgroup (writes and a mkdir each).
try_cgroup_writes() {
	set_cmd 'try() { msg="$( { "$@"; } 2>&1 )" && echo "WROTE $*" || echo "ERR $msg"; }
		for d in /sys/fs/cgroup /sys/fs/cgroup/*; do
			# directories of cgroup and cgroup2 only (the tmpfs of a v1 layout
			# has no control file; a v2 root lists its files here too)
			[ -d "$d" ] || continue
			t="$(stat -f -c %t "$d")"
			[ "$t" = 27e0eb ] || [ "$t" = 63677270 ] || continue
			for f in cgroup.procs tasks notify_on_release release_agent cgroup.subtree_control \
				cgroup.max.descendants pids.max memory.limit_in_bytes memory.max cpu.shares; do
				[ -e "$d/$f" ] && try sh -c "echo 1 >$d/$f"
			done
			try mkdir "$d/escape"
		done'
}

@test "cgroup: without a cgroup namespace every write to a cgroup file system fails with EROFS" {
	# CVE-2023-25809 class; DAC_OVERRIDE so that only the read-only mount
	# stands in the way
	add_caps CAP_DAC_OVERRIDE
	try_cgroup_writes
	run_ctr
	assert_success
	refute_line --partial WROTE
	# every attempt failed because the file system is read-only: v1 has a
	# hierarchy per controller, v2 one (5 of the files, and the mkdir)
	local min=10
	on_cgroup2 && min=6
	[ "$(grep -c '^ERR ' <<<"$output")" -ge "$min" ]
	run grep -v 'Read-only file system$' <<<"$output"
	assert_output ""
}

# CVE-2023-25809 itself: a user namespace without a cgroup namespace gets the
# cgroup mount read-only even when the config leaves "ro" out (runc's fix);
# without the forced ro a mkdir would fail with EACCES instead.
@test "cgroup: a user namespace without a cgroup namespace gets a read-only cgroup mount, whatever the options" {
	map_userns
	update_config '.mounts |= map(if .type == "cgroup" then .options -= ["ro"] else . end)'
	try_cgroup_writes
	run_ctr
	assert_success
	refute_line --partial WROTE
	local mkdirs
	mkdirs="$(grep -c "^ERR mkdir: can't create directory '.*/escape'" <<<"$output")"
	# a hierarchy per controller on v1, one on v2
	if on_cgroup2; then [ "$mkdirs" -ge 1 ]; else [ "$mkdirs" -ge 2 ]; fi
	assert_equal "$(grep -c "^ERR mkdir: .*/escape': Read-only file system" <<<"$output")" "$mkdirs"
}

@test "masked paths stay masked after remount attempts with CAP_SYS_ADMIN" {
	add_caps CAP_SYS_ADMIN
	mkdir -p "$BUNDLE/rootfs/secret-dir"
	echo secret >"$BUNDLE/rootfs/secret-dir/key"
	echo secret >"$BUNDLE/rootfs/secret-file"
	update_config '.linux.maskedPaths += ["/secret-file", "/secret-dir"]'
	set_cmd 'paths="/secret-file /secret-dir /proc/timer_list /proc/keys /proc/acpi /proc/scsi /sys/firmware"
		mount -o remount,rw /proc 2>/dev/null
		for f in $paths; do
			[ -e $f ] || continue
			for o in remount,rw remount,bind,rw remount,rw,exec,suid,dev remount,bind,rw,exec; do
				mount -o $o $f 2>/dev/null && echo "remount $o $f: done"
			done
			[ -d $f ] && touch $f/x 2>/dev/null
		done
		for f in $paths; do
			if [ -d $f ]; then echo "$f dir [$(ls -A $f | grep -vx x)]"
			elif [ -e $f ]; then echo "$f $(stat -c "%F %t:%T" $f) [$(head -c 64 $f)]"; fi
		done'
	run_ctr
	assert_success
	assert_line "/secret-file character special file 1:3 []"
	assert_line "/secret-dir dir []"
	assert_line "/proc/timer_list character special file 1:3 []"
	assert_line "/proc/keys character special file 1:3 []"
	# the masked directories of the config list nothing (but what was just made)
	run grep -E '^/(proc|sys)/[a-z]+ dir \[[^]]' <<<"$output"
	assert_output ""
	# what the container wrote into a masking tmpfs stayed there
	assert_equal "$(ls -A "$BUNDLE/rootfs/secret-dir")" key
	assert_equal "$(cat "$BUNDLE/rootfs/secret-file")" secret
}
