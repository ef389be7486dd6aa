/* config.json parsing: valid documents land in struct oci_config with the
 * values they hold; invalid ones fail with the exact message (JSON path +
 * reason). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "oci/config.h"
#include "oci/spec.h"
#include "oci/tables.h"
#include "test_oci_fixtures.h"
#include "unit.h"

#define CAP(n) (UINT64_C(1) << (n))

static int parse_str(const char *json, enum oci_parse_parts parts, struct oci_config *cfg,
		     struct error *err)
{
	return oci_config_parse("config.json", json, strlen(json), parts, cfg, err);
}

static void test_full(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	const struct oci_process *p = &cfg.process;
	const struct oci_linux *l = &cfg.linux_;
	const struct oci_resources *res = &l->resources;
	int r = oci_config_load(fixture_path("full.json"), OCI_PARSE_ALL, &cfg, &err);

	CHECK(r == 0);
	if (r < 0) {
		fprintf(stderr, "full.json: %s\n", err.msg);
		return;
	}
	CHECK_STR(cfg.oci_version, "1.3.0");
	CHECK_STR(cfg.root_path, "rootfs");
	CHECK(cfg.root_readonly);
	CHECK_STR(cfg.hostname, "full");
	CHECK_STR(cfg.domainname, "example.test");

	/* process */
	CHECK(cfg.has_process && p->terminal);
	CHECK(p->has_console_size && p->console_height == 25 && p->console_width == 80);
	CHECK(p->uid == 1000 && p->gid == 1001 && p->has_umask && p->umask == 18);
	CHECK(p->n_additional_gids == 3 && p->additional_gids[2] == 2147483647);
	CHECK(p->n_args == 3 && p->args[3] == NULL);
	CHECK_STR(p->args[2], "echo hi");
	CHECK(p->n_env == 2 && p->env[2] == NULL);
	CHECK_STR(p->env[1], "TERM=xterm");
	CHECK_STR(p->cwd, "/home/user");
	CHECK(p->has_caps);
	CHECK(p->caps.has_bounding && p->caps.bounding == (CAP(0) | CAP(5) | CAP(40)));
	CHECK(p->caps.has_effective && p->caps.effective == CAP(5));
	CHECK(p->caps.has_inheritable && p->caps.inheritable == 0);
	CHECK(p->caps.has_permitted && p->caps.permitted == (CAP(5) | CAP(10)));
	CHECK(p->caps.has_ambient && p->caps.ambient == CAP(10));
	CHECK(p->n_rlimits == 2);
	CHECK(p->rlimits[0].resource == RLIMIT_NOFILE && p->rlimits[0].soft == 1024 &&
	      p->rlimits[0].hard == 4096);
	CHECK(p->rlimits[1].resource == RLIMIT_CORE && p->rlimits[1].soft == UINT64_MAX &&
	      p->rlimits[1].hard == UINT64_MAX);
	CHECK(p->no_new_privileges);
	CHECK_STR(p->apparmor_profile, "acme_secure_profile");
	CHECK(p->has_oom_score_adj && p->oom_score_adj == -500);
	CHECK(p->has_scheduler && p->scheduler.policy == 6 && p->scheduler.nice == -5);
	CHECK(p->scheduler.flags == 0x03 && p->scheduler.runtime == 10000000 &&
	      p->scheduler.deadline == 20000000 && p->scheduler.period == 30000000);
	CHECK_STR(p->selinux_label, "system_u:system_r:svirt_lxc_net_t:s0:c124,c675");
	CHECK(p->has_io_priority && p->io_priority_class == 2 && p->io_priority == 4);
	CHECK_STR(p->exec_cpu_affinity_initial, "7");
	CHECK_STR(p->exec_cpu_affinity_final, "0-3,7");

	/* mounts */
	CHECK(cfg.n_mounts == 4);
	CHECK_STR(cfg.mounts[0].destination, "/proc");
	CHECK(cfg.mounts[0].options == NULL && cfg.mounts[0].flags == 0 && cfg.mounts[0].data == NULL);
	CHECK(cfg.mounts[1].flags == (MS_NOSUID | MS_STRICTATIME));
	CHECK_STR(cfg.mounts[1].data, "mode=755,size=65536k");
	CHECK_STR(cfg.mounts[2].destination, "/data");      /* relative: under "/" */
	CHECK_STR(cfg.mounts[2].source, "/volumes/data");
	CHECK(cfg.mounts[2].is_bind && cfg.mounts[2].flags == (MS_BIND | MS_REC));
	CHECK(cfg.mounts[2].clear_flags == MS_RDONLY);
	CHECK(cfg.mounts[2].attr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID));
	CHECK(cfg.mounts[2].propagation == OCI_PROP_RPRIVATE);
	CHECK(cfg.mounts[2].idmap && !cfg.mounts[2].ridmap);
	CHECK(cfg.mounts[2].n_uid_mappings == 1 && cfg.mounts[2].uid_mappings[0].host_id == 100000 &&
	      cfg.mounts[2].uid_mappings[0].size == 65536);
	CHECK(cfg.mounts[2].n_gid_mappings == 1);
	CHECK(cfg.mounts[3].tmpcopyup && cfg.mounts[3].attr_clr == MOUNT_ATTR__ATIME &&
	      cfg.mounts[3].attr_set == MOUNT_ATTR_RELATIME);

	/* hooks */
	CHECK(cfg.hooks.n[OCI_HOOK_PRESTART] == 1 && cfg.hooks.n[OCI_HOOK_POSTSTOP] == 2);
	CHECK_STR(cfg.hooks.list[OCI_HOOK_PRESTART][0].args[1], "a");
	CHECK(cfg.hooks.list[OCI_HOOK_PRESTART][0].args[2] == NULL);
	CHECK_STR(cfg.hooks.list[OCI_HOOK_PRESTART][0].env[0], "K=V");
	CHECK(cfg.hooks.list[OCI_HOOK_CREATE_RUNTIME][0].has_timeout &&
	      cfg.hooks.list[OCI_HOOK_CREATE_RUNTIME][0].timeout == 10);
	CHECK(!cfg.hooks.list[OCI_HOOK_CREATE_CONTAINER][0].has_timeout);
	CHECK_STR(cfg.hooks.list[OCI_HOOK_START_CONTAINER][0].path, "/usr/bin/refresh-ldcache");
	CHECK_STR(cfg.hooks.list[OCI_HOOK_POSTSTOP][1].path, "/bin/true");
	CHECK(cfg.hooks.list[OCI_HOOK_POSTSTOP][1].n_args == 0);
	CHECK(cfg.n_annotations == 2);
	CHECK_STR(cfg.annotations[1].key, "com.example.key2");
	CHECK_STR(cfg.annotations[1].value, "value2");

	/* linux */
	CHECK(cfg.has_linux);
	for (int t = 0; t < OCI_NS_TYPES; t++)
		CHECK(l->ns[t].present);
	CHECK_STR(l->ns[OCI_NS_NET].path, "/var/run/netns/neta");
	CHECK(l->ns[OCI_NS_PID].path == NULL);
	CHECK(l->n_uid_mappings == 1 && l->uid_mappings[0].container_id == 0 &&
	      l->uid_mappings[0].host_id == 1000 && l->uid_mappings[0].size == 32000);
	CHECK(l->n_gid_mappings == 2 && l->gid_mappings[1].container_id == 40000);
	CHECK(l->time_offsets[OCI_CLOCK_MONOTONIC].present &&
	      l->time_offsets[OCI_CLOCK_MONOTONIC].secs == 172800);
	CHECK(l->time_offsets[OCI_CLOCK_BOOTTIME].secs == -604800 &&
	      l->time_offsets[OCI_CLOCK_BOOTTIME].nanosecs == 999999999);
	CHECK(l->n_devices == 3);
	CHECK(l->devices[0].type == 'c' && l->devices[0].major == 10 && l->devices[0].minor == 229);
	CHECK(l->devices[0].has_file_mode && l->devices[0].file_mode == 438 && l->devices[0].has_uid);
	CHECK(!l->devices[1].has_file_mode && !l->devices[1].has_uid && !l->devices[1].has_gid);
	CHECK(l->devices[2].type == 'p');
	CHECK(l->n_net_devices == 2);
	CHECK_STR(l->net_devices[0].host_name, "eth0");
	CHECK_STR(l->net_devices[0].name, "container_eth0");
	CHECK_STR(l->net_devices[1].name, "ens4");
	CHECK_STR(l->cgroups_path, "/myRuntime/myContainer");

	/* resources */
	CHECK(l->has_resources);
	CHECK(res->n_devices == 3);
	CHECK(!res->devices[0].allow && res->devices[0].type == 'a' && !res->devices[0].has_major);
	CHECK_STR(res->devices[0].access, "rwm");
	CHECK(res->devices[1].allow && res->devices[1].type == 'c' && res->devices[1].has_major &&
	      res->devices[1].major == 10 && res->devices[1].minor == 229);
	CHECK(res->devices[2].has_major && !res->devices[2].has_minor);
	CHECK(res->has_memory && res->memory.has_limit && res->memory.limit == 536870912);
	CHECK(res->memory.has_swap && res->memory.swap == -1 && res->memory.has_kernel_tcp &&
	      res->memory.kernel_tcp == 0);
	CHECK(res->memory.has_swappiness && res->memory.swappiness == 60);
	CHECK(res->memory.has_disable_oom_killer && res->memory.disable_oom_killer);
	CHECK(res->memory.has_use_hierarchy && !res->memory.use_hierarchy);
	CHECK(res->memory.has_check_before_update && res->memory.check_before_update);
	CHECK(res->has_cpu && res->cpu.shares == 1024 && res->cpu.quota == 1000000 &&
	      res->cpu.burst == 500000 && res->cpu.period == 500000);
	CHECK(res->cpu.realtime_runtime == 950000 && res->cpu.realtime_period == 1000000);
	CHECK_STR(res->cpu.cpus, "2-3");
	CHECK_STR(res->cpu.mems, "0-7");
	CHECK(res->cpu.has_idle && res->cpu.idle == 1);
	CHECK(res->has_pids && res->pids_limit == 32771);
	CHECK(res->has_blkio && res->blkio.weight == 10 && res->blkio.leaf_weight == 10);
	CHECK(res->blkio.n_weight_device == 2 && res->blkio.weight_device[0].leaf_weight == 300);
	CHECK(!res->blkio.weight_device[1].has_leaf_weight);
	CHECK(res->blkio.n_throttle_read_bps == 1 && res->blkio.throttle_read_bps[0].rate == 600);
	CHECK(res->blkio.n_throttle_write_bps == 1 && res->blkio.throttle_write_bps[0].rate == 700);
	CHECK(res->blkio.n_throttle_read_iops == 1 && res->blkio.throttle_read_iops[0].rate == 800);
	CHECK(res->blkio.n_throttle_write_iops == 1 && res->blkio.throttle_write_iops[0].minor == 16);
	CHECK(res->n_hugepage_limits == 2 && res->hugepage_limits[1].limit == 1000000);
	CHECK_STR(res->hugepage_limits[0].page_size, "2MB");
	CHECK(res->has_network && res->has_class_id && res->class_id == 1048577);
	CHECK(res->n_net_priorities == 2 && res->net_priorities[1].priority == 1000);
	CHECK(res->n_rdma == 2 && res->rdma[1].has_hca_objects && !res->rdma[1].has_hca_handles);
	CHECK_STR(res->rdma[0].device, "mlx5_1");
	CHECK(res->n_unified == 2);
	CHECK_STR(res->unified[0].key, "io.max");

	/* intelRdt, memoryPolicy, sysctl */
	CHECK(l->has_intel_rdt && l->intel_rdt.enable_monitoring && l->intel_rdt.n_schemata == 1);
	CHECK_STR(l->intel_rdt.clos_id, "guaranteed_group");
	CHECK_STR(l->intel_rdt.mem_bw_schema, "MB:0=20;1=70");
	CHECK(l->has_memory_policy && l->memory_policy.mode == 3 &&
	      l->memory_policy.flags == (1u << 15));
	CHECK_STR(l->memory_policy.nodes, "2-3");
	CHECK(l->n_sysctl == 3);

	/* seccomp */
	CHECK(l->has_seccomp);
	CHECK(l->seccomp.default_action == OCI_SECCOMP_ERRNO && l->seccomp.has_default_errno_ret &&
	      l->seccomp.default_errno_ret == 1);
	CHECK(l->seccomp.n_architectures == 3 && l->seccomp.n_flags == 2);
	CHECK_STR(l->seccomp.architectures[0], "SCMP_ARCH_X86_64");
	CHECK_STR(l->seccomp.listener_path, "/run/seccomp-agent.socket");
	CHECK_STR(l->seccomp.listener_metadata, "MKNOD=/dev/null");
	CHECK(l->seccomp.n_syscalls == 4);
	CHECK(l->seccomp.syscalls[0].n_names == 2 && l->seccomp.syscalls[0].action == OCI_SECCOMP_ALLOW);
	CHECK(l->seccomp.syscalls[1].n_args == 2);
	CHECK(l->seccomp.syscalls[1].args[1].index == 5 &&
	      l->seccomp.syscalls[1].args[1].value == UINT64_MAX &&
	      l->seccomp.syscalls[1].args[1].value_two == 4 &&
	      l->seccomp.syscalls[1].args[1].op == OCI_SECCOMP_OP_MASKED_EQ);
	CHECK(l->seccomp.syscalls[2].has_errno_ret && l->seccomp.syscalls[2].errno_ret == 38);
	CHECK(l->seccomp.syscalls[3].action == OCI_SECCOMP_NOTIFY);

	CHECK(l->rootfs_propagation == OCI_ROOTFS_PROP_RSLAVE);
	CHECK(l->n_masked_paths == 2 && l->masked_paths[2] == NULL);
	CHECK(l->n_readonly_paths == 1);
	CHECK_STR(l->mount_label, "system_u:object_r:svirt_sandbox_file_t:s0:c715,c811");
	CHECK(l->has_personality && l->personality == 0x0008);

	oci_config_free(&cfg);
	CHECK(cfg.arena == NULL && cfg.mounts == NULL);
}

