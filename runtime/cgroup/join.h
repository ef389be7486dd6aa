/* How the container's first process joins its cgroup without the runtime
 * writing its pid into cgroup.procs: that write waits for an RCU grace
 * period (10-15 ms on v1) on every container start.
 *  - v2 (and the cgroup2 of a hybrid host): clone3(CLONE_INTO_CGROUP).
 *  - v1 hierarchies: the child writes "0" into each `tasks` file. Moving only
 *    the calling thread skips the global threadgroup lock. The files are
 *    opened by the runtime, so the write is checked against its credentials,
 *    which keeps working once the child is in a new user namespace.
 *  - a systemd unit (--systemd-cgroup with systemd as PID 1): the unit needs
 *    the pid, so the child is cloned outside and waits on a pipe while the
 *    parent has systemd make the unit and moves it into every hierarchy. */
#ifndef TINYRUN_CGROUP_JOIN_H
#define TINYRUN_CGROUP_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"
#include "runtime/cgroup/cgroup.h"

#define CGROUP_JOIN_MAX 16

/* exec --cgroup (runc's sub-cgroup exec): an existing cgroup below the
 * container's, for every hierarchy (ctrl NULL) or, on v1, for the
 * hierarchies of the comma-separated controllers `ctrl`. `path` is relative
 * to the container's cgroup; ".." components are refused. */
struct cgroup_sub {
	const char *ctrl;
	const char *path;
};

struct cgroup_join {
	int tasks_fds[CGROUP_JOIN_MAX];   /* v1 `tasks` files, O_WRONLY */
	size_t n;
	int clone_dirfd;                  /* cgroup2 dir for CLONE_INTO_CGROUP, or -1 */
	int procs_fd;                     /* its cgroup.procs, when clone cannot go into it, or -1 */
	bool wait_parent;                 /* systemd unit: the child waits on wait_pipe[0] */
	int wait_pipe[2];
	const struct cgroup_sub *subs;    /* exec --cgroup, or NULL: the container's own */
	size_t n_subs;
};

int cgroup_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err);
/* The same for exec --cgroup: into the sub-cgroups `subs` (n of them). */
int cgroup_join_prepare_sub(const struct cgroup *cg, const struct cgroup_sub *subs, size_t n,
			    struct cgroup_join *j, struct error *err);
/* A sub-cgroup path is one we may join: no ".." component. Returns it
 * without leading slashes ("" = the container's own), or NULL. */
const char *cgroup_sub_clean(const char *path);
/* Parent, when clone3 refused CLONE_INTO_CGROUP: the child writes cgroup.procs instead. */
int cgroup_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err);
/* Parent, after clone, when cg->unit is pending (else a no-op): start the
 * systemd unit with pid in it, create the cgroup at its path in every
 * hierarchy, apply cfg's resources, move pid in, then let the child go on.
 * On failure cgroup_destroy undoes it (only what is ours: a unit systemd
 * refused, maybe another container's, is left alone). */
int cgroup_enter_systemd_unit(struct cgroup *cg, const struct oci_config *cfg, pid_t pid,
			      struct cgroup_join *j, struct error *err);
/* Parent: the child waiting on j->wait_pipe may go on (a no-op when it is not waiting). */
int cgroup_join_release(struct cgroup_join *j, struct error *err);
/* Child: join every v1 hierarchy (and the cgroup2 when procs_fd is set), or
 * wait until the parent has put it in its systemd unit. No allocation. */
int cgroup_join_self(struct cgroup_join *j, struct error *err);
void cgroup_join_close(struct cgroup_join *j);

#endif
