#!/usr/bin/env bash
# demo.sh [BUNDLE_DIR]: build a busybox bundle and run it with ./tinyrun.
#
# The bundle (default build/demo-bundle) gets a rootfs made of the static
# busybox from busybox-static, and a config.json from `tinyrun spec` with the
# terminal off, hostname "tinyrun-demo" and a process that prints what the
# container sees: its hostname, `id`, PID 1 and the process list, its mounts.
# State goes to a private --root; everything is removed at exit.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime="${RUNTIME:-$repo/tinyrun}"
bundle="${1:-$repo/build/demo-bundle}"
root="$(mktemp -d /tmp/tinyrun-demo-root.XXXXXX)"
id="tinyrun-demo-$$"
# shellcheck source=tests/lib/common.bash
source "$repo/tests/lib/common.bash"
# the container's cgroup is the default /tinyrun/<id>: its parent goes too if the demo made it
parents_before="$(default_cgroup_parents)"

cleanup() {
	"$runtime" --root "$root" delete --force "$id" >/dev/null 2>&1 || true
	remove_default_cgroup_parents "$parents_before"
	rm -rf "$root" "$bundle"
}
trap cleanup EXIT

[[ -x "$runtime" ]] || { echo "demo: $runtime is not built (run make)" >&2; exit 1; }
busybox=/bin/busybox
# a static binary: ldd (libc-bin) says "not a dynamic executable" and fails
if [[ ! -x "$busybox" ]] || ldd "$busybox" >/dev/null 2>&1; then
	echo "demo: $busybox is not a static busybox (apt-get install busybox-static)" >&2
	exit 1
fi

echo "== building a busybox bundle in $bundle"
rm -rf "$bundle"
mkdir -p "$bundle/rootfs"/{bin,dev,proc,sys,tmp,etc,root}
cp "$busybox" "$bundle/rootfs/bin/busybox"
for applet in $("$busybox" --list); do
	[[ "$applet" == busybox ]] || ln -s busybox "$bundle/rootfs/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$bundle/rootfs/etc/passwd"
printf 'root:x:0:\n' >"$bundle/rootfs/etc/group"

cat >"$bundle/rootfs/demo.sh" <<'SCRIPT'
echo "hostname: $(hostname)"
echo "id:       $(id)"
echo "PID 1:    $(tr '\0' ' ' </proc/1/cmdline)"
echo
echo "processes:"
ps -o pid,user,args
echo
echo "mounts:"
cat /proc/self/mounts
SCRIPT

"$runtime" spec --bundle "$bundle"
jq '.process.terminal = false | .hostname = "tinyrun-demo" | .process.args = ["sh", "/demo.sh"]' \
	"$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"

echo "== $(basename "$runtime") run --bundle $bundle $id"
echo
status=0
"$runtime" --root "$root" run --bundle "$bundle" "$id" </dev/null || status=$?
echo
echo "== container exited with status $status"
exit "$status"
