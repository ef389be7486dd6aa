#!/usr/bin/env bats
# tinyaws jobs: `tinyrun bundle tinyaws IMAGE -o BUNDLE` and `run --tinyaws`
# (README "Running tinyaws jobs", SPEC-NOTES "tinyaws jobs"). Every test
# asserts what the job sees from inside, and that the image and the app dir
# never change. Limits are read on this v1/hybrid host through the job's own
# /sys/fs/cgroup (its cgroup, bound there); on a host without cgroup2 there,
# the v2 case runs in a vm-run guest (guest_setup_file, as cgroups-v2.bats).

load helpers

setup_file() {
	guest_setup_file tinyaws.bats 900 "limits in a cgroup v2 guest"
}

setup() {
	tr_setup
	IMAGE="$BATS_TEST_TMPDIR/image"
	APP="$BATS_TEST_TMPDIR/app"
	B="$BATS_TEST_TMPDIR/job"
	busybox_rootfs "$IMAGE" "$TEST_LIB_BIN/checker" dev proc sys etc root
	echo 'image file' >"$IMAGE/etc/motd"
	mkdir -p "$APP"
	echo 'app file' >"$APP/data.txt"
	printf 'echo started in $(pwd)\n' >"$APP/start.sh"
	unset TINYAWS_SECCOMP_PROFILE TINYAWS_IMAGES_DIR TINYAWS_SANDBOX
}

# the read-only view of the image a test made (ro_image), unmounted even when it fails
teardown() {
	if [[ -n "${RO_IMAGE:-}" ]] && mountpoint -q "$RO_IMAGE"; then
		umount "$RO_IMAGE" || true
	fi
	tr_teardown
}

# ro_image: $IMAGE seen through a read-only bind of it ($RO_IMAGE, in the test's tmpdir)
ro_image() {
	RO_IMAGE="$BATS_TEST_TMPDIR/ro-image"
	mkdir -p "$RO_IMAGE"
	mount --bind "$IMAGE" "$RO_IMAGE" && mount -o remount,bind,ro "$RO_IMAGE"
}

# convert OUT [bundle options...] [-- CMD]: the image and app dir as a bundle
convert() {
	local out="$1"
	shift
	run_nohang "$RUNTIME" bundle tinyaws "$IMAGE" -o "$out" --app "$APP" "$@"
}

# job [bundle options...] [-- CMD]: convert into $B and run it in the foreground
job() {
	convert "$B" "$@"
	assert_success
	CONVERT_OUTPUT="$output"
	run_nohang runtime run -b "$B" "$CID"
}

# A listing of a tree (names, modes, sizes, mtimes, contents) to compare.
snap() {
	(cd "$1" && find . -printf '%p %m %s %T@ %l\n' | sort && find . -type f -exec md5sum {} + | sort)
}

@test "tinyaws: the app runs in /app; writes to / and /app change neither the image nor the app dir" {
	local img app
	img="$(snap "$IMAGE")"
	app="$(snap "$APP")"
	job -- 'pwd; echo new >/app/new; echo changed >/app/data.txt; echo root >/newfile; rm /etc/motd; cat /app/data.txt /newfile; ls /etc/motd 2>&1; true'
	assert_success
	assert_line --index 0 /app
	assert_line "changed"
	assert_line "root"
	assert_output --partial "No such file"
	assert_equal "$(snap "$IMAGE")" "$img"
	assert_equal "$(snap "$APP")" "$app"
	# start.sh is the command when nothing else is given
	rm -rf "$B"
	job
	assert_success
	assert_output "started in /app"
}

@test "tinyaws: the command: CMD after --, else start: of tinyaws.build, else sh start.sh; none is an error" {
	printf '# a comment\nbase: alpine\nstart: echo from build $FOO\nrun: make\nweird key: ignored\n' >"$APP/tinyaws.build"
	job --env FOO=bar
	assert_success
	assert_output "from build bar"
	rm -rf "$B"
	job -- echo from cmd
	assert_success
	assert_output "from cmd"
	rm -rf "$B" "$APP/tinyaws.build" "$APP/start.sh"
	convert "$B"
	assert_failure 1
	assert_output --partial "no command"
	[[ ! -e "$B" ]]
}

@test "tinyaws: only --env variables and tinyrun's PATH/HOME reach the job" {
	export HOST_SECRET=leak
	job --env A=1 --env B=two -- 'env | sort'
	assert_success
	assert_output "$(printf 'A=1\nB=two\nHOME=/root\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nPWD=/app\nSHLVL=1')"
}

@test "tinyaws: pid, mount, ipc, uts and network namespaces, a fresh /proc, loopback only" {
	job -- 'echo pid=$$; ls /proc | grep -c "^[0-9]"; hostname; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "; for n in pid mnt ipc uts net; do readlink /proc/self/ns/$n; done'
	assert_success
	assert_line --index 0 "pid=1"
	assert_line --index 2 tinyaws
	assert_line --index 3 lo
	[[ "${#lines[@]}" -eq 9 ]]
	local i=4 n
	for n in pid mnt ipc uts net; do
		[[ "${lines[$i]}" != "$(readlink /proc/self/ns/$n)" ]] || fail "namespace $n is the host's"
		i=$((i + 1))
	done
}

# limits_seen: memory limit (bytes), cpu quota, cpu period, pids max inside the job
limits_cmd='cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us /sys/fs/cgroup/pids/pids.max | tr "\n" " "'

