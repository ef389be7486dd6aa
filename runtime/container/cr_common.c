#include "runtime/container/cr.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/linux/hostcaps_criu.h"
#include "rootfs/rootfs.h"
#include "runtime/linux/procfs.h"

int cr_criu_path(const char *cmd, char *path, size_t size, int *ver, struct error *err)
{
	char version[64];
	int major = 0, minor = 0;

	if (hostcaps_criu_find(path, size) < 0)
		return error_set(err, ENOENT, "%s: criu not found in PATH (install criu)", cmd);
	if (hostcaps_criu_version(path, version, sizeof(version)) < 0 ||
	    sscanf(version, "%d.%d", &major, &minor) != 2)
		return error_set(err, ENOEXEC, "%s: %s --version: no version (install criu %d.%d or later)", cmd, path,
				 CR_CRIU_MIN_MAJOR, CR_CRIU_MIN_MINOR);
	if (major < CR_CRIU_MIN_MAJOR || (major == CR_CRIU_MIN_MAJOR && minor < CR_CRIU_MIN_MINOR))
		return error_set(err, ENOEXEC, "%s: criu %s at %s is too old (%d.%d or later needed)", cmd, version,
				 path, CR_CRIU_MIN_MAJOR, CR_CRIU_MIN_MINOR);
	if (ver)
		*ver = major * 100 + minor;
	return 0;
}

int cr_cg_mode(const char *name, enum criu_cg_mode *mode)
{
	static const struct { const char *name; enum criu_cg_mode mode; } modes[] = {
		{ "soft", CRIU_CG_SOFT }, { "full", CRIU_CG_FULL }, { "strict", CRIU_CG_STRICT },
		{ "ignore", CRIU_CG_IGNORE },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(name, modes[i].name) == 0) {
			*mode = modes[i].mode;
			return 0;
		}
	return -EINVAL;
}

int cr_parse_fd(const char *s, int *fd)
{
	char *end;
	long v;
	int fl;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	/* the caller's own fd, open for writing; not handed on to criu (but
	 * stdio, which criu gets anyway, stays as it is) */
	if ((fl = fcntl((int)v, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_RDONLY ||
	    (v > 2 && fcntl((int)v, F_SETFD, FD_CLOEXEC) < 0))
		return -EBADF;
	*fd = (int)v;
	return 0;
}

int cr_parse_page_server(const char *s, char *addr, size_t size, int *port)
{
	const char *colon = strrchr(s, ':'), *host = s;
	size_t n;
	char *end;
	long p;

	if (!colon)
		return -EINVAL;
	n = (size_t)(colon - s);
	if (*s == '[' && n >= 2 && s[n - 1] == ']') {   /* [IPv6]:PORT, as Go's SplitHostPort */
		host++;
		n -= 2;
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (n == 0 || n >= size || errno || end == colon + 1 || *end || p < 1 || p > 65535)
		return -EINVAL;
	memcpy(addr, host, n);
	addr[n] = '\0';
	*port = (int)p;
	return 0;
}

uint32_t cr_ns_flag(const char *name)
{
	static const struct { const char *name; uint32_t flag; } ns[] = {
		{ "network", CLONE_NEWNET }, { "pid", CLONE_NEWPID }, { "mount", CLONE_NEWNS },
		{ "ipc", CLONE_NEWIPC }, { "uts", CLONE_NEWUTS }, { "user", CLONE_NEWUSER },
		{ "cgroup", CLONE_NEWCGROUP },
	};

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (strcmp(name, ns[i].name) == 0)
			return ns[i].flag;
	return 0;
}

const char *cr_external_ns_key(enum oci_ns_type t)
{
	return t == OCI_NS_NET ? "extRootNetNS" : t == OCI_NS_PID ? "extRootPidNS" : NULL;
}

static int open_dir(const char *what, const char *path, bool create, struct error *err)
{
	int fd;

	if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
		return error_sys(err, errno, "%s %s", what, path);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "%s %s", what, path);
	return fd;
}

int cr_open_dirs(const struct cr_opts *o, bool create, int *img, int *work, struct error *err)
{
	*work = -1;
	if ((*img = open_dir("--image-path", o->image_path, create, err)) < 0)
		return *img;
	if (o->work_path && (*work = open_dir("--work-path", o->work_path, true, err)) < 0) {
		close(*img);
		*img = -1;
		return *work;
	}
	return 0;
}

static const char *annotation(const struct oci_kv *a, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i].key, key) == 0)
			return a[i].value;
	return NULL;
}

void cr_base_opts(const struct cr_opts *o, const struct oci_kv *annotations, size_t n_annotations, int img,
		  int work, const char *log_file, struct criu_opts *co)
{
	const char *conf = annotation(annotations, n_annotations, "org.criu.config");

	*co = (struct criu_opts){
		.images_dir_fd = img, .work_dir_fd = work, .log_level = 4, .log_file = log_file,
		.manage_cgroups = true, .manage_cgroups_mode = o->cg_mode, .notify_scripts = true,
		.shell_job = o->shell_job, .tcp_established = o->tcp_established, .ext_unix_sk = o->ext_unix_sk,
		.file_locks = o->file_locks, .empty_ns = o->empty_ns, .orphan_pts_master = true,
		.auto_dedup = o->auto_dedup, .lazy_pages = o->lazy_pages, .link_remap = o->link_remap,
	};
	/* runc: the annotation's file; "" none at all; absent: runc's default */
	if (!conf)
		co->config_file = "/etc/criu/runc.conf";
	else if (*conf)
		co->config_file = conf;
}

