#!/usr/bin/env bats
# clients: tinyrun as the runtime of real clients.
#   podman (+ conmon): run --rm, -it through conmon's console socket (also
#     `sh -c tty` with nothing typed), run -d / exec / stop / rm, ps, pause /
#     unpause, stats, update, top, error text, kill -s, restart, signal
#     forwarding, -e/-w/-v/--cpus, --init, healthcheck, 20 containers, the
#     default (bridge) network, build (buildah's RUN steps), pods (catatonit),
#     --systemd=always (systemd as PID 1);
#   containerd (runc v2 shim, ctr): run --rm, run -d / task exec / kill /
#     delete, task ps, pause / resume, metrics, -t, error text, 10 tasks, tinyrun as the
#     `runc` on containerd's PATH; the contrib config.
# A test skips when its client is not installed (`make deps` installs podman,
# conmon and containerd, so make check runs them). Everything runs privately: podman with its own --root/--runroot/
# --tmpdir and containers.conf, containerd with its own root, state, socket
# and runc root, started here under a subreaper and stopped by pid. Every test
# checks that no container, state dir, cgroup, mount or process is left.

load helpers

have_podman() { command -v podman >/dev/null && command -v conmon >/dev/null; }
have_containerd() {
	command -v containerd >/dev/null && command -v ctr >/dev/null &&
		command -v containerd-shim-runc-v2 >/dev/null
}

# A parent cgroup the clients leave behind (podman's --cgroup-parent with
# its conmon child, containerd's /<namespace>): rmdir it, deepest first, in
# every hierarchy. A container cgroup still inside makes rmdir fail, and the
# leftover check then names the parent.
# conmon leaves its cgroup (PARENT/conmon) a moment after `podman rm`: retry
# for a few seconds.
remove_parent_cgroup() {
	local d i left
	for ((i = 0; i < 100; i++)); do
		left="$(find /sys/fs/cgroup -maxdepth 3 -type d -name "$1" 2>/dev/null)"
		[[ -z "$left" ]] && break
		while read -r d; do
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		done <<<"$left"
		sleep 0.05
	done
	return 0
}

# The state dir root the clients make tinyrun use when they pass no --root
# (podman) and the runtime's own default.
default_root() { echo "/run/$(basename "$RUNTIME")"; }

setup_file() {
	build_test_lib || return 1
	build_base_rootfs || return 1
	CL="$(mktemp -d /tmp/tr-clients.XXXXXX)"
	export CL
	# searchable: the root of a user namespace (ctr run --uidmap) walks this
	# path to reach its rootfs (runc and tinyrun alike)
	chmod 711 "$CL"
	tar -C "$TEST_CACHE/rootfs" -cf "$CL/rootfs.tar" .
	if have_podman; then
		podman_setup_file || return 1
	fi
	if have_containerd; then
		containerd_setup_file || return 1
	fi
}

teardown_file() {
	[[ -n "${CL:-}" && -d "$CL" ]] || return 0
	if have_podman && [[ -d "$CL/p" ]]; then
		pm_raw rm -a -f -t 0 >/dev/null 2>&1
		pm_raw rmi -a -f >/dev/null 2>&1
	fi
	containerd_stop
	# podman's storage (overlay) and containerd's snapshots: nothing stays mounted
	grep -F " $CL/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$CL"
	# the shim's cleanup runs late: empty default roots of this file's namespaces
	[[ -d /run/containerd/runc ]] &&
		find /run/containerd/runc -mindepth 1 -maxdepth 1 -type d -name 'tinyrun-test-trt*' -empty -delete
	for d in /run/containerd/fifo /run/containerd/s /run/containerd/runc /run/containerd; do
		[[ -e "$CL.had-run-containerd" ]] || rmdir "$d" 2>/dev/null
	done
	rm -f "$CL.had-run-containerd"
	return 0
}

setup() {
	tr_setup
	: >"$BATS_TEST_TMPDIR/ids"
	case "$BATS_TEST_DESCRIPTION" in
	podman*) have_podman || skip "podman/conmon not installed" ;;
	containerd*) have_containerd || skip "containerd/ctr/containerd-shim-runc-v2 not installed" ;;
	esac
	CGPARENT="tinyrun-test-$TOKEN"
	NS="tinyrun-test-$TOKEN"
}