static void test_runc_spec(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	int r = oci_config_load(fixture_path("runc-spec.json"), OCI_PARSE_ALL, &cfg, &err);

	CHECK(r == 0);
	if (r < 0) {
		fprintf(stderr, "runc-spec.json: %s\n", err.msg);
		return;
	}
	CHECK_STR(cfg.oci_version, "1.0.2-dev");
	CHECK(cfg.process.n_args == 1 && cfg.process.terminal);
	CHECK(cfg.process.caps.bounding == (CAP(29) | CAP(5) | CAP(10)));
	CHECK(!cfg.process.caps.has_inheritable);
	CHECK(cfg.n_mounts == 7);
	CHECK(cfg.mounts[5].flags == (MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY));
	CHECK_STR(cfg.mounts[2].data, "newinstance,ptmxmode=0666,mode=0620,gid=5");
	CHECK(cfg.mounts[6].flags == (MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RELATIME | MS_RDONLY));
	CHECK(cfg.linux_.ns[OCI_NS_PID].present && !cfg.linux_.ns[OCI_NS_USER].present);
	CHECK(cfg.linux_.n_masked_paths == 10 && cfg.linux_.n_readonly_paths == 5);
	CHECK(cfg.linux_.resources.n_devices == 1);
	oci_config_free(&cfg);
}

