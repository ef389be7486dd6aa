#!/usr/bin/env bats
# Hostile config.json files (the worst of tests/fuzz/'s hand-written cases):
# `create` exits 1 with one line naming the JSON path (or the place in the
# text), does not crash or hang, and leaves nothing behind.

load helpers

# hostile_config PYTHON: $BUNDLE/config.json = what the python snippet prints
# with `c` the bundle's config (a dict) or, when it writes `out` (bytes), that.
hostile_config() {
	python3 - "$BUNDLE/config.json" "$1" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
c = json.load(open(path))
env = {"c": c, "json": json, "out": None}
exec(code, env)
out = env["out"] if env["out"] is not None else json.dumps(env["c"]).encode()
open(path, "wb").write(out)
PY
}

# create_refused NEEDLE...: exit 1, one line containing every NEEDLE, nothing left.
create_refused() {
	# timeout: a runtime that blocks (on a FIFO, say) must fail the test
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ] || fail "expected one line, got ${#lines[@]}: ${output:0:500}"
	local needle
	for needle in "$@"; do
		assert_output --partial "$needle"
	done
	run runtime state "$CID"
	assert_failure 1
	assert_no_leftovers
}

@test "hostile: a million nested arrays" {
	hostile_config 'out = b"[" * 1000000 + b"]" * 1000000'
	create_refused "config.json: invalid JSON: nested deeper than 1000 levels"
}

@test "hostile: nesting deep inside process.args" {
	hostile_config 's = json.dumps(c); out = (s[:-1] + ", \"x\": " + "{\"a\": " * 200000 + "1" + "}" * 200000 + "}").encode()'
	create_refused "nested deeper than 1000 levels"
}

@test "hostile: \\u0000 inside a string, NUL byte after the document" {
	hostile_config 'c["process"]["args"] = ["sh\u0000-c", "true"]'
	create_refused 'invalid JSON: \u0000 (a NUL character) in a string'
	hostile_config 'out = json.dumps(c).encode() + b"\0{garbage"'
	create_refused "invalid JSON: NUL byte at offset"
}

@test "hostile: integers out of range and not integers" {
	hostile_config 'c["linux"].setdefault("resources", {})["pids"] = {"limit": -0.0}'
	create_refused ".linux.resources.pids.limit: expected integer"
	hostile_config 'del c["linux"]["resources"]["pids"]; out = json.dumps(c).replace("\"uid\": 0", "\"uid\": 18446744073709551616").encode()'
	create_refused ".process.user.uid: 18446744073709551616 is out of range"
	hostile_config 'c["process"]["user"]["uid"] = 0; out = json.dumps(c).replace("\"uid\": 0", "\"uid\": 1e309").encode()'
	create_refused ".process.user.uid: expected integer"
}

@test "hostile: 100000 annotations, the last one not a string" {
	hostile_config 'c["annotations"] = {"k%d" % i: "v" for i in range(100000)}; c["annotations"]["zz"] = 1'
	create_refused '.annotations.zz: expected string'
}

@test "hostile: 100000 unknown capabilities" {
	hostile_config 'c["process"]["capabilities"]["bounding"] = ["CAP_BOGUS%d" % i for i in range(100000)]'
	create_refused ".process.capabilities.bounding[64]: more than 64 unknown capabilities"
}

@test "hostile: a control character in a quoted name stays on one line" {
	hostile_config 'c["process"]["rlimits"] = [{"type": "RLIMIT_\nEVIL", "soft": 1, "hard": 1}]'
	create_refused '.process.rlimits[0].type: unknown rlimit "RLIMIT_?EVIL"'
}

@test "hostile: seccomp: 1e5 syscall names, a bad action after 4000 good ones" {
	hostile_config 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["getpid"] * 100000, "action": "SCMP_ACT_ERRNO"}]}'
	create_refused '.linux.seccomp.syscalls[0].names: more than 4096 syscall names'
	hostile_config 'c["linux"]["seccomp"]["syscalls"] = [{"names": ["getpid"] * 4000, "action": "SCMP_ACT_ERRNO"}, {"names": ["getpid"], "action": "SCMP_ACT_EXPLODE"}]'
	create_refused '.linux.seccomp.syscalls[1].action: unknown seccomp action "SCMP_ACT_EXPLODE"'
}

@test "hostile: not an object, not UTF-8, too large" {
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/good.json"
	hostile_config 'out = json.dumps(c).encode().replace(b"sleep", b"sl\xffp")'
	create_refused "config.json: invalid JSON:" "UTF8"
	cp "$BATS_TEST_TMPDIR/good.json" "$BUNDLE/config.json"
	hostile_config 'c["hostname"] = "a" * (33 << 20)'
	create_refused "config.json:" "too large (at most 32 MiB)"
	echo '[1, 2, 3]' >"$BUNDLE/config.json"
	create_refused "config.json: expected object"
}

