#!/usr/bin/env bats
# The state directory: every command takes the id through one check, a
# state dir is opened without following a symlink below --root, and a --root
# that others may write to is refused (SPEC-NOTES.md, runtime.md operations).
#
# Each test plants fake state dirs naming a `sleep` it started itself: a
# runtime that falls for one signals or reports that sleep.

load helpers

setup() {
	tr_setup
	ELSEWHERE="$BATS_TEST_TMPDIR/elsewhere"
	mkdir -p "$ELSEWHERE"
	VICTIM=""
}

teardown() {
	# what the test planted goes first, so tr_teardown sees only containers
	chmod 0755 "$ROOT" 2>/dev/null
	chown 0:0 "$ROOT" 2>/dev/null
	[[ -n "$VICTIM" ]] && kill -9 "$VICTIM" 2>/dev/null
	[[ -n "$VICTIM" ]] && wait "$VICTIM" 2>/dev/null
	find "$ROOT" -mindepth 1 -maxdepth 1 \( -name '~*' -o -name 'fake*' -o -type l \) -exec rm -rf {} + 2>/dev/null
	rm -rf "$ELSEWHERE"
	tr_teardown
}

# start_victim: a sleep of the test's own, its pid in VICTIM.
start_victim() {
	sleep 3600 </dev/null >/dev/null 2>&1 3>&- 4>&- &
	VICTIM=$!
	record_pid "$VICTIM"
}

# fake_state DIR ID: DIR/state.json of a running container ID whose pid is
# VICTIM (with its start time, so a runtime that reads it takes it as alive).
fake_state() {
	mkdir -p "$1"
	jq -n --arg id "$2" --argjson pid "$VICTIM" --argjson start "$(proc_start_time "$VICTIM")" \
		'{ociVersion: "1.3.0", id: $id, status: "running", pid: $pid, pid_start_time: $start, bundle: "/"}' \
		>"$1/state.json"
}

@test "kill ~x/../../DIR does not read a state outside --root: exit 1, the pid it names is not signalled" {
	start_victim
	fake_state "$ELSEWHERE/evil" evil
	mkdir "$ROOT/~x"      # the path resolves through it
	run_nohang runtime kill "~x/../../elsewhere/evil" KILL
	assert_failure 1
	assert_output --partial 'invalid container id "~x/../../elsewhere/evil"'
	sleep 0.2
	proc_alive "$VICTIM" || fail "the sleep named by the state outside --root was killed"
}

@test "every command refuses a bad id with exit 1, before reading any state" {
	start_victim
	fake_state "$ELSEWHERE/evil" evil
	mkdir "$ROOT/~x"
	local id cmd ids=("~x/../../elsewhere/evil" "~x" "../elsewhere/evil" ".hidden" "a b" "")
	for id in "${ids[@]}"; do
		for cmd in state start "kill" "kill --all" delete "delete --force" pause resume ps events "events --stats" \
			"update --pids-limit 10" "exec" create; do
			# shellcheck disable=SC2086
			if [[ "$cmd" == exec ]]; then
				run_nohang runtime exec "$id" true
			elif [[ "$cmd" == create ]]; then
				run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$id"
			else
				run_nohang runtime $cmd "$id"
			fi
			[ "$status" -eq 1 ] || [[ "$cmd" == exec && "$status" -eq 255 ]] ||
				fail "$cmd '$id': status $status: $output"
			[[ "$output" == *"invalid container id"* ]] || fail "$cmd '$id': not refused as an id: $output"
		done
		# run takes an argument with '/' as the bundle: the id comes with --id
		run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run --id "$id" "$BUNDLE/"
		assert_failure 1
		[[ "$output" == *"invalid container id"* ]] || fail "run --id '$id': $output"
	done
	proc_alive "$VICTIM" || fail "a command signalled the pid of a state outside --root"
	[ -z "$(find "$ROOT" -mindepth 1 -maxdepth 1 -not -name '~x' -not -name '.*')" ]
}

