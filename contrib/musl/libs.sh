#!/bin/sh
# contrib/musl/libs.sh OUT CC: the musl side of the build (make LIBC=musl), in OUT:
#   OUT/musl.specs  gcc specs for musl: musl-gcc's own, plus -static-pie (rcrt1.o, no
#                   dynamic linker; musl-gcc's link a dynamic PIE then), OUT/kinc, and gcc's
#                   --build-id (the seccomp cache's key) and --eh-frame-hdr
#   OUT/kinc        the kernel's uapi headers (linux/, asm/, asm-generic/),
#                   which musl-gcc leaves out
#   OUT/lib, OUT/include  static yajl, libseccomp and libcap built with musl from Debian
#                   bookworm's sources, the versions libyajl-dev, libseccomp-dev and
#                   libcap-dev install: the .orig tarball plus Debian's patches, pinned by sha256
# Downloads go to OUT/dl (kept by a rebuild of the rest). Fails, changing nothing that
# make would take for done, on any mismatch.
set -eu
out=$1 cc=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
url=${DEBIAN_POOL:-http://deb.debian.org/debian/pool/main}

# name        dir in the pool    file                                   sha256
sources='
yajl          y/yajl             yajl_2.1.0.orig.tar.gz                 3fb73364a5a30efe615046d07e6db9d09fd2b41c763c5f7d3bfb121cd5c5ac5a
yajl          y/yajl             yajl_2.1.0-3+deb12u2.debian.tar.xz     31ebb5b6e0b76908d9631ce9c94ba1d7a34bbba05ea9ed42ee72422e141cbe48
libseccomp    libs/libseccomp    libseccomp_2.5.4.orig.tar.gz           d82902400405cf0068574ef3dc1fe5f5926207543ba1ae6f8e7a1576351dcbdb
libseccomp    libs/libseccomp    libseccomp_2.5.4-1+deb12u1.debian.tar.xz 665fc6ad1b9887207b0af1a293a2d7975e2df503a2618d1808b970081f9672f6
libcap2       libc/libcap2       libcap2_2.66.orig.tar.xz               15c40ededb3003d70a283fe587a36b7d19c8b3b554e33f86129c059a4bb466b2
libcap2       libc/libcap2       libcap2_2.66-4+deb12u3.debian.tar.xz   124ec52e286e8617a7fb8e576390abbf60f6674e065504459f32af20817eaa13
'

# --- the specs: musl-gcc's, changed in two places, checked after ---
mgcc=$(command -v musl-gcc) || { echo "$0: no musl-gcc (apt-get install musl-tools)" >&2; exit 1; }
specs=$(sed -n 's/.*-specs "\([^"]*\)".*/\1/p' "$mgcc")
[ -f "$specs" ] || { echo "$0: cannot find musl-gcc's specs in $mgcc" >&2; exit 1; }
sed -e "s|-isystem include%s|-isystem $out/kinc -isystem include%s|" \
    -e 's|%{!shared: \([^ ]*\)/Scrt1.o}|%{static-pie:\1/rcrt1.o;!shared:\1/Scrt1.o}|' \
    -e 's|^-dynamic-linker \([^ ]*\) -nostdlib\(.*\)$|-nostdlib\2 %{static-pie:-static -pie --no-dynamic-linker -z text} %{!static:%{!static-pie:%{!shared:-dynamic-linker \1}}} %{!r:--build-id} --eh-frame-hdr|' \
    "$specs" >"$out/musl.specs.new"
grep -q 'static-pie:.*rcrt1.o' "$out/musl.specs.new" && grep -q -- '--no-dynamic-linker' "$out/musl.specs.new" &&
  [ "$(grep -c "$out/kinc" "$out/musl.specs.new")" = 2 ] ||
  { echo "$0: $specs is not the musl-gcc.specs this script knows (musl 1.2.x)" >&2; exit 1; }
mv "$out/musl.specs.new" "$out/musl.specs"
mcc="$cc -specs=$out/musl.specs"

multiarch=$($cc -print-multiarch)
rm -rf "$out/kinc"; mkdir -p "$out/kinc"
for d in /usr/include/linux /usr/include/$multiarch/asm /usr/include/asm-generic; do
	[ -d "$d" ] || { echo "$0: no $d (linux-libc-dev)" >&2; exit 1; }
	ln -s "$d" "$out/kinc/"
done

# --- the sources ---
mkdir -p "$out/dl"
echo "$sources" | while read -r name dir file sum; do
	[ -n "$name" ] || continue
	f="$out/dl/$file"
	if ! echo "$sum  $f" | sha256sum -c --status 2>/dev/null; then
		echo "$0: fetching $url/$dir/$file"
		curl -fsSL --connect-timeout 10 --retry 2 -o "$f.part" "$url/$dir/$file"
		echo "$sum  $f.part" | sha256sum -c --status || { echo "$0: $file: sha256 mismatch" >&2; rm -f "$f.part"; exit 1; }
		mv "$f.part" "$f"
	fi
done

# unpack NAME ORIG DEBIAN: OUT/src/NAME with Debian's patches applied (dpkg-source -x's result)
unpack() {
	rm -rf "$out/src/$1"; mkdir -p "$out/src/$1"
	tar -xf "$out/dl/$2" -C "$out/src/$1" --strip-components=1
	tar -xf "$out/dl/$3" -C "$out/src/$1"
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$out/src/$1/debian/patches/series" | while read -r p opt; do
		patch -s -d "$out/src/$1" ${opt:--p1} <"$out/src/$1/debian/patches/$p"
	done
}
rm -rf "$out/lib" "$out/include" "$out/src"
mkdir -p "$out/lib" "$out/include/yajl" "$out/include/sys"
cflags="-O2 -g -fPIE"

# yajl: its CMake build is a list of src/*.c and a generated yajl_version.h
unpack yajl yajl_2.1.0.orig.tar.gz yajl_2.1.0-3+deb12u2.debian.tar.xz
s="$out/src/yajl/src"
cp "$s"/api/yajl_common.h "$s"/api/yajl_gen.h "$s"/api/yajl_parse.h "$s"/api/yajl_tree.h "$out/include/yajl/"
sed -e 's/${YAJL_MAJOR}/2/' -e 's/${YAJL_MINOR}/1/' -e 's/${YAJL_MICRO}/0/' "$s/api/yajl_version.h.cmake" >"$out/include/yajl/yajl_version.h"
for c in "$s"/*.c; do $mcc $cflags -I"$out/include" -c -o "${c%.c}.o" "$c"; done
ar rcs "$out/lib/libyajl_s.a" "$s"/*.o

# libseccomp: autotools; gperf for the syscall table Debian's patch changes
unpack libseccomp libseccomp_2.5.4.orig.tar.gz libseccomp_2.5.4-1+deb12u1.debian.tar.xz
(cd "$out/src/libseccomp" && CC="$mcc" CFLAGS="$cflags" ./configure -q --prefix="$out" --enable-static \
	--disable-shared --disable-python >/dev/null &&
 make -s -C src >/dev/null && make -s -C src install >/dev/null && make -s -C include install >/dev/null)
rm -f "$out/lib/libseccomp.la"; rm -rf "$out/lib/pkgconfig"

# libcap: its own makefiles; _makenames runs on the build machine
unpack libcap2 libcap2_2.66.orig.tar.xz libcap2_2.66-4+deb12u3.debian.tar.xz
make -s -C "$out/src/libcap2/libcap" CC="$mcc" BUILD_CC="$cc" COPTS="$cflags" libcap.a >/dev/null
cp "$out/src/libcap2/libcap/libcap.a" "$out/lib/"
cp "$out/src/libcap2/libcap/include/sys/capability.h" "$out/include/sys/"
