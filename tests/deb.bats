#!/usr/bin/env bats
# deb: `make deb`'s package (contrib/debian/): the same files as `make install`
# (PREFIX=/usr) plus its documentation, lintian-clean, and in a clean Debian root (one
# vm-run guest, where tinyrun is not installed: tests/lib/deb-guest.sh) apt-get install, a
# container run by the installed tinyrun, one by podman through the packaged podman
# snippet, and dpkg -P leaving none of the package's files. 40 s to 2 minutes here (the
# guest is emulated; apt and dpkg over its 9p root are most of it).

# the guest test: an emulated guest on a loaded host is slow (helpers keeps this value)
# shellcheck disable=SC2034 # read by bats
BATS_TEST_TIMEOUT=400
load helpers

VM_RUN="${VM_RUN:-$REPO_DIR/../shared/tools/vm-run}"

setup_file() {
	build_test_lib || return 1
	build_base_rootfs || return 1
	local log="$BATS_FILE_TMPDIR/make-deb.log"
	(cd "$REPO_DIR" && make --no-print-directory deb) >"$log" 2>&1 || { cat "$log" >&2; return 1; }
	DEB="$REPO_DIR/$(tail -n1 "$log")"
	[[ -f "$DEB" ]] || { echo "make deb named no package: $(tail -n1 "$log")" >&2; return 1; }
	export DEB
	# the guest sees the host's / but its own /tmp: the image for podman goes under the repo
	mkdir -p "$REPO_DIR/build/deb-test"
	tar -C "$TEST_CACHE/rootfs" -cf "$REPO_DIR/build/deb-test/rootfs.tar" .
}

teardown_file() {
	rm -rf "$REPO_DIR/build/deb-test"
}

# deb_files: the package's regular files, one relative path a line, sorted
deb_files() {
	dpkg-deb -c "$DEB" | awk '$1 ~ /^-/ { sub(/^\.\//, "", $6); print $6 }' | sort
}

@test "make deb: make install's files (man page gzipped), the copyright, changelog and client snippets" {
	local inst="$BATS_TEST_TMPDIR/inst" f
	(cd "$REPO_DIR" && make --no-print-directory install DESTDIR="$inst" PREFIX=/usr) >/dev/null
	deb_files >"$BATS_TEST_TMPDIR/deb.list"
	# every file make install makes, at the same path (Debian gzips man pages)
	(cd "$inst" && find . -type f | sed 's|^\./||; s|\(/man/man[1-9]/.*\.[1-9]\)$|\1.gz|') | sort \
		>"$BATS_TEST_TMPDIR/inst.list"
	[[ -s "$BATS_TEST_TMPDIR/inst.list" ]]
	run comm -23 "$BATS_TEST_TMPDIR/inst.list" "$BATS_TEST_TMPDIR/deb.list"
	assert_output ""
	# and beyond them only documentation
	run comm -13 "$BATS_TEST_TMPDIR/inst.list" "$BATS_TEST_TMPDIR/deb.list"
	assert_output "usr/share/doc/tinyrun/CLIENTS.md
usr/share/doc/tinyrun/changelog.Debian.gz
usr/share/doc/tinyrun/copyright
usr/share/doc/tinyrun/examples/containerd/config.toml
usr/share/doc/tinyrun/examples/docker/daemon.json
usr/share/doc/tinyrun/examples/kubernetes/runtimeclass.yaml
usr/share/doc/tinyrun/examples/podman/containers.conf.d/tinyrun.conf
usr/share/lintian/overrides/tinyrun"
	# the packaged binary is this tree's, and the examples name where the package puts it
	dpkg-deb -x "$DEB" "$BATS_TEST_TMPDIR/x"
	run "$BATS_TEST_TMPDIR/x/usr/bin/tinyrun" --version
	assert_success
	assert_output "$("$REPO_DIR/tinyrun" --version)"
	for f in containerd/config.toml docker/daemon.json; do
		grep -q '"/usr/bin/tinyrun"' "$BATS_TEST_TMPDIR/x/usr/share/doc/tinyrun/examples/$f"
		run grep -c /usr/local/bin/tinyrun "$BATS_TEST_TMPDIR/x/usr/share/doc/tinyrun/examples/$f"
		assert_output 0
	done
	# the version: the Makefile's, then the commit
	local upstream commit
	upstream="$(sed -n 's/^VERSION *:= *//p' "$REPO_DIR/Makefile")"
	run dpkg-deb -f "$DEB" Version
	if commit="$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null)"; then
		assert_output --regexp "^$upstream\+git[0-9]+\.$commit(\.dirty)?-1$"
	else
		assert_output "$upstream-1"
	fi
	run zcat "$BATS_TEST_TMPDIR/x/usr/share/doc/tinyrun/changelog.Debian.gz"
	assert_line --index 0 "tinyrun ($(dpkg-deb -f "$DEB" Version)) unstable; urgency=medium"
}