# ---- identity: ids setresuid/setgroups cannot take ------------------------

# 4294967295 is (uid_t)-1: setresuid(-1, -1, -1) changes nothing, so the
# process would run as root. This one ESCAPES without the check in oci/: the
# container runs and prints uid 0.
@test "hostile: process.user.uid 4294967295 is refused, the process never runs as root" {
	update_config '.process.user.uid = 4294967295 | .process.user.gid = 1000'
	set_cmd 'echo "ran as uid $(id -u)"'
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	refute_output --partial "ran as uid"
	assert_failure 1
	assert_output --partial "config.json: .process.user.uid: 4294967295 is out of range (0 to 2147483647)"
	assert_no_leftovers
}

@test "hostile: gid and additionalGids outside 0-2147483647" {
	update_config '.process.user.uid = 1000 | .process.user.gid = 4294967295'
	create_refused "config.json: .process.user.gid: 4294967295 is out of range (0 to 2147483647)"
	update_config '.process.user.gid = 1000 | .process.user.additionalGids = [10, 2147483648]'
	create_refused "config.json: .process.user.additionalGids[1]: 2147483648 is out of range (0 to 2147483647)"
	update_config '.process.user.additionalGids = [] | .process.user.uid = 2147483648'
	create_refused "config.json: .process.user.uid: 2147483648 is out of range (0 to 2147483647)"
}

# ---- hostile input that used to be accepted ------------------------------

@test "hostile: config.json that is a FIFO, a directory or a device: refused, no hang" {
	rm "$BUNDLE/config.json"
	mkfifo "$BUNDLE/config.json"
	create_refused "config.json: not a regular file (a FIFO)"
	rm "$BUNDLE/config.json"
	mkdir "$BUNDLE/config.json"
	create_refused "config.json: not a regular file (a directory)"
	rmdir "$BUNDLE/config.json"
	ln -s /dev/zero "$BUNDLE/config.json"   # endless
	create_refused "config.json: not a regular file (a character device)"
}

@test "hostile: comments in config.json (// and /* */) are not JSON" {
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/good.json"
	hostile_config 's = json.dumps(c); out = (s[:-1] + ", \"x\": 1 // uid 0\n}").encode()'
	create_refused "config.json: invalid JSON: lexical error: probable comment found in input text, comments are not enabled, line 1, column"
	cp "$BATS_TEST_TMPDIR/good.json" "$BUNDLE/config.json"
	hostile_config 'out = ("/* a comment */ " + json.dumps(c)).encode()'
	create_refused "config.json: invalid JSON:" "comments are not enabled"
	# a string holding // or /* */ is fine
	cp "$BATS_TEST_TMPDIR/good.json" "$BUNDLE/config.json"
	update_config '.annotations = {"x": "http://a/* b */"} | .process.args = ["true"]'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
}

@test "hostile: process.env entries without = or with an empty name" {
	update_config '.process.env += ["NOEQUALS"]'
	create_refused 'config.json: .process.env[3]: "NOEQUALS" is not NAME=VALUE (no '"'"'='"'"')'
	update_config '.process.env[3] = "=x"'
	create_refused 'config.json: .process.env[3]: "=x": empty variable name'
}

@test "hostile: device numbers beyond dev_t (12-bit major, 20-bit minor)" {
	# 4294967297 truncated to 32 bits is 1: c 1:1 is /dev/mem
	update_config '.linux.devices = [{"path": "/dev/x", "type": "c", "major": 4294967297, "minor": 1}]'
	create_refused "config.json: .linux.devices[0].major: 4294967297 is out of range (0 to 4095)"
	update_config '.linux.devices = [{"path": "/dev/x", "type": "c", "major": 1, "minor": 1048576}]'
	create_refused "config.json: .linux.devices[0].minor: 1048576 is out of range (0 to 1048575)"
	update_config 'del(.linux.devices) | .linux.resources.devices += [{"allow": true, "type": "c", "major": 4294967297, "minor": 1, "access": "rwm"}]'
	create_refused "config.json: .linux.resources.devices[1].major: 4294967297 is out of range (-1 to 4095)"
	update_config '.linux.resources.devices[1].major = 1 | .linux.resources.devices[1].minor = 1048577'
	create_refused "config.json: .linux.resources.devices[1].minor: 1048577 is out of range (-1 to 1048575)"
}