@test "tinyaws: limits: default, each --type, --service, --memory and --cpu overrides (cgroup v1)" {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == tmpfs ]] || skip "not a cgroup v1/hybrid host"
	local spec args want
	while read -r spec want; do
		rm -rf "$B"
		read -r -a args <<<"${spec//,/ }"
		[[ "$spec" == - ]] && args=()
		job "${args[@]}" -- "$limits_cmd"
		assert_success
		assert_output "${want//,/ } "
	done <<-EOF
	-                  536870912,100000,100000,1024
	--type,nano        134217728,25000,100000,1024
	--type,micro       268435456,50000,100000,1024
	--type,small       536870912,100000,100000,1024
	--type,medium      1073741824,200000,100000,1024
	--type,large       2147483648,400000,100000,1024
	--service          1073741824,100000,100000,1024
	--type,nano,--memory,300,--cpu,150 314572800,150000,100000,1024
	EOF
	rm -rf "$B"
	convert "$B" --type huge
	assert_failure 1
	assert_output --partial 'is not nano, micro'
}

@test "tinyaws: limits in a cgroup v2 guest" {
	if ! on_cgroup2; then guest_verdict; return; fi
	job --type micro -- 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max /sys/fs/cgroup/pids.max | tr "\n" " "'
	assert_success
	assert_output --partial "268435456 50000 100000 1024 "
}

# A profile as tinyaws ships them: _comment, no architectures, ERRNO 1.
profile() {
	local f="$1"
	shift
	jq -n --args '{_comment: "tinyaws job profile", defaultAction: "SCMP_ACT_ALLOW",
		syscalls: [{names: $ARGS.positional, action: "SCMP_ACT_ERRNO", errnoRet: 1}]}' "$@" >"$f"
}

# which of mkdir, symlink, link, chmod the job is denied: 1 EPERM, 0 allowed
probe_cmd='r=""; for c in "mkdir /d" "ln -s x /s" "ln /etc/motd /h" "chmod 600 /etc/motd"; do if e=$($c 2>&1); then r=${r}0; else case $e in *"not permitted"*) r=${r}1;; *) r=${r}E;; esac; fi; done; echo $r'

@test "tinyaws: a tinyaws-format seccomp profile denies what it lists with EPERM" {
	profile "$BATS_TEST_TMPDIR/p.json" mkdir mkdirat chmod fchmodat
	convert "$B" --seccomp "$BATS_TEST_TMPDIR/p.json" -- "grep '^Seccomp:' /proc/self/status; $probe_cmd"
	assert_success
	assert_output "tinyrun: bundle tinyaws: seccomp: $BATS_TEST_TMPDIR/p.json (--seccomp)"
	run jq -r '.linux.seccomp._comment, (.linux.seccomp | has("architectures"))' "$B/config.json"
	assert_output "$(printf 'tinyaws job profile\nfalse')"
	run_nohang runtime run -b "$B" "$CID"
	assert_success
	assert_output "$(printf 'Seccomp:\t2\n1001')"
}

# one line naming the file (and where it came from) and what is wrong in it
@test "tinyaws: a seccomp profile that cannot be read or parsed: one error line naming the file" {
	convert "$B" --seccomp "$BATS_TEST_TMPDIR/none.json"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: seccomp: $BATS_TEST_TMPDIR/none.json (--seccomp): No such file or directory"
	echo '{"defaultAction": ' >"$BATS_TEST_TMPDIR/cut.json"
	TINYAWS_SECCOMP_PROFILE="$BATS_TEST_TMPDIR/cut.json" convert "$B"
	assert_failure 1
	assert_line --regexp "^tinyrun: bundle tinyaws: seccomp: $BATS_TEST_TMPDIR/cut.json \(.*TINYAWS_SECCOMP_PROFILE.*\): parse error: premature EOF"
	refute_line --regexp "^tinyrun: seccomp profile"
	[[ ! -e "$B" ]]
}

@test "tinyaws: the seccomp profile's lookup order is honoured and reported" {
	local bin="$BATS_TEST_TMPDIR/bin" etc="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$bin" "$etc"
	cp "$RUNTIME" "$bin/tinyrun"
	profile "$BATS_TEST_TMPDIR/opt.json" mkdir mkdirat
	profile "$BATS_TEST_TMPDIR/env.json" symlink symlinkat
	profile "$bin/seccomp-default.json" link linkat
	profile "$etc/seccomp-default.json" chmod fchmodat
	# conv.sh WITH-ETC OUT [options]: /etc/tinyaws/seccomp-default.json only in
	# a private mount namespace (an overlay over /etc there), then convert
	cat >"$BATS_TEST_TMPDIR/conv.sh" <<-EOF
	set -e
	if [ "\$1" = 1 ]; then
		mkdir -p "$etc.u" "$etc.w"
		mount -t overlay overlay -o lowerdir=/etc,upperdir="$etc.u",workdir="$etc.w" /etc
		mkdir -p /etc/tinyaws
		cp "$etc/seccomp-default.json" /etc/tinyaws/
	fi
	shift
	exec "$bin/tinyrun" bundle tinyaws "$IMAGE" --app "$APP" -o "\$@" -- '$probe_cmd'
	EOF
	local step out
	while read -r step want source; do
		out="$BATS_TEST_TMPDIR/b-$step"
		case $step in
		opt) run_nohang unshare -m env TINYAWS_SECCOMP_PROFILE="$BATS_TEST_TMPDIR/env.json" \
			bash "$BATS_TEST_TMPDIR/conv.sh" 1 "$out" --seccomp "$BATS_TEST_TMPDIR/opt.json";;
		env) run_nohang unshare -m env TINYAWS_SECCOMP_PROFILE="$BATS_TEST_TMPDIR/env.json" \
			bash "$BATS_TEST_TMPDIR/conv.sh" 1 "$out";;
		bin) run_nohang unshare -m bash "$BATS_TEST_TMPDIR/conv.sh" 1 "$out";;
		etc) rm "$bin/seccomp-default.json"
		     run_nohang unshare -m bash "$BATS_TEST_TMPDIR/conv.sh" 1 "$out";;
		default) run_nohang unshare -m bash "$BATS_TEST_TMPDIR/conv.sh" 0 "$out";;
		esac
		assert_success
		source="${source//\$BATS_TEST_TMPDIR/$BATS_TEST_TMPDIR}"
		source="${source//\$bin/$bin}"
		assert_output "tinyrun: bundle tinyaws: seccomp: $source"
		run_nohang runtime run -b "$out" "$CID-$step"
		assert_success
		assert_output "$want"
	done <<-'EOF'
	opt     1000 $BATS_TEST_TMPDIR/opt.json (--seccomp)
	env     0100 $BATS_TEST_TMPDIR/env.json ($TINYAWS_SECCOMP_PROFILE)
	bin     0010 $bin/seccomp-default.json (next to the tinyrun binary)
	etc     0001 /etc/tinyaws/seccomp-default.json (/etc/tinyaws/seccomp-default.json)
	default 0000 tinyrun's default profile
	EOF
}

