#!/usr/bin/env bats
# cri: tinyrun under Kubernetes' runtime path. kubelet talks to containerd's
# CRI plugin over gRPC; no kubelet or crictl is packaged in Debian 12, so
# tests/lib/cri/cri.py (python3-grpcio, python3-protobuf, api_pb2.py compiled
# from the CRI api.proto of Debian's containerd source package) makes the same
# calls. A private containerd (root, state, sockets, CNI config under a temp
# dir, started here under a subreaper and stopped by pid) has the CRI plugin
# with the runtime handler of contrib/containerd/config.toml ("tinyrun", runc
# v2 shim, BinaryName = the runtime under test), the handler that
# contrib/kubernetes/runtimeclass.yaml names. Pods use the handler of that
# RuntimeClass (CRI_HANDLER=runc bats tests/cri.bats: the same with runc).
# Images: a pause image (tests/lib/cri/pause.c) and the busybox rootfs of
# helpers.bash, OCI archives imported with `ctr -n k8s.io images import`.
# Pod network: a conflist whose only plugin is tests/lib/cri/cni-dummy (eth0
# one end of a veth pair kept inside the pod's netns; containerd runs CNI's
# loopback itself), so nothing changes on the host. Every test removes its pods and checks that no
# tinyrun state, process, mount, netns, cgroup or shim is left.

load helpers

CRI_LIB="$TESTS_DIR/lib/cri"
PY=/usr/bin/python3
PAUSE_IMAGE=localhost/tinyrun-pause:1
BUSYBOX_IMAGE=localhost/tinyrun-busybox:1

# why this machine cannot run the suite (empty: it can)
cri_missing() {
	local c
	for c in containerd ctr containerd-shim-runc-v2 protoc apt-get; do
		command -v "$c" >/dev/null || { echo "$c not installed"; return; }
	done
	[[ -x /usr/lib/cni/loopback ]] || { echo "containernetworking-plugins (loopback) not installed"; return; }
	"$PY" -c 'import grpc, google.protobuf' 2>/dev/null ||
		echo "python3-grpcio / python3-protobuf not installed"
}

setup_file() {
	local why
	why="$(cri_missing)"
	[[ -z "$why" ]] || { export CRI_SKIP="$why"; return 0; }
	build_test_lib || return 1
	build_base_rootfs || return 1
	build_static_into "$CRI_LIB/pause.c" "$TEST_LIB_BIN" || return 1
	# api_pb2.py, built once per tree (apt-get source needs a deb-src line)
	CRI_PB2_DIR="$REPO_DIR/build/cri"
	export CRI_PB2_DIR
	if [[ ! -f "$CRI_PB2_DIR/api_pb2.py" ]] && ! sh "$CRI_LIB/build-proto.sh" "$CRI_PB2_DIR" >&2; then
		export CRI_SKIP="no CRI api.proto: apt-get source containerd failed (no deb-src line? make deps-src adds them, as make check does)"
		return 0
	fi
	CRI="$(mktemp -d /tmp/tr-cri.XXXXXX)"
	export CRI
	# the shims' sockets go to /run/containerd/s whatever the state dir
	[[ -e /run/containerd ]] && touch "$CRI.had-run-containerd"
	# searchable by the containers' users
	chmod 711 "$CRI"
	cri_images || return 1
	cri_containerd_start || return 1
	cri_import "$CRI/pause.tar" && cri_import "$CRI/busybox.tar"
}

teardown_file() {
	[[ -n "${CRI:-}" && -d "$CRI" ]] || return 0
	cri_containerd_stop
	grep -F " $CRI/" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$CRI"
	if [[ ! -e "$CRI.had-run-containerd" ]]; then
		rmdir /run/containerd/s /run/containerd 2>/dev/null
	fi
	rm -f "$CRI.had-run-containerd"
	return 0
}

setup() {
	[[ -z "${CRI_SKIP:-}" ]] || skip "$CRI_SKIP"
	tr_setup
	# the RuntimeClass's handler, as kubelet passes it
	HANDLER="${CRI_HANDLER:-$(sed -n 's/^handler: *//p' "$REPO_DIR/contrib/kubernetes/runtimeclass.yaml")}"
	CGPARENT="tinyrun-cri-$TOKEN"
	LOGS="$BATS_TEST_TMPDIR/logs"
	mkdir -p "$LOGS"
	: >"$BATS_TEST_TMPDIR/netns"
}

