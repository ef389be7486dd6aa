#!/bin/bash
# make bench, last part: the start of a sandbox, tinyrun's profile against
# bubblewrap (bwrap) set up with the same isolation as far as bwrap goes.
#
#   BENCH_N=100 bash tests/bench/sandbox.sh   (prints a markdown section; bench.sh appends it)
#
# tinyrun: `spec --sandbox` with process /bin/true, `run` in the foreground (the
# lease, the minimal root, the cgroup with its limits, seccomp, delete at exit).
# bwrap: run as the leased uid itself (setpriv), so that its user namespace maps
# 65534 inside to that one unprivileged host uid as tinyrun's does; every
# namespace, no capabilities, the image's top dirs read-only, /etc a read-only
# tmpfs with passwd and group, 128 MiB workspace and /tmp, proc, an empty
# read-only /sys, hostname, a clean env, the profile's rlimits (core 0, nofile 256,
# stack 8 MiB, fsize 64 MiB)
# (prlimit), and the very BPF program tinyrun compiled for the default profile
# (taken from a private seccomp cache). What bwrap cannot do is listed under
# the table: cgroup limits, /proc subset=pid, a /dev without tty/pts/ptmx.
# Then issue 31's two load cases (tests/bench/sandbox-scale.sh): 8 at once, and the start
# with 500 host mounts. SANDBOX_PARTS="start parallel mounts" picks (all by default); "gap" adds
# where a start's CPU goes with 8 at once (perf -a; tests/bench/sandbox-scale.sh's sandbox_gap).
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
N=${BENCH_N:-100}
SPARTS=" ${SANDBOX_PARTS:-start parallel mounts} "
TINYRUN=${BENCH_TINYRUN:-$PWD/tinyrun}
LEASE_FIRST=1900200000	# no host user has these
BWRAP_UID=1900299999
say() { printf '%s\n' "$*" >&2; }