static void test_spec_example(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	int r = oci_config_load(fixture_path("spec-example.json"), OCI_PARSE_ALL, &cfg, &err);

	CHECK(r == 0);
	if (r < 0) {
		fprintf(stderr, "spec-example.json: %s\n", err.msg);
		return;
	}
	CHECK(cfg.hooks.n[OCI_HOOK_PRESTART] == 2 && cfg.hooks.n[OCI_HOOK_CREATE_CONTAINER] == 1);
	CHECK(cfg.linux_.resources.n_hugepage_limits == 2 &&
	      cfg.linux_.resources.hugepage_limits[0].limit == UINT64_C(9223372036854772000));
	CHECK(cfg.linux_.resources.blkio.n_throttle_write_iops == 1);
	CHECK(cfg.linux_.rootfs_propagation == OCI_ROOTFS_PROP_SLAVE);
	CHECK(cfg.linux_.seccomp.n_syscalls == 1 && cfg.linux_.seccomp.syscalls[0].n_names == 2);
	/* "timeOffset" (the old spelling) is an unknown key: ignored */
	CHECK(!cfg.linux_.time_offsets[OCI_CLOCK_MONOTONIC].present);
	oci_config_free(&cfg);
}

/* tinyrun's own `spec` output parses, both variants. */
static void test_default_spec(void)
{
	for (int rootless = 0; rootless <= 1; rootless++) {
		char *json = oci_spec_default(rootless, 1234, 5678);
		struct oci_config cfg;
		struct error err = { 0 };

		CHECK(json != NULL);
		if (!json)
			continue;
		CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
		if (err.msg[0])
			fprintf(stderr, "spec (rootless=%d): %s\n", rootless, err.msg);
		CHECK(cfg.linux_.ns[OCI_NS_USER].present == (bool)rootless);
		CHECK(cfg.linux_.ns[OCI_NS_NET].present == !rootless);
		oci_config_free(&cfg);
		free(json);
	}
}

