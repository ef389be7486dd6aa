#!/usr/bin/env bats
# docker: tinyrun as a runtime of Docker (Debian's docker.io, dockerd 20.10).
#
# setup_file starts a private dockerd: its own --data-root, --exec-root,
# --pidfile, socket, config file and trust key under a temp dir,
# --iptables=false --ip-forward=false --ip-masq=false (no host firewall or
# sysctl change), on a private bridge made here (--bridge=none where no bridge
# can be made), `--add-runtime tinyrun=$RUNTIME`, and the contrib daemon.json
# with its runtime renamed `tinyrun-contrib`, on a private containerd (own
# root, state, sockets) started here; dockerd, containerd and every shim are
# stopped by pid in teardown_file. The image is `docker import` of the
# test busybox rootfs. Every container runs with `--runtime tinyrun` in this
# test's cgroup parent, with the test's token in its env; every test then
# checks that no container, tinyrun state (dockerd gives all runtimes one
# --root: <exec-root>/runtime-runc/moby), container process, mount or cgroup
# is left.
#
# The last test starts a rootless dockerd of its own (docker.io's
# dockerd-rootless.sh under rootlesskit, as a test user) and stops it.
#
# RUNTIME=/usr/bin/runc bats tests/docker.bats runs the same with runc.
# When dockerd is not installed or cannot start, every test skips and says why.

load helpers

# Debian's client (a newer docker in /usr/local/bin may come first in PATH)
DOCKER=/usr/bin/docker
DOCKERD="${DOCKERD:-/usr/sbin/dockerd}"
IMG=tinyrun-test:latest

have_docker() {
	[[ -x "$DOCKERD" && -x "$DOCKER" ]] && command -v containerd >/dev/null &&
		command -v containerd-shim-runc-v2 >/dev/null
}

# ---- the private dockerd -------------------------------------------------

setup_file() {
	export DK_SKIP=""
	if ! have_docker; then
		DK_SKIP="docker.io (dockerd, /usr/bin/docker) or containerd/containerd-shim-runc-v2 not installed (make deps installs them)"
		return 0
	fi
	build_test_lib || return 1
	build_base_rootfs || return 1
	DK="$(mktemp -d /tmp/tr-docker.XXXXXX)"
	export DK
	chmod 711 "$DK"
	# dockerd makes /run/docker/plugins whatever its --exec-root, the shims
	# their sockets in /run/containerd/s whatever containerd's state dir
	[[ -e /run/docker ]] && touch "$DK.had-run-docker"
	[[ -e /run/containerd ]] && touch "$DK.had-run-containerd"
	mkdir -p "$DK/client"
	tar -C "$TEST_CACHE/rootfs" -cf "$DK/rootfs.tar" .
	docker_bridge
	# the contrib snippet, its runtime renamed and pointing at the runtime
	# under test; the trust key (20.10 writes /etc/docker/key.json) ours
	jq --arg rt "$RUNTIME" --arg key "$DK/key.json" \
		'.runtimes |= with_entries(.key = "tinyrun-contrib" | .value.path = $rt)
		| . + {"deprecated-key-path": $key}' \
		"$REPO_DIR/contrib/docker/daemon.json" >"$DK/daemon.json" || return 1
	docker_start || return 0
	dk_raw import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' \
		"$DK/rootfs.tar" "$IMG" >"$DK/import.log" 2>&1 ||
		{ cat "$DK/import.log" >&2; return 1; }
	# what dockerd itself mounts (its data root, bound onto itself)
	grep -F " $DK/" /proc/self/mountinfo | awk '{print $5}' | sort >"$DK/mounts.base"
}

# A bridge of this file's own (docker would make and keep docker0): a name
# and a /24 from the temp dir, an address docker uses as the gateway.
docker_bridge() {
	local sfx="${DK##*.}" net
	BR="trdk$sfx"
	net="10.$((150 + RANDOM % 100)).$((RANDOM % 250))"
	if ip link add "$BR" type bridge 2>"$DK/bridge.err" &&
		ip addr add "$net.1/24" dev "$BR" && ip link set "$BR" up; then
		echo "$BR" >"$DK/bridge"
		DK_BRIDGE="--bridge=$BR"
		DK_NET="$net"
	else
		ip link del "$BR" 2>/dev/null
		DK_BRIDGE="--bridge=none"
		DK_NET=""
	fi
	export DK_BRIDGE DK_NET
}

