/* The helpers of the backend table (backend.h), and the "none" backend: no
 * cgroup at all (rootless without a delegated one, or a zeroed struct cgroup). */
#include <errno.h>

#include "runtime/cgroup/internal.h"

const struct cgroup_ops *cg_fs_ops(void)
{
	return cgroup_detect() == CGROUP_MODE_V2 ? &cg2_ops : &cg1_ops;
}

const struct cgroup_ops *cg_ops(const struct cgroup *cg)
{
	return cg->ops ? cg->ops : &cg_none_ops;
}

int cg_at(const struct cgroup *cg, int r, struct error *err)
{
	if (r < 0)
		error_prefix(err, "cgroup %s", cg->path);
	return r;
}

/* ---- none: no cgroup ---------------------------------------------------- */

static int none_fail(struct error *err)
{
	return error_set(err, ENODEV, "the container has no cgroup");
}

static int none_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err)
{
	(void)cg, (void)cfg;
	return none_fail(err);
}

static int none_open(struct cgroup *cg, struct error *err)
{
	(void)cg;
	return none_fail(err);
}

static int none_join(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	(void)cg, (void)j, (void)err;
	return 0;   /* the child stays where the runtime is */
}

static int none_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	(void)cg, (void)pid, (void)err;
	return 0;
}

static int none_apply(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	(void)cg, (void)res;
	return none_fail(err);
}

static int none_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	(void)cg, (void)frozen;
	return none_fail(err);
}

static bool none_is_frozen(const struct cgroup *cg)
{
	(void)cg;
	return false;
}

static int none_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	(void)cg, (void)sig, (void)err;
	return 0;
}

static int none_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	(void)cg, (void)pids, (void)n, (void)err;
	return 0;
}

static int none_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	(void)cg, (void)st;
	return none_fail(err);
}

static int none_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	(void)cg, (void)count;
	return none_fail(err);
}

static int none_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	(void)cg, (void)w;
	return none_fail(err);
}

static int none_destroy(struct cgroup *cg, struct error *err)
{
	(void)cg, (void)err;
	return 0;
}

const struct cgroup_ops cg_none_ops = {
	.name = "none",
	.create = none_create,
	.open = none_open,
	.join_prepare = none_join,
	.join_without_clone = none_join,
	.attach = none_attach,
	.apply = none_apply,
	.freeze = none_freeze,
	.is_frozen = none_is_frozen,
	.kill_all = none_kill_all,
	.pids = none_pids,
	.stats = none_stats,
	.oom_kill_count = none_oom_kill_count,
	.oom_watch_open = none_oom_watch_open,
	.destroy = none_destroy,
};