/* Cases from fixtures/invalid-configs.txt: "=== message" then a document. */
static void test_invalid(void)
{
	size_t len;
	char *text = fixture_read("invalid-configs.txt", &len), *p, *next;
	int cases = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	for (p = strstr(text, "\n=== "); p; p = next) {
		char *expect = p + 5, *doc = strchr(expect, '\n');
		struct oci_config cfg;
		struct error err = { 0 };
		int r;

		if (!doc)
			break;
		*doc++ = '\0';
		next = strstr(doc, "\n=== ");
		if (next)
			*next = '\0';
		/* drop trailing comment lines and blank lines */
		for (char *c = strstr(doc, "\n#"); c; c = strstr(doc, "\n#"))
			*c = '\0';
		r = parse_str(doc, OCI_PARSE_ALL, &cfg, &err);
		CHECK(r == -EINVAL);
		CHECK_STR(err.msg, expect);
		if (r == 0)
			oci_config_free(&cfg);
		if (next)
			*next = '\n';
		cases++;
	}
	CHECK(cases > 100);
	free(text);
}

static void test_versions(void)
{
	static const char *const ok[] = {
		"1.0.0", "1.0.0-rc5", "1.0.0-rc5-dev", "1.0.2-dev", "1.1.0", "1.2.1", "1.3.0",
		"1.3.12+build.7", "1.1",
	};
	char json[128];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct oci_config cfg;
		struct error err = { 0 };

		snprintf(json, sizeof(json), "{\"ociVersion\": \"%s\"}", ok[i]);
		CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
		if (err.msg[0])
			fprintf(stderr, "%s: %s\n", ok[i], err.msg);
		oci_config_free(&cfg);
	}
}

/* delete reads only ociVersion, hooks and annotations: the rest may even be broken. */
static void test_hooks_only(void)
{
	const char *json =
		"{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": 7},"
		" \"linux\": {\"namespaces\": [{\"type\": \"bogus\"}]},"
		" \"annotations\": {\"a\": \"b\"},"
		" \"hooks\": {\"poststop\": [{\"path\": \"/bin/echo\", \"args\": [\"echo\", \"bye\"]}]}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str(json, OCI_PARSE_HOOKS_ONLY, &cfg, &err) == 0);
	CHECK(cfg.hooks.n[OCI_HOOK_POSTSTOP] == 1);
	CHECK_STR(cfg.hooks.list[OCI_HOOK_POSTSTOP][0].args[1], "bye");
	CHECK(cfg.n_annotations == 1 && !cfg.has_process && !cfg.has_linux);
	oci_config_free(&cfg);
	/* ... but a broken hook is still an error */
	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"hooks\": {\"poststop\": [{}]}}",
			OCI_PARSE_HOOKS_ONLY, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: .hooks.poststop[0].path: required");
	/* and the full parse refuses the document */
	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "config.json: .process.args: expected array");
}

/* Go's zero values: "" and null mean absent; unknown keys are ignored. */
static void test_empty_and_null(void)
{
	const char *json =
		"{\"ociVersion\": \"1.0.0\", \"hostname\": \"\", \"process\": {\"args\": [\"sh\"],"
		" \"cwd\": \"/\", \"apparmorProfile\": \"\", \"user\": null, \"rlimits\": null,"
		" \"extra\": [1, 2]}, \"mounts\": null,"
		" \"linux\": {\"namespaces\": [{\"type\": \"pid\", \"path\": \"\"}],"
		" \"rootfsPropagation\": \"\", \"cgroupsPath\": \"\", \"resources\": null}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK(cfg.hostname == NULL && cfg.process.apparmor_profile == NULL);
	CHECK(cfg.n_mounts == 0 && cfg.process.n_rlimits == 0 && !cfg.process.has_caps);
	CHECK(cfg.linux_.ns[OCI_NS_PID].present && cfg.linux_.ns[OCI_NS_PID].path == NULL);
	CHECK(cfg.linux_.rootfs_propagation == OCI_ROOTFS_PROP_DEFAULT);
	CHECK(cfg.linux_.cgroups_path == NULL && !cfg.linux_.has_resources);
	CHECK(cfg.process.env != NULL && cfg.process.env[0] == NULL && cfg.process.n_env == 0);
	oci_config_free(&cfg);
}

/* Device paths are cleaned lexically ("/mnt/" is /mnt, as runc's
 * filepath.Clean); one that cleans to "/" names no node. */
