#!/bin/sh
# build-proto.sh DIR: DIR/api_pb2.py for tests/lib/cri/cri.py, compiled with
# protoc from the CRI api.proto (runtime.v1) in Debian's containerd source
# package, the one that matches the installed containerd (`apt-get source`
# needs a deb-src line: `make deps` adds one). The gogoproto options (Go code
# generation only) are stripped: protoc has no gogo.proto.
set -eu
dir="$1"
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/.src.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
ver="$(dpkg-query -W -f='${Version}' containerd)"
(cd "$tmp" && apt-get source --download-only -qq "containerd=$ver" >/dev/null 2>&1 ||
	apt-get source --download-only -qq containerd >/dev/null)
orig="$(ls "$tmp"/containerd_*.orig.tar.* | head -n1)"
tar -C "$tmp" -xf "$orig" --wildcards '*/vendor/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto'
proto="$(find "$tmp" -path '*/cri-api/pkg/apis/runtime/v1/api.proto' | head -n1)"
[ -n "$proto" ] || { echo "build-proto.sh: no CRI api.proto in $orig" >&2; exit 1; }
sed -e '/gogoproto/d' "$proto" >"$tmp/api.proto"
protoc -I"$tmp" --python_out="$tmp" "$tmp/api.proto"
cp "$tmp/api.proto" "$dir/api.proto"
mv "$tmp/api_pb2.py" "$dir/api_pb2.py"