@test "a symlinked state dir under --root is refused by every command" {
	start_victim
	fake_state "$ELSEWHERE/evil" "fake$CID"
	ln -s "$ELSEWHERE/evil" "$ROOT/fake$CID"
	local cmd
	for cmd in state "kill" delete "delete --force" pause ps start "update --pids-limit 10"; do
		# shellcheck disable=SC2086
		run_nohang runtime $cmd "fake$CID"
		assert_failure 1
		assert_output --partial "is a symlink: refused"
	done
	run_nohang runtime kill "fake$CID" KILL
	assert_failure 1
	assert_output --partial "is a symlink: refused"
	sleep 0.2
	proc_alive "$VICTIM" || fail "kill followed the symlinked state dir"
	[ -e "$ELSEWHERE/evil/state.json" ] || fail "delete removed the state behind the symlink"
	# list skips it
	run_nohang runtime list -q
	assert_success
	refute_output --partial "fake$CID"
}

@test "a hashed state dir name is only taken for the long id its state hashes to" {
	start_victim
	local name="~$(printf 'x%.0s' {1..100})-0123456789abcdef"
	fake_state "$ROOT/$name" "evil$CID"
	run_nohang runtime kill "$name" KILL
	assert_failure 1
	assert_output --partial "its state is that of"
	sleep 0.2
	proc_alive "$VICTIM" || fail "kill took a hashed name whose state names another id"
}