teardown() {
	local rc=0 problems="" kind id left d dirs
	export -n TINYRUN_TEST_TOKEN
	case "$BATS_TEST_DESCRIPTION" in
	podman*)
		left="$(pm_raw ps -a -q 2>/dev/null)"
		if [[ -n "$left" ]]; then
			problems+="podman containers left: $left"$'\n'
			pm_raw rm -a -f -t 0 >/dev/null 2>&1
		fi
		;;
	containerd*)
		left="$(c_raw tasks ls -q 2>/dev/null) $(c_raw containers ls -q 2>/dev/null)"
		if [[ -n "${left// /}" ]]; then
			problems+="containerd tasks/containers left: $left"$'\n'
			for id in $(c_raw tasks ls -q 2>/dev/null); do
				c_raw tasks kill -s KILL "$id" >/dev/null 2>&1
			done
			sleep 1
			for id in $(c_raw containers ls -q 2>/dev/null); do
				c_raw tasks delete -f "$id" >/dev/null 2>&1
				c_raw containers delete "$id" >/dev/null 2>&1
			done
		fi
		# shellcheck disable=SC2046 # one image name per word
		c_raw images rm --sync $(c_raw images ls -q 2>/dev/null) >/dev/null 2>&1
		c_raw namespaces rm "$NS" >/dev/null 2>&1
		;;
	esac
	remove_parent_cgroup "$CGPARENT"
	# podman mkdir -p's its cgroup path for every controller it knows, also
	# those this host does not mount when a plain dir of that name exists on
	# /sys/fs/cgroup's tmpfs: not a runtime leftover
	for d in /sys/fs/cgroup/*/"$CGPARENT"; do
		[[ -d "$d" && "$(stat -f -c %T "$d")" == tmpfs ]] && rm -rf "$d"
	done
	# containerd's mounts and cgroups carry $NS, so the token: tr_teardown
	# checks them; podman's carry the container id
	while read -r kind id; do
		case "$kind" in
		pm) dirs=("$(default_root)/$id") ;;
		c) dirs=("$CL/c/runc/$NS/$id" "/run/containerd/runc/$NS/$id") ;;
		*) continue ;;
		esac
		for d in "${dirs[@]}"; do
			[[ -e "$d" ]] && problems+="state dir left: $d"$'\n'
		done
		[[ "$kind" == pm ]] || continue
		grep -qF "$id" /proc/self/mountinfo && problems+="mounts left: $(grep -F "$id" /proc/self/mountinfo)"$'\n'
		left="$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$id*" 2>/dev/null)"
		[[ -n "$left" ]] && problems+="cgroups left: $left"$'\n'
	done <"$BATS_TEST_TMPDIR/ids"
	# the shim's cleanup (`delete --force` under the default root) makes it
	rmdir "$CL/c/runc/$NS" "/run/containerd/runc/$NS" 2>/dev/null
	export TINYRUN_TEST_TOKEN
	if [[ -n "$problems" ]]; then
		printf '%s' "$problems" | batslib_decorate "client leftovers" | fail
		rc=1
	fi
	tr_teardown || rc=1
	return $rc
}

# ---- podman -------------------------------------------------------------

podman_setup_file() {
	local conf="$CL/p/containers.conf" nofile
	mkdir -p "$CL/p"
	# podman asks for RLIMIT_NOFILE/NPROC 1048576 by default, which neither
	# runc nor tinyrun can set without CAP_SYS_RESOURCE above the hard limits
	# (this machine): ask for what the host allows. No network (netns none).
	nofile="$(ulimit -Hn)"
	[[ "$nofile" == unlimited ]] && nofile=1048576
	{
		echo '[containers]'
		echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=4096:4096\"]"
		echo 'netns = "none"'
		# podman's default net.ipv4.ping_group_range sysctl: its own test below
		echo 'default_sysctls = []'
		echo
		# the contrib drop-in, pointing at the runtime under test
		sed "s|^tinyrun = .*|tinyrun = [\"$RUNTIME\"]|" "$REPO_DIR/contrib/podman/containers.conf.d/tinyrun.conf"
	} >"$conf"
	export CONTAINERS_CONF="$conf"
	pm_raw import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' \
		"$CL/rootfs.tar" localhost/tinyrun-test:latest >"$CL/p/import.log" 2>&1 3>&- 4>&- ||
		{ cat "$CL/p/import.log" >&2; return 1; }
}

# podman with private storage, selecting the runtime by its name in the
# contrib drop-in.
pm_raw() {
	podman --root "$CL/p/storage" --runroot "$CL/p/run" --tmpdir "$CL/p/tmp" \
		--storage-driver overlay --cgroup-manager cgroupfs --events-backend file \
		--runtime tinyrun "$@" </dev/null 3>&- 4>&-
}

# pm ARGS: bats-run podman under a subreaper (conmon and the cleanup process
# it starts are orphans), output in $output.
pm() {
	run_nohang "$TEST_LIB_BIN/subreaper" podman --root "$CL/p/storage" --runroot "$CL/p/run" \
		--tmpdir "$CL/p/tmp" --storage-driver overlay --cgroup-manager cgroupfs \
		--events-backend file --runtime tinyrun "$@"
}

IMG=localhost/tinyrun-test:latest

# pm_run_d NAME ARGS...: a detached container in this test's cgroup parent.
pm_run_d() {
	local name="$1"
	shift
	pm run -d --name "$name" --cgroup-parent "/$CGPARENT" "$@"
	assert_success
	PM_ID="${lines[-1]}"
	echo "pm $PM_ID" >>"$BATS_TEST_TMPDIR/ids"
}

pm_inspect() { # NAME FORMAT
	pm_raw inspect -f "$2" "$1"
}

# tty_run COMMAND-LINE [INPUT]: run under `script` (a pty as the controlling
# terminal), INPUT typed after 2 s; output in $output with \r removed.
tty_run() {
	local cmd="$1" input="${2:-}" log="$BATS_TEST_TMPDIR/tty.$((++NOHANG_SEQ)).log"
	# `|| status=$?`: a non-zero status must not reach bats' ERR trap
	status=0
	if [[ -n "$input" ]]; then
		{ sleep 2; printf '%s\n' "$input"; sleep 3; } |
			script -qec "$cmd" /dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	else
		script -qec "$cmd" /dev/null </dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	fi
	output="$(tr -d '\r\0' <"$log")"
}

# pty_run COMMAND-LINE: run under a new pty that stays open, as a person's
# terminal does (window 33x101, nothing typed, never an EOF on its input),
# until the pty hangs up; output in $output with \r removed, exit status in
# $status (124 after 60 s). script(1) with stdin at EOF is no such terminal:
# script then sends the pty an EOF that podman -i forwards, and podman
# sometimes shows no output at all, with runc as with tinyrun (7 of 35 runs
# each here).
pty_run() {
	local log="$BATS_TEST_TMPDIR/pty.$((++NOHANG_SEQ)).log"
	status=0
	python3 -c '
import fcntl, os, pty, select, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
    os.execvp("sh", ["sh", "-c", sys.argv[1]])
out = sys.stdout.buffer
while select.select([fd], [], [], 60)[0]:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out.write(d)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.exit(124)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))' "$1" </dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	output="$(tr -d '\r\0' <"$log")"
}

pm_cmdline() { # ARGS: the podman command line as one shell string
	printf '%q ' "$TEST_LIB_BIN/subreaper" podman --root "$CL/p/storage" --runroot "$CL/p/run" \
		--tmpdir "$CL/p/tmp" --storage-driver overlay --cgroup-manager cgroupfs \
		--events-backend file --runtime tinyrun "$@"
}

@test "podman run --rm: output, exit status, nothing left" {
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" echo hi
	assert_success
	assert_output hi
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" sh -c 'exit 42'
	assert_equal "$status" 42
	# the container ran in the cgroup podman asked for
	pm run --rm --cgroup-parent "/$CGPARENT" --cgroupns host "$IMG" cat /proc/self/cgroup
	assert_success
	assert_output --regexp "(memory|0:):/$CGPARENT/libpod-[0-9a-f]{64}"
	[[ -z "$(pm_raw ps -a -q)" ]]
}

@test "podman run --rm -it: a terminal through conmon's console socket" {
	tty_run "$(pm_cmdline run --rm -it --cgroup-parent "/$CGPARENT" "$IMG" sh)" \
		'tty; echo in-$((6*7)); exit 5'
	assert_equal "$status" 5
	assert_output --partial /dev/pts/0
	assert_output --partial in-42
	tty_run "$(pm_cmdline run --rm -t --cgroup-parent "/$CGPARENT" "$IMG" sh -c 'test -t 0 && test -t 1 && echo both-tty; echo TERM=$TERM')"
	assert_success
	assert_output --partial both-tty
	assert_output --partial TERM=xterm
}

# issue 15: podman's --tmpfs (tmpcopyup, no mode=) is 1777 as with runc,
# --network none (a netns the runtime makes) has lo up, and podman maps
# tinyrun's exec failures to 127 (missing) and 126 (not executable).
@test "podman run: --tmpfs without mode is 1777, --network none has lo up, exit 127/126 for bad commands" {
	pm run --rm --cgroup-parent "/$CGPARENT" --tmpfs /mnt/t:size=1m --network none "$IMG" \
		sh -c 'stat -c %a /mnt/t; cat /sys/class/net/lo/operstate'
	assert_success
	assert_line 1777
	assert_line unknown
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" /nonexistent
	assert_equal "$status" 127
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" /etc/passwd
	assert_equal "$status" 126
	assert_output --partial "permission denied"
	[[ -z "$(pm_raw ps -a -q)" ]]
}

@test "podman run -d, ps, exec, top, stop, rm" {
	pm_run_d d1 "$IMG" sh -c 'trap "echo got-term; exit 0" TERM; echo started; while :; do sleep 0.1; done'
	assert_equal "$(pm_inspect d1 '{{.State.Status}}')" running
	local pid
	pid="$(pm_inspect d1 '{{.State.Pid}}')"
	proc_alive "$pid"
	grep -q "$CGPARENT/libpod-$PM_ID" "/proc/$pid/cgroup"
	# tinyrun's own view of it
	run "$RUNTIME" state "$PM_ID"
	assert_success
	assert_equal "$(jq -r .status <<<"$output") $(jq -r .pid <<<"$output")" "running $pid"

	pm ps --format '{{.Names}} {{.Status}}'
	assert_success
	assert_output --regexp '^d1 Up '

	pm exec d1 sh -c 'echo exec-out; id -u; exit 7'
	assert_equal "$status" 7
	assert_output $'exec-out\n0'
	pm exec -u 1234 -w /tmp -e FOO=bar d1 sh -c 'echo $(id -u) $(pwd) $FOO'
	assert_success
	assert_output "1234 /tmp bar"
	pty_run "$(pm_cmdline exec -it d1 sh -c 'tty; exit 3')"
	assert_equal "$status" 3
	assert_output --partial /dev/pts/
	pm exec d1 /nonexistent
	assert_equal "$status" 127

	pm exec -d d1 sleep 300
	assert_success
	# podman top lists the pids, then reads each one's /proc: the loop's
	# 0.1 s sleeps can end in between ("read /proc/N/cmdline: no such
	# process", podman's race, seen once in make check): ask again
	local i
	for ((i = 0; i < 5; i++)); do
		pm top d1 pid args
		[[ "$status" -eq 0 || "$output" != *"no such process"* ]] && break
	done
	assert_success
	assert_output --partial "sleep 300"
	assert_output --regexp '1 +sh -c trap'

	pm stop -t 10 d1
	assert_success
	assert_equal "$(pm_inspect d1 '{{.State.Status}} {{.State.ExitCode}}')" "exited 0"
	pm logs d1
	assert_output $'started\ngot-term'
	wait_for_exit "$pid"
	pm rm d1
	assert_success
	[[ -z "$(pm_raw ps -a -q)" ]]
}

@test "podman pause / unpause freeze the container's cgroup" {
	pm_run_d p1 "$IMG" sleep 1000
	local freezer
	freezer="$(cg_file freezer freezer.state cgroup.freeze "$CGPARENT/libpod-$PM_ID")"
	pm pause p1
	assert_success
	assert_equal "$(pm_inspect p1 '{{.State.Status}}')" paused
	assert_equal "$("$RUNTIME" state "$PM_ID" | jq -r .status)" paused
	run cat "$freezer"
	assert_output --regexp '^(FROZEN|1)$'
	pm unpause p1
	assert_success
	assert_equal "$(pm_inspect p1 '{{.State.Status}}')" running
	run cat "$freezer"
	assert_output --regexp '^(THAWED|0)$'
	pm rm -f -t 0 p1
	assert_success
}

@test "podman stats --no-stream reads the container's cgroup" {
	pm_run_d s1 --memory 64m "$IMG" sleep 1000
	pm exec -d s1 sleep 500
	assert_success
	pm stats --no-stream --format '{{.Name}} {{.PIDs}} {{.MemUsage}}' s1
	assert_success
	assert_output --regexp '^s1 2 [0-9.]+[kMG]?i?B / 67.11MB$'
	pm rm -f -t 0 s1
	assert_success
}

@test "podman update changes the cgroup through tinyrun update" {
	pm_run_d u1 "$IMG" sleep 1000
	local cg="$CGPARENT/libpod-$PM_ID"
	pm update --memory 64m --cpu-shares 512 u1
	assert_success
	run cat "$(cg_file memory memory.limit_in_bytes memory.max "$cg")"
	assert_output 67108864
	if [[ ! -f /sys/fs/cgroup/cgroup.controllers ]]; then
		run cat "/sys/fs/cgroup/cpu/$cg/cpu.shares"
		assert_output 512
	fi
	pm rm -f -t 0 u1
	assert_success
}

@test "podman run: resources and security options reach the container" {
	pm run --rm --cgroup-parent "/$CGPARENT" --cgroupns private --memory 64m --pids-limit 50 \
		--read-only --user 1000:1000 --cap-drop all --hostname hx "$IMG" sh -c \
		'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; id -u; hostname; touch /x 2>&1; grep CapEff /proc/self/status'
	assert_success
	assert_line --index 0 67108864
	assert_line --index 1 50
	assert_line --index 2 1000
	assert_line --index 3 hx
	assert_line --index 4 --partial "Read-only file system"
	assert_line --index 5 --regexp 'CapEff:\s+0000000000000000'
}

@test "podman run of a missing command: exit 127 and the runtime's error" {
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" /nonexistent
	assert_equal "$status" 127
	assert_output --partial '/nonexistent'
	assert_output --partial 'OCI runtime attempted to invoke a command that was not found'
	[[ -z "$(pm_raw ps -a -q)" ]]
}

# podman's default containers.conf asks for net.ipv4.ping_group_range in the
# container's network namespace, with /proc/sys in readonlyPaths: runc writes
# sysctls before it makes /proc/sys read-only.
@test "podman run with podman's default sysctl net.ipv4.ping_group_range" {
	pm run --rm --cgroup-parent "/$CGPARENT" --sysctl 'net.ipv4.ping_group_range=0 0' \
		"$IMG" cat /proc/sys/net/ipv4/ping_group_range
	assert_success
	assert_output --regexp '^0\s+0$'
}

# podman's system test 190-run-ipcns: --ipc=none writes no /dev/shm mount,
# and no /dev/shm is there at all (runc); tinyrun made an empty 1777 one.
@test "podman run --ipc=none: no /dev/shm" {
	pm run --rm --cgroup-parent "/$CGPARENT" --ipc=none "$IMG" sh -c 'ls -d /dev/shm; echo status $?'
	assert_success
	assert_line "status 1"
	pm run --rm --cgroup-parent "/$CGPARENT" "$IMG" sh -c 'ls -d /dev/shm; echo status $?'
	assert_success
	assert_line "status 0"
}

# podman's bundle dir is mode 0700 and owned by the mapped root (100000):
# only a process that is already that user (or root of the host) gets in.
# runc chdirs into the bundle before it starts the container process.
@test "podman run --uidmap: a user namespace with podman's private bundle dir" {
	pm run --rm --cgroup-parent "/$CGPARENT" --uidmap 0:100000:65536 --gidmap 0:100000:65536 \
		"$IMG" sh -c 'cat /proc/self/uid_map; id -u'
	assert_success
	assert_line --index 0 --regexp '^\s*0\s+100000\s+65536$'
	assert_line --index 1 0
}

# issue 15: `podman run -it IMAGE sh -c tty` under a terminal showed none of
# the container's output (the exit status came through). A command that
# prints and exits at once, nothing typed: all of its output reaches the
# terminal (conmon reads the pty master tinyrun sent). The window size is not
# checked: podman passes no process.consoleSize, conmon resizes the pty when
# podman attaches, asynchronously, and a program that asks at once may still
# see 0x0 (more often with a runtime that starts as fast as tinyrun: 5 of 27
# runs on a loaded machine, runc 0 of 12).
@test "podman run -it IMAGE sh -c tty: the output reaches the terminal" {
	pty_run "$(pm_cmdline run --rm -it --cgroup-parent "/$CGPARENT" "$IMG" sh -c tty)"
	assert_success
	assert_output /dev/pts/0
	pty_run "$(pm_cmdline run --rm -it --cgroup-parent "/$CGPARENT" "$IMG" \
		sh -c 'tty; echo "out-$((6 * 7))"; exit 4')"
	assert_equal "$status" 4
	assert_output $'/dev/pts/0\nout-42'
	[[ -z "$(pm_raw ps -a -q)" ]]
}

# pm_logs_wait NAME TEXT: until `podman logs NAME` shows TEXT (10 s).
pm_logs_wait() {
	local i
	for ((i = 0; i < 200; i++)); do
		pm_raw logs "$1" 2>/dev/null | grep -qF -- "$2" && return 0
		sleep 0.05
	done
	echo "podman logs $1: no '$2' in: $(pm_raw logs "$1" 2>&1)" >&2
	return 1
}

@test "podman kill -s USR1 reaches PID 1's trap; restart makes a new init; kill ends it with 137" {
	pm_run_d k1 "$IMG" sh -c 'trap "echo got-usr1" USR1; echo started; while :; do sleep 0.1; done'
	local pid1 pid2
	pid1="$(pm_inspect k1 '{{.State.Pid}}')"
	pm_logs_wait k1 started
	pm kill -s USR1 k1
	assert_success
	pm_logs_wait k1 got-usr1
	proc_alive "$pid1"
	pm restart -t 1 k1
	assert_success
	assert_equal "$(pm_inspect k1 '{{.State.Status}}')" running
	pid2="$(pm_inspect k1 '{{.State.Pid}}')"
	[[ "$pid2" != "$pid1" ]]
	wait_for_exit "$pid1"
	proc_alive "$pid2"
	grep -q "$CGPARENT/libpod-$PM_ID" "/proc/$pid2/cgroup"
	assert_equal "$("$RUNTIME" state "$PM_ID" | jq -r '"\(.status) \(.pid)"')" "running $pid2"
	pm kill k1
	assert_success
	wait_for_exit "$pid2"
	for ((i = 0; i < 100; i++)); do
		[[ "$(pm_inspect k1 '{{.State.Status}}')" == exited ]] && break
		sleep 0.05
	done
	assert_equal "$(pm_inspect k1 '{{.State.Status}} {{.State.ExitCode}}')" "exited 137"
	pm rm k1
	assert_success
}

# podman run in the foreground (--sig-proxy, the default) passes the signals
# it gets to the container's PID 1.
@test "podman run in the foreground forwards SIGTERM to the container's PID 1" {
	local log="$BATS_TEST_TMPDIR/fg.log" ppid i
	"$TEST_LIB_BIN/subreaper" podman --root "$CL/p/storage" --runroot "$CL/p/run" --tmpdir "$CL/p/tmp" \
		--storage-driver overlay --cgroup-manager cgroupfs --events-backend file --runtime tinyrun \
		run --rm --name fg1 --cgroup-parent "/$CGPARENT" "$IMG" \
		sh -c 'trap "echo got-term; exit 9" TERM; echo ready; while :; do sleep 0.1; done' \
		</dev/null >"$log" 2>&1 3>&- 4>&- &
	ppid=$!
	wait_for_file "$log" ready
	kill -TERM "$ppid"
	status=0
	wait "$ppid" || status=$?
	assert_equal "$status" 9
	run cat "$log"
	assert_line got-term
	for ((i = 0; i < 100; i++)); do
		[[ -z "$(pm_raw ps -a -q)" ]] && break
		sleep 0.05
	done
	[[ -z "$(pm_raw ps -a -q)" ]]
}

@test "podman run: -e, -w, -v (rw and :ro), --cpus reach the container" {
	local vol="$BATS_TEST_TMPDIR/vol"
	mkdir -p "$vol"
	echo from-host >"$vol/in"
	pm run --rm --cgroup-parent "/$CGPARENT" -e FOO=bar -e EMPTY= -w /etc --cpus 0.5 \
		-v "$vol:/data" -v "$vol:/ro:ro" "$IMG" sh -c '
		echo "FOO=$FOO EMPTY=[$EMPTY]"; pwd; cat /data/in; echo from-ctr >/data/out
		touch /ro/x 2>&1 | grep -o "Read-only file system"
		cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || cat /sys/fs/cgroup/cpu.max'
	assert_success
	assert_line "FOO=bar EMPTY=[]"
	assert_line /etc
	assert_line from-host
	assert_line "Read-only file system"
	# --cpus 0.5: half the period
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
		assert_line "50000 100000"
	else
		assert_line 50000
		assert_line 100000
	fi
	assert_equal "$(cat "$vol/out")" from-ctr
	[[ ! -e "$vol/x" ]]
}

@test "podman run --init: tini is PID 1, the command its child, its exit status passed" {
	[[ -x /usr/bin/tini-static ]] || skip "tini-static not installed (make deps installs tini)"
	pm run --rm --cgroup-parent "/$CGPARENT" --init --init-path /usr/bin/tini-static "$IMG" \
		sh -c 'tr "\0" " " </proc/1/cmdline; echo; echo "me=$$ parent=$PPID"; exit 5'
	assert_equal "$status" 5
	assert_line --index 0 --regexp '^/run/podman-init -- sh -c '
	assert_line --regexp '^me=[0-9]+ parent=1$'
	refute_line "me=1 parent=0"
}

# a healthcheck is an exec podman runs through the runtime
@test "podman healthcheck run: healthy and unhealthy through tinyrun exec" {
	pm_run_d h1 --health-cmd 'test -e /tmp/ok' --health-interval disable "$IMG" sleep 1000
	pm healthcheck run h1
	assert_failure
	assert_output --partial unhealthy
	pm exec h1 touch /tmp/ok
	assert_success
	pm healthcheck run h1
	assert_success
	assert_equal "$(pm_inspect h1 '{{.State.Health.Status}}')" healthy
	pm rm -f -t 0 h1
	assert_success
}

# podman build runs each RUN step through the runtime itself (buildah's
# runUsingRuntime: create --bundle --pid-file, start, state, delete), on a
# spec buildah writes, not libpod's; a --mount=type=tmpfs step adds a mount.
# A wrapper logs each call, so the steps are shown to have gone through the
# runtime under test.
@test "podman build: RUN steps run under tinyrun, their files land in the image, nothing left" {
	local ctx="$BATS_TEST_TMPDIR/ctx" wrap="$BATS_TEST_TMPDIR/rt" calls="$BATS_TEST_TMPDIR/calls"
	local img="localhost/tinyrun-built-$TOKEN" b left
	mkdir -p "$ctx"
	printf '#!/bin/sh\necho "$*" >>%q\nexec %q "$@"\n' "$calls" "$RUNTIME" >"$wrap"
	chmod +x "$wrap"
	cat >"$ctx/Containerfile" <<EOF
FROM $IMG
RUN echo built-\$((6*7)) >/built && cat /proc/self/cgroup && echo "uid=\$(id -u)"
RUN --mount=type=tmpfs,target=/scratch touch /scratch/x && ls /scratch && cat /built
EOF
	pm build --runtime "$wrap" --cgroup-parent "/$CGPARENT" -t "$img" "$ctx"
	assert_success
	assert_line uid=0
	# buildah gives the runtime the parent itself as the step's cgroupsPath
	# (on cgroup v2 it adds a cgroup namespace: the step sees its own as /)
	if on_cgroup2; then
		assert_line "0::/"
	else
		assert_line --regexp "memory:/$CGPARENT\$"
	fi
	assert_line x
	assert_line built-42
	# two steps, each created, started and deleted by the runtime
	run grep -c '^create --bundle ' "$calls"
	assert_output 2
	run grep -c '^start ' "$calls"
	assert_output 2
	run grep -c '^delete ' "$calls"
	assert_output 2
	# nothing of the steps left: no build container, bundle, state dir or
	# cgroup (the runtime's delete removed the step's, the parent here)
	[[ -z "$(pm_raw ps -a --external -q)" ]]
	for b in $(sed -n 's/^create --bundle \([^ ]*\) .*/\1/p' "$calls"); do
		[[ ! -e "$b" ]] || fail "bundle left: $b"
	done
	left="$(find "$(default_root)" -maxdepth 1 -name 'buildah-*' 2>/dev/null)