# A private containerd (its own root, state and sockets; only the plugins
# dockerd uses), under a subreaper: the shims it starts are orphans.
containerd_start() {
	private_containerd "$DK/c" && return 0
	DK_SKIP="containerd (for dockerd) could not run here: $(tail -n 3 "$DK/c/containerd.log" | tr '\n' ' ')"
	return 1
}

docker_start() {
	local i
	containerd_start || return 1
	# in its own session; the pid of dockerd itself is the one `sh` wrote
	setsid "$TEST_LIB_BIN/subreaper" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$DK/dockerd.spid" \
		"$DOCKERD" --config-file "$DK/daemon.json" --data-root "$DK/data" \
		--exec-root "$DK/exec" --pidfile "$DK/dockerd.pid" -H "unix://$DK/docker.sock" \
		--containerd "$DK/c/containerd.sock" \
		--iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
		--userland-proxy=false "$DK_BRIDGE" --exec-opt native.cgroupdriver=cgroupfs \
		--cgroup-parent "/tr-docker-${DK##*.}" --add-runtime "tinyrun=$RUNTIME" \
		</dev/null >"$DK/dockerd.log" 2>&1 3>&- 4>&- &
	# up to 60 s: a slow (emulated) machine
	for ((i = 0; i < 1200; i++)); do
		dk_raw version >/dev/null 2>&1 && return 0
		[[ -f "$DK/dockerd.spid" ]] && ! proc_alive "$(cat "$DK/dockerd.spid")" && break
		sleep 0.05
	done
	DK_SKIP="dockerd could not run here: $(grep -E 'level=(error|fatal)|^failed|Error' "$DK/dockerd.log" | tail -n 3 | tr '\n' ' ')"
	[[ "$DK_SKIP" == *": " ]] && DK_SKIP+="no API on $DK/docker.sock after 60 s; its log ends: $(tail -n 3 "$DK/dockerd.log" | tr '\n' ' ')"
	return 1
}

# Stop dockerd, its containerd and any shim left, by pid, then undo what
# they made: mounts, the bridge, /run/docker.
teardown_file() {
	local pid shim m
	[[ -n "${DK:-}" && -d "$DK" ]] || return 0
	if [[ -S "$DK/docker.sock" ]]; then
		# shellcheck disable=SC2046 # one id per word
		dk_raw rm -f $(dk_raw ps -a -q) >/dev/null 2>&1
		dk_raw volume prune -f >/dev/null 2>&1
	fi
	stop_pid "$(cat "$DK/dockerd.spid" 2>/dev/null)" 15
	stop_pid "$(cat "$DK/c/containerd.pid" 2>/dev/null)" 5
	for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $DK/c/containerd.sock" 2>/dev/null); do
		kill -KILL "$shim" 2>/dev/null
	done
	grep -F " $DK/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	[[ -f "$DK/bridge" ]] && ip link del "$(cat "$DK/bridge")" 2>/dev/null
	for m in /sys/fs/cgroup/"tr-docker-${DK##*.}" /sys/fs/cgroup/*/"tr-docker-${DK##*.}"; do
		[[ -d "$m" ]] && rmdir "$m" 2>/dev/null
	done
	if [[ ! -e "$DK.had-run-docker" ]]; then
		rmdir /run/docker/plugins /run/docker 2>/dev/null
	fi
	if [[ ! -e "$DK.had-run-containerd" ]]; then
		rmdir /run/containerd/s /run/containerd 2>/dev/null
	fi
	rm -f "$DK.had-run-docker" "$DK.had-run-containerd"
	rm -rf "$DK"
	return 0
}

stop_pid() { # PID SECONDS: TERM, then KILL after SECONDS
	local pid="$1" i
	[[ "$pid" =~ ^[0-9]+$ ]] || return 0
	proc_alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < $2 * 20; i++)); do
		proc_alive "$pid" || return 0
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	proc_wait_gone "$pid" 100
}

# ---- per test ------------------------------------------------------------

setup() {
	[[ -z "${DK_SKIP:-}" ]] || skip "$DK_SKIP"
	tr_setup
	CGPARENT="tinyrun-test-$TOKEN"
	: >"$BATS_TEST_TMPDIR/ids"
}

teardown() {
	local rc=0 problems="" left id d
	[[ -n "${DK_SKIP:-}" || -z "${TOKEN:-}" ]] && return 0
	export -n TINYRUN_TEST_TOKEN
	left="$(dk_raw ps -a -q)"
	if [[ -n "$left" ]]; then
		problems+="docker containers left: $left"$'\n'
		# shellcheck disable=SC2086 # one id per word
		dk_raw rm -f $left >/dev/null 2>&1
	fi
	dk_raw volume prune -f >/dev/null 2>&1
	# tinyrun's state: the --root dockerd gives every runtime holds nothing
	left="$(find "$DK/exec/runtime-runc" -mindepth 2 2>/dev/null)"
	[[ -n "$left" ]] && problems+="runtime state left: $left"$'\n'
	left="$(grep -F " $DK/" /proc/self/mountinfo | awk '{print $5}' | sort | comm -23 - "$DK/mounts.base")"
	[[ -n "$left" ]] && problems+="mounts left: $left"$'\n'
	while read -r id; do
		[[ -n "$id" ]] || continue
		grep -qF "$id" /proc/self/mountinfo && problems+="mounts of $id left"$'\n'
		[[ -e "$DK/data/containers/$id" ]] && problems+="container dir of $id left"$'\n'
	done <"$BATS_TEST_TMPDIR/ids"
	# the parent cgroup docker names (runtimes leave parents); a container
	# cgroup still inside makes rmdir fail and tr_teardown then names it
	for d in /sys/fs/cgroup/"$CGPARENT" /sys/fs/cgroup/*/"$CGPARENT"; do
		[[ -d "$d" ]] && rmdir "$d" 2>/dev/null
	done
	export TINYRUN_TEST_TOKEN
	if [[ -n "$problems" ]]; then
		printf '%s' "$problems" | batslib_decorate "docker leftovers" | fail
		rc=1
	fi
	tr_teardown || rc=1
	return $rc
}