static void test_device_paths(void)
{
	const char *json =
		"{\"ociVersion\": \"1.0.0\", \"linux\": {\"devices\": ["
		"{\"path\": \"/mnt/\", \"type\": \"b\", \"major\": 10, \"minor\": 229},"
		"{\"path\": \"/dev//x/./y/\", \"type\": \"c\", \"major\": 1, \"minor\": 3}]}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK_STR(cfg.linux_.devices[0].path, "/mnt");
	CHECK_STR(cfg.linux_.devices[1].path, "/dev/x/y");
	oci_config_free(&cfg);
	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"linux\": {\"devices\": ["
			"{\"path\": \"//\", \"type\": \"c\", \"major\": 1, \"minor\": 3}]}}",
			OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK(strstr(err.msg, ".linux.devices[0].path") != NULL);
}

/* A repeated key: the last one counts (as Go decoding into a struct or map). */
static void test_repeated_keys(void)
{
	const char *json =
		"{\"ociVersion\": \"0.1\", \"ociVersion\": \"1.0.0\","
		" \"annotations\": {\"a\": \"1\", \"b\": \"2\", \"a\": \"3\"},"
		" \"linux\": {\"namespaces\": [{\"type\": \"network\"}],"
		" \"netDevices\": {\"eth0\": {\"name\": \"x\"}, \"eth0\": {\"name\": \"y\"}}}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK_STR(cfg.oci_version, "1.0.0");
	CHECK(cfg.n_annotations == 2);
	CHECK_STR(cfg.annotations[0].key, "b");
	CHECK_STR(cfg.annotations[1].value, "3");
	CHECK(cfg.linux_.n_net_devices == 1);
	CHECK_STR(cfg.linux_.net_devices[0].name, "y");
	oci_config_free(&cfg);
}

/* runc's Go decoder matches member names regardless of case (its suite
 * writes hugepageLimits' "pagesize"); an exact name wins over a folded one,
 * map keys (annotations) stay exact. */
static void test_case_folded_keys(void)
{
	const char *json =
		"{\"ociVersion\": \"1.0.0\", \"Hostname\": \"folded\","
		" \"annotations\": {\"A\": \"1\", \"a\": \"2\"},"
		" \"linux\": {\"namespaces\": [{\"type\": \"uts\"}], \"resources\": {"
		" \"hugepageLimits\": [{\"pagesize\": \"2MB\", \"limit\": 2097152}],"
		" \"pids\": {\"LIMIT\": 7, \"limit\": 9}}}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK_STR(cfg.hostname, "folded");
	CHECK(cfg.n_annotations == 2);
	CHECK(cfg.linux_.resources.n_hugepage_limits == 1);
	if (cfg.linux_.resources.n_hugepage_limits == 1)
		CHECK_STR(cfg.linux_.resources.hugepage_limits[0].page_size, "2MB");
	CHECK(cfg.linux_.resources.pids_limit == 9);
	oci_config_free(&cfg);
}

/* Every option the spec names is understood (never passed as fs data), and
 * each translates as mount(8) / mount_setattr(2) mean it. */
