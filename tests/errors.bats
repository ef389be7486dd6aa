#!/usr/bin/env bats
# Errors: a bad bundle or config makes `create` (and `run`) exit 1 with one
# clear line that names the problem, and leaves NOTHING behind: no state dir,
# no mount, no process, no cgroup. Texts differ between runtimes; the tests
# assert only that the field or path is named.

load helpers

# create_fails NEEDLE...: create must exit 1, print something naming each
# NEEDLE, and leave nothing behind.
create_fails() {
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	[ -n "$output" ] || fail "no error message"
	local needle
	for needle in "$@"; do
		[[ -n "${RUNC_UNNAMED:-}" ]] && is_runc && break
		assert_output --partial "$needle"
	done
	# tinyrun: exactly one line (runc's Go errors sometimes wrap).
	is_runc || [ "${#lines[@]}" -eq 1 ] || fail "expected one line, got ${#lines[@]}: $output"
	run runtime state "$CID"
	assert_failure 1
	assert_no_leftovers
}

# The same through `run` in the foreground.
run_fails() {
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	local needle
	for needle in "$@"; do
		assert_output --partial "$needle"
	done
	assert_no_leftovers
}

@test "missing bundle directory" {
	BUNDLE="$BATS_TEST_TMPDIR/no-such-bundle"
	create_fails no-such-bundle
}

@test "bundle without config.json" {
	rm "$BUNDLE/config.json"
	create_fails config.json
}

@test "config.json that is not JSON" {
	RUNC_UNNAMED=1 # runc: "unexpected EOF", no file name
	echo '{"ociVersion": "1.0.2", "process": {' >"$BUNDLE/config.json"
	create_fails config.json
}

@test "config.json that is empty" {
	RUNC_UNNAMED=1 # runc: "unexpected EOF", no file name
	: >"$BUNDLE/config.json"
	create_fails config.json
}

@test "config.json that is a JSON array" {
	RUNC_UNNAMED=1 # runc: "unexpected EOF", no file name
	echo '[]' >"$BUNDLE/config.json"
	create_fails config.json
}

@test "process.args of the wrong type" {
	update_config '.process.args = "sh"'
	create_fails args
}

@test "process.user.uid of the wrong type" {
	update_config '.process.user.uid = "root"'
	create_fails uid
}

@test "process.user.uid negative" {
	update_config '.process.user.uid = -1'
	create_fails uid
}

@test "process.args empty" {
	update_config '.process.args = []'
	create_fails args
}

@test "process missing" {
	update_config 'del(.process)'
	create_fails process
}

@test "process.cwd relative" {
	RUNC_UNNAMED=1 # runc: "Cwd must be an absolute path"
	update_config '.process.cwd = "relative/dir"'
	create_fails cwd
}

@test "unknown rlimit type" {
	update_config '.process.rlimits += [{type: "RLIMIT_FOO", soft: 1, hard: 1}]'
	create_fails RLIMIT_FOO
}

@test "rlimit soft above hard" {
	is_runc && skip "runc passes it to setrlimit and fails later"
	update_config '.process.rlimits = [{type: "RLIMIT_NOFILE", soft: 2048, hard: 1024}]'
	create_fails RLIMIT_NOFILE
}

@test "unknown capability: warned about by name and ignored, like runc" {
	# runc ignores unknown or unavailable capabilities with a warning, so that
	# configs written for newer kernels still run; tinyrun does the same.
	update_config '.process.capabilities.bounding += ["CAP_NOPE"] | .process.capabilities.effective += ["CAP_NOPE"]'
	set_args /bin/checker CapBnd
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output --partial CAP_NOPE
	assert_line "CapBnd=CAP_KILL,CAP_NET_BIND_SERVICE,CAP_AUDIT_WRITE"
}

@test "capability name that is not a string" {
	update_config '.process.capabilities.bounding += [5]'
	create_fails bounding
}

@test "unknown namespace type" {
	update_config '.linux.namespaces += [{type: "bogus"}]'
	create_fails bogus
}

@test "namespace path that does not exist" {
	update_config '.linux.namespaces = [.linux.namespaces[] | if .type == "ipc" then .path = "/no/such/ns" else . end]'
	create_fails /no/such/ns
}

