/* The systemd backend: path mapping, the unit's plan, and cg_systemd_ops,
 * which makes the unit once the pid exists and delegates the rest to the
 * host's cgroupfs backend (cg->fs). */
#include "runtime/cgroup/systemd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

/* ---- paths -------------------------------------------------------------- */

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

int cgsd_path(const char *id, const char *spec, bool user, char *out, size_t size, struct systemd_unit *u,
	      struct error *err)
{
	const char *default_slice = user ? "user.slice" : "system.slice";
	char slice[256], prefix[256], name[256];
	const char *c1, *c2;
	int r;

	u->user = user;
	if (!spec || !*spec) {
		snprintf(slice, sizeof(slice), "%s", default_slice);
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
			snprintf(slice, sizeof(slice), "%s", default_slice);
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

/* ---- choosing the backend ---------------------------------------------- */

/* A rootless caller's unit lives under its systemd's own cgroup
 * ("/user.slice/user-1000.slice/user@1000.service"), asked for over the
 * session bus, as runc does: cg->path gets it in front. */
static int user_prefix(struct cgroup *cg, struct error *err)
{
	char manager[1024], *path;
	int r;

	if (cg->fs != &cg2_ops)
		return error_set(err, ENOTSUP, "--systemd-cgroup: a rootless caller's systemd manages cgroup v2 only, and this "
				 "host is %s (use cgroupfs: no --systemd-cgroup)", cgroup_mode_name());
	if ((r = cgsd_user_manager_cgroup(manager, sizeof(manager), err)) < 0)
		return r;
	if (asprintf(&path, "%s%s", strcmp(manager, "/") ? manager : "", cg->path) < 0)
		return error_set(err, ENOMEM, "out of memory");
	free(cg->path);
	cg->path = path;
	return 0;
}

int cgsd_plan(const char *id, const struct systemd_unit *u, struct cgroup *cg, struct error *err)
{
	int r;

	/* runc refuses it too (IsRunningSystemd): the path alone on cgroupfs would
	 * be a slice no systemd knows of, left empty in every hierarchy */
	if (!cgsd_booted())
		return error_set(err, ENOTSUP, "--systemd-cgroup: systemd is not running on this host (no /run/systemd/system): "
				 "cannot use the systemd cgroup manager (use cgroupfs: no --systemd-cgroup)");
	if (u->user && (r = user_prefix(cg, err)) < 0)
		return r;
	if (!(cg->unit = malloc(sizeof(*u))))
		return error_set(err, ENOMEM, "out of memory");
	*cg->unit = *u;
	cg->unit->v2 = cg->fs == &cg2_ops;
	snprintf(cg->unit->description, sizeof(cg->unit->description), "tinyrun container %s", id);
	cg->unit->pending = true;
	cg->unit->started = false;
	cg->ops = &cg_systemd_ops;
	cg_debug("cgroup: systemd is running: %s will be the %s's transient unit %s", cg->path,
		 u->user ? "user manager" : "system manager", u->name);
	return 0;
}

int cgsd_open_unit(struct cgroup *cg, enum cgroup_manager mgr, struct error *err)
{
	const char *base = strrchr(cg->path, '/') + 1;
	size_t n = strlen(base);

	if (n >= sizeof(cg->unit->name) || n < 7 || (strcmp(base + n - 6, ".scope") && strcmp(base + n - 6, ".slice")) ||
	    !cgsd_booted())
		return 0;
	if (!(cg->unit = calloc(1, sizeof(*cg->unit))))
		return error_set(err, ENOMEM, "out of memory");
	memcpy(cg->unit->name, base, n + 1);
	cg->unit->user = mgr == CGROUP_SYSTEMD_USER;
	cg->unit->v2 = cg->fs == &cg2_ops;
	cg->unit->started = true;
	cg->ops = &cg_systemd_ops;
	return 0;
}

bool cg_users_unit(const struct cgroup *cg)
{
	return cg->unit && cg->unit->user;
}

/* ---- the ops ------------------------------------------------------------ */

/* The unit needs the pid: nothing is made before cgroup_enter_systemd_unit. */
static int sd_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err)
{
	(void)cg, (void)cfg, (void)err;
	return 0;
}

static int sd_open(struct cgroup *cg, struct error *err)
{
	return cg->fs->open(cg, err);
}

/* The child waits on a pipe until the parent has put it in (sd_enter). */
static int wait_for_parent(struct cgroup_join *j, struct error *err)
{
	if (pipe2(j->wait_pipe, O_CLOEXEC) < 0)
		return error_sys(err, errno, "pipe");
	j->wait_parent = true;
	return 0;
}

/* A unit still to make: it needs the child's pid. */
static int sd_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	if (!cg->unit || !cg->unit->pending)
		return cg->fs->join_prepare(cg, j, err);
	return wait_for_parent(j, err);
}

/* A process (exec's) that may not go in by itself: a rootless caller runs
 * outside its systemd's subtree (a login session's scope, say), where the
 * kernel lets it move nothing into the user's unit. The child then waits
 * until the parent has asked that systemd to move it (sd_enter). */
static int sd_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	if (!cg->unit || !cg->unit->user)
		return cg->fs->join_without_clone(cg, j, err);
	return wait_for_parent(j, err);
}

