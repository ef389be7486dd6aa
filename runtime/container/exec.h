/* `exec`: a new process in a running container's namespaces and cgroup. */
#ifndef TINYRUN_EXEC_H
#define TINYRUN_EXEC_H

#include <stdbool.h>

#include "oci/error.h"
#include "oci/config.h"
#include "runtime/cgroup/join.h"
#include "seccomp/seccomp.h"
#include "runtime/container/statedir.h"

struct exec_opts {
	const char *console_socket;
	const char *pidfd_socket;     /* --pidfd-socket: the process's pidfd goes there */
	const char *pid_file;
	bool detach;
	int preserve_fds;
	const char *seccomp_cache;    /* compiled filters, shared with create */
	bool join_keyring;            /* the container has its own session keyring */
	const struct cgroup_sub *subs; /* exec --cgroup: sub-cgroups to join, or NULL */
	size_t n_subs;
};

/* Start `p` inside container `c` (cfg: the container's saved config, for
 * namespaces and seccomp). Detached: returns 0 once exec'd. Otherwise waits
 * and returns the exit status (128+signal). Errors: negative, err filled. */
int exec_process(struct container *c, const struct oci_config *cfg, struct oci_process *p,
		 const struct exec_opts *o, struct error *err);

#endif