@test "lintian: no error, warning, info or pedantic tag but the two explained overrides" {
	command -v lintian >/dev/null || skip "lintian not installed (make deps installs it)"
	# lintian leaves its MLDBM cache file (mldbm-elf-*) in TMPDIR: the test's own
	mkdir -p "$BATS_TEST_TMPDIR/lintian"
	run env TMPDIR="$BATS_TEST_TMPDIR/lintian" lintian --info --display-experimental --pedantic --show-overrides "$DEB"
	assert_success
	assert_line --regexp '^O: tinyrun: shared-library-lacks-prerequisites'
	# O: the overridden tags, each with its reason (N:) from contrib/debian/lintian-overrides;
	# any other tag (E W I P X C) fails
	run bash -c 'grep -E "^[A-Z]: " | grep -vE "^N: |^O: tinyrun: (shared-library-lacks-prerequisites|initial-upload-closes-no-bugs) "' <<<"$output"
	assert_output ""
}

@test "apt-get install in a clean Debian root: tinyrun and podman run containers with it, dpkg -P leaves none of its files" {
	[[ -x "$VM_RUN" ]] || skip "no vm-run at $VM_RUN"
	command -v podman >/dev/null && command -v conmon >/dev/null || skip "podman/conmon not installed"
	local version
	version="$(dpkg-deb -f "$DEB" Version)"
	# one guest: its / is the host's under a throwaway overlay, the repo shared
	run bash -c 'cd "$1" && "$2" --timeout 360 -- bash tests/lib/deb-guest.sh "$3" "$1/build/deb-test/rootfs.tar" 2>&1' \
		_ "$REPO_DIR" "$VM_RUN" "$DEB" </dev/null
	assert_success
	assert_line "status: install ok installed $version"
	assert_line "which: /usr/bin/tinyrun"
	assert_line "version: $("$REPO_DIR/tinyrun" --version | head -n1)"
	# the installed tinyrun ran a container: PID 1 of its own PID namespace
	assert_line "run: direct pid 1 host tinyrun"
	# podman found /usr/bin/tinyrun by the name the packaged snippet gives it, and the
	# container it started is in the installed tinyrun's state
	assert_line "podman-runtime: tinyrun"
	local id
	id="$(sed -n 's/^podman-id: //p' <<<"$output")"
	[[ "$id" =~ ^[0-9a-f]{64}$ ]]
	assert_line --regexp "^tinyrun-list: (.* )?$id( |$)"
	assert_line "podman-logs: podman pid 1"
	# purged: dpkg forgets it, and nothing it installed is left
	assert_line "after-purge: dpkg-query: no packages found matching tinyrun"
	assert_line "files: $(dpkg-deb -c "$DEB" | wc -l)"
	assert_line "left: none"
	# the host itself was not touched
	[[ ! -e /usr/bin/tinyrun ]]
}