teardown() {
	[[ -z "${CRI_SKIP:-}" ]] || return 0
	local rc=0 problems="" id left d i
	export -n TINYRUN_TEST_TOKEN
	# what kubelet does with a pod it is done with
	for id in $(cri_raw ListPodSandbox '{}' | jq -r '.items[].id' 2>/dev/null); do
		problems+="pod sandbox left: $id"$'\n'
		cri_raw StopPodSandbox "{\"podSandboxId\": \"$id\"}" >/dev/null
		cri_raw RemovePodSandbox "{\"podSandboxId\": \"$id\"}" >/dev/null
	done
	left="$(cri_leftovers)"
	for ((i = 0; i < 100 && ${#left} > 0; i++)); do
		sleep 0.05
		left="$(cri_leftovers)"
	done
	problems+="$left"
	# kubelet removes a pod's cgroup parent: rmdir fails while a container
	# cgroup is still in it, and tr_teardown then names it
	for d in /sys/fs/cgroup/"$CGPARENT" /sys/fs/cgroup/*/"$CGPARENT"; do
		[[ -d "$d" ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	# host mounts a failed test left under its temp dir (deepest first)
	awk -v d="$BATS_TEST_TMPDIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r d; do umount -l "$d"; done
	export TINYRUN_TEST_TOKEN
	if [[ -n "$problems" ]]; then
		printf '%s' "$problems" | batslib_decorate "CRI leftovers" | fail
		rc=1
	fi
	tr_teardown || rc=1
	return $rc
}

# What a removed pod must not leave: runtime state, a shim, a mount of
# containerd's (rootfs, shm), a pod netns.
cri_leftovers() {
	local d ns
	for d in "$CRI/c/tinyrun-root/k8s.io" "$CRI/c/runc-root/k8s.io"; do
		[[ -d "$d" ]] && find "$d" -mindepth 1 -maxdepth 1 -type d -printf 'runtime state left: %p\n'
	done
	pgrep -f "containerd-shim-runc-v2 .*-address $CRI/c/containerd.sock" | sed 's/^/shim left: /'
	grep -F " $CRI/c/state/" /proc/self/mountinfo | sed 's/^/mount left: /'
	while read -r ns; do
		[[ -n "$ns" && -e "$ns" ]] && echo "pod netns left: $ns"
	done <"$BATS_TEST_TMPDIR/netns"
	return 0
}

# ---- cgroups: v1 (hybrid hosts) or v2 ---------------------------------------

cgv2() { [[ -f /sys/fs/cgroup/cgroup.controllers ]]; }

# cg_proc_line PATH: a regex for the line of /proc/PID/cgroup that puts PID in PATH
cg_proc_line() {
	if cgv2; then echo "^0::$1\$"; else echo ":memory:$1\$"; fi
}

# in-container paths of the container's memory limit, cpu shares/weight, quota
cg_files_inside() {
	if cgv2; then
		echo /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.weight /sys/fs/cgroup/cpu.max
	else
		echo /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.shares /sys/fs/cgroup/cpu/cpu.cfs_quota_us
	fi
}

# cg_values MEMORY SHARES QUOTA PERIOD: what cg_files_inside hold (v2: the
# weight runc >= 1.3.2 derives from the shares, "quota period")
cg_values() {
	if cgv2; then
		echo "$1 $(awk -v s="$2" 'BEGIN { l = log(s) / log(2); e = (l * l + 125 * l) / 612 - 7 / 34
			w = exp(e * log(10)); c = int(w); printf "%d", (w - c > 1e-9 ? c + 1 : c) }') $3 $4"
	else
		echo "$1 $2 $3"
	fi
}

# ---- containerd ----------------------------------------------------------

# The pause image (/pause) and the busybox image (the suite's rootfs).
cri_images() {
	mkdir -p "$CRI/pause-root"
	cp "$TEST_LIB_BIN/pause" "$CRI/pause-root/pause"
	tar -C "$CRI/pause-root" -cf "$CRI/pause.layer" . &&
		tar -C "$TEST_CACHE/rootfs" -cf "$CRI/busybox.layer" . &&
		make_oci_archive "$CRI/pause.layer" "$PAUSE_IMAGE" '{Entrypoint: ["/pause"]}' "$CRI/pause.tar" &&
		make_oci_archive "$CRI/busybox.layer" "$BUSYBOX_IMAGE" '{Env: ["PATH=/bin"], Cmd: ["/bin/sh"]}' "$CRI/busybox.tar"
}

# containerd with the CRI plugin; the tinyrun handler is the contrib
# fragment with BinaryName and Root pointed here. A "runc" handler too, to
# compare (CRI_HANDLER=runc).
cri_containerd_start() {
	local d="$CRI/c" i port
	mkdir -p "$d/cni-bin" "$d/cni-conf"
	ln -sf /usr/lib/cni/loopback "$d/cni-bin/loopback"
	cp "$CRI_LIB/cni-dummy" "$d/cni-bin/tinyrun-cni-dummy"
	echo '{"cniVersion": "0.4.0", "name": "tinyrun-test", "plugins": [{"type": "tinyrun-cni-dummy"}]}' \
		>"$d/cni-conf/10-tinyrun-test.conflist"
	# the streaming server (Exec, Attach) needs a fixed port: a free one
	port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
	cat >"$d/config.toml" <<-EOF
		version = 2
		root = "$d/root"
		state = "$d/state"
		disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
		  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
		  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
		[grpc]
		  address = "$d/containerd.sock"
		[ttrpc]
		  address = "$d/containerd.sock.ttrpc"
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$d/opt"
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "$PAUSE_IMAGE"
		  stream_server_address = "127.0.0.1"
		  stream_server_port = "$port"
		  disable_apparmor = true
		  # kubelet gives the pause -998; lowering oom_score_adj needs
		  # CAP_SYS_RESOURCE, which root lacks in some sandboxes (this
		  # machine): runc and tinyrun both fail then. Clamped to containerd's.
		  restrict_oom_score_adj = $(has_cap_sys_resource && echo false || echo true)
		  enable_selinux = false
		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "$d/cni-bin"
		    conf_dir = "$d/cni-conf"
		    max_conf_num = 1
		  [plugins."io.containerd.grpc.v1.cri".containerd]
		    snapshotter = "overlayfs"
		    default_runtime_name = "runc"
		  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		    runtime_type = "io.containerd.runc.v2"
		    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
		      BinaryName = "$(command -v runc)"
		      Root = "$d/runc-root"
	EOF
	# the contrib fragment, as a user merges it
	sed -e '/^version *=/d' \
		-e "s|^\( *BinaryName *=\).*|\1 \"$RUNTIME\"|" \
		-e "s|^\( *Root *=\).*|\1 \"$d/tinyrun-root\"|" \
		"$REPO_DIR/contrib/containerd/config.toml" >>"$d/config.toml"
	# under a subreaper: the shims it starts are orphans. Not a test's
	# process (a restart inside a test): without the test token.
	env -u TINYRUN_TEST_TOKEN setsid "$TEST_LIB_BIN/subreaper" sh -c 'echo $$ >"$1"; exec containerd --config "$2"' \
		sh "$d/containerd.pid" "$d/config.toml" </dev/null >>"$d/containerd.log" 2>&1 3>&- 4>&- &
	for ((i = 0; i < 200; i++)); do
		cri_raw Version '{}' >/dev/null 2>&1 && break
		sleep 0.05
	done
	if ! cri_raw Version '{}' >/dev/null; then
		echo "containerd's CRI did not start:" >&2
		tail -n 20 "$d/containerd.log" >&2
		return 1
	fi
}

# CAP_SYS_RESOURCE (bit 24) in our effective set
has_cap_sys_resource() {
	local eff
	eff="$(awk '/^CapEff:/ {print $2}' /proc/self/status)"
	(((0x$eff >> 24) & 1))
}

# stop containerd only (its shims and their containers keep running)
cri_containerd_stop_daemon() {
	local d="$CRI/c" pid i
	[[ -f "$d/containerd.pid" ]] || return 0
	pid="$(cat "$d/containerd.pid")"
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		proc_alive "$pid" || break
		sleep 0.05
	done
	proc_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	rm -f "$d/containerd.pid"
}

cri_containerd_stop() {
	local d="$CRI/c" shim
	cri_containerd_stop_daemon
	# a shim outlives containerd when a pod was left: by pid, ours only
	for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $d/containerd.sock" 2>/dev/null); do
		kill -KILL "$shim" 2>/dev/null
	done
}

cri_import() {
	local out
	out="$(ctr --address "$CRI/c/containerd.sock" -n k8s.io images import "$1" 2>&1 </dev/null 3>&- 4>&-)" ||
		{ echo "ctr images import $1: $out" >&2; return 1; }
}

# ---- CRI calls -------------------------------------------------------------

# cri_raw METHOD JSON: the response on stdout.
cri_raw() {
	"$PY" "$CRI_LIB/cri.py" "$CRI/c/containerd.sock" "$@" </dev/null 3>&- 4>&-
}

# cri METHOD JSON: bats-run, the response in $output (asserted to succeed).
cri() {
	run_nohang "$PY" "$CRI_LIB/cri.py" "$CRI/c/containerd.sock" "$@"
	assert_success
}

# pod_config NAME: a PodSandboxConfig as kubelet makes it (cgroupfs driver:
# a cgroup parent per pod; network and IPC of the pod, pid per container).
pod_config() {
	jq -n -c --arg n "$1" --arg t "$TOKEN" --arg logs "$LOGS/$1" --arg cg "/$CGPARENT/pod-$1" \
		'{metadata: {name: $n, uid: ($t + "-" + $n), namespace: "tinyrun-test", attempt: 0},
		hostname: $n, logDirectory: $logs, labels: {"tinyrun-test": $t},
		linux: {cgroupParent: $cg, securityContext: {namespaceOptions:
			{network: "POD", pid: "CONTAINER", ipc: "POD"}}}}'
}

# run_pod NAME [JQ]: RunPodSandbox with the handler, the pod_config edited
# by JQ; POD is its id, POD_CONF its config.
run_pod() {
	mkdir -p "$LOGS/$1"
	POD_CONF="$(pod_config "$1" | jq -c "${2:-.}")"
	cri RunPodSandbox "$(jq -n -c --argjson c "$POD_CONF" --arg h "$HANDLER" \
		'{config: $c, runtimeHandler: $h}')"
	POD="$(jq -r .podSandboxId <<<"$output")"
	cri PodSandboxStatus "{\"podSandboxId\": \"$POD\", \"verbose\": true}"
	jq -r '.info.info | fromjson | .runtimeSpec.linux.namespaces[] | select(.type == "network") | .path' \
		<<<"$output" >>"$BATS_TEST_TMPDIR/netns"
}

# start_ctr NAME CONFIG-JQ ARGS...: CreateContainer + StartContainer
# of the busybox image in pod $POD (config $POD_CONF), command ARGS, CONFIG-JQ merged into the
# ContainerConfig (e.g. '{linux: {resources: {memoryLimitInBytes: 1}}}'); CTR
# is its id.
start_ctr() {
	local name="$1" extra="$2" config
	shift 2
	config="$(jq -n -c --arg n "$name" --arg img "$BUSYBOX_IMAGE" --arg t "$TOKEN" --argjson extra "$(jq -n -c "$extra")" \
		--argjson cmd "$(json_args "$@")" \
		'{metadata: {name: $n}, image: {image: $img}, command: $cmd, logPath: ($n + ".log"),
		envs: [{key: "TINYRUN_TEST_TOKEN", value: $t}],
		linux: {securityContext: {namespaceOptions: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}} * $extra')"
	cri CreateContainer "$(jq -n -c --arg p "$POD" --argjson c "$config" --argjson s "$POD_CONF" \
		'{podSandboxId: $p, config: $c, sandboxConfig: $s}')"
	CTR="$(jq -r .containerId <<<"$output")"
	cri StartContainer "{\"containerId\": \"$CTR\"}"
}

# json_args ARGS...: a JSON array of strings (jq's --args would take a leading
# "-c" as its own option)
json_args() {
	local a out=()
	for a in "$@"; do out+=("$(jq -n -c --arg a "$a" '$a')"); done
	(IFS=,; echo "[${out[*]}]")
}

# exec_sync ID ARGS...: ExecSync; $output is the response.
exec_sync() {
	local id="$1"
	shift
	cri ExecSync "$(jq -n -c --arg id "$id" --argjson cmd "$(json_args "$@")" '{containerId: $id, cmd: $cmd, timeout: 30}')"
}

# b64 FIELD: a bytes field of $output, decoded
b64() { jq -j ".$1 | @base64d" <<<"$output"; }

ctr_status() { # ID: ContainerStatus in $output
	cri ContainerStatus "{\"containerId\": \"$1\"}"
}

# wait_exited ID: until the container's state is CONTAINER_EXITED
wait_exited() {
	local i
	for ((i = 0; i < 200; i++)); do
		ctr_status "$1"
		[[ "$(jq -r .status.state <<<"$output")" == CONTAINER_EXITED ]] && return 0
		sleep 0.05
	done
	fail "container $1 did not exit: $output"
}

# the handler's runtime state dir of a container or pod id
state_dir() {
	if [[ "$HANDLER" != runc ]]; then echo "$CRI/c/tinyrun-root/k8s.io/$1"; else echo "$CRI/c/runc-root/k8s.io/$1"; fi
}

# the pid of a container (or the pod's pause) from the handler's own state
runtime_pid() {
	local bin="$RUNTIME" root="$CRI/c/tinyrun-root/k8s.io"
	[[ "$HANDLER" != runc ]] || { bin="$(command -v runc)"; root="$CRI/c/runc-root/k8s.io"; }
	"$bin" --root "$root" state "$1" | jq -r .pid
}

# remove_pod: StopPodSandbox + RemovePodSandbox of $POD
remove_pod() {
	cri StopPodSandbox "{\"podSandboxId\": \"$POD\"}"
	cri RemovePodSandbox "{\"podSandboxId\": \"$POD\"}"
}

# ---- tests -------------------------------------------------------------------

@test "cri: RunPodSandbox with the tinyrun handler runs the pause process under it" {
	run_pod p1
	cri PodSandboxStatus "{\"podSandboxId\": \"$POD\"}"
	assert_equal "$(jq -r .status.state <<<"$output")" SANDBOX_READY
	assert_equal "$(jq -r .status.runtimeHandler <<<"$output")" "$HANDLER"
	# the handler's runtime made it: its state, its pid running /pause
	[[ -d "$(state_dir "$POD")" ]]
	pid="$(runtime_pid "$POD")"
	record_pid "$pid"
	assert_equal "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "/pause "
	# in the pod's cgroup, in its own network namespace with lo up
	grep -qE "$(cg_proc_line "/$CGPARENT/pod-p1/$POD")" "/proc/$pid/cgroup"
	[[ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ]]
	run nsenter --net="/proc/$pid/ns/net" ip -o link show lo
	assert_output --partial "UP"
	remove_pod
	proc_wait_gone "$pid"
	[[ ! -e "$(state_dir "$POD")" ]]
}

@test "cri: two containers share the pod's network and IPC namespaces" {
	run_pod p2
	pause="$(runtime_pid "$POD")"
	start_ctr server '{}' nc -ll -p 8080 -e /bin/echo "served-$TOKEN"
	server="$CTR"
	start_ctr client '{}' sleep 3600
	client="$CTR"
	for id in "$server" "$client"; do
		pid="$(runtime_pid "$id")"
		record_pid "$pid"
		assert_equal "$(readlink "/proc/$pid/ns/net")" "$(readlink "/proc/$pause/ns/net")"
		assert_equal "$(readlink "/proc/$pid/ns/ipc")" "$(readlink "/proc/$pause/ns/ipc")"
		# pid: per container (namespaceOptions.pid CONTAINER)
		[[ "$(readlink "/proc/$pid/ns/pid")" != "$(readlink "/proc/$pause/ns/pid")" ]]
	done
	# the client reaches the server on the pod's loopback (retried until it listens)
	exec_sync "$client" sh -c 'for i in $(seq 100); do nc 127.0.0.1 8080 </dev/null && exit 0; usleep 50000; done; exit 1'
	assert_equal "$(jq -r .exitCode <<<"$output")" 0
	assert_equal "$(b64 stdout)" "served-$TOKEN"
	# the pod's /dev/shm (POSIX shared memory) is one tmpfs for both
	exec_sync "$client" sh -c "echo shm-$TOKEN >/dev/shm/x"
	assert_equal "$(jq -r .exitCode <<<"$output")" 0
	exec_sync "$server" cat /dev/shm/x
	assert_equal "$(b64 stdout)" "shm-$TOKEN"
	remove_pod
}

@test "cri: ExecSync and a streaming exec" {
	run_pod p3
	start_ctr c '{}' sleep 3600
	exec_sync "$CTR" sh -c 'echo out; echo err >&2; cat /proc/self/cgroup; exit 3'
	assert_equal "$(jq -r .exitCode <<<"$output")" 3
	assert_equal "$(b64 stdout | head -n1)" out
	assert_equal "$(b64 stderr)" err
	# the exec'd process is in the container's cgroup (v2: the root of the
	# container's cgroup namespace)
	if cgv2; then expect="^0::/\$"; else expect="$(cg_proc_line "/$CGPARENT/pod-p3/$CTR")"; fi
	b64 stdout | grep -qE "$expect"
	# streaming: Exec gives a URL, served by containerd's streaming server
	cri Exec "$(jq -n -c --arg id "$CTR" '{containerId: $id, cmd: ["sh", "-c", "read l; echo got-$l; echo e >&2; exit 5"],
		stdin: true, stdout: true, stderr: true}')"
	url="$(jq -r .url <<<"$output")"
	run_nohang "$PY" "$CRI_LIB/cri.py" stream "$url" "$TOKEN"$'\n'
	assert_equal "$status" 5
	assert_line "got-$TOKEN"
	assert_line e
	# a missing program: an error with runc's wording
	run_nohang "$PY" "$CRI_LIB/cri.py" "$CRI/c/containerd.sock" ExecSync \
		"{\"containerId\": \"$CTR\", \"cmd\": [\"/nonexistent\"]}"
	assert_failure
	assert_output --partial 'exec: "/nonexistent": stat /nonexistent: no such file or directory'
	remove_pod
}

@test "cri: container logs in the CRI format" {
	run_pod p4
	start_ctr logger '{}' sh -c "echo out-$TOKEN; echo err-$TOKEN >&2"
	wait_exited "$CTR"
	assert_equal "$(jq -r .status.logPath <<<"$output")" "$LOGS/p4/logger.log"
	# kubelet's format: TIMESTAMP STREAM F LINE
	run cat "$LOGS/p4/logger.log"
	assert_line --regexp "^[0-9T:.+-]+Z? stdout F out-$TOKEN\$"
	assert_line --regexp "^[0-9T:.+-]+Z? stderr F err-$TOKEN\$"
	remove_pod
}

@test "cri: ContainerStats and PodSandboxStats read the container's cgroup" {
	run_pod p5
	start_ctr c '{linux: {resources: {memoryLimitInBytes: 67108864}}}' \
		sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exec sleep 3600'
	# usage_in_bytes of the container's own memory cgroup, read inside it
	exec_sync "$CTR" cat "$(cg_files_inside | cut -d' ' -f1)"
	assert_equal "$(b64 stdout)" 67108864
	cri ContainerStats "{\"containerId\": \"$CTR\"}"
	assert_equal "$(jq -r .stats.attributes.id <<<"$output")" "$CTR"
	(($(jq -r .stats.memory.workingSetBytes.value <<<"$output") > 0))
	(($(jq -r .stats.cpu.usageCoreNanoSeconds.value <<<"$output") > 0))
	cri PodSandboxStats "{\"podSandboxId\": \"$POD\"}"
	assert_equal "$(jq -r .stats.attributes.id <<<"$output")" "$POD"
	(($(jq -r .stats.linux.memory.workingSetBytes.value <<<"$output") > 0))
	assert_equal "$(jq -r '.stats.linux.containers | map(.attributes.id) | join(" ")' <<<"$output")" "$CTR"
	cri ListContainerStats '{}'
	assert_equal "$(jq -r '.stats | map(.attributes.id) | join(" ")' <<<"$output")" "$CTR"
	remove_pod
}

@test "cri: UpdateContainerResources is visible in the container's cgroup" {
	run_pod p6
	start_ctr c '{linux: {resources: {memoryLimitInBytes: 67108864, cpuShares: 512, cpuPeriod: 100000, cpuQuota: 50000}}}' sleep 3600
	# shellcheck disable=SC2046 # one path per word
	exec_sync "$CTR" cat $(cg_files_inside)
	assert_equal "$(b64 stdout | paste -sd' ')" "$(cg_values 67108864 512 50000 100000)"
	cri UpdateContainerResources "{\"containerId\": \"$CTR\", \"linux\": {\"memoryLimitInBytes\": 134217728,
		\"cpuShares\": 256, \"cpuPeriod\": 100000, \"cpuQuota\": 20000}}"
	# shellcheck disable=SC2046
	exec_sync "$CTR" cat $(cg_files_inside)
	assert_equal "$(b64 stdout | paste -sd' ')" "$(cg_values 134217728 256 20000 100000)"
	# the same files seen from the host
	cg="/$CGPARENT/pod-p6/$CTR"
	if cgv2; then
		assert_equal "$(cat "/sys/fs/cgroup$cg/memory.max")" 134217728
		assert_equal "$(cat "/sys/fs/cgroup$cg/cpu.max")" "20000 100000"
	else
		assert_equal "$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes")" 134217728
		assert_equal "$(cat "/sys/fs/cgroup/cpu$cg/cpu.shares")" 256
	fi
	remove_pod
}

@test "cri: a container that exits non-zero" {
	run_pod p7
	start_ctr c '{}' sh -c 'exit 7'
	wait_exited "$CTR"
	assert_equal "$(jq -r .status.exitCode <<<"$output")" 7
	assert_equal "$(jq -r .status.reason <<<"$output")" Error
	remove_pod
}

@test "cri: an OOM-killed container has reason OOMKilled" {
	run_pod p8
	# tail buffers a line of /dev/zero forever (no newline)
	start_ctr c '{linux: {resources: {memoryLimitInBytes: 16777216}}}' tail /dev/zero
	wait_exited "$CTR"
	assert_equal "$(jq -r .status.exitCode <<<"$output")" 137
	assert_equal "$(jq -r .status.reason <<<"$output")" OOMKilled
	remove_pod
}

@test "cri: StopPodSandbox and RemovePodSandbox leave nothing behind" {
	run_pod p9
	pause="$(runtime_pid "$POD")"
	record_pid "$pause"
	start_ctr a '{}' sleep 3600
	a="$CTR"
	start_ctr b '{}' sh -c 'trap "exit 0" TERM; while :; do sleep 1; done'
	b="$CTR"
	pids="$pause $(runtime_pid "$a") $(runtime_pid "$b")"
	for p in $pids; do record_pid "$p"; done
	cri StopPodSandbox "{\"podSandboxId\": \"$POD\"}"
	cri PodSandboxStatus "{\"podSandboxId\": \"$POD\"}"
	assert_equal "$(jq -r .status.state <<<"$output")" SANDBOX_NOTREADY
	for id in "$a" "$b"; do
		ctr_status "$id"
		assert_equal "$(jq -r .status.state <<<"$output")" CONTAINER_EXITED
	done
	for p in $pids; do proc_wait_gone "$p"; done
	cri RemovePodSandbox "{\"podSandboxId\": \"$POD\"}"
	cri ListPodSandbox '{}'
	assert_equal "$(jq -r '.items | length' <<<"$output")" 0
	cri ListContainers '{}'
	assert_equal "$(jq -r '.containers | length' <<<"$output")" 0
	# no runtime state, shim, mount or netns (polled: the shim exits last)
	for ((i = 0; i < 100; i++)); do
		left="$(cri_leftovers)"
		[[ -z "$left" ]] && break
		sleep 0.05
	done
	assert_equal "$left" ""
	for cg in /sys/fs/cgroup/"$CGPARENT"/pod-p9 /sys/fs/cgroup/*/"$CGPARENT"/pod-p9; do
		[[ ! -d "$cg" ]] || assert_equal "$(find "$cg" -mindepth 1 -type d)" ""
	done
}

@test "cri: pod sysctls, securityContext and a shared pid namespace as kubelet sets them" {
	mkdir -p "$LOGS/p10"
	conf="$(pod_config p10 | jq -c '.linux.sysctls = {"net.ipv4.ip_unprivileged_port_start": "80", "kernel.shm_rmid_forced": "1"}
		| .linux.securityContext.namespaceOptions.pid = "POD"')"
	cri RunPodSandbox "$(jq -n -c --argjson c "$conf" --arg h "$HANDLER" '{config: $c, runtimeHandler: $h}')"
	POD="$(jq -r .podSandboxId <<<"$output")"
	# the sysctls are set in the pod's namespaces (net, ipc)
	pause="$(runtime_pid "$POD")"
	record_pid "$pause"
	assert_equal "$(nsenter --net="/proc/$pause/ns/net" cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" 80
	assert_equal "$(nsenter --ipc="/proc/$pause/ns/ipc" cat /proc/sys/kernel/shm_rmid_forced)" 1
	config="$(jq -n -c --arg img "$BUSYBOX_IMAGE" --arg t "$TOKEN" '{metadata: {name: "c"}, image: {image: $img},
		command: ["sleep", "3600"], logPath: "c.log", envs: [{key: "TINYRUN_TEST_TOKEN", value: $t}],
		linux: {securityContext: {namespaceOptions: {network: "POD", pid: "POD", ipc: "POD"},
			runAsUser: {value: 1000}, readonlyRootfs: true,
			capabilities: {dropCapabilities: ["ALL"], addCapabilities: ["NET_BIND_SERVICE"]},
			noNewPrivs: true, seccomp: {profileType: "RuntimeDefault"}}}}')"
	cri CreateContainer "$(jq -n -c --arg p "$POD" --argjson c "$config" --argjson s "$conf" \
		'{podSandboxId: $p, config: $c, sandboxConfig: $s}')"
	CTR="$(jq -r .containerId <<<"$output")"
	cri StartContainer "{\"containerId\": \"$CTR\"}"
	record_pid "$(runtime_pid "$CTR")"
	exec_sync "$CTR" sh -c 'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status; touch /x 2>&1; ps -o pid,args'
	run b64 stdout
	assert_line --index 0 1000
	assert_line --regexp '^CapBnd:[[:space:]]+0000000000000400$'
	# uid 1000 without ambient capabilities: none effective
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	assert_output --partial "Read-only file system"
	# pid POD: the pause is PID 1 of the container's pid namespace
	assert_line --regexp '^ +1 /pause$'
	# StopContainer: TERM, then KILL when the grace period is over
	cri StopContainer "{\"containerId\": \"$CTR\", \"timeout\": 1}"
	ctr_status "$CTR"
	assert_equal "$(jq -r .status.state <<<"$output")" CONTAINER_EXITED
	assert_equal "$(jq -r .status.exitCode <<<"$output")" 143
	remove_pod
}

@test "cri: mounts, hostname, DNS, a tty and Attach" {
	mkdir -p "$LOGS/p11" "$BATS_TEST_TMPDIR/vol"
	echo "vol-$TOKEN" >"$BATS_TEST_TMPDIR/vol/f"
	conf="$(pod_config p11 | jq -c '.dnsConfig = {servers: ["192.0.2.53"], searches: ["tinyrun.test"]}')"
	cri RunPodSandbox "$(jq -n -c --argjson c "$conf" --arg h "$HANDLER" '{config: $c, runtimeHandler: $h}')"
	POD="$(jq -r .podSandboxId <<<"$output")"
	record_pid "$(runtime_pid "$POD")"
	config="$(jq -n -c --arg img "$BUSYBOX_IMAGE" --arg t "$TOKEN" --arg vol "$BATS_TEST_TMPDIR/vol" \
		'{metadata: {name: "c"}, image: {image: $img}, command: ["sh"], tty: true, stdin: true,
		logPath: "c.log", envs: [{key: "TINYRUN_TEST_TOKEN", value: $t}],
		mounts: [{containerPath: "/vol", hostPath: $vol, readonly: true},
			{containerPath: "/rw", hostPath: $vol}],
		linux: {securityContext: {namespaceOptions: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}}')"
	cri CreateContainer "$(jq -n -c --arg p "$POD" --argjson c "$config" --argjson s "$conf" \
		'{podSandboxId: $p, config: $c, sandboxConfig: $s}')"
	CTR="$(jq -r .containerId <<<"$output")"
	cri StartContainer "{\"containerId\": \"$CTR\"}"
	record_pid "$(runtime_pid "$CTR")"
	exec_sync "$CTR" sh -c 'hostname; cat /vol/f; touch /vol/x 2>&1; echo w >/rw/w; cat /etc/resolv.conf; grep -c p11 /etc/hosts; tty'
	run b64 stdout
	assert_line --index 0 p11
	assert_line --index 1 "vol-$TOKEN"
	assert_line --index 2 --partial "Read-only file system"
	assert_line "nameserver 192.0.2.53"
	assert_line "search tinyrun.test"
	# ExecSync has no terminal even when the container has one
	assert_line "not a tty"
	[[ -f "$BATS_TEST_TMPDIR/vol/w" ]]
	# Attach to the container's tty: what is typed reaches its shell
	cri Attach "{\"containerId\": \"$CTR\", \"stdin\": true, \"stdout\": true, \"tty\": true}"
	url="$(jq -r .url <<<"$output")"
	run_nohang "$PY" "$CRI_LIB/cri.py" stream "$url" "tty; echo at-\$((6*7)); exit 4"$'\n'
	assert_output --partial /dev/pts/0
	assert_output --partial at-42
	wait_exited "$CTR"
	assert_equal "$(jq -r .status.exitCode <<<"$output")" 4
	remove_pod
}

@test "cri: an ExecSync past its timeout is killed" {
	run_pod p12
	start_ctr c '{}' sleep 3600
	run_nohang "$PY" "$CRI_LIB/cri.py" "$CRI/c/containerd.sock" ExecSync \
		"{\"containerId\": \"$CTR\", \"cmd\": [\"sleep\", \"1001\"], \"timeout\": 1}"
	assert_failure
	assert_output --partial timeout
	# the probe's process is gone
	for ((i = 0; i < 100; i++)); do
		pgrep -f '^sleep 1001$' >/dev/null || break
		sleep 0.05
	done
	run pgrep -f '^sleep 1001$'
	assert_failure
	remove_pod
}

@test "cri: a privileged container" {
	run_pod p13 '.linux.securityContext.privileged = true'
	start_ctr c '{linux: {securityContext: {privileged: true}}}' sleep 3600
	exec_sync "$CTR" sh -c 'grep -E "^(CapEff|Seccomp):" /proc/self/status; grep " /sys " /proc/self/mountinfo; ls /dev/kmsg'
	run b64 stdout
	assert_line --regexp '^Seccomp:[[:space:]]+0$'
	# every capability the host gives us (the runtime cannot add more)
	assert_line "$(grep '^CapEff:' /proc/self/status)"
	assert_line --regexp ' /sys rw,'
	# the host's devices
	assert_line /dev/kmsg
	remove_pod
}

@test "cri: a Bidirectional volume (a CSI node plugin's) propagates mounts both ways" {
	# kubelet's Bidirectional: the host path is on a shared mount (containerd
	# refuses it otherwise), the container is privileged and mounts into it
	vol="$BATS_TEST_TMPDIR/bvol"
	mkdir -p "$vol"
	mount -t tmpfs -o size=1m "tr-bvol-$TOKEN" "$vol"
	mount --make-shared "$vol"
	run_pod p15 '.linux.securityContext.privileged = true'
	start_ctr c "{linux: {securityContext: {privileged: true}},
		mounts: [{containerPath: \"/bvol\", hostPath: \"$vol\", propagation: \"PROPAGATION_BIDIRECTIONAL\"}]}" sleep 3600
	# container -> host: a tmpfs mounted under the volume inside shows on the host
	exec_sync "$CTR" sh -c "mkdir /bvol/in && mount -t tmpfs -o size=1m tr-in-$TOKEN /bvol/in && echo mounted"
	run b64 stdout
	assert_output mounted
	run awk -v m="$vol/in" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo
	assert_output "tr-in-$TOKEN"
	# host -> container: a tmpfs the host mounts under the volume shows inside
	mkdir "$vol/out"
	mount -t tmpfs -o size=1m "tr-out-$TOKEN" "$vol/out"
	exec_sync "$CTR" awk '$5 == "/bvol/out" { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo
	run b64 stdout
	assert_output "tr-out-$TOKEN"
	remove_pod
	umount "$vol/out" "$vol/in"
	umount "$vol"
}

@test "cri: a restarted container (attempt 1) and a debug container in the target's pid namespace" {
	run_pod p14
	start_ctr app '{}' sh -c 'echo first; exit 1'
	first="$CTR"
	wait_exited "$first"
	# kubelet's restart: a new container of the same name, the next attempt
	start_ctr app '{metadata: {attempt: 1}}' sh -c 'echo second; exec sleep 3600'
	second="$CTR"
	cri RemoveContainer "{\"containerId\": \"$first\"}"
	[[ ! -e "$(state_dir "$first")" ]]
	ctr_status "$second"
	assert_equal "$(jq -r .status.state <<<"$output")" CONTAINER_RUNNING
	assert_equal "$(jq -r .status.metadata.attempt <<<"$output")" 1
	# kubectl debug --target: pid namespace TARGET
	start_ctr debug "{linux: {securityContext: {namespaceOptions: {pid: \"TARGET\", targetId: \"$second\"}}}}" sleep 3600
	exec_sync "$CTR" ps -o pid,args
	run b64 stdout
	assert_line --regexp '^ +1 sleep 3600$'
	assert_equal "$(grep -c 'sleep 3600' <<<"$output")" 2
	remove_pod
}

@test "cri: pods survive a containerd restart" {
	run_pod p15
	start_ctr c '{}' sleep 3600
	pid="$(runtime_pid "$CTR")"
	record_pid "$pid"
	cri_containerd_stop_daemon
	cri_containerd_start
	# the shim kept the container; containerd finds it again
	ctr_status "$CTR"
	assert_equal "$(jq -r .status.state <<<"$output")" CONTAINER_RUNNING
	assert_equal "$(runtime_pid "$CTR")" "$pid"
	exec_sync "$CTR" echo "after-$TOKEN"
	assert_equal "$(b64 stdout)" "after-$TOKEN"
	remove_pod
	proc_wait_gone "$pid"
}