@test "no mount namespace: refused (runc only chroots, mounting into the host's mount table)" {
	is_runc && skip "runc runs it with chroot in the host's mount namespace"
	update_config '.linux.namespaces |= map(select(.type != "mount"))'
	create_fails ".linux.namespaces" "a mount namespace is required"
	# nothing of the spec's mounts reached the host
	run grep -c " $BUNDLE/rootfs" /proc/self/mountinfo
	assert_output 0
}

@test "root.path that does not exist" {
	update_config '.root.path = "no-such-rootfs"'
	create_fails no-such-rootfs
}

@test "root missing" {
	is_runc && skip "runc 1.1 panics on a config without root"
	update_config 'del(.root)'
	create_fails root
}

@test "ociVersion outside 1.0.0 - 1.3.x" {
	is_runc && skip "runc 1.1 does not check ociVersion"
	update_config '.ociVersion = "2.0.0"'
	create_fails ociVersion
}

@test "mount without destination" {
	is_runc && skip "runc 1.1 fails with a bare mount error"
	update_config '.mounts += [{type: "tmpfs", source: "tmpfs"}]'
	create_fails destination
}

@test "hook with a relative path" {
	is_runc && skip "runc 1.1 reports the exec error without the field"
	update_config '.hooks.createRuntime = [{path: "relative/hook"}]'
	create_fails relative/hook
}

@test "run fails the same way and leaves nothing" {
	update_config '.process.rlimits += [{type: "RLIMIT_FOO", soft: 1, hard: 1}]'
	run_fails RLIMIT_FOO
}

@test "unknown keys are ignored" {
	update_config '.zzzUnknown = {a: 1} | .process.zzzUnknown = [1, 2] | .linux.zzzUnknown = "x"'
	set_cmd 'echo fine'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line fine
}

@test "a failed create does not block a later create of the same id" {
	update_config '.process.args = []'
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	set_args sleep 3600
	create_container "$CID"
	assert_equal "$(state_field "$CID" status)" created
}

@test "a failure after the process exists leaves nothing (bad mount source)" {
	update_config '.mounts += [{destination: "/mnt", type: "bind", source: "/no/such/source", options: ["rbind"]}]'
	create_fails /no/such/source
}

# ---- exec: ids and process files ----------------------------------------

# 4294967295 is (uid_t)-1: setresuid(-1, -1, -1) leaves the exec'd process
# root. A usage error: exit 1, nothing runs.
@test "exec --user with an id outside 0-2147483647 is refused, nothing runs as root" {
	is_runc && skip "runc exits 255 and words it differently"
	run_detached "$CID"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --user 4294967295 "$CID" sh -c 'echo "ran as uid $(id -u)"'
	refute_output --partial "ran as uid"
	assert_failure 1
	assert_output --partial "exec --user: uid 4294967295 out of range 0-2147483647"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --user 1000:4294967295 "$CID" sh -c 'echo "ran as gid $(id -g)"'
	refute_output --partial "ran as gid"
	assert_failure 1
	assert_output --partial "exec --user: gid 4294967295 out of range 0-2147483647"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --user 2147483648 "$CID" true
	assert_failure 1
	assert_output --partial "uid 2147483648 out of range"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --user -1 "$CID" true
	assert_failure 1
	assert_output --partial '--user: expected UID[:GID], got "-1"'
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --additional-gids 4294967295 "$CID" true
	assert_failure 1
	assert_output --partial "--additional-gids: invalid gid"
	# the limit itself is fine
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec --user 2147483647:2147483647 "$CID" sh -c 'echo "$(id -u):$(id -g)"'
	assert_success
	assert_output "2147483647:2147483647"
}