# facts: overlay-root limit seccomp pidns, each 1 when its layer is on
facts_cmd='grep -q " / / .* - overlay " /proc/self/mountinfo && printf 1 || printf 0
p=$(grep ":memory:" /proc/self/cgroup | cut -d: -f3); f=/sys/fs/cgroup/memory/memory.limit_in_bytes
[ -e /sys/fs/cgroup/memory$p/memory.limit_in_bytes ] && f=/sys/fs/cgroup/memory$p/memory.limit_in_bytes
[ "$(cat $f)" = 536870912 ] && printf 1 || printf 0
grep -q "^Seccomp:.2" /proc/self/status && printf 1 || printf 0
[ $$ = 1 ] && echo 1 || echo 0'

@test "tinyaws: each --no-* switch and TINYAWS_SANDBOX=0 turn exactly their layers off" {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == tmpfs ]] || skip "not a cgroup v1/hybrid host"
	local sw want
	while read -r sw want; do
		rm -rf "$B"
		if [[ "$sw" == SANDBOX=0 ]]; then
			TINYAWS_SANDBOX=0 job -- "$facts_cmd"
		elif [[ "$sw" == - ]]; then
			job -- "$facts_cmd"
		else
			job "$sw" -- "$facts_cmd"
		fi
		assert_success
		assert_line --index 0 "$want"
		output="$CONVERT_OUTPUT"
		case $sw in
		-) refute_output --partial "off:";;
		SANDBOX=0) assert_output --partial "off: overlay limits seccomp namespaces (TINYAWS_SANDBOX=0)";;
		*) assert_output --regexp "tinyrun: bundle tinyaws: off: ${sw#--no-}$";;
		esac
	done <<-EOF
	-               1111
	--no-overlay    0111
	--no-limits     1011
	--no-seccomp    1101
	--no-namespaces 1110
	SANDBOX=0       0000
	EOF
	# --no-overlay keeps the image unchanged too: the root is the image, read-only
	local img
	img="$(snap "$IMAGE")"
	rm -rf "$B"
	job --no-overlay -- 'echo x >/newfile; echo y >/app/new && cat /app/new'
	assert_success
	assert_line --index 0 --partial "/newfile: Read-only file system"
	assert_line --index 1 y
	assert_equal "$(snap "$IMAGE")" "$img"
}

@test "tinyaws: --no-overlay and TINYAWS_SANDBOX=0 never write into the image: a read-only one runs, unchanged" {
	# an image with none of the mount points a job needs (/app /proc /dev /sys),
	# a top-level symlink and file, seen read-only
	rmdir "$IMAGE/proc" "$IMAGE/sys" "$IMAGE/dev"
	ln -s bin "$IMAGE/sbin"
	echo top >"$IMAGE/top.txt"
	local img
	img="$(snap "$IMAGE")"
	ro_image
	run touch "$RO_IMAGE/x"
	assert_failure
	local cmd='cat /etc/motd /top.txt; ls /sbin/sh; pwd; cat data.txt; echo w >/app/w && cat /app/w; echo x >/newfile; grep -c " /proc .* - proc " /proc/self/mountinfo'
	run_nohang "$RUNTIME" bundle tinyaws "$RO_IMAGE" -o "$B" --app "$APP" --no-overlay -- "$cmd"
	assert_success
	run_nohang runtime run -b "$B" "$CID"
	assert_success
	assert_output "$(printf 'image file\ntop\n/sbin/sh\n/app\napp file\nw\nsh: can'"'"'t create /newfile: Read-only file system\n1')"
	rm -rf "$B"
	TINYAWS_SANDBOX=0 run_nohang "$RUNTIME" bundle tinyaws "$RO_IMAGE" -o "$B" --app "$APP" -- "$cmd"
	assert_success
	run_nohang runtime run -b "$B" "$CID"
	assert_success
	assert_output "$(printf 'image file\ntop\n/sbin/sh\n/app\napp file\nw\nsh: can'"'"'t create /newfile: Read-only file system\n1')"
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	TMPDIR="$BATS_TEST_TMPDIR/tmp" run_nohang "$RUNTIME" --root "$ROOT" run --tinyaws "$RO_IMAGE" --no-overlay "$CID" -- 'cat /top.txt'
	assert_success
	assert_line --index 1 "tinyrun: bundle tinyaws: off: overlay"
	assert_line --index 2 top
	umount "$RO_IMAGE"
	assert_equal "$(snap "$IMAGE")" "$img"
	run ls -A "$BATS_TEST_TMPDIR/tmp"
	assert_output ""
}

