/* features.json: well-formed, runtime-spec keys, generated from the tables. */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/features.h"
#include "oci/json.h"
#include "oci/tables.h"
#include "unit.h"

static const struct json_val *path(const struct json_val *v, const char *a, const char *b,
				   const char *c)
{
	v = json_get(v, a);
	if (v && b)
		v = json_get(v, b);
	if (v && c)
		v = json_get(v, c);
	return v;
}

static bool kernel_takes(unsigned long flag)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flag, NULL) < 0 && errno == EFAULT;
}

static bool has_string(const struct json_val *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_len(arr); i++)
		if (json_str(json_at(arr, i)) && strcmp(json_str(json_at(arr, i)), s) == 0)
			return true;
	return false;
}

static void test_names_match(const struct json_val *arr, const struct oci_name *t, size_t n)
{
	CHECK(arr && json_type(arr) == JSON_ARRAY && json_len(arr) == n);
	for (size_t i = 0; arr && i < n && i < json_len(arr); i++)
		CHECK_STR(json_str(json_at(arr, i)), t[i].name);
}

int main(void)
{
	char *out = NULL, why[128];
	size_t len = 0;
	const struct json_val *v, *known, *supported;
	struct json_val *root;

	CHECK(oci_features_json(&out, &len) == 0);
	if (!out)
		return unit_report("test_oci_features");
	CHECK(len == strlen(out) && out[len - 1] == '\n');
	CHECK(strncmp(out, "{\n    \"ociVersionMin\": \"1.0.0\",\n    \"ociVersionMax\": \"1.3.0\",\n", 60) == 0);
	root = json_parse(out, why, sizeof(why));
	CHECK(root != NULL);
	if (!root) {
		fprintf(stderr, "features: %s\n", why);
		return unit_report("test_oci_features");
	}
	CHECK_STR(json_str(path(root, "ociVersionMin", NULL, NULL)), "1.0.0");
	CHECK_STR(json_str(path(root, "ociVersionMax", NULL, NULL)), "1.3.0");
	test_names_match(path(root, "hooks", NULL, NULL), oci_hook_names, oci_n_hook_names);
	v = path(root, "mountOptions", NULL, NULL);
	CHECK(v && json_len(v) == oci_n_mount_options);
	for (size_t i = 0; v && i < oci_n_mount_options; i++)
		CHECK_STR(json_str(json_at(v, i)), oci_mount_options[i]);
	test_names_match(path(root, "linux", "namespaces", NULL), oci_namespaces, oci_n_namespaces);
	test_names_match(path(root, "linux", "capabilities", NULL), oci_capabilities, oci_n_capabilities);
	for (const char *k = "v1"; k; k = strcmp(k, "v1") == 0 ? "v2" : strcmp(k, "v2") == 0 ? "systemd" :
				   strcmp(k, "systemd") == 0 ? "systemdUser" : strcmp(k, "systemdUser") == 0 ? "rdma" : NULL)
		CHECK((v = path(root, "linux", "cgroup", k)) && json_type(v) == JSON_BOOL);
	CHECK(json_bool(path(root, "linux", "seccomp", "enabled")));
	test_names_match(path(root, "linux", "seccomp", "actions"), oci_seccomp_actions, oci_n_seccomp_actions);
	test_names_match(path(root, "linux", "seccomp", "operators"), oci_seccomp_operators,
			 oci_n_seccomp_operators);
	/* archs: the table's names that this libseccomp resolves, in table order */
	{
		const struct json_val *a = path(root, "linux", "seccomp", "archs");
		size_t k = 0;

		CHECK(has_string(a, "SCMP_ARCH_X86_64"));
		CHECK(!has_string(a, "SCMP_ARCH_NOPE"));
		for (size_t i = 0; a && i < oci_n_seccomp_archs; i++)
			if (k < json_len(a) && !strcmp(json_str(json_at(a, k)), oci_seccomp_archs[i].name))
				k++;
		CHECK(a && k == json_len(a));
	}
	known = path(root, "linux", "seccomp", "knownFlags");
	test_names_match(known, oci_seccomp_flags, oci_n_seccomp_flags);
	supported = path(root, "linux", "seccomp", "supportedFlags");
	CHECK(supported && json_type(supported) == JSON_ARRAY);
	for (size_t i = 0; supported && i < json_len(supported); i++)
		CHECK(has_string(known, json_str(json_at(supported, i))));
	/* supportedFlags is what this kernel takes: ask it ourselves */
	CHECK(has_string(supported, "SECCOMP_FILTER_FLAG_LOG") == kernel_takes(SECCOMP_FILTER_FLAG_LOG));
	CHECK(has_string(supported, "SECCOMP_FILTER_FLAG_SPEC_ALLOW") ==
	      kernel_takes(SECCOMP_FILTER_FLAG_SPEC_ALLOW));
	CHECK(has_string(supported, "SECCOMP_FILTER_FLAG_TSYNC") == kernel_takes(SECCOMP_FILTER_FLAG_TSYNC));
	CHECK((v = path(root, "linux", "apparmor", "enabled")) && json_type(v) == JSON_BOOL);
	CHECK((v = path(root, "linux", "selinux", "enabled")) && json_type(v) == JSON_BOOL);
	CHECK((v = path(root, "linux", "intelRdt", "enabled")) && json_type(v) == JSON_BOOL);
	CHECK(json_bool(path(path(root, "linux", "mountExtensions", "idmap"), "enabled", NULL, NULL)));
	test_names_match(path(root, "linux", "memoryPolicy", "modes"), oci_mempolicy_modes,
			 oci_n_mempolicy_modes);
	test_names_match(path(root, "linux", "memoryPolicy", "flags"), oci_mempolicy_flags,
			 oci_n_mempolicy_flags);
	CHECK((v = path(root, "linux", "netDevices", "enabled")) && json_type(v) == JSON_BOOL);
	v = path(root, "annotations", "io.github.seccomp.libseccomp.version", NULL);
	CHECK(v && json_str(v) && strchr(json_str(v), '.'));
	CHECK(path(root, "annotations", "org.tinyrun.version", NULL) != NULL);
	v = path(root, "potentiallyUnsafeConfigAnnotations", NULL, NULL);
	CHECK(v && json_len(v) == 3 && has_string(v, "run.oci.") && has_string(v, "run.tinyrun.") &&
	      has_string(v, "org.criu.config"));
	v = path(root, "annotations", "org.opencontainers.runc.checkpoint.enabled", NULL);
	CHECK(v && json_str(v) && strcmp(json_str(v), "true") == 0);
	json_free(root);
	free(out);
	return unit_report("test_oci_features");
}