$(find /sys/fs/cgroup -maxdepth 3 -type d -name "$CGPARENT" 2>/dev/null)"
	[[ -z "${left//$'\n'/}" ]] || fail "left: $left"
	# the file the first step wrote is in the image
	pm run --rm --cgroup-parent "/$CGPARENT" "$img" cat /built
	assert_success
	assert_output built-42
	pm_raw rmi "$img" >/dev/null
}

# A pod: libpod's infra container (catatonit) holds the namespaces, each
# member's config joins them by path (/proc/PID/ns/...), as kubelet's pods do
# through the CRI.
@test "podman pod: members join the infra container's IPC, UTS, network and pid namespaces; pod rm leaves nothing" {
	command -v catatonit >/dev/null || skip "catatonit not installed (make deps installs it)"
	# podman 4.3 gives a pod's cgroup a device filter that denies every
	# device under --cgroup-manager cgroupfs on cgroup v2: its infra
	# container fails with runc too ("error reopening /dev/null inside
	# container: ... operation not permitted")
	on_cgroup2 && skip "podman 4.3's pods with the cgroupfs manager on cgroup v2 (runc fails alike)"
	local pod="pod-$TOKEN" infra ipid a
	pm pod create --name "$pod" --cgroup-parent "/$CGPARENT" --share ipc,uts,net,pid
	assert_success
	pm pod start "$pod"
	assert_success
	infra="$(pm_raw pod inspect -f '{{.InfraContainerID}}' "$pod")"
	echo "pm $infra" >>"$BATS_TEST_TMPDIR/ids"
	ipid="$(pm_inspect "$infra" '{{.State.Pid}}')"
	pm run -d --pod "$pod" --name "a-$TOKEN" "$IMG" sh -c 'echo from-a >/dev/shm/note; exec sleep 1000'
	assert_success
	a="${lines[-1]}"
	echo "pm $a" >>"$BATS_TEST_TMPDIR/ids"
	pm run --rm --pod "$pod" "$IMG" sh -c 'cat /dev/shm/note; hostname; tr "\0" " " </proc/1/cmdline; echo
		ps -o args | grep -c "^sleep 1000"; stat -L -c "net=%i" /proc/self/ns/net'
	assert_success
	assert_line --index 0 from-a
	assert_line --index 1 "$pod"
	assert_line --index 2 --regexp 'catatonit -P'
	assert_line --index 3 1
	assert_line --index 4 "net=$(stat -L -c %i "/proc/$ipid/ns/net")"
	# the member's own view: the infra container's namespaces, not the host's
	[[ "$(stat -L -c %i "/proc/$(pm_inspect "$a" '{{.State.Pid}}')/ns/ipc")" == "$(stat -L -c %i "/proc/$ipid/ns/ipc")" ]]
	[[ "$(stat -L -c %i "/proc/$ipid/ns/ipc")" != "$(stat -L -c %i /proc/self/ns/ipc)" ]]
	pm pod rm -f -t 0 "$pod"
	assert_success
	[[ -z "$(pm_raw pod ps -q)" ]]
	[[ -z "$(pm_raw ps -a -q)" ]]
	! kill -0 "$ipid" 2>/dev/null
}