@test "hostile: device rule access with letters other than r, w, m: they are dropped with a warning (runc); none of r, w, m is refused, not read as all" {
	update_config '.linux.resources.devices += [{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "rwa"}]'
	# cgroup v1 lists the rule as the kernel took it (v2 has no list: its eBPF program is built from the same rule)
	set_args sh -c 'echo ran; cat /sys/fs/cgroup/devices/devices.list 2>/dev/null; true'
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --partial 'warning: linux.resources.devices[1].access: "rwa" is "rw" (letters other than r, w, m ignored, as runc)'
	assert_line ran
	if [[ -d /sys/fs/cgroup/devices ]]; then
		assert_line 'c 1:11 rw'
		refute_line 'c 1:11 rwm'
	fi
	update_config '.linux.resources.devices[1].access = "RW"'
	create_refused 'config.json: .linux.resources.devices[1].access: invalid access "RW" (none of r, w, m)'
	update_config '.linux.resources.devices[1].access = "a"'
	create_refused 'config.json: .linux.resources.devices[1].access: invalid access "a" (none of r, w, m)'
}

@test "hostile: negative resource values other than -1 (unlimited)" {
	update_config '.linux.resources.memory = {"limit": -2}'
	create_refused "config.json: .linux.resources.memory.limit: -2 is out of range (-1 to 9223372036854775807)"
	update_config '.linux.resources.memory = {"limit": 1048576, "swap": -4096}'
	create_refused "config.json: .linux.resources.memory.swap: -4096 is out of range (-1 to 9223372036854775807)"
	update_config '.linux.resources.memory = {"reservation": -9223372036854775808}'
	create_refused "config.json: .linux.resources.memory.reservation:" "is out of range (-1 to 9223372036854775807)"
	update_config 'del(.linux.resources.memory) | .linux.resources.pids = {"limit": -2}'
	create_refused "config.json: .linux.resources.pids.limit: -2 is out of range (-1 to 9223372036854775807)"
}

@test "hostile: relative maskedPaths and readonlyPaths" {
	update_config '.linux.maskedPaths += ["proc/kcore"]'
	create_refused 'config.json: .linux.maskedPaths[' '"proc/kcore" is not an absolute path'
	update_config '.linux.maskedPaths = [] | .linux.readonlyPaths = ["/proc/sys", "../etc"]'
	create_refused 'config.json: .linux.readonlyPaths[1]: "../etc" is not an absolute path'
}

@test "hostile: update -r with a FIFO, a directory, a negative pids limit: refused, no hang" {
	mkfifo "$BATS_TEST_TMPDIR/res.json"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update -r "$BATS_TEST_TMPDIR/res.json" "$CID"
	assert_failure 1
	assert_output --partial "update: -r $BATS_TEST_TMPDIR/res.json: not a regular file (a FIFO)"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update -r "$BATS_TEST_TMPDIR" "$CID"
	assert_failure 1
	assert_output --partial "not a regular file (a directory)"
	echo '{"pids": {"limit": -2}}' >"$BATS_TEST_TMPDIR/neg.json"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update -r "$BATS_TEST_TMPDIR/neg.json" "$CID"
	assert_failure 1
	assert_output --partial "neg.json: .pids.limit: -2 is out of range (-1 to 9223372036854775807)"
	# the flags too, with the flag named and the value once
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update --pids-limit -5 "$CID"
	assert_failure 1
	assert_output --partial 'update: --pids-limit: -5 is out of range (-1 to 9223372036854775807)'
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" update --memory -2 "$CID"
	assert_failure 1
	assert_output --partial 'update: --memory: invalid value "-2"'
	assert_no_leftovers
}

# ---- the image's files the child reads ------------------------------------
# Every file the container's child (and exec's) reads by a path the image
# names is opened O_NONBLOCK and read only when it is a regular file: a FIFO
# in the image never holds run, create or exec.

# image_fifo PATH: PATH in the bundle's rootfs becomes a FIFO (the rootfs is
# hard links to the shared base: the old file is unlinked, never written).
image_fifo() {
	rm -f "$BUNDLE/rootfs$1"
	mkfifo -m 0755 "$BUNDLE/rootfs$1"
}

# image_script PATH INTERPRETER: an executable "#!INTERPRETER" script.
image_script() {
	printf '#!%s\necho the script ran\n' "$2" >"$BUNDLE/rootfs$1"
	chmod 0755 "$BUNDLE/rootfs$1"
}

@test "hostile image: a #! interpreter that is a FIFO: run and create fail at once, naming it" {
	image_fifo /evil
	image_script /bin/evil-script /evil
	set_args /bin/evil-script
	create_refused "process.args[0]: /bin/evil-script: interpreter /evil: not a regular file (a FIFO): permission denied"
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "process.args[0]: /bin/evil-script: interpreter /evil: not a regular file (a FIFO): permission denied"
	refute_output --partial "the script ran"
	assert_no_leftovers
}

