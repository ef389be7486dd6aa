#!/usr/bin/env bats
# The output and disk limits (issue 31 §1; runtime/sandbox/output.h,
# oci/sandbox/annotations_output.c): run.tinyrun.output-limit and
# .request-output-limit (run passes on at most N bytes of the task's stdout
# and stderr, then ends it: reason output-limit), .workspace-size and
# .workspace-inodes (the workspace's and /tmp's tmpfs: the disk quota),
# RLIMIT_FSIZE (SIGXFSZ: reason file-size) and the profile's rlimit
# defaults. What the task sees, what run passes on, what the result says.

load helpers


# run_split ID [BUNDLE]: `run` in the foreground with --result $RESULT, its
# stdout in $STDOUT and stderr in $STDERR (separately), status in $status
run_split() {
	RESULT="$BATS_TEST_TMPDIR/result.json" STDOUT="$BATS_TEST_TMPDIR/stdout" STDERR="$BATS_TEST_TMPDIR/stderr"
	rm -f "$RESULT"
	if runtime_timeout 60 run --result "$RESULT" --bundle "${2:-$BUNDLE}" "$1" </dev/null >"$STDOUT" 2>"$STDERR"; then
		status=0
	else
		status=$?
	fi
}

result() {
	jq -c "$1" "$RESULT"
}

setup() {
	tr_setup
}

teardown() {
	tr_teardown
}

@test "output-limit: yes passes on exactly 1000 bytes, the result says truncated and output-limit, the task is gone" {
	sandbox_bundle "$BUNDLE" --output-limit 1000
	set_args yes
	run_split "$CID"
	assert_equal "$status" 137
	assert_equal "$(stat -c %s "$STDOUT")" 1000
	assert_equal "$(tr -d '\n' <"$STDOUT")" "$(printf 'y%.0s' $(seq 500))"
	assert_equal "$(result '.reason, .usage.stdoutTruncated, .usage.stderrTruncated, .usage.stderrBytes' | tr '\n' ' ')" '"output-limit" true false 0 '
	(($(result .usage.stdoutBytes) > 1000))
	grep -q "output limit: stdout truncated, the task was ended" "$STDERR"
	# run ended it: no state dir, no cgroup, no process (teardown checks all of them)
	run runtime list -q
	assert_output ""
}

@test "output-limit: stderr is counted and cut on its own; stdout below the limit passes whole" {
	sandbox_bundle "$BUNDLE" --output-limit 1000
	set_cmd 'printf 0123456789; head -c 5000 /dev/zero | tr "\0" e >&2; sleep 3600'
	run_split "$CID"
	assert_equal "$status" 137
	assert_equal "$(cat "$STDOUT")" 0123456789
	assert_equal "$(head -c 1000 "$STDERR")" "$(printf 'e%.0s' $(seq 1000))"
	assert_equal "$(tail -c +1001 "$STDERR")" "tinyrun: $CID: output limit: stderr truncated, the task was ended"
	assert_equal "$(result '.reason, .usage.stdoutBytes, .usage.stdoutTruncated, .usage.stderrTruncated' | tr '\n' ' ')" '"output-limit" 10 false true '
}

@test "output-limit: a task below the limit passes everything, not truncated; its fds 1 and 2 are run's pipes, not run's own" {
	sandbox_bundle "$BUNDLE" --output-limit 1000
	set_cmd 'head -c 999 /dev/zero | tr "\0" o; printf err >&2; a=$(readlink /proc/$$/fd/1); b=$(readlink /proc/$$/fd/2); echo "$a" >&2; echo "$b" >&2'
	run_split "$CID"
	assert_equal "$status" 0
	assert_equal "$(cat "$STDOUT")" "$(printf 'o%.0s' $(seq 999))"
	run cat "$STDERR"
	assert_line --index 0 --regexp '^errpipe:\[[0-9]+\]$'
	assert_line --index 1 --regexp '^pipe:\[[0-9]+\]$'
	assert_equal "${#lines[@]}" 2
	[[ "${lines[0]#err}" != "${lines[1]}" ]]   # two pipes
	assert_equal "$(result '.reason, .exitCode, .usage.stdoutBytes, .usage.stdoutTruncated, .usage.stderrTruncated' | tr '\n' ' ')" \
		'"exit" 0 999 false false '
	(($(result .usage.stderrBytes) > 3))
}

