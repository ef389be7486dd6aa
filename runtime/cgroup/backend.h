/* The cgroup backends behind runtime/cgroup/cgroup.h: one table of
 * operations per way of managing the container's cgroup. cgroup_plan and
 * cgroup_open choose the backend once and store it in cg->ops; every other
 * entry point of cgroup.c / join.c is a call through that table.
 *
 *   cg1_ops         v1 and hybrid hosts: one dir per mounted hierarchy (v1.c)
 *   cg2_ops         the unified hierarchy: one dir, one fd (v2.c)
 *   cg_systemd_ops  --systemd-cgroup with systemd as PID 1: a transient unit
 *                   over D-Bus, around the cgroupfs backend of the host
 *                   (cg->fs) that it delegates everything else to (systemd.c)
 *   cg_none_ops     no cgroup (rootless without a delegated one): a zeroed
 *                   struct cgroup (ops NULL) is this backend (backend.c)
 *
 * The ops fill *err without naming the cgroup: the entry points in cgroup.c
 * prefix "cgroup <path>: ". Exceptions, whose messages are complete: the two
 * join ops, destroy, oom_kill_count and oom_watch_open. */
#ifndef TINYRUN_CGROUP_BACKEND_H
#define TINYRUN_CGROUP_BACKEND_H

#include "oci/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/join.h"

struct cgroup_ops {
	const char *name;                 /* "v1", "v2", "systemd", "none" */
	/* Make cg->path (already resolved), apply cfg's resources and devices;
	 * on failure leave nothing of it behind. */
	int (*create)(struct cgroup *cg, const struct oci_config *cfg, struct error *err);
	/* Re-open cg->path for a later command: -ENOENT when it is gone. */
	int (*open)(struct cgroup *cg, struct error *err);
	/* Fill j (after join.c reset it) with what the child joins with. */
	int (*join_prepare)(const struct cgroup *cg, struct cgroup_join *j, struct error *err);
	/* clone3 refused CLONE_INTO_CGROUP: j->procs_fd for the child to write. */
	int (*join_without_clone)(const struct cgroup *cg, struct cgroup_join *j, struct error *err);
	/* Parent, after clone: make the cgroup around pid when create had to
	 * wait for it (systemd), then release the child. NULL: nothing to do. */
	int (*enter)(struct cgroup *cg, const struct oci_config *cfg, pid_t pid, struct cgroup_join *j,
		     struct error *err);
	int (*attach)(const struct cgroup *cg, pid_t pid, struct error *err);
	/* `update`: the fields present in res, devices left alone. */
	int (*apply)(const struct cgroup *cg, const struct oci_resources *res, struct error *err);
	int (*freeze)(const struct cgroup *cg, bool frozen, struct error *err);
	bool (*is_frozen)(const struct cgroup *cg);
	int (*kill_all)(const struct cgroup *cg, int sig, struct error *err);
	/* *pids malloc'd; on failure NULL and 0. */
	int (*pids)(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err);
	/* st is zeroed by the caller, and freed by it on failure. */
	int (*stats)(const struct cgroup *cg, struct cgroup_stats *st, struct error *err);
	int (*oom_kill_count)(const struct cgroup *cg, uint64_t *count, struct error *err);
	/* w->fd/ctl_fd are -1, w->cg and w->last set by the caller. */
	int (*oom_watch_open)(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err);
	/* Kill what is left, wait, remove (cg->path is set). */
	int (*destroy)(struct cgroup *cg, struct error *err);
};

extern const struct cgroup_ops cg1_ops, cg2_ops, cg_systemd_ops, cg_none_ops;

/* cg->ops, or cg_none_ops for a zeroed cgroup. */
const struct cgroup_ops *cg_ops(const struct cgroup *cg);
/* The cgroupfs backend of this host (v2 or v1/hybrid). */
const struct cgroup_ops *cg_fs_ops(void);
/* r < 0: prefix err with "cgroup <cg->path>". Returns r. */
int cg_at(const struct cgroup *cg, int r, struct error *err);

#endif
