/* features.json (runtime-spec features.md, features-linux.md), generated from
 * the same tables the parser uses. */
#include <ctype.h>
#include "features.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <seccomp.h>

#include "json.h"
#include "tables.h"

/* What the runtime implements beyond parsing: keep in step with runtime/. */
static const struct {
	bool cgroup_v1, cgroup_v2, systemd, systemd_user, rdma;
	bool apparmor, selinux, intel_rdt, idmap_mounts, net_devices;
} support = {
	.cgroup_v1 = true, .cgroup_v2 = true, .systemd = true, .systemd_user = false,
	.rdma = true, .apparmor = true, .selinux = true, .intel_rdt = false,
	.idmap_mounts = true, .net_devices = true,
};

static void names(struct json_writer *w, const char *key, const struct oci_name *t, size_t n)
{
	json_w_key(w, key);
	json_w_array(w);
	for (size_t i = 0; i < n; i++)
		json_w_string(w, t[i].name);
	json_w_array_end(w);
}

static void enabled(struct json_writer *w, const char *key, bool on)
{
	json_w_key(w, key);
	json_w_object(w);
	json_w_key(w, "enabled");
	json_w_bool(w, on);
	json_w_object_end(w);
}

static void flag(struct json_writer *w, const char *key, bool on)
{
	json_w_key(w, key);
	json_w_bool(w, on);
}

/* seccomp(2) with a NULL program fails with EFAULT once the flags passed its
 * check, EINVAL when the kernel does not know one. */
static bool kernel_seccomp_flag(unsigned long bit)
{
	unsigned long flags = bit;

	if (bit == 32)             /* WAIT_KILLABLE_RECV needs NEW_LISTENER */
		flags |= 8;
	return syscall(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, flags, NULL) < 0 &&
	       errno == EFAULT;
}

/* Only the architectures this build's libseccomp can compile for. */
static void archs(struct json_writer *w)
{
	json_w_key(w, "archs");
	json_w_array(w);
	for (size_t i = 0; i < oci_n_seccomp_archs; i++) {
		const char *name = oci_seccomp_archs[i].name + strlen("SCMP_ARCH_");
		char lower[32];
		size_t n;

		for (n = 0; name[n] && n < sizeof(lower) - 1; n++)
			lower[n] = (char)tolower((unsigned char)name[n]);
		lower[n] = '\0';
		if (seccomp_arch_resolve_name(lower))
			json_w_string(w, oci_seccomp_archs[i].name);
	}
	json_w_array_end(w);
}

static void write_seccomp(struct json_writer *w)
{
	json_w_key(w, "seccomp");
	json_w_object(w);
	flag(w, "enabled", true);
	names(w, "actions", oci_seccomp_actions, oci_n_seccomp_actions);
	names(w, "operators", oci_seccomp_operators, oci_n_seccomp_operators);
	archs(w);
	names(w, "knownFlags", oci_seccomp_flags, oci_n_seccomp_flags);
	json_w_key(w, "supportedFlags");
	json_w_array(w);
	for (size_t i = 0; i < oci_n_seccomp_flags; i++)
		if (kernel_seccomp_flag((unsigned long)oci_seccomp_flags[i].value))
			json_w_string(w, oci_seccomp_flags[i].name);
	json_w_array_end(w);
	json_w_object_end(w);
}

static void linux_features(struct json_writer *w)
{
	json_w_key(w, "linux");
	json_w_object(w);
	names(w, "namespaces", oci_namespaces, oci_n_namespaces);
	names(w, "capabilities", oci_capabilities, oci_n_capabilities);
	json_w_key(w, "cgroup");
	json_w_object(w);
	flag(w, "v1", support.cgroup_v1);
	flag(w, "v2", support.cgroup_v2);
	flag(w, "systemd", support.systemd);
	flag(w, "systemdUser", support.systemd_user);
	flag(w, "rdma", support.rdma);
	json_w_object_end(w);
	write_seccomp(w);
	enabled(w, "apparmor", support.apparmor);
	enabled(w, "selinux", support.selinux);
	json_w_key(w, "intelRdt");
	json_w_object(w);
	flag(w, "enabled", support.intel_rdt);
	flag(w, "schemata", support.intel_rdt);
	flag(w, "monitoring", support.intel_rdt);
	json_w_object_end(w);
	json_w_key(w, "mountExtensions");
	json_w_object(w);
	enabled(w, "idmap", support.idmap_mounts);
	json_w_object_end(w);
	json_w_key(w, "memoryPolicy");
	json_w_object(w);
	names(w, "modes", oci_mempolicy_modes, oci_n_mempolicy_modes);
	names(w, "flags", oci_mempolicy_flags, oci_n_mempolicy_flags);
	json_w_object_end(w);
	enabled(w, "netDevices", support.net_devices);
	json_w_object_end(w);
}

int oci_features_json(char **out, size_t *len)
{
	struct json_writer *w = json_writer_new("    ");
	char libseccomp[32], *text;
	size_t n;
	int r;

	snprintf(libseccomp, sizeof(libseccomp), "%d.%d.%d",
		 SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO);
	json_w_object(w);
	json_w_key(w, "ociVersionMin");
	json_w_string(w, "1.0.0");
	json_w_key(w, "ociVersionMax");
	json_w_string(w, "1.3.0");
	names(w, "hooks", oci_hook_names, oci_n_hook_names);
	json_w_key(w, "mountOptions");
	json_w_array(w);
	for (size_t i = 0; i < oci_n_mount_options; i++)
		json_w_string(w, oci_mount_options[i]);
	json_w_array_end(w);
	linux_features(w);
	json_w_key(w, "annotations");
	json_w_object(w);
	json_w_key(w, "io.github.seccomp.libseccomp.version");
	json_w_string(w, libseccomp);
	/* runc's: checkpoint/restore through CRIU (crun says the same with its own key) */
	json_w_key(w, "org.opencontainers.runc.checkpoint.enabled");
	json_w_string(w, "true");
	json_w_key(w, "org.tinyrun.version");
	json_w_string(w, TINYRUN_VERSION);
	json_w_object_end(w);
	/* prefixes: every key tinyrun honours (SPEC-NOTES "Annotations tinyrun
	 * honours"), for a CRI to filter from pod annotations */
	json_w_key(w, "potentiallyUnsafeConfigAnnotations");
	json_w_array(w);
	json_w_string(w, "run.oci.");
	json_w_string(w, "run.tinyrun.");
	json_w_string(w, "org.criu.config");   /* runc's: a CRIU config file for checkpoint/restore */
	json_w_array_end(w);
	json_w_object_end(w);
	if ((r = json_writer_finish(w, &text, &n)) < 0)
		return r;
	/* end with a newline, as `runc features` does */
	char *t = realloc(text, n + 2);
	if (!t) {
		free(text);
		return -ENOMEM;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	*out = t;
	if (len)
		*len = n + 1;
	return 0;
}
