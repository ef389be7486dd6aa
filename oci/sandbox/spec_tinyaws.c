/* config.json of a tinyaws job (oci/sandbox/tinyaws.h): what tinyaws' agent does by
 * hand (unshare --pid --mount --ipc --fork --mount-proc, an overlay over the
 * image, /app, pivot_root, memory.max/cpu.max, a seccomp profile), as one OCI
 * config. The root overlay and its scratch: oci/sandbox/config_tinyaws.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/json.h"
#include "oci/spec_write.h"
#include "oci/sandbox/tinyaws.h"

/* Docker's default set: what a build or a job expects of "root". */
static const char *const caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
	"CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL,
};

static void write_process(struct json_writer *w, const struct oci_tinyaws_job *j)
{
	oci_spec_process_head(w, false, 0, 0);
	json_w_key(w, "args");
	json_w_array(w);
	json_w_string(w, "sh");
	json_w_string(w, "-c");
	json_w_string(w, j->command);
	json_w_array_end(w);
	json_w_key(w, "env");
	json_w_array(w);
	json_w_string(w, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	json_w_string(w, "HOME=/root");
	for (size_t i = 0; i < j->n_env; i++)
		json_w_string(w, j->env[i]);
	json_w_array_end(w);
	oci_spec_key_str(w, "cwd", "/app");
	oci_spec_caps(w, caps);
	json_w_key(w, "noNewPrivileges");
	json_w_bool(w, true);
	json_w_object_end(w);
}

static void mount_entry(struct json_writer *w, const char *dest, const char *type, const char *src,
			const char *const *opts)
{
	json_w_object(w);
	oci_spec_key_str(w, "destination", dest);
	oci_spec_key_str(w, "type", type);
	oci_spec_key_str(w, "source", src);
	oci_spec_key_strv(w, "options", opts);
	json_w_object_end(w);
}

/* --no-overlay: the image's top-level entries, read-only, on the skeleton */
static void write_image_binds(struct json_writer *w, const struct oci_tinyaws_job *j)
{
	static const char *const ro_bind[] = { "rbind", "ro", "nosuid", "nodev", NULL };
	char dest[4200], src[8400];

	for (size_t i = 0; j->image_bound && i < j->n_image_entries; i++) {
		snprintf(dest, sizeof(dest), "/%s", j->image_entries[i]);
		snprintf(src, sizeof(src), "%s/%s", j->image, j->image_entries[i]);
		mount_entry(w, dest, "bind", src, ro_bind);
	}
}

static void write_mounts(struct json_writer *w, const struct oci_tinyaws_job *j, const char *lower,
			 const char *app)
{
	static const char *const proc[] = { "nosuid", "noexec", "nodev", NULL };
	static const char *const dev[] = { "nosuid", "strictatime", "mode=755", "size=65536k", NULL };
	static const char *const pts[] = { "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620",
					   "gid=5", NULL };
	static const char *const shm[] = { "nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL };
	static const char *const sys[] = { "nosuid", "noexec", "nodev", "ro", NULL };
	static const char *const cg[] = { "nosuid", "noexec", "nodev", "relatime", "ro", NULL };
	static const char *const sys_bind[] = { "rbind", "nosuid", "noexec", "nodev", "ro", NULL };
	static const char *const app_bind[] = { "rbind", "rw", "nosuid", "nodev", NULL };
	const char *const root[] = { "nosuid", "nodev", lower, NULL };

	json_w_key(w, "mounts");
	json_w_array(w);
	if (j->overlay)   /* first: every later entry lands on it */
		mount_entry(w, "/", "overlay", "overlay", root);
	else {
		write_image_binds(w, j);
		mount_entry(w, "/app", "bind", app, app_bind);
	}
	mount_entry(w, "/proc", "proc", "proc", proc);
	mount_entry(w, "/dev", "tmpfs", "tmpfs", dev);
	mount_entry(w, "/dev/pts", "devpts", "devpts", pts);
	mount_entry(w, "/dev/shm", "tmpfs", "shm", shm);
	if (j->namespaces) {
		mount_entry(w, "/dev/mqueue", "mqueue", "mqueue", proc);
		mount_entry(w, "/sys", "sysfs", "sysfs", sys);
		/* the job sees its own limits (v1: its cgroup in each hierarchy) */
		mount_entry(w, "/sys/fs/cgroup", "cgroup", "cgroup", cg);
	} else {   /* sysfs needs a network namespace of its own */
		mount_entry(w, "/sys", "bind", "/sys", sys_bind);
	}
	json_w_array_end(w);
}

static void write_resources(struct json_writer *w, const struct oci_tinyaws_job *j)
{
	json_w_key(w, "resources");
	json_w_object(w);
	oci_spec_deny_devices(w);
	if (j->limits) {
		json_w_key(w, "memory");
		json_w_object(w);
		json_w_key(w, "limit");
		json_w_uint(w, j->memory_bytes);
		json_w_object_end(w);
		json_w_key(w, "cpu");
		json_w_object(w);
		json_w_key(w, "quota");
		json_w_int(w, j->cpu_quota);
		json_w_key(w, "period");
		json_w_uint(w, j->cpu_period);
		json_w_object_end(w);
		json_w_key(w, "pids");
		json_w_object(w);
		json_w_key(w, "limit");
		json_w_int(w, j->pids);
		json_w_object_end(w);
	}
	json_w_object_end(w);
}

static void write_linux(struct json_writer *w, const struct oci_tinyaws_job *j, const struct json_val *seccomp)
{
	/* cgroup: the job sees its own cgroup (and its limits) at /sys/fs/cgroup, v1 or v2 */
	static const char *const all_ns[] = { "pid", "network", "ipc", "uts", "mount", "cgroup", NULL };
	static const char *const mount_ns[] = { "mount", NULL };

	json_w_key(w, "linux");
	json_w_object(w);
	write_resources(w, j);
	json_w_key(w, "namespaces");
	json_w_array(w);
	for (const char *const *ns = j->namespaces ? all_ns : mount_ns; *ns; ns++) {
		json_w_object(w);
		oci_spec_key_str(w, "type", *ns);
		json_w_object_end(w);
	}
	json_w_array_end(w);
	oci_spec_default_paths(w);
	if (seccomp) {
		json_w_key(w, "seccomp");
		json_w_value(w, seccomp);
	}
	json_w_object_end(w);
}

char *oci_spec_tinyaws(const struct oci_tinyaws_job *j, struct error *err)
{
	struct json_val *seccomp = NULL;
	struct json_writer *w;
	char errbuf[128], lower[8400], app[4200], *out;

	if (j->seccomp_json && !(seccomp = json_parse(j->seccomp_json, errbuf, sizeof(errbuf)))) {
		error_set(err, EINVAL, "seccomp profile: %s", errbuf);
		return NULL;
	}
	snprintf(lower, sizeof(lower), "lowerdir=%s/%s:%s", j->bundle, OCI_TINYAWS_LAYER, j->image);
	snprintf(app, sizeof(app), "%s/%s/app", j->bundle, OCI_TINYAWS_LAYER);
	w = json_writer_new("\t");
	json_w_object(w);
	oci_spec_key_str(w, "ociVersion", "1.3.0");
	write_process(w, j);
	json_w_key(w, "root");
	json_w_object(w);
	/* --no-overlay: the skeleton with the image's entries bound (or the
	 * image itself, for --sandbox's transform), read-only: it never changes */
	oci_spec_key_str(w, "path", j->overlay || j->image_bound ? "rootfs" : j->image);
	json_w_key(w, "readonly");
	json_w_bool(w, !j->overlay);
	json_w_object_end(w);
	if (j->namespaces)
		oci_spec_key_str(w, "hostname", "tinyaws");
	write_mounts(w, j, lower, app);
	if (j->overlay) {
		json_w_key(w, "annotations");
		json_w_object(w);
		oci_spec_key_str(w, OCI_ANNOTATION_SCRATCH, OCI_TINYAWS_SCRATCH);
		json_w_object_end(w);
	}
	write_linux(w, j, seccomp);
	json_w_object_end(w);
	if (seccomp)
		json_free(seccomp);
	if (json_writer_finish(w, &out, NULL) < 0) {
		error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	return out;
}