command -v bwrap >/dev/null || { say "sandbox bench: bwrap missing (make deps installs bubblewrap)"; exit 1; }
command -v hyperfine >/dev/null || { say "sandbox bench: hyperfine missing"; exit 1; }
# on a tmpfs when there is one, as bench.sh's runtime roots (lib.sh): on ext4 every start's
# state files and lease record would cost inode allocation and a disk flush bwrap never pays
BASE=/tmp
[ "$(stat -fc %T /dev/shm 2>/dev/null)" = tmpfs ] && BASE=/dev/shm
TMP=$(mktemp -d "$BASE/tinyrun-sandbox-bench.XXXXXX") || exit 1
chmod 0711 "$TMP"
cleanup() {
	local id
	for id in sbx sbx-w{0..7}; do "$TINYRUN" --root "$TMP/root" delete -f "$id" >/dev/null 2>&1; done
	rmdir /sys/fs/cgroup/*/tinyrun-bench/sbx* /sys/fs/cgroup/*/tinyrun-bench 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# the image: static busybox
B=$TMP/bundle
mkdir -p "$B/rootfs/bin"
cp /bin/busybox "$B/rootfs/bin/" && ln -s busybox "$B/rootfs/bin/true" && ln -s busybox "$B/rootfs/bin/sh" || exit 1
"$TINYRUN" spec --sandbox -b "$B" || exit 1
jq --arg r "$LEASE_FIRST-$((LEASE_FIRST + 99))" \
	'.process.args = ["/bin/true"] | .annotations["run.tinyrun.userns.range"] = $r |
	 .linux.cgroupsPath = "/tinyrun-bench/sbx"' "$B/config.json" >"$B/c.json" && mv "$B/c.json" "$B/config.json"
chmod -R go+rX "$B"

# the BPF tinyrun loads: one run with an empty private cache, then its one file
# (seccomp/cache.c: "TRSCMP1\n", u32 key_len n_insns flags notify skipped_len, key, insns ...)
unshare -m --propagation private sh -c 'mkdir -p /run/tinyrun-cache &&
	mount -t tmpfs -o mode=700 none /run/tinyrun-cache &&
	"$0" --root "$1/root" run --bundle "$2" sbx && cp /run/tinyrun-cache/* "$1/"' \
	"$TINYRUN" "$TMP" "$B" 2>/dev/null || { say "sandbox bench: the first tinyrun run failed"; exit 1; }
python3 - "$TMP" <<'PY' || { say "sandbox bench: no compiled filter found"; exit 1; }
import glob, struct, sys
d = sys.argv[1]
for f in glob.glob(d + "/*"):
    b = open(f, "rb").read() if not f.endswith(("bundle", "root")) else b""
    if b[:8] != b"TRSCMP1\n":
        continue
    key_len, n, _flags, _notify, _sk = struct.unpack_from("<5I", b, 8)
    start = 8 + 20 + key_len
    open(d + "/filter.bpf", "wb").write(b[start:start + 8 * n])
    sys.exit(0)
sys.exit(1)
PY
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:sandbox:/workspace:/sbin/nologin\n' >"$TMP/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$TMP/group"
chmod 0644 "$TMP/passwd" "$TMP/group" "$TMP/filter.bpf"

cat >"$TMP/bwrap.sh" <<EOS
#!/bin/sh
exec setpriv --reuid=$BWRAP_UID --regid=$BWRAP_UID --clear-groups --inh-caps=-all \\
  prlimit --core=0 --nofile=256 --stack=8388608 --fsize=67108864 -- \\
  bwrap --unshare-all --die-with-parent --new-session --uid 65534 --gid 65534 --hostname sandbox \\
    --cap-drop ALL --clearenv --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    --setenv HOME /workspace --ro-bind $B/rootfs/bin /bin \\
    --tmpfs /etc --file 5 /etc/passwd --file 6 /etc/group --remount-ro /etc \\
    --size 134217728 --tmpfs /workspace --size 134217728 --perms 1777 --tmpfs /tmp \\
    --proc /proc --dev /dev --tmpfs /sys --remount-ro /sys --remount-ro / --chdir /workspace \\
    --seccomp 7 -- /bin/true 5<$TMP/passwd 6<$TMP/group 7<$TMP/filter.bpf
EOS
chmod 0755 "$TMP/bwrap.sh"
"$TMP/bwrap.sh" || { say "sandbox bench: bwrap cannot start here"; exit 1; }

if [[ $SPARTS == *" start "* ]]; then
say "sandbox bench: $N runs each"
hyperfine -N --warmup 3 --runs "$N" --export-json "$TMP/h.json" \
	-n "tinyrun run (spec --sandbox)" "$TINYRUN --root $TMP/root run --bundle $B sbx" \
	-n "bwrap (same isolation)" "$TMP/bwrap.sh" >&2 || exit 1

cat <<EOF
## sandbox start: tinyrun vs bubblewrap

$(date -u '+%Y-%m-%d %H:%M UTC'), $(bwrap --version), $N runs each (hyperfine), /bin/true from static busybox.

| command | p50 (median) ms | p10-p90 ms | p99 ms |
|---|---|---|---|
EOF
# pN: the nearest-rank percentile of the sorted times (p99 of 100 runs: the 99th)
jq -r 'def ms: . * 10000 | round / 10;
	def pct($t; $p): $t[([(($t | length) * $p / 100 | ceil) - 1, 0] | max)];
	.results[] | (.times | sort) as $t |
	"| \(.command) | \(.median | ms) | \(pct($t; 10) | ms)-\(pct($t; 90) | ms) | \(pct($t; 99) | ms) |"' \
	"$TMP/h.json"
jq -r '.results as $r | "\nbwrap/tinyrun: \(($r[1].median / $r[0].median) * 100 | round / 100) (above 1: tinyrun starts faster)."' "$TMP/h.json"
cat <<'EOF'

Same in both: every namespace (user, pid, net with lo only, ipc, uts, mount, cgroup), uid/gid
65534 mapped to one unprivileged host uid, no capabilities, NoNewPrivileges, the image's /bin
read-only, /etc a read-only tmpfs with passwd and group, 128 MiB workspace and /tmp, an empty
read-only /sys, the hostname, a clean environment, the profile's rlimits (core 0, nofile 256, stack, fsize), the same
seccomp BPF. Only tinyrun: the uid leased under a lock and returned, a cgroup with memory (no
swap), pids and cpu limits (bwrap has none), /proc with subset=pid (bwrap mounts all of procfs),
a /dev with only null zero full random urandom (bwrap adds tty, pts, ptmx), and the container's
state for `state`/`kill`/`exec`. bwrap's user namespace is made by an unprivileged caller (the
leased uid through setpriv), tinyrun's by root writing the maps.
EOF
fi
# shellcheck source=tests/bench/sandbox-scale.sh
source tests/bench/sandbox-scale.sh
[[ $SPARTS != *" parallel "* ]] || sandbox_parallel || say "sandbox bench: the 8-at-once case failed"
# the gap before the mounts case: the 500 mounts' teardown, in kernel workers after their holder
# ends, would be counted in a system-wide profile taken right after it
[[ $SPARTS != *" gap "* ]] || sandbox_gap || say "sandbox bench: the gap case failed"
[[ $SPARTS != *" mounts "* ]] || sandbox_mounts || say "sandbox bench: the mounts case failed"
printf '\n%s\n' "${BENCH_CALIBRATION:-$(bash tests/bench/calibrate.sh)}"