@test "hostile image: a #! interpreter two scripts down that is a FIFO, found through PATH" {
	image_fifo /evil
	image_script /bin/evil-inner /evil
	image_script /bin/evil-outer /bin/evil-inner
	set_args evil-outer
	create_refused "process.args[0]: /bin/evil-outer: interpreter /evil: not a regular file (a FIFO): permission denied"
}

@test "hostile image: a program that is an executable FIFO: create fails at once, naming it" {
	image_fifo /bin/evil-fifo
	set_args /bin/evil-fifo
	create_refused "process.args[0]: /bin/evil-fifo: not a regular file (a FIFO): permission denied"
}

@test "hostile image: exec of a script whose #! interpreter is a FIFO fails at once; the container lives on" {
	run_detached "$CID"
	image_fifo /evil
	image_script /bin/evil-script /evil
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec "$CID" /bin/evil-script
	assert_failure 255   # runc's exit status of an exec that failed itself
	assert_output "tinyrun: exec failed: process.args[0]: /bin/evil-script: interpreter /evil: not a regular file (a FIFO): permission denied"
	refute_output --partial "the script ran"
	run_nohang timeout -k 2 20 "$RUNTIME" --root "$ROOT" exec "$CID" echo still here
	assert_success
	assert_output "still here"
}

# HOME is the user's home in the image's /etc/passwd (process_env_final).
@test "hostile image: /etc/passwd that is a FIFO with no writer: HOME is /, no hang" {
	image_fifo /etc/passwd
	update_config '.process.env = ["PATH=/bin"]'
	set_args sh -c 'echo "home=$HOME"'
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "home=/"
}

@test "hostile image: /etc/passwd that is a FIFO with data in it: not read, HOME is /" {
	image_fifo /etc/passwd
	# the test holds both ends (O_RDWR does not wait): the FIFO has a line
	exec 5<>"$BUNDLE/rootfs/etc/passwd"
	printf 'root:x:0:0:root:/from-the-fifo:/bin/sh\n' >&5
	update_config '.process.env = ["PATH=/bin"]'
	set_args sh -c 'echo "home=$HOME"'
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	exec 5>&-
	assert_success
	assert_output "home=/"
}

# tmpcopyup copies the image's files into the new tmpfs: a file that turns
# into a FIFO between the copy's fstatat and its open (the test swaps a file
# and a FIFO with RENAME_EXCHANGE as fast as it can) is refused, never
# waited on: each create ends, at once.
@test "hostile image: tmpcopyup of a file swapped with a FIFO: create never hangs" {
	mkdir -p "$BUNDLE/rootfs/cu"
	echo data >"$BUNDLE/rootfs/cu/f"
	mkfifo "$BUNDLE/rootfs/cu/p"
	update_config '.mounts += [{"destination": "/cu", "type": "tmpfs", "source": "tmpfs", "options": ["tmpcopyup"]}]'
	python3 - "$BUNDLE/rootfs/cu" <<'PY' 3>&- 4>&- &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
while os.path.exists(sys.argv[1] + "/f"):
    libc.renameat2(d, b"f", d, b"p", 2)   # RENAME_EXCHANGE
PY
	local swapper=$! i refused=0
	for ((i = 0; i < 300 && !refused; i++)); do
		run_nohang timeout -k 2 10 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
		[[ $status -ne 124 && $status -ne 137 ]] || break
		if [[ $status -eq 0 ]]; then
			runtime_timeout 10 delete --force "$CID" >/dev/null 2>&1 || true
		else
			assert_output "tinyrun: mount tmpfs on /cu: tmpcopyup: Permission denied"
			refused=1
		fi
	done
	kill "$swapper"
	wait "$swapper" || true
	[[ $status -ne 124 && $status -ne 137 ]] || fail "create hung (try $i): ${output:0:300}"
	((refused)) || skip "the swap never fell between the copy's fstatat and its open in $i tries"
	assert_no_leftovers
}

# The sandbox profile's minimal root copies the image's /etc/ld.so.cache
# (rootfs/sandbox/minimal.c): a FIFO there is neither waited on nor read.
@test "hostile image: the sandbox's /etc/ld.so.cache a FIFO, empty or with data: not copied, no hang" {
	rm -f "$BUNDLE/config.json"
	"$RUNTIME" spec --sandbox -b "$BUNDLE"
	update_config '.annotations["run.tinyrun.userns.range"] = "1900000000-1900065535" | .process.env += [$t]' \
		--arg t "TINYRUN_TEST_TOKEN=$TOKEN"
	set_args checker readdir:/etc
	image_fifo /etc/ld.so.cache
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output "readdir:/etc=group,passwd"
	exec 5<>"$BUNDLE/rootfs/etc/ld.so.cache"
	printf 'from the fifo' >&5
	run_nohang timeout -k 2 20 "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	exec 5>&-
	assert_success
	assert_output "readdir:/etc=group,passwd"
}
