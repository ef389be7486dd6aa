#!/usr/bin/env bats
# features.md and features-linux.md: the features document (`RUNTIME features`).

load helpers
load hooks

setup() {
	conformance_setup
	[ "$BATS_TEST_DESCRIPTION" = "features.md/features: MAY provide a features document" ] && return 0
	need_features
}

semver_re='^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'

@test "features.md/features: MAY provide a features document" {
	FEATURES=$(features_json) || skip "runtime does not implement the features command"
	jq -e 'type == "object"' <<<"$FEATURES"
}

@test "features.md/specification-version: MUST include ociVersionMin" {
	expect_match "$(jq -r .ociVersionMin <<<"$FEATURES")" "$semver_re" ociVersionMin
}

@test "features.md/specification-version: MUST include ociVersionMax" {
	expect_match "$(jq -r .ociVersionMax <<<"$FEATURES")" "$semver_re" ociVersionMax
}

@test "features.md/specification-version: MUST NOT give an ociVersionMax less than ociVersionMin" {
	local min max
	min=$(jq -r .ociVersionMin <<<"$FEATURES")
	max=$(jq -r .ociVersionMax <<<"$FEATURES")
	expect_eq "$(printf '%s\n%s\n' "$min" "$max" | sort -V | tail -1)" "$max" "the larger of min and max"
}

