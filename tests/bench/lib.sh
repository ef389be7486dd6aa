# lib.sh: what bench.sh and profile.sh share. Source it from the repository's top directory.
#
# bench_setup: root check, builds build/bench/driver, makes $TMP (runtime roots, bundles,
# the busybox rootfs, config templates), snapshots ./tinyrun, removes cgroups a killed earlier
# run left, and sets an EXIT trap that deletes every container and cgroup the run made.
# shellcheck shell=bash

OUT=${BENCH_OUT:-build/bench}
DRIVER=$OUT/driver
FLOOR=$OUT/floor	# tests/bench/floor.c: clone + pivot_root + exec, no runtime
FLOOR_CG=$OUT/floor-cg	# the same with a cgroup in every hierarchy (-DFLOOR_CGROUPS)
CG_PARENT=tinyrun-bench	# every container's cgroup is /tinyrun-bench/<id>
RUNTIMES=(${BENCH_RUNTIMES:-tinyrun crun runc})	# BENCH_RUNTIMES="tinyrun crun": fewer peers
declare -A BIN=([tinyrun]=${BENCH_TINYRUN:-$PWD/tinyrun} [crun]=$(command -v crun || echo crun)
		[runc]=$(command -v runc || echo runc))
SELF=${0##*/}; SELF=${SELF%.sh}

say() { printf '%s\n' "$*" >&2; }

# in_ns CMD...: CMD in a private mount namespace where an empty file hides
# /sys/fs/cgroup/unified/cgroup.controllers (crun 1.8.1 refuses this hybrid host otherwise;
# a pure cgroup v2 host, the vm-run guest of `make bench-v2`, needs no bind), and where
# tinyrun's seccomp filter cache (/run/tinyrun-cache) is a tmpfs of the bench's own, so
# that the cost curves can empty it (driver -W) without touching anyone else's.
in_ns() {
	mkdir -p -m 0700 /run/tinyrun-cache	# as tinyrun makes it (seccomp.bats checks the mode)
	# shellcheck disable=SC2016 # $0 and $@ belong to the inner sh
	unshare -m --propagation private sh -c \
		'{ [ ! -e /sys/fs/cgroup/unified/cgroup.controllers ] ||
		   mount --bind "$0" /sys/fs/cgroup/unified/cgroup.controllers; } &&
		 mount -t tmpfs -o mode=0700,size=16m bench-cache /run/tinyrun-cache && exec "$@"' \
		"$EMPTY" "$@"
}