@test "a long id's hashed state dir still works by its name (list -q prints the id)" {
	is_runc && skip "runc keeps the id as a directory name"
	local id="$CID" name
	while ((${#id} < 300)); do id+=y; done
	create_container "$id"
	name="$(basename "$(find "$ROOT" -mindepth 1 -maxdepth 1 -name '~*')")"
	[[ "$name" == "~"* ]] || fail "no hashed state dir"
	run_nohang runtime state "$name"
	assert_success
	assert_equal "$(jq -r .id <<<"$output")" "$id"
	run_nohang runtime list -q
	assert_output "$id"
	run_nohang runtime delete --force "$id"
	assert_success
}

@test "a --root writable by group or others without the sticky bit is refused" {
	is_runc && skip "runc does not check an existing root's mode"
	local mode
	for mode in 0777 0775 0757; do
		chmod "$mode" "$ROOT"
		run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
		assert_failure 1
		assert_output --partial "--root $ROOT is writable by"
		run_nohang runtime state "$CID"
		assert_failure 1
		assert_output --partial "is writable by"
		run_nohang runtime list
		assert_failure 1
		assert_output --partial "is writable by"
		[ -z "$(test_state_dirs)" ] || fail "mode $mode: a state dir was made"
	done
	chmod 0711 "$ROOT"
	create_container "$CID"
	run_nohang runtime delete --force "$CID"
	assert_success
}

@test "a --root owned by another user is refused" {
	is_runc && skip "runc does not check an existing root's owner"
	chown 4242 "$ROOT"
	run_nohang "$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "is owned by uid 4242"
	[ -z "$(test_state_dirs)" ]
}

@test "in a sticky shared --root, a state dir of another user is refused" {
	is_runc && skip "runc does not check state dir owners"
	start_victim
	chmod 1777 "$ROOT"
	fake_state "$ROOT/fake$CID" "fake$CID"
	chown -R 4242 "$ROOT/fake$CID"
	run_nohang runtime kill "fake$CID" KILL
	assert_failure 1
	assert_output --partial "is owned by uid 4242: refused"
	sleep 0.2
	proc_alive "$VICTIM" || fail "kill used another user's state dir"
	# the caller's own containers work there
	create_container "$CID"
	run_nohang runtime delete --force "$CID"
	assert_success
}

@test "a FIFO for a state file never blocks a command: list skips it, state refuses it" {
	mkdir -p "$ROOT/fake$CID"
	mkfifo "$ROOT/fake$CID/state.json"
	run_nohang runtime list -q
	assert_success
	# listed never (a warning on stderr names it, as runc's "load container")
	if grep -qx "fake$CID" <<<"$output"; then fail "listed: $output"; fi
	run_nohang runtime state "fake$CID"
	assert_failure 1
	assert_output --partial "fake$CID"
}

@test "a --root without RENAME_NOREPLACE (EINVAL, as 9p or some NFS): create works, a taken id stays taken" {
	is_runc && skip "tinyrun's state dir publishing"
	# strace's fault injection (the runtime's own process, not its children)
	# stands for such a filesystem
	local inject=(strace -qq -o /dev/null -e trace=renameat2 -e inject=renameat2:error=EINVAL)
	set_cmd 'echo ran'
	run_nohang "${inject[@]}" "$RUNTIME" --root "$ROOT" run --bundle "$BUNDLE" "$CID"
	assert_success
	assert_output ran
	set_cmd 'exec sleep 1000'
	run_detached "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	run_nohang "${inject[@]}" "$RUNTIME" --root "$ROOT" create --bundle "$BUNDLE" "$CID"
	assert_failure 1
	assert_output --partial "container \"$CID\" already exists"
	# the first one untouched, no temporary dir left
	assert_equal "$(state_field "$CID" pid)" "$pid"
	[[ -z "$(ls -A "$ROOT" | grep -v "^$CID\$")" ]] || fail "left in --root: $(ls -A "$ROOT")"
}

# bounded RUNTIME-ARGS...: the runtime under `ulimit -v` 1 GiB (a reader that
# allocates what fstat says gets ENOMEM there, not the machine's memory) and
# GNU time; sets status, output (with stderr) and MAXRSS (KiB).
bounded() {
	run_nohang bash -c 'ulimit -v 1048576; exec /usr/bin/time -f "maxrss=%M" "$@"' _ "$RUNTIME" --root "$ROOT" "$@"
	MAXRSS="$(sed -n 's/^maxrss=//p' "$NOHANG_LOG")"
	[[ "$MAXRSS" =~ ^[0-9]+$ ]] || fail "no maxrss in: $output"
}

# A state.json is read only up to a cap (64 MiB), checked with fstat before
# anything is allocated: a sparse 8 GiB one made `list` take 4 GiB. The
# 256 MiB one fits under the ulimit, so an uncapped reader shows in MAXRSS.
@test "a huge (sparse) state.json: list warns and lists the others, state refuses it, both in bounded memory" {
	is_runc && skip "tinyrun's state reader"
	create_container "$CID"
	mkdir "$ROOT/fake$CID"
	local size
	for size in 8G 256M; do
		truncate -s "$size" "$ROOT/fake$CID/state.json"
		bounded list -q
		assert_success
		assert_line "$CID"
		refute_line "fake$CID"
		assert_output --regexp "warning.*fake$CID.*state.json: too large \\([0-9]+ bytes, at most 64 MiB\\)"
		((MAXRSS < 32768)) || fail "list of a $size state.json: max RSS $MAXRSS KiB"
		bounded state "fake$CID"
		assert_failure 1
		assert_output --regexp "fake$CID.*state.json: too large"
		((MAXRSS < 32768)) || fail "state of a $size state.json: max RSS $MAXRSS KiB"
		rm "$ROOT/fake$CID/state.json"
	done
	runtime delete --force "$CID"
}

# A state.json cut short (a full disk, a crash of whatever wrote it): the
# container cannot be used, but delete --force still removes all of it, from
# the records create left in its state dir: the init (pid + start time), the
# cgroup, the dir.
@test "a truncated state.json: state and delete refuse it naming --force; delete --force kills the init, removes the cgroup and the state dir" {
	is_runc && skip "tinyrun's records"
	set_cmd 'exec sleep 3600'
	run_detached "$CID"
	local pid
	pid="$(state_field "$CID" pid)"
	[[ -n "$(test_cgroups)" ]]
	truncate -s 10 "$ROOT/$CID/state.json"
	run_nohang runtime state "$CID"
	assert_failure 1
	assert_output --partial "container \"$CID\""
	run_nohang runtime delete "$CID"
	assert_failure 1
	assert_output --partial "--force"
	proc_alive "$pid"
	run_nohang runtime delete --force "$CID"
	assert_success
	[[ ! -e "$ROOT/$CID" ]] || fail "state dir left: $(ls -A "$ROOT/$CID")"
	wait_for_exit "$pid"
	assert_equal "$(test_cgroups)" ""
}

# What is read is what may be written, and the cap is above anything a
# config can hold: 2 MiB of annotations (runc has no cap; a 1 MiB one refused
# such configs) are created, kept in state.json and read back by state and list.
@test "a config with 2 MiB of annotations: create, state and list work (the state cap is above any valid config)" {
	head -c 2100000 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/big"
	update_config '.annotations.big = $v' --rawfile v "$BATS_TEST_TMPDIR/big"
	create_container "$CID"
	run runtime state "$CID"
	assert_success
	[[ "$(jq -r '.annotations.big | length' <<<"$output")" == 2100000 ]] || fail "annotation not kept"
	run runtime list -q
	assert_success
	assert_line "$CID"
	runtime delete --force "$CID"
}
