/* cgroup layout detection, path resolution, the choice of the backend, and
 * the entry points of cgroup.h, each a call through cg->ops (backend.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"
#include "runtime/cgroup/systemd.h"

static void (*debug_fn)(const char *msg);
static void (*warn_fn)(const char *msg);

void cgroup_set_debug(void (*fn)(const char *msg))
{
	debug_fn = fn;
}

void cgroup_set_warn(void (*fn)(const char *msg))
{
	warn_fn = fn;
}

static void say(void (*fn)(const char *msg), const char *fmt, va_list ap)
{
	char buf[512];

	if (!fn)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fn(buf);
}

void cg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(warn_fn, fmt, ap);
	va_end(ap);
}

void cg_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(debug_fn, fmt, ap);
	va_end(ap);
}

/* ---- detection: one statfs (two on v1 hosts) ---------------------------- */

static int detected;       /* 0: not yet, else CGROUP_MODE_* */
static bool hybrid;

enum cgroup_mode cgroup_detect(void)
{
	struct statfs sf;

	if (detected)
		return (enum cgroup_mode)detected;
	if (statfs(CG_ROOT, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		detected = CGROUP_MODE_V2;
	} else {
		detected = CGROUP_MODE_V1;
		hybrid = statfs(CG_ROOT "/unified", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
	}
	return (enum cgroup_mode)detected;
}

const char *cgroup_mode_name(void)
{
	if (cgroup_detect() == CGROUP_MODE_V2)
		return "v2";
	return hybrid ? "hybrid" : "v1";
}

/* ---- paths -------------------------------------------------------------- */

/* Append the cleaned components of `p` to out ("/a/b"), never above "/". */
static int clean_append(char *out, size_t size, const char *p)
{
	size_t len = strlen(out);

	while (*p) {
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
		} else {
			if (len + 1 + n + 1 > size)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = '\0';
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

static int resolve_path(const char *id, const char *cgroups_path, enum cgroup_manager mgr, char **out,
			struct systemd_unit *u, struct error *err)
{
	bool systemd = mgr != CGROUP_FS;
	char buf[4096] = "";
	int r;

	if (systemd) {
		if ((r = cgsd_path(id, cgroups_path, mgr == CGROUP_SYSTEMD_USER, buf, sizeof(buf), u, err)) < 0)
			return r;
	} else if (!cgroups_path || !*cgroups_path) {
		char name[256];

		/* ids go up to 1024 characters, cgroup names to 255 */
		if (strlen(id) > 200) {
			uint64_t h = util_fnv1a64(id, strlen(id), UTIL_ID_HASH_BASIS);

			snprintf(name, sizeof(name), "%.100s-%016llx", id, (unsigned long long)h);
		} else {
			snprintf(name, sizeof(name), "%s", id);
		}
		r = clean_append(buf, sizeof(buf), CG_DEFAULT_PARENT);
		if (r == 0)
			r = clean_append(buf, sizeof(buf), name);
	} else {
		if (cgroups_path[0] != '/')
			r = clean_append(buf, sizeof(buf), CG_DEFAULT_PARENT);
		else
			r = 0;
		if (r == 0)
			r = clean_append(buf, sizeof(buf), cgroups_path);
	}
	if (!systemd && r < 0)
		return error_set(err, -r, "linux.cgroupsPath: too long");
	if (!buf[0])
		return error_set(err, EINVAL, "linux.cgroupsPath \"%s\": is the root cgroup", cgroups_path);
	if (!(*out = strdup(buf)))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

int cgroup_resolve_path(const char *id, const char *cgroups_path, enum cgroup_manager mgr,
			char **out, struct error *err)
{
	struct systemd_unit u;

	return resolve_path(id, cgroups_path, mgr, out, &u, err);
}

/* ---- public entry points ------------------------------------------------ */

/* The host's cgroupfs backend; cgroup_plan/open may switch to systemd's. */
static void cg_init(struct cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->v2_dirfd = -1;
	cg->ops = cg->fs = cg_fs_ops();
	cg->hybrid = cg->fs == &cg1_ops && hybrid;
}

int cgroup_plan(const char *id, const struct oci_config *cfg, enum cgroup_manager mgr, struct cgroup *cg,
		struct error *err)
{
	struct systemd_unit u;
	char *path;
	int r;

	cg_init(cg);
	if ((r = resolve_path(id, cfg->has_linux ? cfg->linux_.cgroups_path : NULL, mgr, &path, &u, err)) < 0)
		return r;
	cg->path = path;
	if (mgr != CGROUP_FS && (r = cgsd_plan(id, &u, cg, err)) < 0) {
		cgroup_close(cg);
		return r;
	}
	cg_debug("cgroup: %s, container cgroup %s", cgroup_mode_name(), cg->path);
	return 0;
}

int cgroup_make(struct cgroup *cg, const struct oci_config *cfg, struct error *err)
{
	int r;

	if ((r = cg_at(cg, cg->ops->create(cg, cfg, err), err)) < 0)
		cgroup_close(cg);
	return r;
}

static int cg_open(const char *path, enum cgroup_manager mgr, bool unchecked, struct cgroup *cg, struct error *err)
{
	int r;

	cg_init(cg);
	if (!(cg->path = strdup(path)))
		return error_set(err, ENOMEM, "out of memory");
	cg->created = true;
	cg->unchecked = unchecked;
	if (mgr != CGROUP_FS && (r = cgsd_open_unit(cg, mgr, err)) < 0) {
		cgroup_close(cg);
		return r;
	}
	if ((r = cg_at(cg, cg->ops->open(cg, err), err)) < 0)
		cgroup_close(cg);
	return r;
}

int cgroup_open(const char *path, enum cgroup_manager mgr, struct cgroup *cg, struct error *err)
{
	return cg_open(path, mgr, false, cg, err);
}

int cgroup_open_unchecked(const char *path, enum cgroup_manager mgr, struct cgroup *cg, struct error *err)
{
	return cg_open(path, mgr, true, cg, err);
}

int cgroup_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	return cg_at(cg, cg_ops(cg)->attach(cg, pid, err), err);
}

int cgroup_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	return cg_at(cg, cg_ops(cg)->apply(cg, res, err), err);
}

int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	return cg_at(cg, cg_ops(cg)->freeze(cg, frozen, err), err);
}

bool cgroup_is_frozen(const struct cgroup *cg)
{
	return cg_ops(cg)->is_frozen(cg);
}

bool cgroup_frozen_elsewhere(const struct cgroup *cg, pid_t pid)
{
	char where[256];

	return cg->fs == &cg1_ops && cg1_frozen_elsewhere(cg, pid, where, sizeof(where));
}

int cgroup_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	return cg_at(cg, cg_ops(cg)->kill_all(cg, sig, err), err);
}

int cgroup_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	*pids = NULL;
	*n = 0;
	return cg_at(cg, cg_ops(cg)->pids(cg, pids, n, err), err);
}

int cgroup_destroy(struct cgroup *cg, struct error *err)
{
	if (!cg->path)
		return 0;
	return cg_ops(cg)->destroy(cg, err);
}

void cgroup_close(struct cgroup *cg)
{
	if (cg->v2_dirfd >= 0)
		close(cg->v2_dirfd);
	cg->v2_dirfd = -1;
	free(cg->path);
	cg->path = NULL;
	free(cg->unit);
	cg->unit = NULL;
	cg->ops = NULL;
}

int cgroup_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	int r;

	memset(st, 0, sizeof(*st));
	if ((r = cg_at(cg, cg_ops(cg)->stats(cg, st, err), err)) < 0)
		cgroup_stats_free(st);
	return r;
}

int cgroup_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	return cg_ops(cg)->oom_kill_count(cg, count, err);
}

int cgroup_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	w->fd = w->ctl_fd = -1;
	w->cg = cg;
	w->last = 0;
	return cg_ops(cg)->oom_watch_open(cg, w, err);
}