# podman's system containers (--systemd=always): systemd as PID 1, podman's
# tmpfs on /run, /tmp, /run/lock, /var/log/journal and, on a v1 or hybrid
# host, the host's name=systemd hierarchy bound read-write for it. Here the
# host's /usr and /etc read-only (volumes) over an empty root, and a target
# that starts only dbus, as tests/lib/systemd-container.bash boots it. On a
# hybrid host, a cgroup2 at /sys/fs/cgroup/unified in the container (which
# tinyrun mounted until 2026-12-07, and runc and crun do not) put systemd in
# hybrid mode, looking for its cgroup there: "Failed to allocate manager
# object", exit 255.
@test "podman run --systemd=always: systemd boots as PID 1 in its own cgroup, runs dbus, and stops" {
	[[ -x /lib/systemd/systemd && -x /usr/bin/dbus-daemon ]] || skip "systemd or dbus not installed (make deps)"
	local root="$BATS_TEST_TMPDIR/sysroot" units="$BATS_TEST_TMPDIR/units" i state=""
	mkdir -p "$units" "$root"
	(cd "$root" && mkdir -p usr etc var tmp run proc sys dev root &&
		ln -s usr/bin bin && ln -s usr/sbin sbin && ln -s usr/lib lib && ln -s usr/lib64 lib64)
	printf '[Unit]\nDescription=tinyrun test target\nRequires=dbus.socket dbus.service\nAfter=dbus.service\n' \
		>"$units/tinyrun-test.target"
	pm_run_d sd1 --systemd=always --network none -v /usr:/usr:ro -v /etc:/etc:ro \
		-v "$units:/run/systemd/system:ro" --rootfs "$root" /lib/systemd/systemd --unit=tinyrun-test.target
	for ((i = 0; i < 150; i++)); do
		state="$(pm_raw exec sd1 systemctl is-system-running 2>/dev/null)" || true
		[[ "$state" == running || "$state" == degraded ]] && break
		[[ "$(pm_inspect sd1 '{{.State.Status}}')" == running ]] || break
		sleep 0.2
	done
	[[ "$state" == running || "$state" == degraded ]] ||
		fail "systemd is not up: '$state', $(pm_inspect sd1 '{{.State.Status}} {{.State.ExitCode}}'): $(pm_raw logs sd1 2>&1 | tail -n 5)"
	pm exec sd1 systemctl is-active dbus.service
	assert_success
	assert_output active
	# systemd moved itself into init.scope below the container's cgroup
	# (on cgroup v2 podman gives it a cgroup namespace rooted there)
	pm exec sd1 cat /proc/1/cgroup
	if on_cgroup2; then
		assert_line "0::/init.scope"
	else
		assert_line --regexp "^[0-9]+:name=systemd:/$CGPARENT/libpod-$PM_ID/init\.scope$"
	fi
	# podman's stop signal (RTMIN+3) halts it
	pm stop -t 30 sd1
	assert_success
	assert_equal "$(pm_inspect sd1 '{{.State.Status}}')" exited
	pm rm sd1
	assert_success
}

