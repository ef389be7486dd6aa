#!/bin/bash
# deb-guest.sh DEB ROOTFS_TAR: tests/deb.bats runs this in a vm-run guest (a throwaway
# Debian root where tinyrun is not installed): apt-get install the package (README's way; no
# download: what it needs is installed), run a busybox container
# with the installed tinyrun and one with podman using it, dpkg -P it, and list what is
# left. Prints "key: value" lines the test asserts on; exits non-zero at the first step
# that fails.
set -uo pipefail
deb=$1 tar=$2
die() { echo "FAILED: $*"; exit 1; }

[[ -e /usr/bin/tinyrun ]] && die "/usr/bin/tinyrun before the install"
# README's way: apt, which also checks that the package's relations are met here
[[ "$deb" == /* ]] || deb=$PWD/$deb
DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" >/tmp/install.log 2>&1 ||
	{ cat /tmp/install.log; die "apt-get install $deb"; }
echo "status: $(dpkg-query -W -f='${Status} ${Version}' tinyrun)"
echo "which: $(command -v tinyrun)"
echo "version: $(tinyrun --version | head -1)"
dpkg -L tinyrun >/tmp/files || die "dpkg -L"

# the installed tinyrun, directly
{ mkdir -p /tmp/b/rootfs && tar -C /tmp/b/rootfs -xf "$tar"; } || die "rootfs"
(cd /tmp/b && tinyrun spec) || die "tinyrun spec"
jq '.process.terminal = false | .process.args = ["/bin/sh", "-c", "echo direct pid $$ host $(hostname)"]' \
	/tmp/b/config.json >/tmp/b/c.json && mv /tmp/b/c.json /tmp/b/config.json
echo "run: $(tinyrun run --bundle /tmp/b deb-direct 2>&1)"

# podman with the package's podman snippet as its containers.conf and --runtime tinyrun:
# the snippet finds /usr/bin/tinyrun. While the container runs, the installed tinyrun's
# own state (podman passes no --root) lists it.
pm() {
	CONTAINERS_CONF=/usr/share/doc/tinyrun/examples/podman/containers.conf.d/tinyrun.conf \
		podman --root /tmp/p/storage --runroot /tmp/p/run --tmpdir /tmp/p/tmp --storage-driver overlay \
		--cgroup-manager cgroupfs --events-backend file --runtime tinyrun "$@" </dev/null
}
pm import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/bin' "$tar" localhost/deb-test >/tmp/import.log 2>&1 ||
	{ cat /tmp/import.log; die "podman import"; }
id=$(pm run -d --network none localhost/deb-test sh -c 'echo podman pid $$; exec sleep 600') ||
	die "podman run -d"
echo "podman-id: $id"
echo "podman-runtime: $(pm inspect --format '{{.OCIRuntime}}' "$id")"
echo "tinyrun-list: $(tinyrun list -q | tr '\n' ' ')"
for ((i = 0; i < 50; i++)); do
	logs=$(pm logs "$id" 2>&1) && [[ -n "$logs" ]] && break
	sleep 0.1
done
echo "podman-logs: $logs"
pm rm -f -t 0 "$id" >/dev/null || die "podman rm"

dpkg -P tinyrun >/tmp/dpkg-p.log 2>&1 || { cat /tmp/dpkg-p.log; die "dpkg -P"; }
echo "after-purge: $(dpkg-query -W -f='${Status}' tinyrun 2>&1)"
# left: a file of the package that still exists, or a directory that no other package
# owns (one dpkg -S for all: each is slow here)
left="" dirs=()
while read -r f; do
	[[ "$f" != /. && ( -e "$f" || -L "$f" ) ]] || continue
	if [[ -d "$f" && ! -L "$f" ]]; then dirs+=("$f"); else left+=" $f"; fi
done </tmp/files
if ((${#dirs[@]})); then
	left+=$(dpkg -S "${dirs[@]}" 2>&1 >/dev/null | sed -n 's/.*no path found matching pattern / /p' | tr -d '\n')
fi
echo "files: $(wc -l </tmp/files)"
echo "left:${left:- none}"
