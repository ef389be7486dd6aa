/* cgroup layout detection, path resolution, and the dispatch to v1/v2. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"
#include "runtime/cgroup/systemd-dbus.h"

static void (*debug_fn)(const char *msg);

void cgroup_set_debug(void (*fn)(const char *msg))
{
	debug_fn = fn;
}

void cg_debug(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!debug_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	debug_fn(buf);
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

/* systemd's slice expansion: "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice". */
static int expand_slice(const char *slice, char *out, size_t size, struct error *err)
{
	size_t len = strlen(slice), n, i;
	const char *suffix = ".slice";

	out[0] = '\0';
	if (!strcmp(slice, "-.slice"))
		return 0;
	if (len <= 6 || strcmp(slice + len - 6, suffix) || strchr(slice, '/'))
		return error_set(err, EINVAL, "invalid slice name \"%s\"", slice);
	n = len - 6;
	if (slice[0] == '-' || slice[n - 1] == '-' || strstr(slice, "--"))
		return error_set(err, EINVAL, "invalid slice name \"%s\"", slice);
	for (i = 0; i <= n; i++) {
		if (i < n && slice[i] != '-')
			continue;
		size_t used = strlen(out);
		if ((size_t)snprintf(out + used, size - used, "/%.*s.slice", (int)i, slice) >= size - used)
			return error_set(err, ENAMETOOLONG, "slice name too long");
	}
	return 0;
}

/* "slice:prefix:name" -> the cgroupfs path systemd uses and the unit behind it. */
static int systemd_path(const char *id, const char *spec, char *out, size_t size, struct systemd_unit *u,
			struct error *err)
{
	char slice[256], prefix[256], name[256];
	const char *c1, *c2;
	int r;

	if (!spec || !*spec) {
		snprintf(slice, sizeof(slice), "system.slice");
		snprintf(prefix, sizeof(prefix), "tinyrun");
		snprintf(name, sizeof(name), "%s", id);
	} else {
		c1 = strchr(spec, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strchr(c2 + 1, ':') || (size_t)(c1 - spec) >= sizeof(slice) ||
		    (size_t)(c2 - c1 - 1) >= sizeof(prefix) || strlen(c2 + 1) >= sizeof(name) || !c2[1])
			return error_set(err, EINVAL, "linux.cgroupsPath \"%s\": expected \"slice:prefix:name\" with --systemd-cgroup",
					 spec);
		snprintf(slice, sizeof(slice), "%.*s", (int)(c1 - spec), spec);
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		snprintf(name, sizeof(name), "%s", c2 + 1);
		if (!slice[0])
			snprintf(slice, sizeof(slice), "system.slice");
	}
	if (strchr(prefix, '/') || strchr(name, '/'))
		return error_set(err, EINVAL, "linux.cgroupsPath \"%s\": '/' in a unit name", spec);
	size_t nl = strlen(name);
	snprintf(u->slice, sizeof(u->slice), "%s", slice);
	if (nl > 6 && !strcmp(name + nl - 6, ".slice")) {
		snprintf(u->name, sizeof(u->name), "%s", name);
		r = expand_slice(name, out, size, err);   /* a slice lives at its own path */
	} else {
		if ((size_t)snprintf(u->name, sizeof(u->name), "%s%s%s.scope", prefix, prefix[0] ? "-" : "", name) >=
		    sizeof(u->name))
			return error_set(err, ENAMETOOLONG, "linux.cgroupsPath \"%s\": unit name longer than %zu characters",
					 spec, sizeof(u->name) - 1);
		r = expand_slice(slice, out, size, err);
		if (r == 0 && strlen(out) + 1 + strlen(u->name) + 1 > size)
			r = error_set(err, ENAMETOOLONG, "linux.cgroupsPath: too long");
		if (r == 0) {
			strcat(out, "/");
			strcat(out, u->name);
		}
	}
	if (r < 0) {
		error_prefix(err, "linux.cgroupsPath");
		return r;
	}
	return 0;
}

static int resolve_path(const char *id, const char *cgroups_path, bool systemd, char **out,
			struct systemd_unit *u, struct error *err)
{
	char buf[4096] = "";
	int r;