static void test_mount_options(void)
{
	char json[8192];
	size_t n;
	struct oci_config cfg;
	struct error err = { 0 };

	n = (size_t)snprintf(json, sizeof(json),
			     "{\"ociVersion\": \"1.0.0\", \"linux\": {\"namespaces\": [{\"type\": \"user\"}],"
			     " \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1, \"size\": 1}]},"
			     " \"mounts\": [{\"destination\": \"/x\", \"options\": [");
	for (size_t i = 0; i < oci_n_mount_options; i++)
		n += (size_t)snprintf(json + n, sizeof(json) - n, "%s\"%s\"", i ? ", " : "",
				      oci_mount_options[i]);
	snprintf(json + n, sizeof(json) - n, "]}]}");
	CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK(cfg.n_mounts == 1 && cfg.mounts[0].data == NULL);
	CHECK(cfg.mounts[0].n_options == oci_n_mount_options);
	oci_config_free(&cfg);

	static const struct {
		const char *opts;
		unsigned long flags, clear;
		uint64_t attr_set, attr_clr;
		enum oci_propagation prop;
		const char *data;
	} cases[] = {
		{ "\"ro\"", MS_RDONLY, 0, 0, 0, 0, NULL },
		{ "\"ro\", \"rw\"", 0, MS_RDONLY, 0, 0, 0, NULL },
		{ "\"rw\", \"ro\"", MS_RDONLY, 0, 0, 0, 0, NULL },
		{ "\"nosuid\", \"suid\", \"nodev\"", MS_NODEV, MS_NOSUID, 0, 0, 0, NULL },
		{ "\"bind\"", MS_BIND, 0, 0, 0, 0, NULL },
		{ "\"rbind\", \"remount\"", MS_BIND | MS_REC | MS_REMOUNT, 0, 0, 0, 0, NULL },
		{ "\"noatime\", \"nodiratime\", \"relatime\", \"strictatime\"",
		  MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME, 0, 0, 0, 0, NULL },
		{ "\"atime\", \"diratime\", \"norelatime\", \"nostrictatime\"", 0,
		  MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME, 0, 0, 0, NULL },
		{ "\"sync\", \"async\"", 0, MS_SYNCHRONOUS, 0, 0, 0, NULL },
		{ "\"dirsync\", \"mand\", \"nomand\", \"silent\", \"loud\"", MS_DIRSYNC,
		  MS_MANDLOCK | MS_SILENT, 0, 0, 0, NULL },
		{ "\"iversion\", \"lazytime\", \"nosymfollow\"", MS_I_VERSION | MS_LAZYTIME | MS_NOSYMFOLLOW,
		  0, 0, 0, 0, NULL },
		{ "\"noiversion\", \"nolazytime\", \"symfollow\", \"exec\", \"dev\"", 0,
		  MS_I_VERSION | MS_LAZYTIME | MS_NOSYMFOLLOW | MS_NOEXEC | MS_NODEV, 0, 0, 0, NULL },
		{ "\"rro\", \"rnosuid\", \"rnodev\", \"rnoexec\", \"rnodiratime\", \"rnosymfollow\"", 0, 0,
		  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
		  MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW, 0, 0, NULL },
		{ "\"rro\", \"rrw\", \"rsuid\", \"rdev\", \"rexec\", \"rdiratime\", \"rsymfollow\"", 0, 0, 0,
		  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
		  MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW, 0, NULL },
		{ "\"rnoatime\"", 0, 0, MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME, 0, NULL },
		{ "\"rstrictatime\"", 0, 0, MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME, 0, NULL },
		{ "\"ratime\", \"rnostrictatime\"", 0, 0, 0, MOUNT_ATTR_NOATIME | MOUNT_ATTR_STRICTATIME, 0, NULL },
		{ "\"shared\"", 0, 0, 0, 0, OCI_PROP_SHARED, NULL },
		{ "\"private\", \"rslave\"", 0, 0, 0, 0, OCI_PROP_RSLAVE, NULL },
		{ "\"unbindable\"", 0, 0, 0, 0, OCI_PROP_UNBINDABLE, NULL },
		{ "\"runbindable\", \"rshared\", \"slave\", \"rprivate\"", 0, 0, 0, 0, OCI_PROP_RPRIVATE, NULL },
		{ "\"defaults\"", 0, 0, 0, 0, 0, NULL },
		{ "\"mode=755\", \"ro\", \"size=1k\", \"x-foo\"", MS_RDONLY, 0, 0, 0, 0, "mode=755,size=1k,x-foo" },
		{ "\"acl\"", 0, 0, 0, 0, 0, "acl" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json),
			 "{\"ociVersion\": \"1.0.0\", \"mounts\": [{\"destination\": \"/x\", \"options\": [%s]}]}",
			 cases[i].opts);
		if (parse_str(json, OCI_PARSE_ALL, &cfg, &err) < 0) {
			CHECK_STR(err.msg, "");
			continue;
		}
		const struct oci_mount *m = &cfg.mounts[0];

		if (m->flags != cases[i].flags || m->clear_flags != cases[i].clear ||
		    m->attr_set != cases[i].attr_set || m->attr_clr != cases[i].attr_clr ||
		    m->propagation != cases[i].prop)
			fprintf(stderr, "options [%s]: flags %#lx clear %#lx attr_set %#lx attr_clr %#lx prop %d\n",
				cases[i].opts, m->flags, m->clear_flags, (unsigned long)m->attr_set,
				(unsigned long)m->attr_clr, m->propagation);
		CHECK(m->flags == cases[i].flags && m->clear_flags == cases[i].clear);
		CHECK(m->attr_set == cases[i].attr_set && m->attr_clr == cases[i].attr_clr);
		CHECK(m->propagation == cases[i].prop);
		if (cases[i].data)
			CHECK_STR(m->data, cases[i].data);
		else
			CHECK(m->data == NULL);
		oci_config_free(&cfg);
	}
	/* bind / tmpcopyup / idmap / ridmap flags */
	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"linux\": {\"namespaces\": [{\"type\": \"user\"}],"
			" \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1, \"size\": 1}]},"
			" \"mounts\": [{\"destination\": \"/a\", \"options\": [\"bind\", \"ridmap\"]},"
			" {\"destination\": \"/b\", \"options\": [\"tmpcopyup\", \"idmap\"]}]}",
			OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.mounts[0].is_bind && cfg.mounts[0].ridmap && !cfg.mounts[0].idmap);
	CHECK(!cfg.mounts[1].is_bind && cfg.mounts[1].tmpcopyup && cfg.mounts[1].idmap);
	oci_config_free(&cfg);
}