@test "podman: 20 containers at once, each in its cgroup, all removed" {
	local i n pids=()
	for ((i = 0; i < 20; i++)); do
		pm_run_d "m$i" "$IMG" sleep 1000
	done
	pm ps -q
	assert_success
	assert_equal "${#lines[@]}" 20
	for ((i = 0; i < 20; i++)); do
		pids+=("$(pm_inspect "m$i" '{{.State.Pid}}')")
		proc_alive "${pids[-1]}"
	done
	n="$(find "$(default_root)" -mindepth 1 -maxdepth 1 -type d | wc -l)"
	[[ "$n" -ge 20 ]]
	pm rm -f -t 0 $(for ((i = 0; i < 20; i++)); do echo "m$i"; done)
	assert_success
	for i in "${pids[@]}"; do wait_for_exit "$i"; done
	[[ -z "$(pm_raw ps -a -q)" ]]
}

# podman's default network (`--network bridge`: the default_network of
# containers.conf, a CNI bridge): podman makes the netns and passes its path,
# tinyrun joins it. A private network (its own bridge, no masquerade, no
# firewall plugin, IPAM state under $CL) so the host's iptables are untouched;
# the bridge device is removed at the end.
# rootless_setup: $RL for a rootless podman of the test user
# (rootless_user_dir), with the root podman's containers.conf (the runtime
# under test) and the image's tar.
rootless_setup() {
	# below $CL (711): podman wants every parent of its storage to be a+x
	RL="$CL/rl-$TOKEN"
	rootless_user_dir "$RL"
	# the root podman's, the runtime under test its default
	sed 's/^\[engine\]$/[engine]\nruntime = "tinyrun"/' "$CONTAINERS_CONF" >"$RL/containers.conf"
	cp "$CL/rootfs.tar" "$RL/rootfs.tar"
	chown 4244:4244 "$RL/containers.conf" "$RL/rootfs.tar"
}