# ---- driving docker ------------------------------------------------------

dk_raw() {
	DOCKER_CONFIG="$DK/client" "$DOCKER" -H "unix://$DK/docker.sock" "$@" </dev/null 3>&- 4>&-
}

# dk ARGS: bats-run the docker client; stdout and stderr in $output, less
# the client's warning about the host's (deliberately untouched) forwarding.
dk() {
	local log="$BATS_TEST_TMPDIR/dk.$((++NOHANG_SEQ)).log"
	status=0
	DOCKER_CONFIG="$DK/client" "$DOCKER" -H "unix://$DK/docker.sock" "$@" \
		</dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	sed -i '/^WARNING: IPv4 forwarding is disabled/d' "$log"
	output="$(cat "$log")"
	mapfile -t lines <"$log"
}

# The options every container of this suite gets.
run_opts() {
	RUN_OPTS=(--runtime tinyrun --cgroup-parent "/$CGPARENT" -e "TINYRUN_TEST_TOKEN=$TOKEN")
}

# dk_run ARGS: docker run with the suite's options.
dk_run() {
	run_opts
	dk run "${RUN_OPTS[@]}" "$@"
}

# dk_run_d NAME ARGS: a detached container; DK_ID is its id.
dk_run_d() {
	local name="$1"
	shift
	dk_run -d --name "$name" "$@"
	assert_success
	DK_ID="${lines[-1]}"
	echo "$DK_ID" >>"$BATS_TEST_TMPDIR/ids"
	record_pid "$(dk_raw inspect -f '{{.State.Pid}}' "$name")"
}

dk_inspect() { # NAME FORMAT
	dk_raw inspect -f "$2" "$1"
}

# tinyrun's view of a container, in the root dockerd gave it.
tr_state() { # ID FIELD
	"$RUNTIME" --root "$DK/exec/runtime-runc/moby" state "$1" | jq -r ".$2"
}

dk_cmdline() { # ARGS: a docker command line as one shell string
	printf '%q ' env DOCKER_CONFIG="$DK/client" "$DOCKER" -H "unix://$DK/docker.sock" "$@"
}

# tty_run COMMAND-LINE [INPUT]: run under `script` (a pty as the controlling
# terminal), INPUT typed after 2 s; output in $output with \r removed.
tty_run() {
	local cmd="$1" input="${2:-}" log="$BATS_TEST_TMPDIR/tty.$((++NOHANG_SEQ)).log"
	status=0
	if [[ -n "$input" ]]; then
		{ sleep 2; printf '%s\n' "$input"; sleep 3; } |
			script -qec "$cmd" /dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	else
		script -qec "$cmd" /dev/null </dev/null >"$log" 2>&1 3>&- 4>&- || status=$?
	fi
	output="$(tr -d '\r\0' <"$log")"
}