static void test_load_errors(void)
{
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(oci_config_load("/nonexistent/config.json", OCI_PARSE_ALL, &cfg, &err) == -ENOENT);
	CHECK_STR(err.msg, "/nonexistent/config.json: No such file or directory");
	/* not a regular file: refused on the fd before any read (a FIFO without
	 * a writer or a tty would block, a device could be endless) */
	CHECK(oci_config_load("/", OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "/: not a regular file (a directory)");
	CHECK(oci_config_load("/dev/zero", OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "/dev/zero: not a regular file (a character device)");
	/* the prefix is the file's name */
	CHECK(oci_config_load(fixture_path("invalid-configs.txt"), OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK(strncmp(err.msg, "invalid-configs.txt: invalid JSON: ", 35) == 0);
	/* a NUL inside the buffer would hide what follows it: refused */
	CHECK(oci_config_parse("x.json", "{\"ociVersion\": \"1.0.0\"}\0junk", 28, OCI_PARSE_ALL,
			       &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "x.json: invalid JSON: NUL byte at offset 23");
	CHECK(oci_config_parse("x.json", "", 0, OCI_PARSE_ALL, &cfg, &err) == -EINVAL);
	CHECK_STR(err.msg, "x.json: invalid JSON: parse error: premature EOF, line 1, column 1");
}

/* `exec --process`: the same rules, paths relative to the process object. */
/* config.md: unknown capabilities are warned about, not fatal: they are kept,
 * once each, and the known ones still apply. */
static void test_unknown_capabilities(void)
{
	const char *json = "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\","
			   " \"capabilities\": {\"bounding\": [\"CAP_NOPE\", \"CAP_KILL\"],"
			   " \"effective\": [\"CAP_NOPE\", \"cap_chown\"]}}}";
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.process.caps.n_unknown == 2);
	if (cfg.process.caps.n_unknown == 2) {
		CHECK_STR(cfg.process.caps.unknown[0], "CAP_NOPE");
		CHECK_STR(cfg.process.caps.unknown[1], "cap_chown");
	}
	CHECK(cfg.process.caps.bounding == (UINT64_C(1) << 5));
	CHECK(cfg.process.caps.effective == 0);
	oci_config_free(&cfg);
}

static void test_process_parse(void)
{
	static const struct { const char *json, *err; } bad[] = {
		{ "{\"cwd\": \"/\"}", "process.json: .args: required" },
		{ "{\"args\": [\"sh\"], \"cwd\": \"rel\"}",
		  "process.json: .cwd: must be an absolute path, got \"rel\"" },
		{ "[]", "process.json: expected object" },
		{ "{\"args\": [\"sh\"], \"cwd\": \"/\", \"capabilities\": {\"bounding\": [true]}}",
		  "process.json: .capabilities.bounding[0]: expected string" },
		{ "{\"args\": [\"sh\"], \"cwd\": \"/\"", "process.json: invalid JSON: parse error: premature EOF, line 1, column 27, near ': [\"sh\"], \"cwd\": \"/\"'" },
	};
	const char *ok = "{\"terminal\": false, \"args\": [\"ls\", \"-l\"], \"cwd\": \"/tmp\","
			 " \"env\": [\"A=1\"], \"user\": {\"uid\": 7, \"gid\": 8},"
			 " \"rlimits\": [{\"type\": \"RLIMIT_NPROC\", \"soft\": 10, \"hard\": 20}]}";
	struct oci_process proc;
	struct error err = { 0 };
	void *arena = (void *)1;

	CHECK(oci_process_parse("process.json", ok, strlen(ok), &proc, &arena, &err) == 0);
	CHECK(arena != NULL && proc.n_args == 2 && proc.args[2] == NULL && proc.uid == 7);
	CHECK_STR(proc.cwd, "/tmp");
	CHECK(proc.n_rlimits == 1 && proc.rlimits[0].resource == RLIMIT_NPROC);
	oci_arena_free(arena);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(oci_process_parse("process.json", bad[i].json, strlen(bad[i].json), &proc,
					&arena, &err) < 0);
		CHECK_STR(err.msg, bad[i].err);
		CHECK(arena == NULL && proc.args == NULL);
	}
	oci_arena_free(NULL);
}

/* `update -r`: a bare linux.resources object. */
static void test_resources_parse(void)
{
	const char *ok = "{\"memory\": {\"limit\": 1048576, \"swap\": -1}, \"cpu\": {\"quota\": -1,"
			 " \"period\": 100000, \"cpus\": \"0\"}, \"pids\": {\"limit\": -1},"
			 " \"blockIO\": {\"weight\": 500}, \"unified\": {\"cpu.weight\": \"50\"}}";
	struct oci_resources res;
	struct error err = { 0 };
	void *arena;

	CHECK(oci_resources_parse("resources.json", ok, strlen(ok), &res, &arena, &err) == 0);
	CHECK(res.has_memory && res.memory.limit == 1048576 && res.memory.swap == -1);
	CHECK(!res.memory.has_reservation);
	CHECK(res.has_cpu && res.cpu.has_quota && res.cpu.quota == -1 && res.cpu.period == 100000);
	CHECK(res.has_pids && res.pids_limit == -1);
	CHECK(res.has_blkio && res.blkio.has_weight && res.blkio.weight == 500);
	CHECK(!res.has_network && res.n_unified == 1);
	oci_arena_free(arena);
	CHECK(oci_resources_parse("resources.json", "{\"memory\": {\"limit\": 1.5}}", 26, &res,
				  &arena, &err) == -EINVAL);
	CHECK_STR(err.msg, "resources.json: .memory.limit: expected integer");
}

/* `update`'s flags: one number at a time, with config.json's range. */
static void test_resources_set_number(void)
{
	struct oci_resources res = { 0 };
	struct error err = { 0 };

	CHECK(oci_resources_set_number(&res, "cpu.shares", "-1", "--cpu-shares", &err) == -EINVAL);
	CHECK_STR(err.msg, "--cpu-shares: -1 is out of range (0 to 18446744073709551615)");
	CHECK(!res.has_cpu && !res.cpu.has_shares);
	CHECK(oci_resources_set_number(&res, "cpu.period", "1e3", "--cpu-period", &err) == -EINVAL);
	CHECK_STR(err.msg, "--cpu-period: invalid value \"1e3\"");
	CHECK(oci_resources_set_number(&res, "pids.limit", "-2", "--pids-limit", &err) == -EINVAL);
	CHECK(oci_resources_set_number(&res, "blockIO.weight", "65536", "--blkio-weight", &err) == -EINVAL);
	CHECK(oci_resources_set_number(&res, "cpu.nope", "1", "--x", &err) == -EINVAL);
	CHECK(!res.has_cpu && !res.has_pids && !res.has_blkio);

	CHECK(oci_resources_set_number(&res, "cpu.quota", "-1", "--cpu-quota", &err) == 0);
	CHECK(res.has_cpu && res.cpu.has_quota && res.cpu.quota == -1);
	CHECK(oci_resources_set_number(&res, "cpu.shares", "18446744073709551615", "--cpu-shares", &err) == 0);
	CHECK(res.cpu.has_shares && res.cpu.shares == UINT64_MAX);
	CHECK(oci_resources_set_number(&res, "blockIO.weight", "500", "--blkio-weight", &err) == 0);
	CHECK(res.has_blkio && res.blkio.has_weight && res.blkio.weight == 500 && !res.blkio.has_leaf_weight);
	CHECK(oci_resources_set_number(&res, "pids.limit", "0", "--pids-limit", &err) == 0);
	CHECK(res.has_pids && res.pids_limit == 0);
	CHECK(oci_resources_set_number(&res, "memory.swap", "-1", "--memory-swap", &err) == 0);
	CHECK(res.has_memory && res.memory.has_swap && res.memory.swap == -1 && !res.memory.has_limit);
}

/* destinations inside the rootfs' host path become relative to it (runc) */
static void test_mounts_strip_root(void)
{
	static const struct {
		const char *dest, *want;
	} cases[] = {
		{ "/b/rootfs/mnt", "/mnt" },
		{ "/b/rootfs", "/" },
		{ "//b/./rootfs//x/../y/", "/y" },
		{ "/b/rootfs/../rootfs/z", "/z" },
		{ "/b/rootfsy/a", "/b/rootfsy/a" },
		{ "/rootfs/mnt", "/rootfs/mnt" },
		{ "/mnt", "/mnt" },
	};
	char json[512];
	struct oci_config cfg;
	struct error err = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json), "{\"ociVersion\": \"1.0.0\", \"mounts\": "
			 "[{\"destination\": \"%s\", \"type\": \"tmpfs\"}]}", cases[i].dest);
		CHECK(parse_str(json, OCI_PARSE_ALL, &cfg, &err) == 0);
		CHECK(oci_mounts_strip_root(&cfg, "/b//rootfs/") == 0);
		CHECK_STR(cfg.mounts[0].destination, cases[i].want);
		oci_config_free(&cfg);
	}
	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"mounts\": [{\"destination\": \"/a/b\"}]}",
			OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(oci_mounts_strip_root(&cfg, "/") == 0);
	CHECK_STR(cfg.mounts[0].destination, "/a/b");
	oci_config_free(&cfg);
}