@test "exec -p: uid 4294967295, env without =, a FIFO, a comment: refused, exit 255 as runc, no hang" {
	is_runc && skip "runc words it differently"
	run_detached "$CID"
	local p="$BATS_TEST_TMPDIR/process.json"
	jq '.process | .args = ["sh", "-c", "echo ran as uid $(id -u)"] | .user.uid = 4294967295' "$BUNDLE/config.json" >"$p"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p "$p" "$CID"
	refute_output --partial "ran as uid"
	assert_failure 255
	assert_output "tinyrun: exec failed: $p: .user.uid: 4294967295 is out of range (0 to 2147483647)"
	jq '.process | .user.additionalGids = [4294967295]' "$BUNDLE/config.json" >"$p"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p "$p" "$CID"
	assert_failure 255
	assert_output --partial "process.json: .user.additionalGids[0]: 4294967295 is out of range"
	jq '.process | .env += ["=x"]' "$BUNDLE/config.json" >"$p"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p "$p" "$CID"
	assert_failure 255
	assert_output --partial 'process.json: .env[3]: "=x": empty variable name'
	# and as a flag
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -e =x "$CID" true
	assert_failure 1
	assert_output --partial 'exec: --env: expected KEY=VALUE, got "=x"'
	{ echo '// uid 0'; jq '.process' "$BUNDLE/config.json"; } >"$p"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p "$p" "$CID"
	assert_failure 255
	assert_output --partial "process.json: invalid JSON: lexical error: probable comment found"
	rm "$p"
	mkfifo "$p"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p "$p" "$CID"
	assert_failure 255
	assert_output --partial "--process $p: not a regular file (a FIFO)"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec -p /dev/zero "$CID"
	assert_failure 255
	assert_output --partial "--process /dev/zero: not a regular file (a character device)"
	# the container is untouched: exec still works
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec "$CID" true
	assert_success
}

@test "exec -p <(...) and update -r <(...): a pipe is read to its end, as runc's own suite does" {
	run_detached "$CID"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec \
		-p <(jq '.process | .args = ["echo", "from a pipe"]' "$BUNDLE/config.json") "$CID"
	assert_success
	assert_output "from a pipe"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update -r <(echo '{"pids": {"limit": 99}}') "$CID"
	assert_success
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec "$CID" \
		sh -c 'cat /sys/fs/cgroup/pids/pids.max 2>/dev/null ||
			cat "/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/pids.max"'
	assert_output 99
}

@test "a config.json that is a FIFO fails create without waiting for a writer" {
	rm "$BUNDLE/config.json"
	mkfifo "$BUNDLE/config.json"
	create_fails "config.json" "not a regular file"
}

# ---- exec failures in runc's wording -------------------------------------

# said TEXT: $output holds TEXT (runc's logrus line escapes the quotes).
said() {
	[[ "${output//\\\"/\"}" == *"$1"* ]] || fail "no '$1' in: $output"
}

# podman/conmon, containerd's shims and dockerd turn runc's texts into 127
# (`executable file not found`, `no such file or directory`) and 126
# (`permission denied`), case-sensitively (dockerd 20.10): the same words,
# lower-case as Go prints them, for create/run and exec.
@test "exec failures of process.args use runc's lower-case wording (run and exec)" {
	printf 'garbage\n' >"$BUNDLE/rootfs/junk"
	chmod 755 "$BUNDLE/rootfs/junk"
	touch "$BUNDLE/rootfs/noexec"
	chmod 644 "$BUNDLE/rootfs/noexec"
	local args want
	while IFS='|' read -r args want; do
		set_args "$args"
		run_nohang runtime run --bundle "$BUNDLE" "$CID"
		assert_failure
		said "$want"
		refute_output --partial "No such"
		refute_output --partial "Permission"
	done <<-'EOF2'
		nosuch|exec: "nosuch": executable file not found in $PATH
		/nosuch|exec: "/nosuch": stat /nosuch: no such file or directory
		/noexec|exec: "/noexec": permission denied
		/bin|exec: "/bin": permission denied
		/junk|exec /junk: exec format error
	EOF2
	assert_no_leftovers
	set_args sleep 3600
	run_detached "$CID"
	run_nohang runtime exec "$CID" /nosuch
	assert_failure 255
	said 'exec: "/nosuch": stat /nosuch: no such file or directory'
	run_nohang runtime exec "$CID" /noexec
	assert_failure 255
	said 'exec: "/noexec": permission denied'
	run_nohang runtime exec "$CID" nosuch
	said 'exec: "nosuch": executable file not found in $PATH'
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	runtime delete "$CID"
}