wait_status() { # NAME STATUS: until docker says STATUS (up to 10 s)
	local i got=""
	for ((i = 0; i < 200; i++)); do
		got="$(dk_inspect "$1" '{{.State.Status}}')"
		[[ "$got" == "$2" ]] && return 0
		sleep 0.05
	done
	echo "container $1: status '$got', wanted '$2'" >&2
	return 1
}

# ---- scenarios -----------------------------------------------------------

@test "docker run --rm: output, exit codes, runc's exec errors (127/126), nothing left" {
	dk_run --rm "$IMG" echo hi
	assert_success
	assert_output hi
	dk_run --rm "$IMG" sh -c 'echo to-err >&2; exit 42'
	assert_equal "$status" 42
	assert_output to-err
	# the container ran with tinyrun, in the cgroup docker asked for (the
	# host's cgroup namespace: docker's default on cgroup2 is a private one)
	dk_run --rm --cgroupns host "$IMG" cat /proc/self/cgroup
	assert_success
	assert_output --regexp "(memory|0:):/$CGPARENT/[0-9a-f]{64}"
	# dockerd 20.10 matches runc's wording: 127 missing, 126 not executable
	dk_run --rm "$IMG" /nonexistent
	assert_equal "$status" 127
	assert_output --partial 'exec: "/nonexistent": stat /nonexistent: no such file or directory'
	dk_run --rm "$IMG" nosuchcommand
	assert_equal "$status" 127
	assert_output --partial 'exec: "nosuchcommand": executable file not found in $PATH'
	dk_run --rm "$IMG" /etc/passwd
	assert_equal "$status" 126
	assert_output --partial 'exec: "/etc/passwd": permission denied'
	[[ -z "$(dk_raw ps -a -q)" ]]
}