@test "tinyaws: two jobs over one image and one bundle run at once without seeing each other's writes" {
	local img app
	img="$(snap "$IMAGE")"
	app="$(snap "$APP")"
	convert "$B" -- 'sleep 3600'
	assert_success
	BUNDLE="$B" run_detached "$CID-a"
	BUNDLE="$B" run_detached "$CID-b"
	assert_equal "$(state_field "$CID-a" status)" running
	assert_equal "$(state_field "$CID-b" status)" running
	# a scratch per container, named by its id
	[[ -d "$B/scratch/$CID-a/upper" && -d "$B/scratch/$CID-b/upper" ]]
	run runtime exec "$CID-a" sh -c 'echo A >/w; echo A >/app/data.txt'
	assert_success
	run runtime exec "$CID-b" sh -c 'echo B >/w; echo B >/app/data.txt'
	assert_success
	run runtime exec "$CID-a" cat /w /app/data.txt
	assert_output "$(printf 'A\nA')"
	run runtime exec "$CID-b" cat /w /app/data.txt
	assert_output "$(printf 'B\nB')"
	assert_equal "$(snap "$IMAGE")" "$img"
	assert_equal "$(snap "$APP")" "$app"
	run runtime delete --force "$CID-a"
	assert_success
	[[ ! -e "$B/scratch/$CID-a" && -d "$B/scratch/$CID-b" ]]
	run runtime delete --force "$CID-b"
	assert_success
	run ls -A "$B/scratch"
	assert_output ""
}

@test "tinyaws: delete (and a failed create) leave no scratch; a link the job made is not followed" {
	local victim="$BATS_TEST_TMPDIR/victim"
	mkdir -p "$victim/sub"
	echo keep >"$victim/sub/file"
	job -- "ln -s $victim /link; ln -s $victim/sub /app/sublink; mkdir -p /deep/a/b; ln -s $victim /deep/a/b/l; echo made"
	assert_success
	assert_output made
	run ls -A "$B/scratch"
	assert_output ""
	[[ "$(cat "$victim/sub/file")" == keep ]]
	# a create that fails after the scratch was made takes it back
	update_config() { jq "$@" "$B/config.json" >"$B/c.new" && mv "$B/c.new" "$B/config.json"; }
	update_config '.mounts += [{destination: "/x", type: "bind", source: "/nonexistent-tinyaws", options: ["bind"]}]'
	run_nohang runtime run -b "$B" "$CID-f"
	assert_failure
	run ls -A "$B/scratch"
	assert_output ""
	# a tree deeper than our fds in the upper goes too (removal is not bounded by depth)
	rm -rf "$B"
	convert "$B" -- 'i=0; while [ $i -lt 600 ]; do mkdir d; cd d; i=$((i+1)); done; echo deep >f; echo ok'
	assert_success
	# with 256 fds: deeper than one fd per level allows
	run_nohang bash -c 'ulimit -n 256 && exec "$@"' sh "$RUNTIME" --root "$ROOT" run -b "$B" "$CID"
	assert_success
	assert_output ok
	run ls -A "$B/scratch"
	assert_output ""
}

@test "tinyaws: a tinyrun killed with SIGKILL mid-run leaves no mount on the host" {
	convert "$B" -- 'sleep 3600'
	assert_success
	"$TEST_LIB_BIN/subreaper" "$RUNTIME" --root "$ROOT" run -b "$B" "$CID" </dev/null >"$BATS_TEST_TMPDIR/run.log" 2>&1 3>&- 4>&- &
	wait_for_state "$CID" running
	local init parent
	init="$(state_field "$CID" pid)"
	record_pid "$init"
	parent="$(awk '/^PPid:/ {print $2}' "/proc/$init/status")"
	[[ "$(readlink "/proc/$parent/exe")" == "$(readlink -f "$RUNTIME")"* ]] || [[ "$(cat "/proc/$parent/comm")" == tinyrun ]]
	# the overlay is there, in the job's mount namespace only
	grep -q " / / .* - overlay .*upperdir=$B/scratch/$CID/upper" "/proc/$init/mountinfo"
	kill -9 "$parent"
	wait_for_exit "$parent"
	run grep -F "$B" /proc/self/mountinfo
	assert_failure
	run grep -c "overlay" /proc/1/mountinfo
	refute_output --partial "$B"
	# the job still runs; its scratch is recorded in its state dir (for delete, gc)
	proc_alive "$init"
	assert_equal "$(cat "$ROOT/$CID/scratch")" "$B/scratch/$CID"
	run runtime delete --force "$CID"
	assert_success
	run ls -A "$B/scratch"
	assert_output ""
}

@test "tinyaws: run --tinyaws IMAGE --app DIR ID: one shot, the job's output and exit status, nothing left" {
	printf 'echo out; echo err >&2; echo w >/app/x; exit 7\n' >"$APP/start.sh"
	local app tmp="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$tmp"
	app="$(snap "$APP")"
	TMPDIR="$tmp" run_nohang runtime run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_failure 7
	assert_line out
	assert_line err
	assert_equal "$(snap "$APP")" "$app"
	run ls -A "$tmp"
	assert_output ""
	# an image id under $TINYAWS_IMAGES_DIR
	mkdir -p "$BATS_TEST_TMPDIR/images"
	mv "$IMAGE" "$BATS_TEST_TMPDIR/images/img1"
	TMPDIR="$tmp" TINYAWS_IMAGES_DIR="$BATS_TEST_TMPDIR/images" run_nohang runtime run --tinyaws img1 --app "$APP" "$CID"
	assert_failure 7
	assert_line out
}

