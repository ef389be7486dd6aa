#!/bin/bash
# The tinyaws part of make bench: one tinyaws job (`sh -c true` in /app of a
# busybox image, app dir of a few files) started three ways, interleaved:
#   recipe   tinyaws' own plumbing as a shell script: unshare --pid --mount
#            --ipc --fork --mount-proc, an overlay over the image, cp -a of the
#            app into /app, pivot_root, memory and cpu limits in cgroup v1 files
#            (no seccomp: a shell cannot load a profile), then rm of the scratch
#   bundle   `tinyrun run -b BUNDLE ID` of a bundle converted once (the job
#            setup a tinyaws agent would pay per job: per-container scratch,
#            overlay, /app copy from the bundle's layer, limits, seccomp)
#   oneshot  `tinyrun run --tinyaws IMAGE --app DIR ID` (convert + run + delete)
# Prints a markdown table of medians (ms, p10-p90) on stdout.
#   BENCH_N=100 bash tests/bench/tinyaws.sh   (N/2 iterations of each, at least 5)
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/common.bash
source tests/lib/common.bash
N=$(( ${BENCH_N:-100} / 2 > 5 ? ${BENCH_N:-100} / 2 : 5 ))
TR=${BENCH_TINYRUN:-$PWD/tinyrun}
T=$(mktemp -d /tmp/tinyrun-bench-tinyaws.XXXXXX)
CG=tinyrun-bench-tinyaws
V1=false
[ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && [ -d /sys/fs/cgroup/memory ] && V1=true

# the jobs' cgroups are tinyrun's default /tinyrun/<id> (run --tinyaws takes no cgroupsPath):
# the parent goes at the end when this script made it
DEFAULT_PARENTS=$(default_cgroup_parents)
cleanup() {
	local d
	for id in $("$TR" --root "$T/root" list -q 2>/dev/null); do
		"$TR" --root "$T/root" delete -f "$id" >/dev/null 2>&1
	done
	for d in /sys/fs/cgroup/memory/$CG/* /sys/fs/cgroup/cpu/$CG/*; do [ -d "$d" ] && rmdir "$d"; done
	for d in /sys/fs/cgroup/memory/$CG /sys/fs/cgroup/cpu/$CG; do [ -d "$d" ] && rmdir "$d"; done
	remove_default_cgroup_parents "$DEFAULT_PARENTS"
	rm -rf "$T"
}
trap cleanup EXIT

busybox_rootfs "$T/image" /bin/busybox dev proc sys etc root || exit 1
mkdir -p "$T/app" "$T/root"
for i in 1 2 3 4 5; do head -c 4096 /dev/urandom >"$T/app/file$i"; done
echo 'true' >"$T/app/start.sh"
"$TR" bundle tinyaws "$T/image" --app "$T/app" -o "$T/bundle" 2>/dev/null || exit 1

# tinyaws' recipe, as its agent runs it (job id $1)
cat >"$T/recipe.sh" <<'RECIPE'
set -e
img=$1 app=$2 job=$3 v1=$4 cg=$5
mkdir -p "$job/upper" "$job/work" "$job/merged"
if [ "$v1" = true ]; then
	for c in memory cpu; do mkdir -p "/sys/fs/cgroup/$c/$cg/${job##*/}"; done
	echo 536870912 >"/sys/fs/cgroup/memory/$cg/${job##*/}/memory.limit_in_bytes"
	echo 100000 >"/sys/fs/cgroup/cpu/$cg/${job##*/}/cpu.cfs_quota_us"
	for c in memory cpu; do echo $$ >"/sys/fs/cgroup/$c/$cg/${job##*/}/tasks"; done
fi
unshare --pid --mount --ipc --fork --mount-proc sh -c '
	set -e
	img=$1 app=$2 job=$3
	mount -t overlay overlay -o "lowerdir=$img,upperdir=$job/upper,workdir=$job/work" "$job/merged"
	mkdir -p "$job/merged/app"
	cp -a "$app/." "$job/merged/app/"
	mount -t proc proc "$job/merged/proc"
	mkdir -p "$job/merged/.old"
	cd "$job/merged"
	pivot_root . .old
	umount -l /.old
	rmdir /.old
	cd /app
	exec sh -c "sh start.sh"
' sh "$img" "$app" "$job"
if [ "$v1" = true ]; then
	for c in memory cpu; do echo $$ >"/sys/fs/cgroup/$c/tasks"; rmdir "/sys/fs/cgroup/$c/$cg/${job##*/}"; done
fi
rm -rf "$job"
RECIPE

ms() { echo $(( (${2/./} - ${1/./}) )); }   # µs between two $EPOCHREALTIME
declare -A S=([recipe]="" [bundle]="" [oneshot]="")
run_one() {
	local how=$1 i=$2 t0 t1
	t0=$EPOCHREALTIME
	case $how in
	recipe) bash "$T/recipe.sh" "$T/image" "$T/app" "$T/job-$i" "$V1" "$CG" ;;
	bundle) "$TR" --root "$T/root" run -b "$T/bundle" "b$i" ;;
	oneshot) TMPDIR=$T "$TR" --root "$T/root" run --tinyaws "$T/image" --app "$T/app" "o$i" 2>/dev/null ;;
	esac >/dev/null 2>"$T/err" || { echo "tinyaws bench: $how failed: $(cat "$T/err")" >&2; return 1; }
	t1=$EPOCHREALTIME
	S[$how]+="$(ms "$t0" "$t1") "
}
order=(recipe bundle oneshot)
for ((i = 0; i < N + 1; i++)); do
	for ((k = 0; k < 3; k++)); do
		how=${order[$(( (i + k) % 3 ))]}
		run_one "$how" "$i" || exit 1
	done
	[ "$i" = 0 ] && S=([recipe]="" [bundle]="" [oneshot]="")   # the first round warms up
done

stat_of() {   # median (p10-p90) in ms of µs samples
	tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END {
		m = v[int((NR + 1) / 2)]; lo = v[int(NR * 0.1) + 1]; hi = v[int(NR * 0.9) > 0 ? int(NR * 0.9) : 1]
		printf "%.1f (%.1f-%.1f)\t%.3f\n", m / 1000, lo / 1000, hi / 1000, m / 1000 }'
}
r=$(stat_of "${S[recipe]}")
cat <<EOF

## tinyaws jobs: tinyrun vs tinyaws' own recipe

$N interleaved iterations each; one job = \`sh start.sh\` (true) in /app of a busybox image, an app
dir of 5 files of 4 KiB; cgroup v1 limits: $V1. Medians in ms (p10-p90); ratio = recipe/tinyrun
(above 1: tinyrun is ahead).

| how | ms | recipe/tinyrun |
|---|---|---|
| tinyaws recipe (unshare + overlay + cp -a + pivot_root + cgroup files; no seccomp) | ${r%%$'\t'*} | 1.00 |
EOF
for how in bundle oneshot; do
	s=$(stat_of "${S[$how]}")
	label="tinyrun run -b BUNDLE (converted once; overlay, limits, seccomp)"
	[ "$how" = oneshot ] && label="tinyrun run --tinyaws IMAGE --app DIR (convert + run + delete)"
	printf '| %s | %s | %s |\n' "$label" "${s%%$'\t'*}" \
		"$(awk -v a="${r##*$'\t'}" -v b="${s##*$'\t'}" 'BEGIN { printf "%.2f", a / b }')"
done
printf '\n%s\n' "${BENCH_CALIBRATION:-$(bash tests/bench/calibrate.sh)}"