# The shim hands the container's stdio pipes to `create` as the runtime's
# own: with --log, a runtime warning (here: a capability this host's root
# lacks, when it lacks one) must go to the log file, not into the output.
@test "docker run --privileged: every capability the runtime holds, no runtime message in the output" {
	local bnd
	bnd="$(awk '/^CapBnd/ {print $2}' /proc/self/status)"
	if is_runc && [[ "$(printf '%016x' $((0x$bnd)))" != "$(printf '%016x' $(((1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1)))" ]]; then
		skip "runc fails the start for a capability it cannot grant (this host's root lacks one)"
	fi
	dk_run --rm --privileged "$IMG" sh -c 'grep -E "^Cap(Eff|Bnd)" /proc/self/status; echo done'
	assert_success
	# nothing but the container's own lines; all it may have, CAP_SYS_ADMIN too
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 --regexp $'^CapEff:\t[0-9a-f]{16}$'
	assert_equal "${lines[0]#CapEff:}" "${lines[1]#CapBnd:}"
	assert_line --index 2 done
	local eff="${lines[0]#CapEff:}"
	(((0x${eff//[[:space:]]/} >> 21) & 1))
}

@test "docker run -d, logs, exec (-u -w -e, exit status, -it under a pty), stop, rm" {
	dk_run_d d1 "$IMG" sh -c 'trap "echo got-term; exit 0" TERM; echo started; while :; do sleep 0.1; done'
	local pid
	pid="$(dk_inspect d1 '{{.State.Pid}}')"
	proc_alive "$pid"
	grep -q "$CGPARENT/$DK_ID" "/proc/$pid/cgroup"
	# tinyrun runs it, with the root dockerd gave it
	assert_equal "$(tr_state "$DK_ID" status) $(tr_state "$DK_ID" pid)" "running $pid"

	dk exec d1 sh -c 'echo exec-out; id -u; exit 7'
	assert_equal "$status" 7
	assert_output $'exec-out\n0'
	dk exec -u 1234 -w /tmp -e FOO=bar d1 sh -c 'echo $(id -u) $(pwd) $FOO'
	assert_success
	assert_output "1234 /tmp bar"
	dk exec d1 /nonexistent
	assert_equal "$status" 126 # docker exec: 126 for any exec failure (runc too)
	assert_output --partial 'exec: "/nonexistent": stat /nonexistent: no such file or directory'
	tty_run "$(dk_cmdline exec -it d1 sh -c 'tty; test -t 0 && echo in-tty; exit 3')"
	assert_equal "$status" 3
	assert_output --partial /dev/pts/
	assert_output --partial in-tty

	dk logs d1
	assert_output started
	dk stop -t 10 d1
	assert_success
	assert_equal "$(dk_inspect d1 '{{.State.Status}} {{.State.ExitCode}}')" "exited 0"
	wait_for_exit "$pid"
	dk logs d1
	assert_output $'started\ngot-term'
	dk rm d1
	assert_success
}

@test "docker run -it: a terminal, typed input, the exit status" {
	run_opts
	tty_run "$(dk_cmdline run --rm -it "${RUN_OPTS[@]}" "$IMG" sh)" \
		'tty; echo in-$((6*7)) TERM=$TERM; exit 5'
	assert_equal "$status" 5
	assert_output --partial /dev/pts/0
	assert_output --partial 'in-42 TERM=xterm'
	[[ -z "$(dk_raw ps -a -q)" ]]
}

@test "docker kill -s USR1 reaches the trap, docker kill gives 137" {
	dk_run_d k1 "$IMG" sh -c 'trap "echo got-usr1; exit 11" USR1; while :; do sleep 0.1; done'
	dk kill -s USR1 k1
	assert_success
	wait_status k1 exited
	assert_equal "$(dk_inspect k1 '{{.State.ExitCode}}')" 11
	dk logs k1
	assert_output got-usr1
	dk_run_d k2 "$IMG" sleep 1000
	dk kill k2
	assert_success
	wait_status k2 exited
	assert_equal "$(dk_inspect k2 '{{.State.ExitCode}}')" 137
	dk rm k1 k2
	assert_success
}

@test "docker pause / unpause freeze the container's cgroup" {
	dk_run_d p1 "$IMG" sleep 1000
	local freezer
	freezer="$(cg_file freezer freezer.state cgroup.freeze "$CGPARENT/$DK_ID")"
	dk pause p1
	assert_success
	assert_equal "$(dk_inspect p1 '{{.State.Status}}')" paused
	assert_equal "$(tr_state "$DK_ID" status)" paused
	run cat "$freezer"
	assert_output --regexp '^(FROZEN|1)$'
	dk unpause p1
	assert_success
	assert_equal "$(dk_inspect p1 '{{.State.Status}}')" running
	assert_equal "$(tr_state "$DK_ID" status)" running
	run cat "$freezer"
	assert_output --regexp '^(THAWED|0)$'
	dk rm -f p1
	assert_success
}

@test "docker restart and --restart on-failure run the container again" {
	dk_run_d r1 "$IMG" sh -c 'echo started; while :; do sleep 0.1; done'
	local pid1 pid2
	pid1="$(dk_inspect r1 '{{.State.Pid}}')"
	dk restart -t 1 r1
	assert_success
	pid2="$(dk_inspect r1 '{{.State.Pid}}')"
	record_pid "$pid2"
	[[ "$pid2" != "$pid1" ]]
	wait_for_exit "$pid1"
	proc_alive "$pid2"
	assert_equal "$(tr_state "$DK_ID" status) $(tr_state "$DK_ID" pid)" "running $pid2"
	dk logs r1
	assert_output $'started\nstarted'
	# a restart policy: dockerd re-starts it through the runtime
	dk_run_d r2 --restart on-failure:2 "$IMG" sh -c 'echo run; exit 3'
	local i
	for ((i = 0; i < 200; i++)); do
		[[ "$(dk_inspect r2 '{{.State.Status}} {{.RestartCount}}')" == "exited 2" ]] && break
		sleep 0.05
	done
	assert_equal "$(dk_inspect r2 '{{.State.Status}} {{.RestartCount}} {{.State.ExitCode}}')" "exited 2 3"
	dk logs r2
	assert_output $'run\nrun\nrun'
	dk rm -f r1 r2
	assert_success
}

@test "docker run --memory --pids-limit --cpus: the container's cgroup" {
	dk_run_d c1 --memory 64m --pids-limit 50 --cpus 0.5 "$IMG" sleep 1000
	local cg="$CGPARENT/$DK_ID"
	run cat "$(cg_file memory memory.limit_in_bytes memory.max "$cg")"
	assert_output 67108864
	run cat "$(cg_file pids pids.max pids.max "$cg")"
	assert_output 50
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
		run cat "/sys/fs/cgroup/$cg/cpu.max"
		assert_output '50000 100000'
	else
		assert_equal "$(cat "/sys/fs/cgroup/cpu/$cg/cpu.cfs_quota_us") $(cat "/sys/fs/cgroup/cpu/$cg/cpu.cfs_period_us")" \
			"50000 100000"
	fi
	# and what the container sees (its own cgroup namespace on cgroup2,
	# the host's paths on v1)
	dk exec c1 sh -c 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max'
	assert_success
	assert_output $'67108864\n50'
	dk rm -f c1
	assert_success
}

@test "docker run --read-only --user -e -w --tmpfs -v: what the container sees" {
	mkdir -p "$BATS_TEST_TMPDIR/vol"
	echo host-file >"$BATS_TEST_TMPDIR/vol/f"
	dk_run --rm --read-only --user 1000:1000 -e FOO=bar -w /tmp --tmpfs /mnt/t:size=1m \
		-v "$BATS_TEST_TMPDIR/vol:/v" -v "tinyrun-test-$TOKEN:/nv" "$IMG" sh -c \
		'id -u; id -g; echo $FOO; pwd; touch /x 2>&1; stat -c %a /mnt/t; grep " /mnt/t " /proc/mounts; touch /mnt/t/ok && echo tmpfs-rw; cat /v/f; stat -c %a /nv'
	assert_success
	assert_line --index 0 1000
	assert_line --index 1 1000
	assert_line --index 2 bar
	assert_line --index 3 /tmp
	assert_line --index 4 --partial 'Read-only file system'
	# a tmpfs without mode= is 1777, as with runc
	assert_line --index 5 1777
	assert_line --index 6 --regexp '^tmpfs /mnt/t tmpfs rw,nosuid,nodev,noexec,.*size=1024k'
	assert_line --index 7 tmpfs-rw
	assert_line --index 8 host-file
	assert_line --index 9 755
	# a bind volume is written through to the host
	dk_run --rm -v "$BATS_TEST_TMPDIR/vol:/v" "$IMG" sh -c 'echo from-container >/v/w'
	assert_success
	assert_equal "$(cat "$BATS_TEST_TMPDIR/vol/w")" from-container
	dk volume rm "tinyrun-test-$TOKEN"
	assert_success
}

@test "docker run --network none: only lo, up; a server on 127.0.0.1 answers" {
	dk_run --rm --network none "$IMG" sh -c \
		'ls /sys/class/net; cat /sys/class/net/lo/operstate; mkdir /tmp/w; echo served >/tmp/w/i; httpd -p 127.0.0.1:8080 -h /tmp/w; wget -q -O - http://127.0.0.1:8080/i'
	assert_success
	assert_output $'lo\nunknown\nserved'
}

@test "docker run on the default network: eth0 with docker's address, reachable from the host" {
	[[ -n "$DK_NET" ]] || skip "no bridge could be made here ($(cat "$DK/bridge.err")): dockerd runs with --bridge=none"
	dk_run_d n1 "$IMG" sh -c 'mkdir /tmp/w; echo served >/tmp/w/i; exec httpd -f -p 8080 -h /tmp/w'
	local ip
	ip="$(dk_inspect n1 '{{.NetworkSettings.IPAddress}}')"
	[[ "$ip" == "$DK_NET".* ]]
	dk exec n1 sh -c 'ip -o -4 addr show dev eth0; cat /sys/class/net/lo/operstate'
	assert_success
	assert_line --index 0 --partial "inet $ip/24"
	assert_line --index 1 unknown
	# from the host, over the bridge (bash's /dev/tcp: no client to install)
	run timeout 10 bash -c 'exec 5<>"/dev/tcp/$1/8080" && printf "GET /i HTTP/1.0\r\n\r\n" >&5 && cat <&5' sh "$ip"
	assert_success
	assert_line --regexp '^HTTP/1\.[01] 200 OK'
	assert_line served
	dk rm -f n1
	assert_success
}

@test "docker run --init: docker-init is pid 1 and forwards docker stop's TERM" {
	dk_run --rm --init "$IMG" sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; echo $$'
	assert_success
	assert_line --index 0 --regexp '^/sbin/docker-init -- sh -c '
	[[ "${lines[1]}" != 1 ]]
	dk_run_d i1 --init "$IMG" sh -c 'trap "echo got-term; exit 4" TERM; while :; do sleep 0.1; done'
	dk stop -t 10 i1
	assert_success
	# tini exits with its child's status
	assert_equal "$(dk_inspect i1 '{{.State.ExitCode}}')" 4
	dk logs i1
	assert_output got-term
	dk rm i1
	assert_success
}

@test "docker top and stats --no-stream read the container" {
	dk_run_d s1 --memory 64m "$IMG" sleep 1000
	dk exec -d s1 sleep 500
	assert_success
	local pid i
	pid="$(dk_inspect s1 '{{.State.Pid}}')"
	for ((i = 0; i < 200; i++)); do
		dk_raw top s1 | grep -q 'sleep 500' && break
		sleep 0.05
	done
	dk top s1 -o pid,args
	assert_success
	assert_line --regexp "^$pid +sleep 1000$"
	assert_line --regexp '^[0-9]+ +sleep 500$'
	dk stats --no-stream --format '{{.Name}} {{.PIDs}} {{.MemUsage}}' s1
	assert_success
	assert_output --regexp '^s1 2 [0-9.]+[kKMG]?i?B / 64MiB$'
	dk rm -f s1
	assert_success
}

@test "docker update --memory --pids-limit --cpus changes the cgroup through tinyrun update" {
	dk_run_d u1 "$IMG" sleep 1000
	local cg="$CGPARENT/$DK_ID"
	dk update --memory 64m --memory-swap 128m --pids-limit 77 --cpus 0.25 u1
	assert_success
	run cat "$(cg_file memory memory.limit_in_bytes memory.max "$cg")"
	assert_output 67108864
	run cat "$(cg_file pids pids.max pids.max "$cg")"
	assert_output 77
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
		run cat "/sys/fs/cgroup/$cg/cpu.max"
		assert_output '25000 100000'
	else
		run cat "/sys/fs/cgroup/cpu/$cg/cpu.cfs_quota_us"
		assert_output 25000
	fi
	dk inspect -f '{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}}' u1
	assert_output '67108864 77'
	dk rm -f u1
	assert_success
}

@test "docker: 10 containers at once, each in its cgroup, all removed" {
	local i pids=() id
	run_opts
	for ((i = 0; i < 10; i++)); do
		DOCKER_CONFIG="$DK/client" "$DOCKER" -H "unix://$DK/docker.sock" run -d --name "m$i" \
			"${RUN_OPTS[@]}" "$IMG" sh -c "echo m$i; exec sleep 1000" \
			</dev/null >"$BATS_TEST_TMPDIR/m$i.out" 2>&1 3>&- 4>&- &
		pids+=($!)
	done
	for ((i = 0; i < 10; i++)); do
		wait "${pids[$i]}" || { cat "$BATS_TEST_TMPDIR/m$i.out"; false; }
	done
	for ((i = 0; i < 10; i++)); do
		id="$(tail -n 1 "$BATS_TEST_TMPDIR/m$i.out")"
		echo "$id" >>"$BATS_TEST_TMPDIR/ids"
		record_pid "$(dk_inspect "m$i" '{{.State.Pid}}')"
		assert_equal "$(dk_inspect "m$i" '{{.State.Status}}')" running
		assert_equal "$(tr_state "$id" status)" running
		run cat "$(cg_file pids cgroup.procs cgroup.procs "$CGPARENT/$id")"
		assert_output "$(dk_inspect "m$i" '{{.State.Pid}}')"
		dk logs "m$i"
		assert_output "m$i"
	done
	run "$RUNTIME" --root "$DK/exec/runtime-runc/moby" list -q
	assert_success
	assert_equal "${#lines[@]}" 10
	dk rm -f m0 m1 m2 m3 m4 m5 m6 m7 m8 m9
	assert_success
	[[ -z "$(dk_raw ps -a -q)" ]]
}

@test "docker: contrib/docker/daemon.json registers tinyrun" {
	dk info --format '{{json .Runtimes}}'
	assert_success
	assert_equal "$(jq -r '."tinyrun-contrib".path' <<<"$output")" "$RUNTIME"
	assert_equal "$(jq -r '.tinyrun.path' <<<"$output")" "$RUNTIME"
	# the shipped snippet as it is: the installed path
	assert_equal "$(jq -r '.runtimes.tinyrun.path' "$REPO_DIR/contrib/docker/daemon.json")" /usr/local/bin/tinyrun
	run_opts
	dk run -d --runtime tinyrun-contrib --cgroup-parent "/$CGPARENT" -e "TINYRUN_TEST_TOKEN=$TOKEN" "$IMG" sleep 1000
	assert_success
	local id="${lines[-1]}"
	echo "$id" >>"$BATS_TEST_TMPDIR/ids"
	record_pid "$(dk_inspect "$id" '{{.State.Pid}}')"
	assert_equal "$(tr_state "$id" status)" running
	dk rm -f "$id"
	assert_success
}

# Rootless Docker: docker.io's dockerd-rootless.sh runs dockerd and its
# containerd in rootlesskit's user and mount namespaces as a user with
# subordinate ids; the shim then calls the runtime as root of that
# namespace, with no cgroup on a v1 host ("rootless-mode without cgroups").
# rootlesskit --net=host (no slirp4netns or /dev/net/tun needed), so dockerd
# gets --bridge=none. Its files are this test's own (a copy of
# /etc/passwd, group, subuid and subgid bound over the host's in a private
# mount namespace), and the user's processes carry the test's token.
@test "docker rootless (dockerd-rootless.sh under rootlesskit): run, exec, stop, rm; tinyrun as root of the user's namespace" {
	command -v rootlesskit >/dev/null || skip "rootlesskit not installed (make deps installs it)"
	command -v newuidmap >/dev/null || skip "newuidmap not installed (uidmap; make deps installs it)"
	local script=/usr/share/docker.io/contrib/dockerd-rootless.sh R="$DK/rl-$TOKEN" pid
	[[ -x "$script" ]] || skip "$script not installed"
	rootless_user_dir "$R"
	cp "$DK/rootfs.tar" "$R/rootfs.tar"
	chown 4244:4244 "$R/rootfs.tar"
	rootless_user_run "$R" TMPDIR="$R/tmp" TINYRUN_TEST_TOKEN="$TINYRUN_TEST_TOKEN" \
		DOCKERD_ROOTLESS_ROOTLESSKIT_NET=host DOCKERD_ROOTLESS_ROOTLESSKIT_PORT_DRIVER=none -- '
		R="$1"
		sock="unix://$R/run/docker.sock"
		d() { /usr/bin/docker -H "$sock" "$@"; }
		"$3" --data-root "$R/home/data" --exec-root "$R/run/exec" -H "$sock" \
			--pidfile "$R/run/dockerd.pid" --add-runtime "tinyrun=$2" \
			--iptables=false --ip6tables=false --bridge=none >"$R/dockerd.log" 2>&1 &
		echo $! >"$R/rootlesskit.pid"
		i=0
		until d version >/dev/null 2>&1; do
			i=$((i + 1)); [ $i -lt 600 ] || { tail -n 5 "$R/dockerd.log"; exit 1; }; sleep 0.1
		done
		d info --format "{{.SecurityOptions}}"
		d import --change "CMD [\"/bin/sh\"]" --change "ENV PATH=/bin" "$R/rootfs.tar" rl:latest >/dev/null
		d run --rm --runtime tinyrun -e TINYRUN_TEST_TOKEN rl sh -c "id -u; cat /proc/self/uid_map | tr -s \" \"; exit 3" || echo "status $?"
		d run -d --name t1 --runtime tinyrun -e TINYRUN_TEST_TOKEN rl sleep 1000 >/dev/null
		d exec t1 sh -c "echo exec-ok; id -u"
		echo "state: $(find "$R/run" -name state.json -path "*/$(d inspect -f "{{.Id}}" t1)/*" | wc -l)"
		d stop -t 1 t1 >/dev/null
		d rm t1 >/dev/null
		echo "left: $(find "$R/run" -name state.json | wc -l)"
		kill "$(cat "$R/run/dockerd.pid")"
		i=0
		while kill -0 "$(cat "$R/rootlesskit.pid")" 2>/dev/null; do
			i=$((i + 1)); [ $i -lt 300 ] || { echo "rootlesskit still up"; exit 1; }; sleep 0.1
		done' "$R" "$RUNTIME" "$script"
	# whatever of the user's is still up (a failure above): end it, by pid
	for pid in $(pgrep -u 4244 2>/dev/null); do
		kill -9 "$pid" 2>/dev/null
	done
	rm -rf "$R"
	assert_success
	assert_line --partial name=rootless
	# root of the user's namespace: its uid, then its subordinate ids
	assert_line --index 1 0
	assert_line " 0 4244 1"
	assert_line " 1 2000000 65536"
	assert_line "status 3"
	[[ "$output" == *$'\nexec-ok\n0\n'* ]] || fail "exec: not uid 0 of the namespace"
	assert_line "state: 1"
	assert_line "left: 0"
}