/* ioPriority.priority is required but for the idle class, which has none */
static void test_io_priority_idle(void)
{
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\","
			" \"ioPriority\": {\"class\": \"IOPRIO_CLASS_IDLE\"}}}", OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.process.has_io_priority && cfg.process.io_priority_class == 3 && cfg.process.io_priority == 0);
	oci_config_free(&cfg);
	CHECK(parse_str("{\"ociVersion\": \"1.0.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\","
			" \"ioPriority\": {\"class\": \"IOPRIO_CLASS_BE\"}}}", OCI_PARSE_ALL, &cfg, &err) < 0);
	CHECK_STR(err.msg, "config.json: .process.ioPriority.priority: required");
}

/* oci_config_check_create: valid configs that create still refuses, each
 * with the field it names; the smallest that passes */
static void test_check_create(void)
{
	static const struct { const char *json, *msg; } cases[] = {
		{ "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"r\"}}", ".process: required" },
		{ "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}}", ".root: required" },
		{ "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}, \"root\": {\"path\": \"r\"}}",
		  "a mount namespace is required" },
		{ "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}, \"root\": {\"path\": \"r\"},"
		  " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}, {\"type\": \"user\"}],"
		  " \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1000, \"size\": 1}]}}",
		  "a new user namespace needs uid and gid mappings" },
		{ "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}, \"root\": {\"path\": \"r\"},"
		  " \"annotations\": {\"run.tinyrun.init\": \"true\"}, \"linux\": {\"namespaces\": [{\"type\": \"mount\"}]}}",
		  "run.tinyrun.init\"]: needs a new pid namespace" },
		{ "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}, \"root\": {\"path\": \"r\"},"
		  " \"annotations\": {\"run.tinyrun.init\": \"true\"},"
		  " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}, {\"type\": \"pid\"}]}}", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct oci_config cfg;
		struct error err = { 0 };

		CHECK(parse_str(cases[i].json, OCI_PARSE_ALL, &cfg, &err) == 0);
		if (err.msg[0])
			continue;
		if (!cases[i].msg) {
			CHECK(oci_config_check_create(&cfg, &err) == 0);
		} else {
			CHECK(oci_config_check_create(&cfg, &err) == -EINVAL);
			CHECK(strstr(err.msg, cases[i].msg) != NULL);
			CHECK(strncmp(err.msg, "config.json: .", 14) == 0);
		}
		oci_config_free(&cfg);
	}
}

int main(void)
{
	test_full();
	test_mounts_strip_root();
	test_io_priority_idle();
	test_runc_spec();
	test_spec_example();
	test_default_spec();
	test_invalid();
	test_versions();
	test_hooks_only();
	test_empty_and_null();
	test_repeated_keys();
	test_device_paths();
	test_case_folded_keys();
	test_mount_options();
	test_load_errors();
	test_process_parse();
	test_unknown_capabilities();
	test_resources_parse();
	test_resources_set_number();
	test_check_create();
	return unit_report("test_oci_parse");
}
