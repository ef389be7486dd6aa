#!/bin/bash
# run.sh [RUNTIME]: the OCI runtime-spec conformance suite against RUNTIME
# (default ./tinyrun), any runtime with the runc-style command line.
#
# Runs every tests/conformance/*.bats with `bats --tap` under a child
# subreaper, writes build/conformance.tap (or $CONFORMANCE_TAP), prints the
# MUST/SHOULD/MAY totals and "N passed, M failed"; exits 1 on any failure.
#
#   CONFORMANCE_FILTER=REGEX      only tests whose name matches (bats --filter)
#   CONFORMANCE_FILES="a.bats .." only these files
#   CONFORMANCE_PRIVATE_CGROUP2=1 run in a private mount namespace where
#                                 /sys/fs/cgroup/unified/cgroup.controllers reads
#                                 empty (what crun 1.8 needs on a hybrid host)
#   CONFORMANCE_NO_VM=1           skip the cgroup v2 tests (no vm-run boot)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rt=${1:-./tinyrun}
case $rt in /*) ;; */*) rt=$(cd "$(dirname "$rt")" && pwd)/$(basename "$rt") ;; *) rt=$(command -v "$rt" || echo "$rt") ;; esac
if [ ! -x "$rt" ]; then
	echo "conformance: runtime '$rt' is not executable (build it or pass a path)" >&2
	exit 2
fi

if [ "${CONFORMANCE_PRIVATE_CGROUP2:-}" = 1 ] && [ -z "${CONFORMANCE_IN_PRIVATE_NS:-}" ]; then
	empty=$(mktemp /tmp/conformance-empty.XXXXXX)
	trap 'rm -f "$empty"' EXIT
	CONFORMANCE_IN_PRIVATE_NS=1 unshare -m --propagation private sh -c \
		'mount --bind "$1" /sys/fs/cgroup/unified/cgroup.controllers && shift && exec bash "$@"' \
		sh "$empty" "$0" "$rt"
	exit $?
fi

build=${CONF_BUILD:-$repo/build/conformance}
export CONF_BUILD=$build RUNTIME=$rt
export CONFORMANCE_RUNID=${CONFORMANCE_RUNID:-$$}
mkdir -p "$build"
tap=${CONFORMANCE_TAP:-$repo/build/conformance.tap}
mkdir -p "$(dirname "$tap")"

# build the checker, the subreaper and the rootfs template once
# shellcheck source=helpers.bash
(source "$here/helpers.bash" && conformance_build) || { echo "conformance: build failed" >&2; exit 2; }

files=()
if [ -n "${CONFORMANCE_FILES:-}" ]; then
	for f in $CONFORMANCE_FILES; do
		[ -e "$f" ] || f=$here/$f
		files+=("$f")
	done
else
	files=("$here"/*.bats)
	# tinyrun's make check runs cgroup-v2.bats in a guest beside this suite
	# (tests/lib/guest-batch.sh): last, it waits the least for it
	if [ -n "${TINYRUN_GUEST_BATCH:-}" ]; then
		rest=()
		for f in "${files[@]}"; do [ "$f" = "$here/cgroup-v2.bats" ] || rest+=("$f"); done
		files=("${rest[@]}" "$here/cgroup-v2.bats")
	fi
fi
args=(--tap)
[ -n "${CONFORMANCE_FILTER:-}" ] && args+=(--filter "$CONFORMANCE_FILTER")

echo "# conformance: runtime $rt ($("$rt" --version 2>/dev/null | head -1))" >&2
cd "$repo" || exit 2
"$build/subreaper" bats "${args[@]}" "${files[@]}" | tee "$tap"
bats_status=${PIPESTATUS[0]}

summary=$(awk '
	/^(ok|not ok) / {
		skip = ($0 ~ /# [sS][kK][iI][pP]/)
		fail = ($1 == "not")
		lvl = "OTHER"
		if (match($0, /: (MUST|SHOULD|MAY)( |$)/)) { lvl = substr($0, RSTART + 2, RLENGTH - 2); sub(/ $/, "", lvl) }
		if (fail) { f[lvl]++; F++ } else if (skip) { s[lvl]++; S++ } else { p[lvl]++; P++ }
	}
	END {
		n = split("MUST SHOULD MAY OTHER", L, " ")
		for (i = 1; i <= n; i++) {
			l = L[i]
			if (p[l] + f[l] + s[l] == 0) continue
			printf "%-6s %4d passed, %4d failed, %4d skipped\n", l, p[l], f[l], s[l]
		}
		printf "%d passed, %d failed\n", P, F
		exit (F > 0)
	}' "$tap")
awk_status=$?
echo "$summary"
if [ "$awk_status" -ne 0 ] || [ "$bats_status" -ne 0 ]; then
	exit 1
fi
exit 0
