#!/bin/sh
# enable-deb-src.sh: make `apt-get source containerd` work (tests/cri.bats
# compiles the CRI api.proto of Debian's containerd source package). When apt
# knows no source package for containerd, add
# /etc/apt/sources.list.d/tinyrun-deb-src.{sources,list}: a deb-src twin of
# every deb entry already configured (same mirrors, suites, components,
# keys), then apt-get update. Run by `make check` (root; make deps-src), which
# says so before it changes anything.
set -eu
apt-cache showsrc containerd 2>/dev/null | grep -q '^Package:' && exit 0
out=/etc/apt/sources.list.d/tinyrun-deb-src
echo "make deps: adding deb-src entries ($out.*) and running apt-get update, so that tests/cri.bats can apt-get source containerd"
found=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && [ "$f" != "$out.sources" ] || continue
	# deb822 stanzas whose Types is exactly deb
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /(^|\n)Types: *deb *(\n|$)/ { sub(/Types: *deb/, "Types: deb-src"); print }' "$f"
done >"$out.sources.new"
if [ -s "$out.sources.new" ]; then mv "$out.sources.new" "$out.sources"; found=1; else rm -f "$out.sources.new"; fi
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] && [ "$f" != "$out.list" ] || continue
	sed -n 's/^deb \(.*\)/deb-src \1/p' "$f"
done >"$out.list.new"
if [ -s "$out.list.new" ]; then mv "$out.list.new" "$out.list"; found=1; else rm -f "$out.list.new"; fi
[ -n "$found" ] || { echo "enable-deb-src.sh: no deb entry in /etc/apt to mirror" >&2; exit 1; }
apt-get update -qq