	if (systemd) {
		if ((r = systemd_path(id, cgroups_path, buf, sizeof(buf), u, err)) < 0)
			return r;
	} else if (!cgroups_path || !*cgroups_path) {
		char name[256];

		/* ids go up to 1024 characters, cgroup names to 255 */
		if (strlen(id) > 200) {
			uint64_t h = 1469598103934665603ULL;
			for (const char *p = id; *p; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211ULL;
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

int cgroup_resolve_path(const char *id, const char *cgroups_path, bool systemd,
			char **out, struct error *err)
{
	struct systemd_unit u;

	return resolve_path(id, cgroups_path, systemd, out, &u, err);
}

/* --systemd-cgroup: with systemd running, the unit to ask for once the pid exists. */
static int plan_systemd_unit(const char *id, const char *path, struct systemd_unit *u, struct cgroup *cg,
			     struct error *err)
{
	if (!systemd_booted()) {
		cg_debug("cgroup: systemd is not running: the unit %s is only its cgroupfs path %s", u->name, path);
		return 0;
	}
	snprintf(u->description, sizeof(u->description), "tinyrun container %s", id);
	u->pending = true;
	u->started = false;
	if (!(cg->unit = malloc(sizeof(*u))))
		return error_set(err, ENOMEM, "out of memory");
	*cg->unit = *u;
	cg_debug("cgroup: systemd is running: %s will be the transient unit %s", path, u->name);
	return 0;
}

/* ---- public entry points ------------------------------------------------ */

static void cg_init(struct cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->v2_dirfd = -1;
	cg->mode = cgroup_detect();
	cg->hybrid = cg->mode == CGROUP_MODE_V1 && hybrid;
}

int cgroup_create(const char *id, const struct oci_config *cfg, bool systemd,
		  struct cgroup *cg, struct error *err)
{
	struct systemd_unit u;
	char *path;
	int r;

	cg_init(cg);
	if ((r = resolve_path(id, cfg->has_linux ? cfg->linux_.cgroups_path : NULL, systemd, &path, &u, err)) < 0)
		return r;
	cg_debug("cgroup: %s, container cgroup %s", cgroup_mode_name(), path);
	cg->path = path;
	if (systemd) {
		if ((r = plan_systemd_unit(id, path, &u, cg, err)) < 0)
			cgroup_close(cg);
		if (r < 0 || cg->unit)
			return r;   /* the rest waits for the pid: cgroup_enter_systemd_unit */
	}
	r = cg->mode == CGROUP_MODE_V2 ? cg2_create(path, cfg, cg, err) : cg1_create(path, cfg, cg, err);
	if (r < 0) {
		error_prefix(err, "cgroup %s", path);
		cgroup_close(cg);
	}
	return r;
}

/* The unit a --systemd-cgroup path was made as: its last component. */
static int open_systemd_unit(struct cgroup *cg, struct error *err)
{
	const char *base = strrchr(cg->path, '/') + 1;
	size_t n = strlen(base);

	if (n >= sizeof(cg->unit->name) || n < 7 || (strcmp(base + n - 6, ".scope") && strcmp(base + n - 6, ".slice")) ||
	    !systemd_booted())
		return 0;
	if (!(cg->unit = calloc(1, sizeof(*cg->unit))))
		return error_set(err, ENOMEM, "out of memory");
	memcpy(cg->unit->name, base, n + 1);
	cg->unit->started = true;
	return 0;
}

int cgroup_open(const char *path, bool systemd, struct cgroup *cg, struct error *err)
{
	int r;

	cg_init(cg);
	if (!(cg->path = strdup(path)))
		return error_set(err, ENOMEM, "out of memory");
	cg->created = true;
	if (systemd && (r = open_systemd_unit(cg, err)) < 0) {
		cgroup_close(cg);
		return r;
	}
	r = cg->mode == CGROUP_MODE_V2 ? cg2_open(cg, err) : cg1_open_existing(cg, err);
	if (r < 0) {
		error_prefix(err, "cgroup %s", path);
		cgroup_close(cg);
	}
	return r;
}

#define PREFIXED(cg, call) ({ \
	int _r = (call); \
	if (_r < 0) \
		error_prefix(err, "cgroup %s", (cg)->path); \
	_r; \
})

int cgroup_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	if (cg->mode == CGROUP_MODE_V2)
		return PREFIXED(cg, cg_writef(cg->v2_dirfd, "cgroup.procs", err, "%d", (int)pid));
	return PREFIXED(cg, cg1_attach(cg, pid, err));
}

int cgroup_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	if (cg->mode == CGROUP_MODE_V2)
		return PREFIXED(cg, cg2_apply(cg->v2_dirfd, res, true, err));
	return PREFIXED(cg, cg1_update(cg, res, err));
}

int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	if (cg->mode == CGROUP_MODE_V2)
		return PREFIXED(cg, cg2_freeze(cg->v2_dirfd, frozen, err));
	return PREFIXED(cg, cg1_freeze(cg, frozen, err));
}

bool cgroup_is_frozen(const struct cgroup *cg)
{
	return cg->mode == CGROUP_MODE_V2 ? cg2_is_frozen(cg->v2_dirfd) : cg1_is_frozen(cg);
}

int cgroup_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	if (cg->mode == CGROUP_MODE_V2)
		return PREFIXED(cg, cg2_kill_all(cg->v2_dirfd, sig, err));
	return PREFIXED(cg, cg1_kill_all(cg, sig, err));
}

int cgroup_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	size_t cap = 0;
	int r;

	*pids = NULL;
	*n = 0;
	if (cg->mode == CGROUP_MODE_V1)
		return PREFIXED(cg, cg1_pids(cg, pids, n, err));
	r = cg_read_pids(cg->v2_dirfd, true, pids, n, &cap);
	if (r < 0) {
		free(*pids);
		*pids = NULL;
		*n = 0;
		return error_sys(err, -r, "cgroup %s: cgroup.procs", cg->path);
	}
	return 0;
}

int cgroup_destroy(struct cgroup *cg, struct error *err)
{
	struct error stop_err;
	int stop_r = 0, r;

	if (!cg->path || (cg->unit && !cg->unit->started))
		return 0;                     /* a unit not (yet) ours: nothing made */
	if (cg->unit) {
		stop_r = systemd_stop_unit(cg->unit->name, &stop_err);
		free(cg->unit);
		cg->unit = NULL;
	}
	/* what systemd leaves (the hierarchies it does not manage) */
	if (cg->mode == CGROUP_MODE_V2)
		r = PREFIXED(cg, cg2_destroy(cg, err));
	else
		r = PREFIXED(cg, cg1_destroy(cg, err));
	if (r == 0 && stop_r < 0) {
		*err = stop_err;
		r = stop_r;
	}
	return r;
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
}

int cgroup_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	int r;

	memset(st, 0, sizeof(*st));
	r = cg->mode == CGROUP_MODE_V2 ? cg2_stats(cg->v2_dirfd, st, err) : cg1_stats(cg, st, err);
	if (r < 0) {
		error_prefix(err, "cgroup %s", cg->path);
		cgroup_stats_free(st);
	}
	return r;
}