@test "features.md/specification-version: MUST accept ociVersionMin as the ociVersion of config.json" {
	cfg '.ociVersion = $v' --arg v "$(jq -r .ociVersionMin <<<"$FEATURES")"
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "features.md/specification-version: MUST accept ociVersionMax as the ociVersion of config.json" {
	cfg '.ociVersion = $v' --arg v "$(jq -r .ociVersionMax <<<"$FEATURES")"
	check echo:ran
	run_ct
	expect_eq "$(val echo:ran)" ran
}

@test "features.md/specification-version: MUST NOT contain properties the specification does not define" {
	local extra
	extra=$(jq -r '
	  (keys - ["ociVersionMin", "ociVersionMax", "hooks", "mountOptions", "linux", "annotations", "potentiallyUnsafeConfigAnnotations"] | map("." + .)) +
	  ((.linux // {}) | keys - ["namespaces", "capabilities", "cgroup", "seccomp", "apparmor", "selinux", "intelRdt", "mountExtensions", "netDevices", "memoryPolicy"] | map(".linux." + .)) +
	  ((.linux.cgroup // {}) | keys - ["v1", "v2", "systemd", "systemdUser", "rdma"] | map(".linux.cgroup." + .)) +
	  ((.linux.seccomp // {}) | keys - ["enabled", "actions", "operators", "archs", "knownFlags", "supportedFlags"] | map(".linux.seccomp." + .)) +
	  ((.linux.intelRdt // {}) | keys - ["enabled", "schemata", "monitoring"] | map(".linux.intelRdt." + .)) +
	  ((.linux.mountExtensions // {}) | keys - ["idmap"] | map(".linux.mountExtensions." + .)) +
	  ((.linux.memoryPolicy // {}) | keys - ["modes", "flags"] | map(".linux.memoryPolicy." + .)) +
	  ((.linux.netDevices // {}) | keys - ["enabled"] | map(".linux.netDevices." + .))
	  | join(" ")' <<<"$FEATURES")
	expect_eq "$extra" "" "undefined properties"
}

@test "features.md/hooks: MUST support the hooks it lists" {
	hooklog_mount
	local h missing=()
	for h in $(jq -r '.hooks // [] | .[]' <<<"$FEATURES"); do
		if [ "$h" = startContainer ]; then add_hook "$h" "$(chook_json "$h")"; else add_hook "$h" "$(hook_json "$h")"; fi
	done
	check echo:ran
	run_ct
	for h in $(jq -r '.hooks // [] | .[]' <<<"$FEATURES"); do
		hook_ran "$h" || missing+=("$h")
	done
	expect_eq "${missing[*]}" "" "listed hooks that did not run"
}

@test "features.md/mount-options: MUST recognize the mount options it lists" {
	local o bad=()
	for o in $(jq -r '.mountOptions // [] | .[]' <<<"$FEATURES"); do
		case $o in
		idmap | ridmap | remount | tmpcopyup | mand) continue ;; # need mappings, an existing mount, or kernel support
		esac
		make_bundle "$T/b-$o" "$ID-$o"
		mkdir -p "$T/src-$o"
		local m
		case $o in
		bind | rbind | *private | *shared | *slave | *unbindable)
			m=$(jq -cn --arg s "$T/src-$o" --arg o "$o" '{destination: "/m", type: "none", source: $s, options: (if $o == "bind" or $o == "rbind" then [$o] else ["rbind", $o] end)}') ;;
		*) m=$(jq -cn --arg o "$o" '{destination: "/m", type: "tmpfs", source: "tmpfs", options: [$o]}') ;;
		esac
		cfg -b "$T/b-$o" '.mounts += [$m]' --argjson m "$m"
		check -b "$T/b-$o" mount:/m
		if ! run_ct "$ID-$o" "$T/b-$o" 2>/dev/null; then
			bad+=("$o")
			delete_force "$ID-$o" 2>/dev/null || true
		fi
	done
	expect_eq "${bad[*]}" "" "listed mount options that failed on a tmpfs or bind mount"
}

@test "features.md/mount-options: SHOULD NOT list filesystem-specific options (mount data)" {
	expect_eq "$(jq -r '.mountOptions // [] | map(select(contains("="))) | join(" ")' <<<"$FEATURES")" "" "options with a value"
}

@test "features.md/annotations: MUST be a key-value map of strings with non-empty keys" {
	jq -e '(.annotations // {}) | type == "object" and (keys | all(length > 0)) and (to_entries | all(.value | type == "string"))' <<<"$FEATURES"
}

@test "features.md/features: SHOULD be determined at compile time, not at execution time" {
	local other
	other=$(unshare -m sh -c 'mount -t tmpfs none /sys/fs/cgroup 2>/dev/null; mount -t tmpfs none /proc/sys 2>/dev/null; exec "$@"' sh \
		timeout 30 "$RUNTIME" --root "$ROOT" features 2>/dev/null) || true
	expect_eq "$(jq -S . <<<"$other" 2>/dev/null)" "$(jq -S . <<<"$FEATURES")" "features in a changed environment"
}

# ----------------------------------------------------------- features-linux --

@test "features-linux.md/namespaces: MUST recognize the namespaces it lists" {
	local n bad=()
	for n in $(jq -r '.linux.namespaces // [] | .[]' <<<"$FEATURES"); do
		[ "$n" = time ] && [ ! -e /proc/self/ns/time ] && continue
		make_bundle "$T/b-$n" "$ID-$n"
		cfg -b "$T/b-$n" '.linux.namespaces = ([.linux.namespaces[] | select(.type != $n)] + [{type: $n}])' --arg n "$n"
		if [ "$n" = user ]; then
			cfg -b "$T/b-$n" '.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
		fi
		local nsname=$n
		case $n in network) nsname=net ;; mount) nsname=mnt ;; esac
		check -b "$T/b-$n" "ns:$nsname"
		if ! run_ct "$ID-$n" "$T/b-$n" 2>/dev/null || [ "$(val "ns:$nsname" "$ID-$n")" = "$(host_ns "$nsname")" ]; then
			bad+=("$n")
			delete_force "$ID-$n" 2>/dev/null || true
		fi
	done
	expect_eq "${bad[*]}" "" "listed namespaces that could not be created"
}

@test "features-linux.md/capabilities: MUST recognize the capabilities it lists" {
	local known grantable
	known=$(all_caps_json)
	grantable=$(jq -c --argjson k "$known" '[.linux.capabilities // [] | .[] | select(. as $c | $k | index($c))]' <<<"$FEATURES")
	# keep those the test process holds in its bounding set
	local c keep=()
	for c in $(jq -r '.[]' <<<"$grantable"); do
		(((0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> $(cap_number "$c")) & 1)) && keep+=("$c")
	done
	cfg '.process.capabilities.bounding = $ARGS.positional' --args "${keep[@]}"
	check status:CapBnd
	run_ct
	expect_eq "$(val status:CapBnd)" "$(cap_mask "${keep[@]}")" CapBnd
}

# big-endian architectures cannot join the native (little-endian) filter
BIG_ENDIAN_ARCHS=" SCMP_ARCH_MIPS SCMP_ARCH_MIPS64 SCMP_ARCH_MIPS64N32 SCMP_ARCH_PPC SCMP_ARCH_PPC64 SCMP_ARCH_S390 SCMP_ARCH_S390X SCMP_ARCH_PARISC SCMP_ARCH_PARISC64 SCMP_ARCH_M68K SCMP_ARCH_SHEB "

# seccomp_each LIST-JQ BUILD-FILTER: one container per listed value
seccomp_each() {
	local v bad=()
	for v in $(jq -r "$1 // [] | .[]" <<<"$FEATURES"); do
		[ "$v" = SCMP_ACT_NOTIFY ] && continue # needs a listener (config-linux-seccomp.bats)
		[[ $BIG_ENDIAN_ARCHS == *" $v "* ]] && continue
		make_bundle "$T/b-$v" "$ID-$v"
		cfg -b "$T/b-$v" ".linux.seccomp = ($2)" --arg v "$v"
		check -b "$T/b-$v" echo:ran
		if ! create "$ID-$v" "$T/b-$v"; then
			bad+=("$v")
		fi
		delete_force "$ID-$v" 2>/dev/null || true
	done
	expect_eq "${bad[*]}" "" "listed values refused"
}

@test "features-linux.md/seccomp: MUST recognize the actions it lists" {
	seccomp_each .linux.seccomp.actions '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["getcwd"], action: $v}]}'
}

@test "features-linux.md/seccomp: MUST recognize the operators it lists" {
	seccomp_each .linux.seccomp.operators '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["getpgid"], action: "SCMP_ACT_ERRNO", args: [{index: 0, value: 5, valueTwo: 5, op: $v}]}]}'
}

@test "features-linux.md/seccomp: MUST recognize the architectures it lists (native endianness)" {
	seccomp_each .linux.seccomp.archs '{defaultAction: "SCMP_ACT_ALLOW", architectures: [$v], syscalls: [{names: ["getcwd"], action: "SCMP_ACT_ERRNO"}]}'
}

@test "features-linux.md/seccomp: MUST recognize and support the supportedFlags it lists" {
	seccomp_each .linux.seccomp.supportedFlags '{defaultAction: "SCMP_ACT_ALLOW", flags: [$v], syscalls: [{names: ["getcwd"], action: "SCMP_ACT_ERRNO"}]}'
}

@test "features-linux.md/seccomp: MUST list supportedFlags among knownFlags" {
	expect_eq "$(jq -r '(.linux.seccomp.supportedFlags // []) - (.linux.seccomp.knownFlags // []) | join(" ")' <<<"$FEATURES")" "" "supported but not known"
}

@test "features-linux.md/memory-policy: MUST recognize the memory policy modes it lists" {
	local m bad=() nodes
	[ "$(jq -r '.linux.memoryPolicy.modes // [] | length' <<<"$FEATURES")" -gt 0 ] || skip "runtime lists no memory policy modes"
	for m in $(jq -r '.linux.memoryPolicy.modes[]' <<<"$FEATURES"); do
		case $m in MPOL_DEFAULT | MPOL_LOCAL) nodes=null ;; *) nodes='"0"' ;; esac
		make_bundle "$T/b-$m" "$ID-$m"
		cfg -b "$T/b-$m" '.linux.memoryPolicy = ({mode: $m} + (if $n == null then {} else {nodes: $n} end))' --arg m "$m" --argjson n "$nodes"
		check -b "$T/b-$m" echo:ran
		run_ct "$ID-$m" "$T/b-$m" 2>/dev/null || { bad+=("$m"); delete_force "$ID-$m" 2>/dev/null || true; }
	done
	expect_eq "${bad[*]}" "" "listed modes refused"
}

@test "features-linux.md/memory-policy: MUST recognize the memory policy flags it lists" {
	local f bad=()
	[ "$(jq -r '.linux.memoryPolicy.flags // [] | length' <<<"$FEATURES")" -gt 0 ] || skip "runtime lists no memory policy flags"
	for f in $(jq -r '.linux.memoryPolicy.flags[]' <<<"$FEATURES"); do
		make_bundle "$T/b-$f" "$ID-$f"
		cfg -b "$T/b-$f" '.linux.memoryPolicy = {mode: "MPOL_BIND", nodes: "0", flags: [$f]}' --arg f "$f"
		check -b "$T/b-$f" echo:ran
		run_ct "$ID-$f" "$T/b-$f" 2>/dev/null || { bad+=("$f"); delete_force "$ID-$f" 2>/dev/null || true; }
	done
	expect_eq "${bad[*]}" "" "listed flags refused"
}

@test "features-linux.md/mount-extensions: MUST use the uidMappings and gidMappings of mounts when idmap is enabled" {
	[ "$(jq -r '.linux.mountExtensions.idmap.enabled // false' <<<"$FEATURES")" = true ] || skip "runtime does not announce idmap mounts"
	mkdir -p "$T/vol" && touch "$T/vol/file"
	add_mount '{"destination": "/m", "type": "bind", "source": "'"$T"'/vol", "options": ["bind", "idmap"],
	            "uidMappings": [{"containerID": 0, "hostID": 2000, "size": 10}],
	            "gidMappings": [{"containerID": 0, "hostID": 3000, "size": 10}]}'
	check stat:/m/file
	create || return 0 # refusing a combination is allowed; ignoring the mappings is not
	start
	wait_stopped
	expect_match "$(val stat:/m/file)" 'uid=2000 gid=3000' "owner seen through the idmapped mount"
}