# Is this host pure cgroup v2 (the vm-run guest)?
pure_v2() { [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; }

cgroup_parents() {
	local d
	for d in /sys/fs/cgroup/"$CG_PARENT" /sys/fs/cgroup/*/"$CG_PARENT"; do
		[ -d "$d" ] && printf '%s\n' "$d"
	done
}

# BENCH_EXTRA's binaries (bench.sh's EXTRA, name=binary) copied next to ./tinyrun's copy: the
# same filesystem for every column. On the vm-run guest's cwd share (9p, cache=mmap) nothing
# of a binary stays cached between its execs: each exec reads its pages from the host again
# (11 major faults for the static tinyrun's `state`, about 0.6 s there), which a tmpfs copy,
# like the host's own disk, does not pay.
snapshot_extras() {
	local i name bin
	for i in "${!EXTRA[@]}"; do
		name=${EXTRA[$i]%%=*} bin=${EXTRA[$i]#*=}
		[ -f "$bin" ] && [ -x "$bin" ] && mkdir -p "$TMP/bin" && cp "$bin" "$TMP/bin/x-$name" &&
			EXTRA[i]=$name=$TMP/bin/x-$name
	done
}

# Kills what is left in our cgroups (by pid) and removes them, deepest first.
remove_cgroups() {
	local parent pid
	for parent in $(cgroup_parents); do
		find "$parent" -name cgroup.procs -exec cat {} + 2>/dev/null |
			while read -r pid; do kill -9 "$pid" 2>/dev/null; done
		for _ in $(seq 50); do
			find "$parent" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
			rmdir "$parent" 2>/dev/null
			[ -d "$parent" ] || break
			sleep 0.1
		done
		[ -d "$parent" ] && say "$SELF: could not remove $parent"
	done
}

cleanup() {
	local rt dir
	trap - EXIT INT TERM
	for rt in "${RUNTIMES[@]}"; do
		for dir in "$TMP/root-$rt"/*/; do
			[ -d "$dir" ] || continue
			in_ns "${BIN[$rt]}" --root "$TMP/root-$rt" delete --force "$(basename "$dir")" \
				>/dev/null 2>&1
		done
	done
	remove_cgroups
	rm -rf "$TMP"
}

# The busybox rootfs and config templates: `runc spec` edited with jq. The driver replaces
# @CG@ by /tinyrun-bench/<container id> and "@MEM@" by a number.
make_bundle() {
	local rootfs=$TMP/rootfs a
	mkdir -p "$rootfs"/{bin,proc,sys,dev,tmp,etc} "$TMP/bundles" || return 1
	cp /bin/busybox "$rootfs/bin/busybox" || return 1
	for a in true sleep sh cat; do ln -s busybox "$rootfs/bin/$a"; done
	mkdir -p "$TMP/spec" && (cd "$TMP/spec" && runc spec) || return 1
	# shellcheck disable=SC2016 # $root is jq's
	local base='.process.terminal = false | .root = {path: $root, readonly: false}
		| .linux.cgroupsPath = "@CG@"'
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/true"]' \
		"$TMP/spec/config.json" >"$TMP/config-true.json" &&
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/sleep", "1000"]' \
		"$TMP/spec/config.json" >"$TMP/config-sleep.json" &&
	jq --arg root "$rootfs" "$base"' | .process.args = ["/bin/true"]
		| .linux.resources.memory = {limit: "@MEM@"}' \
		"$TMP/spec/config.json" >"$TMP/config-mem.json"
}

bench_setup() {
	if [ "$(id -u)" != 0 ]; then say "$SELF: needs root (namespaces, cgroups)"; return 1; fi
	mkdir -p "$OUT"
	gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$DRIVER" tests/bench/driver.c || return 1
	gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$FLOOR" tests/bench/floor.c || return 1
	gcc -O2 -std=gnu11 -Wall -Wextra -Werror -DFLOOR_CGROUPS -o "$FLOOR_CG" tests/bench/floor.c ||
		return 1
	# On a tmpfs when there is one (/dev/shm): the runtimes' --root dirs live on /run, a tmpfs,
	# on most hosts; on ext4 every container's state files cost inode allocation and journal
	# work that would be measured as the runtimes' (the bench VM's /run is ext4).
	local base=/tmp
	[ "$(stat -fc %T /dev/shm 2>/dev/null)" = tmpfs ] && base=/dev/shm
	TMP=$(mktemp -d "$base/tinyrun-$SELF.XXXXXX") || return 1
	EMPTY=$TMP/empty-cgroup.controllers
	: >"$EMPTY"
	trap cleanup EXIT
	trap 'say "$SELF: interrupted"; exit 130' INT TERM
	# Measure one fixed binary even if ./tinyrun is rebuilt meanwhile.
	if [ -x "${BIN[tinyrun]}" ]; then
		mkdir -p "$TMP/bin" && cp "${BIN[tinyrun]}" "$TMP/bin/tinyrun" &&
			BIN[tinyrun]=$TMP/bin/tinyrun
	fi
	if [ -n "$(cgroup_parents)" ]; then
		say "$SELF: removing cgroups left by an earlier run: $(cgroup_parents | tr '\n' ' ')"
		remove_cgroups
	fi
	make_bundle || { say "$SELF: could not build the busybox bundle"; return 1; }
}