@test "output-limit: more than a pipe holds, below the limit, passes whole: run reads while it waits (no deadlock)" {
	sandbox_bundle "$BUNDLE" --output-limit 1m
	set_cmd 'head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; exit 3'
	run_split "$CID"
	assert_equal "$status" 3
	assert_equal "$(stat -c %s "$STDOUT") $(stat -c %s "$STDERR")" "300000 200000"
	assert_equal "$(result '.reason, .exitCode, .usage.stdoutBytes, .usage.stderrBytes, .usage.stdoutTruncated, .usage.stderrTruncated' | tr '\n' ' ')" \
		'"exit" 3 300000 200000 false false '
}

@test "request-output-limit: the request's tasks share one cap, recorded in its state dir" {
	sandbox_bundle "$BUNDLE" --request-key
	set_args sleep 3600
	run_detached "$CID"
	local task="$BATS_TEST_TMPDIR/task"
	sandbox_bundle "$task" --request "$CID" --output-limit 1000 --request-output-limit 1500
	cp "$BUNDLE/request.key" "$task/request.key"
	BUNDLE="$task" set_cmd 'head -c 1000 /dev/zero | tr "\0" a'
	run_split "$CID-1" "$task"
	assert_equal "$status" 0
	assert_equal "$(stat -c %s "$STDOUT")" 1000
	assert_equal "$(result '.reason, .usage.stdoutTruncated' | tr '\n' ' ')" '"exit" false '
	assert_equal "$(cat "$ROOT/$CID/output-total")" 1000
	# the second task may pass on only the 500 bytes left
	BUNDLE="$task" set_cmd 'head -c 1000 /dev/zero | tr "\0" b; sleep 3600'
	run_split "$CID-2" "$task"
	assert_equal "$status" 137
	assert_equal "$(cat "$STDOUT")" "$(printf 'b%.0s' $(seq 500))"
	assert_equal "$(result '.reason, .usage.stdoutBytes, .usage.stdoutTruncated' | tr '\n' ' ')" '"output-limit" 1000 true '
	assert_equal "$(cat "$ROOT/$CID/output-total")" 1500
}

@test "workspace-size: a 4096-byte workspace and /tmp refuse a bigger file; the task sees ENOSPC" {
	sandbox_bundle "$BUNDLE" --workspace-size 4096
	set_cmd 'for d in /workspace /tmp; do dd if=/dev/zero of=$d/big bs=8192 count=1; echo "rc=$?"; wc -c <$d/big; done'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --regexp "^dd: error writing '?/workspace/big'?: No space left on device$"
	assert_line --regexp "^dd: error writing '?/tmp/big'?: No space left on device$"
	assert_equal "$(grep -c '^rc=1$' <<<"$output")" 2
	assert_equal "$(grep -cx 4096 <<<"$output")" 2
}

@test "workspace-inodes: an 8-inode workspace takes 7 files (the root is one), the 8th is ENOSPC" {
	sandbox_bundle "$BUNDLE" --workspace-inodes 8
	set_cmd 'for d in /workspace /tmp; do i=0; while touch $d/f$i 2>/dev/null; do i=$((i+1)); done; echo "$d=$i"; touch $d/more; done'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_line "/workspace=7"
	assert_line "/tmp=7"
	assert_line --partial "/workspace/more: No space left on device"
}

@test "RLIMIT_FSIZE: the profile's 64 MiB; a task writing past it gets SIGXFSZ, the result says file-size" {
	sandbox_bundle "$BUNDLE"
	set_cmd 'exec dd if=/dev/zero of=/workspace/big bs=1M count=65'
	run_split "$CID"
	assert_equal "$status" $((128 + 25))
	assert_equal "$(result '.reason, .signal, .status' | tr '\n' ' ')" '"file-size" "SIGXFSZ" 153 '
	# no output limit: no counts in the result
	assert_equal "$(result '.usage.stdoutBytes')" null
}