void cr_log_hint(const struct cr_opts *o, const char *log_file, struct error *err)
{
	char path[PATH_MAX], line[512], last[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->work_path ? o->work_path : o->image_path, log_file);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "Error"))
				snprintf(last, sizeof(last), "%.*s", (int)strcspn(line, "\n"), line);
		fclose(f);
	}
	snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg), " (see %s%s%s)", path,
		 last[0] ? ": " : "", last);
}

static const char *const default_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};

static int add(struct cr_ext_mounts *m, const char *key, const char *val)
{
	struct criu_kv *kv = realloc(m->kv, (m->n + 1) * sizeof(*kv));
	char *k = strdup(key), *v = strdup(val);

	if (kv)
		m->kv = kv;
	if (!kv || !k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	m->kv[m->n++] = (struct criu_kv){ .key = k, .val = v };
	return 0;
}

/* A masked path that is a file in the container (a /dev/null bind): dump only. */
static bool masked_file(pid_t pid, const char *path)
{
	char p[PATH_MAX];
	struct stat sb;

	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, path);
	return stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

/* What /proc/self/fd/<fd> names: its length, or <= 0. */
static ssize_t fd_link(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, size - 1)) > 0)
		buf[n] = '\0';
	return n;
}

/* A bind's destination as CRIU finds the mount: with the links inside the
 * container's root resolved, as runc's addCriuDumpMount/addCriuRestoreMount
 * SecureJoin it, so a destination that is a link (/conf -> /real/conf) names
 * the mount at /real/conf. rootfd: the container's root (dump: the init's
 * /proc/<pid>/root, whose fds read back in the container's view, "/"; restore:
 * the rootfs dir, whose own path is cut off). The destination as written when
 * it cannot be resolved. */
static void resolve_dest(int rootfd, const char *dest, char *out, size_t size)
{
	char base[PATH_MAX], got[PATH_MAX];
	ssize_t nb = rootfd >= 0 ? fd_link(rootfd, base, sizeof(base)) : -1, n = -1;
	int fd;

	snprintf(out, size, "%s", dest);
	if (nb <= 0 || (fd = rootfs_open_in_root(rootfd, dest, O_PATH | O_CLOEXEC, 0)) < 0)
		return;
	n = fd_link(fd, got, sizeof(got));
	close(fd);
	if (n > 0 && !strcmp(base, "/"))
		snprintf(out, size, "%s", got);
	else if (n > nb && !strncmp(got, base, (size_t)nb) && got[nb] == '/')
		snprintf(out, size, "%s", got + nb);
}

static int add_binds(const struct oci_config *cfg, int rootfd, const char *bundle, struct cr_ext_mounts *m)
{
	char src[PATH_MAX], dest[PATH_MAX];

	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *mt = &cfg->mounts[i];

		if (!mt->is_bind || !mt->source)
			continue;
		resolve_dest(rootfd, mt->destination, dest, sizeof(dest));
		if (!bundle)   /* dump: the mount point names itself */
			snprintf(src, sizeof(src), "%s", dest);
		else if (mt->source[0] == '/')
			snprintf(src, sizeof(src), "%s", mt->source);
		else
			snprintf(src, sizeof(src), "%s/%s", bundle, mt->source);
		if (add(m, dest, src) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cr_ext_mounts(const struct oci_config *cfg, pid_t dump_pid, const char *bundle, const char *rootfs,
		  struct cr_ext_mounts *m, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	int rootfd = dump_pid ? procfs_root_of(dump_pid) : rootfs ? open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	int r = add_binds(cfg, rootfd, dump_pid ? NULL : bundle, m);

	if (rootfd >= 0)
		close(rootfd);

	for (size_t i = 0; r == 0 && i < sizeof(default_devices) / sizeof(default_devices[0]); i++)
		r = add(m, default_devices[i], default_devices[i]);
	for (size_t i = 0; r == 0 && cfg->has_linux && i < l->n_devices; i++)
		r = add(m, l->devices[i].path, l->devices[i].path);
	for (size_t i = 0; r == 0 && dump_pid && cfg->has_linux && i < l->n_masked_paths; i++)
		if (masked_file(dump_pid, l->masked_paths[i]))
			r = add(m, l->masked_paths[i], "/dev/null");
	if (r < 0) {
		cr_ext_mounts_free(m);
		return error_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

void cr_ext_mounts_free(struct cr_ext_mounts *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free((char *)m->kv[i].key);
		free((char *)m->kv[i].val);
	}
	free(m->kv);
	m->kv = NULL;
	m->n = 0;
}
