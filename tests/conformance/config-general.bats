#!/usr/bin/env bats
# config.md: Specification version, Hostname, Domainname, Annotations,
# Extensibility, Valid values.

load helpers

# refused [keep-args]: create (and start) must not run the program
refused() {
	[ "${1:-}" = keep-args ] || check echo:ran
	if create; then
		start || true
		wait_stopped || true
		if [ -n "$(val echo:ran)" ]; then
			echo "the runtime ran the container" >&2
			return 1
		fi
	fi
	return 0
}

# --------------------------------------------------------------- ociVersion --

@test "config.md/specification-version: MUST accept an ociVersion of the 1.0 series (1.0.0)" {
	cfg '.ociVersion = "1.0.0"'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/specification-version: MUST accept a SemVer ociVersion with a pre-release (1.0.2-dev)" {
	cfg '.ociVersion = "1.0.2-dev"'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/valid-values: MUST generate an error for an ociVersion that is not SemVer" {
	cfg '.ociVersion = "not-a-version"'
	refused
}

@test "config.md/valid-values: MUST generate an error for an unsupported ociVersion (major 2)" {
	cfg '.ociVersion = "2.0.0"'
	refused
}

# ---------------------------------------------------------------- hostname --

@test "config.md/hostname: MUST set the hostname seen by processes in the container" {
	cfg '.hostname = "mrsdalloway"'
	check hostname
	run_ct
	expect_eq "$(val hostname)" mrsdalloway hostname
}

@test "config.md/hostname: MUST change the hostname in the container UTS namespace only" {
	local before
	before=$(hostname)
	cfg '.hostname = "not-the-host"'
	check hostname ns:uts
	run_ct
	expect_eq "$(hostname)" "$before" "host hostname"
	[ "$(val ns:uts)" != "$(host_ns uts)" ]
}

@test "config.md/domainname: MUST set the domainname seen by processes in the container" {
	cfg '.domainname = "foobarbaz.test"'
	check domainname
	run_ct
	expect_eq "$(val domainname)" foobarbaz.test domainname
}

@test "config.md/domainname: MUST change the domainname in the container UTS namespace only" {
	local before
	before=$(cat /proc/sys/kernel/domainname)
	cfg '.domainname = "container.test"'
	check domainname
	run_ct
	expect_eq "$(cat /proc/sys/kernel/domainname)" "$before" "host domainname"
	expect_eq "$(val domainname)" container.test
}

# ------------------------------------------------------------- annotations --

@test "config.md/annotations: MUST NOT generate an error for unknown annotation keys" {
	cfg '.annotations = {"com.example.unknown": "1", "io.example.other/key": "x"}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/annotations: MUST handle unknown org.opencontainers keys like unknown properties" {
	cfg '.annotations = {"org.opencontainers.image.os": "linux", "org.opencontainers.example.future": "v"}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/annotations: MAY accept an empty string value" {
	cfg '.annotations = {"com.example.empty": ""}'
	check pause
	create
	expect_eq "$(state | jq -r '.annotations["com.example.empty"] | type')" string "type of the empty value in the state"
}

@test "config.md/annotations: MAY accept an absent annotations property" {
	cfg 'del(.annotations)'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/annotations: MAY accept an empty annotations map" {
	cfg '.annotations = {}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/valid-values: MUST generate an error for an empty annotation key" {
	cfg '.annotations = {"": "value"}'
	refused
}

@test "config.md/valid-values: MUST generate an error for an annotation value that is not a string" {
	cfg '.annotations = {"com.example.number": 42}'
	refused
}

# ----------------------------------------------------------- extensibility --

@test "config.md/extensibility: MUST ignore an unknown top-level property" {
	cfg '.["com.example.unknownTop"] = {"nested": [1, 2]}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/extensibility: MUST ignore an unknown property in process" {
	cfg '.process.unknownProcessProperty = "x"'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/extensibility: MUST ignore an unknown property in linux" {
	cfg '.linux.unknownLinuxProperty = {"a": true}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/extensibility: MUST ignore an unknown property in a mount" {
	cfg '.mounts[0].unknownMountProperty = 1'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/extensibility: MUST ignore an unknown property in root" {
	cfg '.root.unknownRootProperty = "x"'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "config.md/extensibility: MUST ignore an unknown property in a hook" {
	cfg '.hooks.poststop = [{"path": $p, "args": ["conformance-hook", $d], "unknownHookProperty": 1}]' --arg p "$CHECKER" --arg d "$T/hooklog/pst"
	mkdir -p "$T/hooklog"
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
	[ -e "$T/hooklog/pst/argv.txt" ]
}

@test "config.md/extensibility: MUST ignore an unknown property in linux.resources" {
	cfg '.linux.resources.unknownResource = {"limit": 1}'
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

# ------------------------------------------------------------ valid values --

@test "config.md/valid-values: MUST generate an error for a uid that is not a number" {
	cfg '.process.user.uid = "root"'
	refused
}

@test "config.md/valid-values: MUST generate an error for a negative uid" {
	cfg '.process.user.uid = -1'
	refused
}

@test "config.md/valid-values: MUST generate an error for args that is not an array of strings" {
	cfg '.process.args = "/bin/checker echo:ran"'
	refused keep-args
}

@test "config.md/valid-values: MUST generate an error for a mount without destination (REQUIRED)" {
	add_mount '{"type": "tmpfs", "source": "tmpfs"}'
	refused
}

@test "config.md/valid-values: MUST generate an error for a malformed config.json" {
	echo '{"ociVersion": "1.0.2", "process": ' >"$B/config.json"
	run create
	[ "$status" -ne 0 ]
	expect_no_container
}

@test "config.md/valid-values: MUST generate an error for a mount uidMappings without gidMappings" {
	mkdir -p "$T/vol"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["bind", "idmap"], "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}]}'
	refused
}

@test "config.md/valid-values: MUST generate an error for a mount gidMappings without uidMappings" {
	mkdir -p "$T/vol"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["bind", "idmap"], "gidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}]}'
	refused
}

@test "config.md/valid-values: MUST generate an error for an idmap mount without mappings nor user namespace" {
	mkdir -p "$T/vol"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["bind", "idmap"]}'
	refused
}

# -------------------------------------------------------- idmapped mounts --

@test "config.md/linux-mount-options: SHOULD support idmap with the mount's uidMappings and gidMappings" {
	mkdir -p "$T/vol"
	touch "$T/vol/file"
	chown 0:0 "$T/vol/file"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["bind", "idmap"],
	            "uidMappings": [{"containerID": 0, "hostID": 2000, "size": 10}],
	            "gidMappings": [{"containerID": 0, "hostID": 3000, "size": 10}]}'
	check stat:/m/file
	run_ct
	expect_match "$(val stat:/m/file)" 'uid=2000 gid=3000' "owner seen through the idmapped mount"
	expect_eq "$(stat -c %u:%g "$T/vol/file")" 0:0 "owner on the host"
}

@test "config.md/linux-mount-options: SHOULD support ridmap (idmapping applied recursively)" {
	mkdir -p "$T/vol/sub"
	mount -t tmpfs tmpfs "$T/vol/sub"
	track_mount "$T/vol/sub"
	touch "$T/vol/sub/file"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["rbind", "ridmap"],
	            "uidMappings": [{"containerID": 0, "hostID": 2000, "size": 10}],
	            "gidMappings": [{"containerID": 0, "hostID": 3000, "size": 10}]}'
	check stat:/m/sub/file
	run_ct
	expect_match "$(val stat:/m/sub/file)" 'uid=2000 gid=3000' "owner seen through the idmapped submount"
}