@test "rlimits: the profile's defaults are what a task sees in /proc/self/limits, and process.rlimits overrides them" {
	sandbox_bundle "$BUNDLE"
	set_args cat /proc/self/limits
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --regexp '^Max core file size +0 +0 +bytes'
	assert_line --regexp '^Max open files +256 +256 +files'
	assert_line --regexp '^Max stack size +8388608 +8388608 +bytes'
	assert_line --regexp '^Max file size +67108864 +67108864 +bytes'
	update_config '(.process.rlimits[] | select(.type == "RLIMIT_NOFILE")) |= {type, soft: 64, hard: 128}'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_line --regexp '^Max open files +64 +128 +files'
}

@test "bad values are refused naming the annotation, exit 1, nothing left" {
	local key val
	sandbox_bundle "$BUNDLE"
	for kv in output-limit=0 output-limit=12x output-limit=-5 output-limit=2000000000000000 \
		request-output-limit=abc workspace-size=1q workspace-inodes=0 workspace-inodes=5000000000; do
		key="run.tinyrun.${kv%%=*}" val="${kv#*=}"
		cp "$BUNDLE/config.json" "$BUNDLE/config.good"
		update_config '.annotations[$k] = $v' --arg k "$key" --arg v "$val"
		run_nohang runtime run --bundle "$BUNDLE" "$CID"
		assert_failure 1
		assert_output --partial "config.json: .annotations[\"$key\"]: expected"
		assert_output --partial "got \"$val\""
		mv "$BUNDLE/config.good" "$BUNDLE/config.json"
	done
	# output capture and a terminal; workspace limits without the minimal root
	update_config '.annotations["run.tinyrun.output-limit"] = "10" | .annotations["run.tinyrun.rootfs"] = "x" | .process.terminal = true'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	sandbox_bundle "$BUNDLE" --output-limit 10
	update_config 'del(.annotations["run.tinyrun.userns"], .annotations["run.tinyrun.userns.range"], .annotations["run.tinyrun.rootfs"]) | .process.terminal = true'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.annotations["run.tinyrun.output-limit"]: the runtime reads the task'"'"'s stdout and stderr through pipes: .process.terminal must be false'
	sandbox_bundle "$BUNDLE" --workspace-size 1m
	update_config 'del(.annotations["run.tinyrun.rootfs"])'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.annotations["run.tinyrun.workspace-size"]: needs "run.tinyrun.rootfs": "minimal"'
	# a request's cap without a request
	sandbox_bundle "$BUNDLE"
	update_config '.annotations["run.tinyrun.request-output-limit"] = "10"'
	run_nohang runtime run --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial '.annotations["run.tinyrun.request-output-limit"]: needs a request'
	# nobody would pass the output on: run -d and create refuse
	sandbox_bundle "$BUNDLE" --output-limit 10
	run_nohang runtime run -d --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "run.tinyrun.output-limit: the runtime passes the task's output on only while it waits for it"
	run_nohang runtime create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "run.tinyrun.output-limit: the runtime passes the task's output on only while it waits for it"
	run runtime list -q
	assert_output ""
}

@test "spec --sandbox: the limit flags write their annotations, checked; the profile's rlimits" {
	local cfg="$BUNDLE/config.json"
	sandbox_bundle "$BUNDLE" --output-limit 64k --workspace-size 1g --workspace-inodes 1000
	assert_equal "$(jq -c '.annotations | [.["run.tinyrun.output-limit"], .["run.tinyrun.workspace-size"], .["run.tinyrun.workspace-inodes"]]' "$cfg")" \
		'["64k","1g","1000"]'
	assert_equal "$(jq -c '[.process.rlimits[] | [.type, .soft, .hard]]' "$cfg")" \
		'[["RLIMIT_CORE",0,0],["RLIMIT_NOFILE",256,256],["RLIMIT_STACK",8388608,8388608],["RLIMIT_FSIZE",67108864,67108864]]'
	run "$RUNTIME" spec --sandbox -b "$BATS_TEST_TMPDIR" --workspace-size 0
	assert_failure 1
	assert_output --partial '--workspace-size: expected 1 to'
	run "$RUNTIME" spec -b "$BATS_TEST_TMPDIR" --output-limit 10
	assert_failure 1
	assert_output --partial "need --sandbox"
	[[ ! -e "$BATS_TEST_TMPDIR/config.json" ]]
}