# pm_rootless SCRIPT: SCRIPT as that user, with those files, output in
# $output; then podman's pause process (which holds the user's namespace and
# its mounts) is ended, by its pid file.
pm_rootless() {
	rootless_user_run "$RL" CONTAINERS_CONF="$RL/containers.conf" -- "$1"
	local st=$status out=$output pid
	pid="$(cat "$RL/run/libpod/tmp/pause.pid" 2>/dev/null)"
	[[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null
	rm -rf "$RL"
	status=$st output=$out
}

@test "podman rootless (a user's podman, tinyrun as root of the user's namespace): run, run -d, exec, stop, rm; state under the user's XDG_RUNTIME_DIR" {
	command -v newuidmap >/dev/null || skip "newuidmap not installed (uidmap; make deps installs it)"
	rootless_setup
	pm_rootless '
		podman import --change "CMD [\"/bin/sh\"]" --change "ENV PATH=/bin" "$HOME/../rootfs.tar" localhost/rl:latest >/dev/null
		podman info --format "rootless {{.Host.Security.Rootless}} {{.Host.OCIRuntime.Name}}"
		podman run --rm localhost/rl sh -c "cat /proc/self/uid_map | tr -s \" \"; stat -c \"%t,%T %F\" /dev/null; echo x >/dev/null && echo null-ok"
		podman run -d --name rl1 localhost/rl sleep 1000 >/dev/null
		podman exec rl1 sh -c "echo exec-ok; id -u"
		echo "state: $(ls "$XDG_RUNTIME_DIR/tinyrun")"
		podman stop -t 0 rl1 >/dev/null
		podman rm rl1 >/dev/null
		echo "left: $(ls "$XDG_RUNTIME_DIR/tinyrun")"'
	assert_success
	assert_line "rootless true tinyrun"
	# the user's namespace: its uid as root, then its subordinate ids
	assert_line " 0 4244 1"
	assert_line " 1 2000000 65536"
	assert_line "1,3 character special file"
	assert_line null-ok
	assert_line exec-ok
	# exec: root of that namespace
	[[ "$output" == *$'\nexec-ok\n0\n'* ]] || fail "exec: not uid 0"
	assert_line -e "^state: [0-9a-f]{64}$"
	assert_line "left: "
}

@test "podman run --network bridge (the default network): eth0 with an address, the gateway answers" {
	[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local ]] ||
		skip "CNI plugins not installed (containernetworking-plugins)"
	local br="trbr${TOKEN: -8}" net="$CL/p/cni-$TOKEN" conf="$BATS_TEST_TMPDIR/containers.conf"
	mkdir -p "$net"
	cat >"$net/trnet.conflist" <<-EOC
		{"cniVersion": "0.4.0", "name": "trnet", "plugins": [{"type": "bridge", "bridge": "$br",
		  "isGateway": true, "ipMasq": false, "ipam": {"type": "host-local", "dataDir": "$net/ipam",
		  "ranges": [[{"subnet": "10.213.77.0/24", "gateway": "10.213.77.1"}]],
		  "routes": [{"dst": "0.0.0.0/0"}]}}]}
	EOC
	{ cat "$CONTAINERS_CONF"; printf '\n[network]\nnetwork_backend = "cni"\nnetwork_config_dir = "%s"\ndefault_network = "trnet"\ncni_plugin_dirs = ["/usr/lib/cni"]\n' "$net"; } >"$conf"
	CONTAINERS_CONF="$conf" pm run --rm --cgroup-parent "/$CGPARENT" --network bridge "$IMG" \
		sh -c 'ip -o -4 addr show eth0; cat /sys/class/net/lo/operstate; ping -c 1 -W 5 10.213.77.1 >/dev/null && echo gw-ok'
	local rc=$status out="$output"
	ip link del "$br" 2>/dev/null
	status=$rc output="$out"
	assert_success
	assert_output --regexp 'eth0 +inet 10\.213\.77\.[0-9]+/24'
	assert_line gw-ok
	[[ -z "$(pm_raw ps -a -q)" ]]
}

# ---- containerd ---------------------------------------------------------

containerd_setup_file() {
	local d="$CL/c" i
	mkdir -p "$d/bin"
	[[ -e /run/containerd ]] && touch "$CL.had-run-containerd"
	# the `runc` that the shim runs when a client names no binary
	ln -s "$RUNTIME" "$d/bin/runc"
	if ! private_containerd "$d" "$d/bin"; then
		echo "containerd did not start:" >&2
		tail -n 20 "$d/containerd.log" >&2
		return 1
	fi
	# an OCI archive as `podman save --format oci-archive` writes it, made here
	make_oci_archive "$CL/rootfs.tar" localhost/tinyrun-test:latest '{Env: ["PATH=/bin"], Cmd: ["/bin/sh"]}' \
		"$d/image.tar"
}

containerd_stop() {
	local d="$CL/c" pid i shim
	[[ -f "$d/containerd.pid" ]] || return 0
	pid="$(cat "$d/containerd.pid")"
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		proc_alive "$pid" || break
		sleep 0.05
	done
	proc_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	# a shim outlives containerd only when a task was left: by pid, ours only
	for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $d/containerd.sock" 2>/dev/null); do
		kill -KILL "$shim" 2>/dev/null
	done
	rm -f "$d/containerd.pid"
}

c_raw() {
	ctr --address "$CL/c/containerd.sock" --namespace "$NS" "$@" </dev/null 3>&- 4>&-
}

# c ARGS: bats-run ctr, output in $output.
c() {
	run_nohang ctr --address "$CL/c/containerd.sock" --namespace "$NS" "$@"
}

c_cmdline() {
	printf '%q ' ctr --address "$CL/c/containerd.sock" --namespace "$NS" "$@"
}

# The shim's runtime options: the runtime under test, a private --root.
RUNC_OPTS=()
c_import() {
	RUNC_OPTS=(--runc-binary "$RUNTIME" --runc-root "$CL/c/runc")
	c images import "$CL/c/image.tar"
	assert_success
	c images ls -q
	assert_output localhost/tinyrun-test:latest
}

c_id() { echo "c $1" >>"$BATS_TEST_TMPDIR/ids"; }

task_status() { # ID: STATUS column of `ctr task ls`
	c_raw tasks ls | awk -v id="$1" '$1 == id {print $3}'
}

@test "containerd: ctr run --rm: output, exit status, nothing left" {
	c_import
	c_id r1
	c run --rm "${RUNC_OPTS[@]}" "$IMG" r1 echo hi
	assert_success
	assert_output hi
	c run --rm "${RUNC_OPTS[@]}" "$IMG" r1 sh -c 'exit 3'
	assert_equal "$status" 3
	c run --rm "${RUNC_OPTS[@]}" "$IMG" r1 cat /proc/self/cgroup
	assert_success
	assert_output --regexp "(memory|0:):/$NS/r1"
	[[ -z "$(c_raw containers ls -q)" ]]
}

@test "containerd: ctr run -d, task exec, task ps, task kill, task delete" {
	c_import
	c_id d1
	c run -d "${RUNC_OPTS[@]}" "$IMG" d1 sh -c 'trap "exit 9" TERM; while :; do sleep 0.1; done'
	assert_success
	assert_equal "$(task_status d1)" RUNNING
	local pid
	pid="$(c_raw tasks ls | awk '$1 == "d1" {print $2}')"
	proc_alive "$pid"
	# the shim ran the runtime under test, with the private root
	run "$RUNTIME" --root "$CL/c/runc/$NS" state d1
	assert_success
	assert_equal "$(jq -r .pid <<<"$output")" "$pid"

	c tasks exec --exec-id e1 d1 sh -c 'echo exec-out; exit 4'
	assert_equal "$status" 4
	assert_output exec-out
	c tasks exec --exec-id e2 d1 /nonexistent
	assert_failure
	assert_output --partial /nonexistent

	c_raw tasks exec --exec-id e3 d1 sleep 300 >/dev/null 2>&1 &
	local execpid=$! i
	for ((i = 0; i < 200; i++)); do
		c_raw tasks ps d1 | grep -q 'ExecID:e3' && break
		sleep 0.05
	done
	c tasks ps d1
	assert_success
	assert_line --regexp "^$pid "
	assert_line --partial 'ExecID:e3'

	c tasks kill d1
	assert_success
	for ((i = 0; i < 200; i++)); do
		[[ "$(task_status d1)" == STOPPED ]] && break
		sleep 0.05
	done
	assert_equal "$(task_status d1)" STOPPED
	# the exec'd process died with the container's pid namespace: KILL
	run wait "$execpid"
	assert_equal "$status" 137
	c tasks delete d1
	assert_success
	assert_output --partial 'exit code 9'
	c containers delete d1
	assert_success
	wait_for_exit "$pid"
}

@test "containerd: task pause / resume freeze the container's cgroup" {
	c_import
	c_id p1
	c run -d "${RUNC_OPTS[@]}" "$IMG" p1 sleep 1000
	assert_success
	local freezer
	freezer="$(cg_file freezer freezer.state cgroup.freeze "$NS/p1")"
	c tasks pause p1
	assert_success
	assert_equal "$(task_status p1)" PAUSED
	run cat "$freezer"
	assert_output --regexp '^(FROZEN|1)$'
	c tasks resume p1
	assert_success
	assert_equal "$(task_status p1)" RUNNING
	run cat "$freezer"
	assert_output --regexp '^(THAWED|0)$'
	c tasks kill -s KILL p1
	assert_success
	c tasks delete -f p1
	c containers delete p1
	assert_success
}

@test "containerd: task metrics (memory limit, pids)" {
	c_import
	c_id m1
	c run -d --memory-limit 100000000 "${RUNC_OPTS[@]}" "$IMG" m1 sleep 1000
	assert_success
	run cat "$(cg_file memory memory.limit_in_bytes memory.max "$NS/m1")"
	assert_output 99999744
	c tasks metrics --format json m1
	assert_success
	local json="$output"
	assert_equal "$(jq -r '.pids.current' <<<"$json")" 1
	# cgroup v1 metrics: .memory.usage.limit; cgroup2: .memory.usage_limit
	assert_equal "$(jq -r 'if (.memory.usage | type) == "object" then .memory.usage.limit else .memory.usage_limit end' <<<"$json")" 99999744
	c tasks kill -s KILL m1
	c tasks delete -f m1
	c containers delete m1
	assert_success
}

@test "containerd: ctr run -t and task exec -t get a terminal" {
	c_import
	c_id t1
	tty_run "$(c_cmdline run --rm -t "${RUNC_OPTS[@]}" "$IMG" t1 sh -c 'tty; echo TERM=$TERM; exit 3')"
	assert_equal "$status" 3
	assert_output --partial /dev/pts/0
	c_id t2
	c run -d "${RUNC_OPTS[@]}" "$IMG" t2 sleep 1000
	assert_success
	# ctr resizes the pty after it starts the process and gives up (no output
	# copied) when the process has already exited: it waits for a typed line
	tty_run "$(c_cmdline tasks exec -t --exec-id et t2 sh -c 'tty; read line; echo "got-$line"; exit 6')" x
	assert_equal "$status" 6
	assert_output --partial /dev/pts/
	assert_output --partial got-x
	c tasks kill -s KILL t2
	c tasks delete -f t2
	c containers delete t2
	assert_success
}

@test "containerd: a failed create reports the runtime's error (--log json)" {
	c_import
	c_id f1
	c run --rm "${RUNC_OPTS[@]}" "$IMG" f1 /nonexistent
	assert_failure
	assert_output --partial 'OCI runtime create failed'
	assert_output --partial '/nonexistent'
	c_raw containers delete f1 >/dev/null 2>&1 || true
}

@test "containerd: tinyrun as the runc on containerd's PATH (ctr container create + task start)" {
	c_import
	c_id k1
	c containers create "$IMG" k1 -- sh -c 'echo started; sleep 1000'
	assert_success
	c tasks start -d k1
	assert_success
	assert_equal "$(task_status k1)" RUNNING
	# the shim's default root for a client that names none
	run "$RUNTIME" --root "/run/containerd/runc/$NS" state k1
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" running
	c tasks kill -s KILL k1
	assert_success
	c tasks delete -f k1
	c containers delete k1
	assert_success
	rmdir "/run/containerd/runc/$NS" 2>/dev/null || true
}

@test "containerd: ctr run --uidmap/--gidmap: a user namespace" {
	c_import
	c_id n1
	c run --rm --uidmap 0:100000:65536 --gidmap 0:100000:65536 "${RUNC_OPTS[@]}" "$IMG" n1 \
		sh -c 'cat /proc/self/uid_map; id -u'
	assert_success
	assert_line --index 0 --regexp '^\s*0\s+100000\s+65536$'
	assert_line --index 1 0
}

@test "containerd: contrib/containerd/config.toml is accepted and selects tinyrun" {
	run containerd --config "$REPO_DIR/contrib/containerd/config.toml" config dump
	assert_success
	assert_output --partial '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.tinyrun.options]'
	assert_output --regexp 'BinaryName = "/usr/local/bin/tinyrun"'
	assert_output --partial 'runtime_type = "io.containerd.runc.v2"'
}

@test "containerd: 10 tasks at once: exec in each, KILL (exit 137), delete, nothing left" {
	c_import
	local i j pids=()
	for ((i = 0; i < 10; i++)); do
		c_id "x$i"
		c run -d "${RUNC_OPTS[@]}" "$IMG" "x$i" sleep 1000
		assert_success
	done
	for ((i = 0; i < 10; i++)); do
		assert_equal "$(task_status "x$i")" RUNNING
		pids+=("$(c_raw tasks ls | awk -v id="x$i" '$1 == id {print $2}')")
		c tasks exec --exec-id "e$i" "x$i" sh -c "echo in-x$i; exit $i"
		assert_equal "$status" "$i"
		assert_output "in-x$i"
	done
	run "$RUNTIME" --root "$CL/c/runc/$NS" list -q
	assert_equal "${#lines[@]}" 10
	for ((i = 0; i < 10; i++)); do
		c tasks kill -s KILL "x$i"
		assert_success
	done
	for ((i = 0; i < 10; i++)); do
		for ((j = 0; j < 200; j++)); do
			[[ "$(task_status "x$i")" == STOPPED ]] && break
			sleep 0.05
		done
		c tasks delete "x$i"
		assert_success
		assert_output --partial 'exit code 137'
		c containers delete "x$i"
		assert_success
		wait_for_exit "${pids[$i]}"
	done
	run "$RUNTIME" --root "$CL/c/runc/$NS" list -q
	assert_output ""
}