# trun [run options, conversion options] ID [-- CMD]: run --tinyaws over $IMAGE,
# its temporary bundle under $BATS_TEST_TMPDIR/tmp (checked empty by the caller)
trun() {
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	TMPDIR="$BATS_TEST_TMPDIR/tmp" run_nohang "$RUNTIME" --root "$ROOT" run --tinyaws "$IMAGE" "$@"
}

@test "tinyaws: run --tinyaws takes bundle tinyaws' options, each seen by the job; -- CMD needs no --app" {
	[[ "$(stat -f -c %T /sys/fs/cgroup)" == tmpfs ]] || skip "not a cgroup v1/hybrid host"
	trun -e FOO=bar --env B=2 "$CID" -- 'echo hi; env | sort | grep -v "^PWD\|^SHLVL"'
	assert_success
	assert_output "$(printf 'tinyrun: bundle tinyaws: seccomp: tinyrun'"'"'s default profile\nhi\nB=2\nFOO=bar\nHOME=/root\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')"
	# the limits in the job's cgroup (its own, at /sys/fs/cgroup through its cgroup namespace)
	trun --type nano --memory 64 --cpu 30 "$CID" -- "$limits_cmd"
	assert_success
	assert_line --index 1 "67108864 30000 100000 1024 "
	trun --service "$CID" -- "$limits_cmd"
	assert_line --index 1 "1073741824 100000 100000 1024 "
	# the app dir, and the command after -- over its start.sh
	trun --app "$APP" "$CID"
	assert_success
	assert_line --index 1 "started in /app"
	trun --app "$APP" "$CID" -- cat data.txt
	assert_line --index 1 "app file"
	# --seccomp FILE: only mkdir denied
	profile "$BATS_TEST_TMPDIR/p.json" mkdir mkdirat
	trun --seccomp "$BATS_TEST_TMPDIR/p.json" "$CID" -- "$probe_cmd"
	assert_success
	assert_output "$(printf 'tinyrun: bundle tinyaws: seccomp: %s (--seccomp)\n1000' "$BATS_TEST_TMPDIR/p.json")"
	# --no-*: exactly their layers off (facts: overlay-root limit seccomp pidns)
	trun --no-seccomp --no-namespaces "$CID" -- "$facts_cmd"
	assert_success
	assert_line --index 0 "tinyrun: bundle tinyaws: off: seccomp namespaces"
	assert_line --index 1 1100
	trun --no-limits "$CID" -- "$facts_cmd"
	assert_line --index 1 "tinyrun: bundle tinyaws: off: limits"
	assert_line --index 2 1011
	run ls -A "$BATS_TEST_TMPDIR/tmp"
	assert_output ""
}

@test "tinyaws: run --tinyaws --sandbox: the job runs as the sandbox's leased uid in its workspace /app" {
	trun --sandbox --app "$APP" --type micro "$CID" -- 'id -u; cat /proc/self/uid_map; pwd; cat data.txt'
	assert_success
	assert_line --index 0 --partial "sandbox: seccomp default"
	assert_line --index 1 65534
	[[ "${lines[2]}" =~ ^\ *65534\ +([0-9]+)\ +1$ && "${BASH_REMATCH[1]}" -ge 65536 ]] || fail "uid_map: ${lines[2]}"
	assert_line --index 3 /app
	assert_line --index 4 "app file"
	run ls -A "$BATS_TEST_TMPDIR/tmp"
	assert_output ""
}

@test "tinyaws: run --tinyaws keeps run's own options (--pid-file, --result); what cannot go with it is named" {
	trun --pid-file "$BATS_TEST_TMPDIR/pid" --result "$BATS_TEST_TMPDIR/result.json" -e X=1 "$CID" -- 'echo $$ $X; exit 3'
	assert_failure 3
	assert_output --partial "1 1"
	[[ "$(cat "$BATS_TEST_TMPDIR/pid")" -gt 1 ]]
	run jq -r '.id, .reason, .exitCode' "$BATS_TEST_TMPDIR/result.json"
	assert_output "$(printf '%s\nexit\n3' "$CID")"
	local opt
	for opt in -d --keep "--bundle $B" "--config c.json" "--id x"; do
		trun $opt "$CID" -- true
		assert_failure 1
		opt="${opt%% *}"
		[[ "$opt" == -d ]] && opt=--detach
		assert_output --partial "run: --tinyaws: $opt cannot be used with it"
	done
	# a conversion option without --tinyaws, a bad value: named
	for opt in "--type small" --service "--memory 64" "-e A=1" "--seccomp f" --no-overlay --sandbox "--app $APP"; do
		run_nohang "$RUNTIME" --root "$ROOT" run -b "$B" $opt "$CID"
		assert_failure 1
		opt="${opt%% *}"
		[[ "$opt" == -e ]] && opt=--env
		assert_output --partial "run: $opt goes with --tinyaws"
	done
	trun --memory 64m "$CID" -- true
	assert_failure 1
	assert_output --partial 'run: --memory: expected 1 to'
	trun --type huge "$CID" -- true
	assert_failure 1
	assert_output --partial 'run: --type: "huge" is not nano, micro'
	trun --sandbox --no-limits "$CID" -- true
	assert_failure 1
	assert_output --partial 'run: --sandbox: every layer is on; --no-limits cannot be used with it'
	# the command without -- is not taken for ids
	trun "$CID" echo hi
	assert_failure 1
	assert_output --partial "with --tinyaws the command goes after --"
	run ls -A "$BATS_TEST_TMPDIR/tmp"
	assert_output ""
	[[ ! -e "$B" ]]
}