static int sd_enter(struct cgroup *cg, const struct oci_config *cfg, pid_t pid, struct cgroup_join *j,
		    struct error *err)
{
	const char *sub = cgroup_sub_clean(j->n_subs ? j->subs[0].path : "");
	int r;

	if (cg->unit && !cg->unit->pending && j->wait_parent) {
		/* exec into a rootless caller's unit (sd_join_without_clone) */
		if (!sub)
			return error_set(err, EINVAL, "exec --cgroup: \"..\" in a sub-cgroup");
		if ((r = cgsd_attach_pid(cg->unit, sub, pid, err)) < 0)
			return r;
		return cgroup_join_release(j, err);
	}
	if (!cg->unit || !cg->unit->pending)
		return 0;
	cg->unit->pending = false;
	if ((r = cgsd_start_unit(cg->unit, pid, cfg->has_linux && cfg->linux_.has_resources ?
				 &cfg->linux_.resources : NULL, err)) < 0)
		return r;
	/* systemd made the unit's cgroup (in the hierarchies it manages) with pid
	 * in it: the rest is as without systemd, at the same path */
	cg->created = true;
	if ((r = cg_at(cg, cg->fs->create(cg, cfg, err), err)) < 0)
		return r;
	if ((r = cgroup_attach(cg, pid, err)) < 0)
		return r;
	return cgroup_join_release(j, err);
}

static int sd_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	return cg->fs->attach(cg, pid, err);
}

/* The cgroup's CPU quota (-1: none) and period, as cgroupfs has them. */
static int cpu_now(const struct cgroup *cg, int64_t *quota, uint64_t *period)
{
	char buf[64], *end;
	struct error e;
	int fd = cg->v2_dirfd;
	int r = 0;

	if (fd >= 0)
		return cg_read(fd, "cpu.max", buf, sizeof(buf)) < 0 ? -1 : cg_cpu_max_parse(buf, quota, period);
	if ((fd = cg1_open(cg, CG1_CPU, &e)) < 0)
		return -1;
	if (cg_read(fd, "cpu.cfs_quota_us", buf, sizeof(buf)) < 0 || cg_read_u64(fd, "cpu.cfs_period_us", period) < 0)
		r = -1;
	else
		*quota = strtoll(buf, &end, 10);
	close(fd);
	return r;
}

/* update: cgroupfs first (its checks, memory.checkBeforeUpdate), then
 * systemd is told, so that it keeps them (runc's SetUnitProperties).
 * CPUQuotaPerSecUSec is the quota over the period: an update naming one of
 * them sends it with the other as cgroupfs now has it (runc merges the update
 * into its saved config); from the one alone, systemd would rewrite cpu.max
 * at once (a quota over the default 100 ms, a period with no quota). */
static int sd_apply(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	struct oci_resources full;
	int64_t quota;
	uint64_t period;
	int r = cg->fs->apply(cg, res, err);

	if (r < 0 || !cg->unit)
		return r;
	if (res->has_cpu && res->cpu.has_quota != res->cpu.has_period && cpu_now(cg, &quota, &period) == 0) {
		full = *res;
		if (!full.cpu.has_quota)
			full.cpu.quota = quota;
		if (!full.cpu.has_period)
			full.cpu.period = period;
		full.cpu.has_quota = full.cpu.has_period = true;
		res = &full;
	}
	return cgsd_set_properties(cg->unit, res, err);
}

static int sd_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	return cg->fs->freeze(cg, frozen, err);
}

static bool sd_is_frozen(const struct cgroup *cg)
{
	return cg->fs->is_frozen(cg);
}

static int sd_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	return cg->fs->kill_all(cg, sig, err);
}

static int sd_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	return cg->fs->pids(cg, pids, n, err);
}

static int sd_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	return cg->fs->stats(cg, st, err);
}

static int sd_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	return cg->fs->oom_kill_count(cg, count, err);
}

static int sd_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	return cg->fs->oom_watch_open(cg, w, err);
}

/* StopUnit first, then what systemd leaves (the hierarchies it does not manage). */
static int sd_destroy(struct cgroup *cg, struct error *err)
{
	struct error stop_err;
	int stop_r = 0, r;

	if (cg->unit && !cg->unit->started)
		return 0;                     /* a unit not (yet) ours: nothing made */
	if (cg->unit) {
		stop_r = cgsd_stop_unit(cg->unit->name, cg->unit->user, &stop_err);
		free(cg->unit);
		cg->unit = NULL;
	}
	r = cg->fs->destroy(cg, err);
	if (r == 0 && stop_r < 0) {
		*err = stop_err;
		r = stop_r;
	}
	return r;
}

const struct cgroup_ops cg_systemd_ops = {
	.name = "systemd",
	.create = sd_create,
	.open = sd_open,
	.join_prepare = sd_join_prepare,
	.join_without_clone = sd_join_without_clone,
	.enter = sd_enter,
	.attach = sd_attach,
	.apply = sd_apply,
	.freeze = sd_freeze,
	.is_frozen = sd_is_frozen,
	.kill_all = sd_kill_all,
	.pids = sd_pids,
	.stats = sd_stats,
	.oom_kill_count = sd_oom_kill_count,
	.oom_watch_open = sd_oom_watch_open,
	.destroy = sd_destroy,
};
