/* The config.json `tinyrun spec` writes: the same document `runc spec`
 * (and `runc spec --rootless`) prints, keys in the same order, tab indent. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "json.h"
#include "spec_write.h"

#define CGROUP2_SUPER_MAGIC 0x63677270

struct spec_mount {
	const char *destination, *type, *source;
	const char *options[8];
};

static const struct spec_mount mounts[] = {
	{ "/proc", "proc", "proc", { NULL } },
	{ "/dev", "tmpfs", "tmpfs", { "nosuid", "strictatime", "mode=755", "size=65536k" } },
	{ "/dev/pts", "devpts", "devpts",
	  { "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5" } },
	{ "/dev/shm", "tmpfs", "shm", { "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" } },
	{ "/dev/mqueue", "mqueue", "mqueue", { "nosuid", "noexec", "nodev" } },
	{ "/sys", "sysfs", "sysfs", { "nosuid", "noexec", "nodev", "ro" } },
	{ "/sys/fs/cgroup", "cgroup", "cgroup", { "nosuid", "noexec", "nodev", "relatime", "ro" } },
};

/* rootless: sysfs cannot be mounted without a network namespace of our own */
static const struct spec_mount rootless_sys =
	{ "/sys", "none", "/sys", { "rbind", "nosuid", "noexec", "nodev", "ro" } };

static const char *const caps[] = { "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE", NULL };

static void write_process(struct json_writer *w)
{
	static const char *const args[] = { "sh", NULL };
	static const char *const env[] = {
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm", NULL,
	};

	oci_spec_process_head(w, true, 0, 0);
	oci_spec_key_strv(w, "args", args);
	oci_spec_key_strv(w, "env", env);
	oci_spec_key_str(w, "cwd", "/");
	oci_spec_caps(w, caps);
	json_w_key(w, "rlimits");
	json_w_array(w);
	json_w_object(w);
	oci_spec_key_str(w, "type", "RLIMIT_NOFILE");
	json_w_key(w, "hard");
	json_w_int(w, 1024);
	json_w_key(w, "soft");
	json_w_int(w, 1024);
	json_w_object_end(w);
	json_w_array_end(w);
	json_w_key(w, "noNewPrivileges");
	json_w_bool(w, true);
	json_w_object_end(w);
}

static void write_mount(struct json_writer *w, const struct spec_mount *m, bool rootless)
{
	json_w_object(w);
	oci_spec_key_str(w, "destination", m->destination);
	oci_spec_key_str(w, "type", m->type);
	oci_spec_key_str(w, "source", m->source);
	if (m->options[0]) {
		json_w_key(w, "options");
		json_w_array(w);
		for (const char *const *o = m->options; *o; o++)
			if (!rootless || (strncmp(*o, "uid=", 4) != 0 && strncmp(*o, "gid=", 4) != 0))
				json_w_string(w, *o);
		json_w_array_end(w);
	}
	json_w_object_end(w);
}

static void write_mounts(struct json_writer *w, bool rootless)
{
	json_w_key(w, "mounts");
	json_w_array(w);
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		const struct spec_mount *m = &mounts[i];

		write_mount(w, rootless && strcmp(m->destination, "/sys") == 0 ? &rootless_sys : m,
			    rootless);
	}
	json_w_array_end(w);
}

static void write_idmap(struct json_writer *w, const char *key, unsigned host)
{
	json_w_key(w, key);
	json_w_array(w);
	json_w_object(w);
	json_w_key(w, "containerID");
	json_w_int(w, 0);
	json_w_key(w, "hostID");
	json_w_uint(w, host);
	json_w_key(w, "size");
	json_w_int(w, 1);
	json_w_object_end(w);
	json_w_array_end(w);
}

static bool cgroup2_unified(void)
{
	struct statfs st;

	return statfs("/sys/fs/cgroup", &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC;
}

static void write_namespaces(struct json_writer *w, bool rootless)
{
	static const char *const root_ns[] = { "pid", "network", "ipc", "uts", "mount", NULL };
	static const char *const rootless_ns[] = { "pid", "ipc", "uts", "mount", NULL };
	const char *const *ns = rootless ? rootless_ns : root_ns;

	json_w_key(w, "namespaces");
	json_w_array(w);
	for (; *ns; ns++) {
		json_w_object(w);
		oci_spec_key_str(w, "type", *ns);
		json_w_object_end(w);
	}
	/* like runc: a cgroup namespace only on a pure cgroup v2 host */
	if (cgroup2_unified()) {
		json_w_object(w);
		oci_spec_key_str(w, "type", "cgroup");
		json_w_object_end(w);
	}
	if (rootless) {
		json_w_object(w);
		oci_spec_key_str(w, "type", "user");
		json_w_object_end(w);
	}
	json_w_array_end(w);
}

static void write_linux(struct json_writer *w, bool rootless, unsigned uid, unsigned gid,
			const struct json_val *seccomp)
{
	json_w_key(w, "linux");
	json_w_object(w);
	if (rootless) {
		write_idmap(w, "uidMappings", uid);
		write_idmap(w, "gidMappings", gid);
	} else {
		json_w_key(w, "resources");
		json_w_object(w);
		oci_spec_deny_devices(w);
		json_w_object_end(w);
	}
	write_namespaces(w, rootless);
	oci_spec_default_paths(w);
	if (seccomp) {
		json_w_key(w, "seccomp");
		json_w_value(w, seccomp);
	}
	json_w_object_end(w);
}

char *oci_spec_default(bool rootless, unsigned uid, unsigned gid)
{
	return oci_spec_generate(rootless, uid, gid, NULL, NULL);
}

char *oci_spec_generate(bool rootless, unsigned uid, unsigned gid, const char *seccomp_json, int *bad_profile)
{
	return oci_spec_generate_version(rootless, uid, gid, seccomp_json, bad_profile, NULL);
}

char *oci_spec_generate_version(bool rootless, unsigned uid, unsigned gid, const char *seccomp_json,
				int *bad_profile, const char *oci_version)
{
	struct json_writer *w;
	struct json_val *seccomp = NULL;
	char *out, errbuf[128];

	if (seccomp_json && !(seccomp = json_parse(seccomp_json, errbuf, sizeof(errbuf)))) {
		if (bad_profile)
			*bad_profile = 1;
		return NULL;
	}
	w = json_writer_new("\t");

	json_w_object(w);
	oci_spec_key_str(w, "ociVersion", oci_version ? oci_version : "1.3.0");
	write_process(w);
	json_w_key(w, "root");
	json_w_object(w);
	oci_spec_key_str(w, "path", "rootfs");
	json_w_key(w, "readonly");
	json_w_bool(w, true);
	json_w_object_end(w);
	oci_spec_key_str(w, "hostname", "tinyrun");
	write_mounts(w, rootless);
	write_linux(w, rootless, uid, gid, seccomp);
	json_w_object_end(w);
	if (seccomp)
		json_free(seccomp);
	return json_writer_finish(w, &out, NULL) < 0 ? NULL : out;
}