@test "tinyaws: bad input: a clear error and no half-written bundle" {
	run_nohang "$RUNTIME" bundle tinyaws "$BATS_TEST_TMPDIR/none" -o "$B" --app "$APP"
	assert_failure 1
	assert_output --partial "image $BATS_TEST_TMPDIR/none: No such file or directory"
	touch "$BATS_TEST_TMPDIR/file"
	run_nohang "$RUNTIME" bundle tinyaws "$BATS_TEST_TMPDIR/file" -o "$B" --app "$APP"
	assert_output --partial "not a directory"
	run_nohang "$RUNTIME" bundle tinyaws "$IMAGE" -o "$B" --app "$BATS_TEST_TMPDIR/file"
	assert_failure 1
	assert_output --partial "--app $BATS_TEST_TMPDIR/file: not a directory"
	run_nohang "$RUNTIME" bundle tinyaws "$IMAGE" -o "$B" --app "$BATS_TEST_TMPDIR/noapp"
	assert_output --partial "--app $BATS_TEST_TMPDIR/noapp: No such file or directory"
	mkdir "$B"
	convert "$B"
	assert_failure 1
	assert_output --partial "$B exists"
	rmdir "$B"
	convert "$BATS_TEST_TMPDIR/no/such/parent/job"
	assert_failure 1
	assert_output --partial "No such file or directory"
	echo '{"defaultAction": "SCMP_ACT_NOPE"}' >"$BATS_TEST_TMPDIR/bad.json"
	convert "$B" --seccomp "$BATS_TEST_TMPDIR/bad.json"
	assert_failure 1
	assert_line "tinyrun: bundle tinyaws: seccomp: $BATS_TEST_TMPDIR/bad.json (--seccomp): .defaultAction: unknown seccomp action \"SCMP_ACT_NOPE\""
	run ls -A "$BATS_TEST_TMPDIR"
	refute_output --partial "job"
	# a device node in the app dir would be the job's: refused
	mknod "$APP/disk" b 7 0
	convert "$B"
	assert_failure 1
	assert_output --partial "the app dir $APP holds a device node"
	[[ ! -e "$B" ]]
	run ls -A "$BATS_TEST_TMPDIR"
	refute_output --partial "job.tmp"
	rm "$APP/disk"
	mkdir "$BATS_TEST_TMPDIR/ro"
	chmod 555 "$BATS_TEST_TMPDIR/ro"
	# root ignores modes: an unwritable parent is a read-only mount
	mount --bind -o ro "$BATS_TEST_TMPDIR/ro" "$BATS_TEST_TMPDIR/ro" 2>/dev/null &&
		mount -o remount,bind,ro "$BATS_TEST_TMPDIR/ro"
	convert "$BATS_TEST_TMPDIR/ro/job"
	umount "$BATS_TEST_TMPDIR/ro" 2>/dev/null || true
	assert_failure 1
	assert_output --partial "Read-only file system"
}

@test "tinyaws: a hostile bundle: scratch outside the bundle, a symlinked scratch, \"/\" not first" {
	convert "$B" -- true
	assert_success
	cp "$B/config.json" "$B/orig.json"
	local v
	for v in ../out /abs a/../../b ""; do
		jq --arg v "$v" '.annotations["run.tinyrun.scratch"] = $v' "$B/orig.json" >"$B/config.json"
		run_nohang runtime run -b "$B" "$CID"
		assert_failure 1
		assert_output --partial 'config.json: .annotations["run.tinyrun.scratch"]: '
	done
	jq '.mounts = [.mounts[1], .mounts[0]] + .mounts[2:]' "$B/orig.json" >"$B/config.json"
	run_nohang runtime run -b "$B" "$CID"
	assert_failure 1
	assert_output --partial 'config.json: .mounts[1].destination: a mount onto "/" must be the first entry of mounts'
	jq '.mounts[0].options += ["upperdir=/tmp"]' "$B/orig.json" >"$B/config.json"
	run_nohang runtime run -b "$B" "$CID"
	assert_failure 1
	assert_output --partial 'upperdir=/workdir= are made per container'
	# a symlink where the scratch dir is: refused, nothing made where it points
	cp "$B/orig.json" "$B/config.json"
	mkdir "$BATS_TEST_TMPDIR/elsewhere"
	rmdir "$B/scratch"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$B/scratch"
	run_nohang runtime run -b "$B" "$CID"
	assert_failure 1
	assert_output --partial "run.tinyrun.scratch: $B/scratch"
	run ls -A "$BATS_TEST_TMPDIR/elsewhere"
	assert_output ""
}

# --- bundle tinyaws --sandbox: the job under the sandbox profile ----------

# sandbox_job [bundle options...] [-- CMD]: convert with --sandbox into $B,
# the lease range one no host user has (as tests/sandbox.bats)
sandbox_convert() {
	convert "$B" --sandbox "$@"
	assert_success
	BUNDLE="$B" update_config '.annotations["run.tinyrun.userns.range"] = "1900000000-1900065535"'
}

