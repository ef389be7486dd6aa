#!/bin/sh
# build-deb.sh ROOT VERSION OUTDIR: the Debian package of tinyrun from ROOT, the tree
# `make install DESTDIR=ROOT PREFIX=/usr` made, plus contrib/debian/ (control, copyright,
# changelog) and contrib/'s client snippets as examples. Built with dpkg-deb directly:
# no debhelper, no source package. Prints the .deb's path. `make deb` runs it.
set -eu
root=$1 upstream=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
contrib=$(dirname "$here")
doc=$root/usr/share/doc/tinyrun

# <upstream>+git<commits>.<hash>[.dirty]-1: grows with every commit of a branch
if hash=$(git -C "$contrib" rev-parse --short HEAD 2>/dev/null); then
	n=$(git -C "$contrib" rev-list --count HEAD)
	git -C "$contrib" diff --quiet HEAD -- 2>/dev/null || hash=$hash.dirty
	version=$upstream+git$n.$hash-1
	date=$(git -C "$contrib" log -1 --format=%aD)
	commit="commit $hash"
else
	version=$upstream-1 date=$(date -R) hash=unknown commit="no git"
fi
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-tinyrun maintainers <maintainers@users.noreply.a-seed-e4044340.example>}
# the sources of what the static binary holds (Debian policy 7.8): its libc (musl's build,
# the default, or glibc's: --version says), and the libraries, which contrib/musl/libs.sh
# builds from the very source versions of these -dev packages
libc=libc6-dev
"$root/usr/bin/tinyrun" --version | grep -q '+MUSL' && libc=musl-dev
built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version}), ' \
	$libc libseccomp-dev libcap-dev libyajl-dev | sed 's/, $//')

# Debian's layout: a stripped binary (as dh_strip), a gzipped man page (gzip -9n)
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/tinyrun"
gzip -9nf "$root/usr/share/man/man8/tinyrun.8"

install -d -m 0755 "$doc/examples"
install -m 0644 "$here/copyright" "$doc/copyright"
install -m 0644 "$contrib/CLIENTS.md" "$doc/CLIENTS.md"
sed -e "s/@VERSION@/$version/" -e "s/@COMMIT@/$commit/" -e "s/@MAINTAINER@/$maintainer/" \
	-e "s/@DATE@/$date/" "$here/changelog.in" | gzip -9n >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"
# the snippets name the binary `make install` puts in /usr/local: here it is in /usr
for f in podman/containers.conf.d/tinyrun.conf containerd/config.toml docker/daemon.json \
	kubernetes/runtimeclass.yaml; do
	install -d -m 0755 "$doc/examples/$(dirname "$f")"
	case $f in
	podman/*) install -m 0644 "$contrib/$f" "$doc/examples/$f" ;; # lists both paths
	*) sed 's|/usr/local/bin/tinyrun|/usr/bin/tinyrun|g' "$contrib/$f" >"$doc/examples/$f"
	   chmod 0644 "$doc/examples/$f" ;;
	esac
done

install -d -m 0755 "$root/usr/share/lintian/overrides"
install -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/tinyrun"

install -d -m 0755 "$root/DEBIAN"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@MAINTAINER@/$maintainer/" \
	-e "s/@SIZE@/$size/" -e "s/@BUILT_USING@/$built_using/" \
	"$here/control.in" >"$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$out/tinyrun_${version#*:}_$arch.deb
rm -f "$out"/tinyrun_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
