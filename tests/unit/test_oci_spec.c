/* `spec` output: runc's document (and its --rootless variant), re-read by
 * our own parser. */
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#include "oci/config.h"
#include "oci/spec.h"
#include "unit.h"

static bool cgroup2_host(void)
{
	struct statfs st;

	return statfs("/sys/fs/cgroup", &st) == 0 && st.f_type == 0x63677270;
}

static struct oci_mount *find_mount(struct oci_config *cfg, const char *dest)
{
	for (size_t i = 0; i < cfg->n_mounts; i++)
		if (strcmp(cfg->mounts[i].destination, dest) == 0)
			return &cfg->mounts[i];
	return NULL;
}

static void test_default(void)
{
	char *json = oci_spec_default(false, 0, 0);
	struct oci_config cfg;
	struct error err = { 0 };
	struct oci_mount *m;
	const uint64_t caps = (1ULL << 29) | (1ULL << 5) | (1ULL << 10);

	CHECK(json != NULL);
	if (!json)
		return;
	CHECK(strncmp(json, "{\n\t\"ociVersion\": \"1.3.0\",\n\t\"process\": {\n\t\t\"terminal\": true,", 59) == 0);
	CHECK(json[strlen(json) - 1] == '}');
	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK(cfg.has_process && cfg.process.terminal && cfg.process.uid == 0);
	CHECK(cfg.process.n_args == 1 && strcmp(cfg.process.args[0], "sh") == 0);
	CHECK(cfg.process.n_env == 2);
	CHECK_STR(cfg.process.cwd, "/");
	CHECK(cfg.process.caps.bounding == caps && cfg.process.caps.effective == caps &&
	      cfg.process.caps.permitted == caps);
	CHECK(!cfg.process.caps.has_ambient && !cfg.process.caps.has_inheritable);
	CHECK(cfg.process.n_rlimits == 1 && cfg.process.rlimits[0].resource == RLIMIT_NOFILE &&
	      cfg.process.rlimits[0].soft == 1024 && cfg.process.rlimits[0].hard == 1024);
	CHECK(cfg.process.no_new_privileges);
	CHECK_STR(cfg.root_path, "rootfs");
	CHECK(cfg.root_readonly);
	CHECK(cfg.hostname != NULL);
	CHECK(cfg.n_mounts == 7);
	CHECK((m = find_mount(&cfg, "/dev/pts")) && m->data &&
	      strcmp(m->data, "newinstance,ptmxmode=0666,mode=0620,gid=5") == 0);
	CHECK((m = find_mount(&cfg, "/sys")) && strcmp(m->type, "sysfs") == 0 &&
	      m->flags == (MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY));
	CHECK(cfg.linux_.has_resources && cfg.linux_.resources.n_devices == 1 &&
	      !cfg.linux_.resources.devices[0].allow);
	CHECK(cfg.linux_.ns[OCI_NS_PID].present && cfg.linux_.ns[OCI_NS_NET].present &&
	      cfg.linux_.ns[OCI_NS_IPC].present && cfg.linux_.ns[OCI_NS_UTS].present &&
	      cfg.linux_.ns[OCI_NS_MOUNT].present && !cfg.linux_.ns[OCI_NS_USER].present);
	CHECK(cfg.linux_.ns[OCI_NS_CGROUP].present == cgroup2_host());
	CHECK(cfg.linux_.n_masked_paths == 11 && cfg.linux_.n_readonly_paths == 5);
	CHECK_STR(cfg.linux_.masked_paths[0], "/proc/acpi");
	CHECK_STR(cfg.linux_.readonly_paths[4], "/proc/sysrq-trigger");
	oci_config_free(&cfg);
	free(json);
}

static void test_rootless(void)
{
	char *json = oci_spec_default(true, 1000, 1001);
	struct oci_config cfg;
	struct error err = { 0 };
	struct oci_mount *m;

	CHECK(json != NULL);
	if (!json)
		return;
	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK(cfg.linux_.ns[OCI_NS_USER].present && !cfg.linux_.ns[OCI_NS_NET].present);
	CHECK(cfg.linux_.n_uid_mappings == 1 && cfg.linux_.uid_mappings[0].container_id == 0 &&
	      cfg.linux_.uid_mappings[0].host_id == 1000 && cfg.linux_.uid_mappings[0].size == 1);
	CHECK(cfg.linux_.n_gid_mappings == 1 && cfg.linux_.gid_mappings[0].host_id == 1001);
	CHECK((m = find_mount(&cfg, "/sys")) && m->is_bind && strcmp(m->source, "/sys") == 0 &&
	      strcmp(m->type, "none") == 0 &&
	      m->flags == (MS_BIND | MS_REC | MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY));
	CHECK((m = find_mount(&cfg, "/dev/pts")) && m->data &&
	      strcmp(m->data, "newinstance,ptmxmode=0666,mode=0620") == 0);
	CHECK(!cfg.linux_.has_resources);
	CHECK(strstr(json, "\"uidMappings\"") < strstr(json, "\"namespaces\""));
	oci_config_free(&cfg);
	free(json);
}

int main(void)
{
	test_default();
	test_rootless();
	return unit_report("test_oci_spec");
}