@test "tinyaws: tinyaws.build or start.sh linked to a root-only host file is refused; its text lands nowhere" {
	local secret="$BATS_TEST_TMPDIR/host-secret" tmp="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$tmp"
	(umask 077 && echo "start: echo SECRET-$TOKEN" >"$secret")
	ln -s "$secret" "$APP/tinyaws.build"
	convert "$B"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/tinyaws.build: a symbolic link: refused (read on the host, it must be the app dir's own file)"
	[[ ! -e "$B" ]]
	TMPDIR="$tmp" run_nohang runtime run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_failure 1
	assert_output --partial "$APP/tinyaws.build: a symbolic link: refused"
	run ls -A "$tmp"
	assert_output ""
	rm "$APP/tinyaws.build" "$APP/start.sh"
	ln -s "$secret" "$APP/start.sh"
	convert "$B"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/start.sh: a symbolic link: refused (read on the host, it must be the app dir's own file)"
	[[ ! -e "$B" ]]
	run grep -rl --exclude=host-secret "SECRET-$TOKEN" "$BATS_TEST_TMPDIR"
	assert_output ""
	# the app dir's own files are read as before
	rm "$APP/start.sh"
	echo 'start: echo own build' >"$APP/tinyaws.build"
	job
	assert_success
	assert_output "own build"
}

@test "tinyaws: a FIFO, a directory or an oversized file as tinyaws.build or start.sh: a clear error at once" {
	local tmp="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$tmp"
	mkfifo "$APP/tinyaws.build"
	run_nohang timeout 10 "$RUNTIME" bundle tinyaws "$IMAGE" -o "$B" --app "$APP"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/tinyaws.build: not a regular file (a FIFO)"
	[[ ! -e "$B" ]]
	TMPDIR="$tmp" run_nohang timeout 10 "$RUNTIME" --root "$ROOT" run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_failure 1
	assert_output --partial "$APP/tinyaws.build: not a regular file (a FIFO)"
	run ls -A "$tmp"
	assert_output ""
	rm "$APP/tinyaws.build"
	head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$APP/tinyaws.build"
	convert "$B"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/tinyaws.build: larger than 1 MiB"
	rm "$APP/tinyaws.build" "$APP/start.sh"
	mkfifo "$APP/start.sh"
	run_nohang timeout 10 "$RUNTIME" bundle tinyaws "$IMAGE" -o "$B" --app "$APP"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/start.sh: not a regular file (a FIFO)"
	rm "$APP/start.sh"
	mkdir "$APP/start.sh"
	convert "$B"
	assert_failure 1
	assert_output "tinyrun: bundle tinyaws: $APP/start.sh: not a regular file (a directory)"
	[[ ! -e "$B" ]]
}

@test "tinyaws: run --tinyaws takes seccomp-default.json next to the real binary though it runs sealed; unknown: fails closed" {
	local bin="$BATS_TEST_TMPDIR/bin" tmp="$BATS_TEST_TMPDIR/tmp" cwd="$BATS_TEST_TMPDIR/cwd"
	mkdir -p "$bin" "$tmp" "$cwd"
	cp "$RUNTIME" "$bin/tinyrun"
	profile "$bin/seccomp-default.json" mkdir mkdirat
	printf '%s\n' "$probe_cmd" >"$APP/start.sh"
	TMPDIR="$tmp" run_nohang "$bin/tinyrun" --root "$ROOT" run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_success
	assert_output "$(printf 'tinyrun: bundle tinyaws: seccomp: %s (next to the tinyrun binary)\n1000' "$bin/seccomp-default.json")"
	# the entry point's re-exec, before libc (a -tinyaws= it does not take
	# for --tinyaws, a config.json with no "user" in the cwd), keeps it too
	echo '{}' >"$cwd/config.json"
	TMPDIR="$tmp" run_nohang env -C "$cwd" "$bin/tinyrun" --root "$ROOT" run -tinyaws="$IMAGE" --app "$APP" "$CID"
	assert_success
	assert_output "$(printf 'tinyrun: bundle tinyaws: seccomp: %s (next to the tinyrun binary)\n1000' "$bin/seccomp-default.json")"
	# a variable of that name from the caller is not taken (nor by the entry point)
	TMPDIR="$tmp" _TINYRUN_EXE=/nowhere/tinyrun run_nohang env -C "$cwd" "$bin/tinyrun" --root "$ROOT" \
		run -tinyaws="$IMAGE" --app "$APP" "$CID"
	assert_success
	assert_line 1000
	TMPDIR="$tmp" _TINYRUN_EXE=/nowhere/tinyrun run_nohang "$bin/tinyrun" --root "$ROOT" bundle tinyaws "$IMAGE" -o "$B" --app "$APP"
	assert_success
	assert_output "tinyrun: bundle tinyaws: seccomp: $bin/seccomp-default.json (next to the tinyrun binary)"
	rm -rf "$B"
	# a binary run from a memfd has no directory: no lookup elsewhere, no default
	command -v python3 >/dev/null || skip "no python3 to exec from a memfd"
	local memfd='import os, sys
fd = os.memfd_create("tinyrun", 0)
os.write(fd, open(sys.argv[1], "rb").read())
os.execv("/proc/self/fd/%d" % fd, sys.argv[1:])'
	TMPDIR="$tmp" run_nohang python3 -c "$memfd" "$bin/tinyrun" --root "$ROOT" run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_failure 1
	assert_output --partial "seccomp: the tinyrun binary's path: running from a sealed copy that does not carry it: cannot look for seccomp-default.json next to it; name a profile with --seccomp or \$TINYAWS_SECCOMP_PROFILE"
	refute_output --partial 1000
	run ls -A "$tmp"
	assert_output ""
	run_nohang python3 -c "$memfd" "$bin/tinyrun" bundle tinyaws "$IMAGE" -o "$B" --app "$APP"
	assert_failure 1
	assert_output --partial "/proc/self/exe names /memfd:tinyrun (deleted), which is not this binary"
	[[ ! -e "$B" ]]
	# a profile named outright needs no directory
	TMPDIR="$tmp" TINYAWS_SECCOMP_PROFILE="$bin/seccomp-default.json" run_nohang python3 -c "$memfd" \
		"$bin/tinyrun" --root "$ROOT" run --tinyaws "$IMAGE" --app "$APP" "$CID"
	assert_success
	assert_line 1000
}

@test "tinyaws --sandbox: the job runs as leased 65534 in /app, a writable copy of the app; neither the app dir nor the bundle's copy changes" {
	local app copy
	chmod 600 "$APP/data.txt"   # the copy is made readable for the leased id
	app="$(snap "$APP")"
	sandbox_convert --type micro -- 'pwd; id -u; cat /proc/self/uid_map; cat data.txt; echo new >/app/new; echo changed >/app/data.txt; cat /app/new /app/data.txt; ls -ln /app/data.txt'
	copy="$(snap "$B/layer/app")"
	run_nohang runtime run -b "$B" "$CID"
	assert_success
	assert_line --index 0 /app
	assert_line --index 1 65534
	[[ "${lines[2]}" =~ ^\ *65534\ +19000[0-9]{5}\ +1$ ]] || fail "uid_map: ${lines[2]}"
	assert_line --index 3 "app file"
	assert_line --index 4 new
	assert_line --index 5 changed
	[[ "${lines[6]}" =~ ^-rw-r--r--\ +1\ +65534\ +65534\  ]] || fail "the copy is not the job's: ${lines[6]}"
	assert_equal "$(snap "$APP")" "$app"
	assert_equal "$(snap "$B/layer/app")" "$copy"
	assert_equal "$(jq -r '.linux.resources.memory.limit, .linux.resources.memory.swap, .linux.resources.cpu.quota' "$B/config.json" | tr '\n' ' ')" \
		"268435456 268435456 50000 "
}

@test "tinyaws --sandbox: the minimal root (no image /etc/motd, empty /sys), the --type limits on the cgroup" {
	sandbox_convert --type micro -- 'cat /etc/motd 2>&1; ls -A /sys | wc -l; sleep 3600'
	BUNDLE="$B" run_detached "$CID"
	local pid cg
	pid="$(state_field "$CID" pid)"
	cg="$(awk -F: '$2 == "memory" {print $3}' "/proc/$pid/cgroup")"
	if [[ -n "$cg" ]]; then
		assert_equal "$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes")" 268435456
		assert_equal "$(cat "/sys/fs/cgroup/cpu$cg/cpu.cfs_quota_us")" 50000
	else
		cg="$(awk -F: '$1 == "0" {print $3}' "/proc/$pid/cgroup")"
		assert_equal "$(cat "/sys/fs/cgroup$cg/memory.max")" 268435456
	fi
	runtime kill "$CID" KILL
	wait_for_state "$CID" stopped
	run cat "$(container_log "$CID")"
	assert_line --index 0 --partial "No such file"
	assert_line --index 1 0
}

@test "tinyaws --sandbox: no layer can be switched off; only tinyrun's seccomp profiles" {
	for off in --no-overlay --no-limits --no-seccomp --no-namespaces; do
		convert "$B" --sandbox "$off"
		assert_failure 1
		assert_output --partial "every layer is on"
		[[ ! -e "$B" ]]
	done
	TINYAWS_SANDBOX=0 convert "$B" --sandbox
	assert_failure 1
	assert_output --partial "TINYAWS_SANDBOX=0"
	convert "$B" --sandbox --seccomp /etc/passwd
	assert_failure 1
	assert_output --partial "default or strict"
	[[ ! -e "$B" ]]
	convert "$B" --sandbox --seccomp strict -- 'true'
	assert_success
	assert_output --partial "seccomp strict"
}

@test "tinyaws --sandbox: a seed reached through a symlink, or holding a device node, is refused (no host file copied)" {
	sandbox_convert -- 'ls -A /app'
	# hostile bundle: the seed's parent is a symlink to a host directory
	mkdir -p "$BATS_TEST_TMPDIR/host/app"
	echo host-secret >"$BATS_TEST_TMPDIR/host/app/secret"
	chmod -R a+rX "$BATS_TEST_TMPDIR/host"
	mv "$B/layer" "$B/layer.real"
	ln -s "$BATS_TEST_TMPDIR/host" "$B/layer"
	run_nohang runtime run -b "$B" "$CID"
	assert_failure
	assert_output --partial "run.tinyrun.workspace.seed"
	refute_output --partial "secret"
	rm "$B/layer"
	mv "$B/layer.real" "$B/layer"
	mknod "$B/layer/app/null" c 1 3
	run_nohang runtime run -b "$B" "$CID-2"
	assert_failure
	assert_output --partial "run.tinyrun.workspace.seed"
	rm "$B/layer/app/null"
	run_nohang runtime run -b "$B" "$CID-3"
	assert_success
	assert_line data.txt
}

@test "tinyaws --sandbox: --output-limit, --workspace-size, --workspace-inodes write their annotations; the job's output is cut" {
	sandbox_convert --output-limit 100 --workspace-size 1m --workspace-inodes 500 -- 'head -c 500 /dev/zero | tr "\0" x; sleep 3600'
	assert_equal "$(jq -c '.annotations | [.["run.tinyrun.output-limit"], .["run.tinyrun.workspace-size"], .["run.tinyrun.workspace-inodes"]]' "$B/config.json")" \
		'["100","1m","500"]'
	status=0
	runtime_timeout 60 run -b "$B" "$CID" </dev/null >"$BATS_TEST_TMPDIR/out" 2>/dev/null || status=$?
	assert_equal "$status" 137
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$(printf 'x%.0s' $(seq 100))"
	rm -rf "$B"
	convert "$B" --output-limit 100
	assert_failure 1
	assert_output --partial "bundle: --output-limit, --workspace-size and --workspace-inodes need --sandbox"
	convert "$B" --sandbox --workspace-inodes 0
	assert_failure 1
	assert_output --partial "--workspace-inodes: expected 1 to 4294967296"
	[[ ! -e "$B" ]]
}
