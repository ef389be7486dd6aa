/* The runtime side of the sandbox annotations (oci/annotations_sandbox.c):
 * the leased identity (lease.h) and the tasks of one request, which join the
 * first container's user, network, ipc namespaces, workspace and /tmp. */
#ifndef TINYRUN_SANDBOX_H
#define TINYRUN_SANDBOX_H

#include <stdint.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/container/statedir.h"

struct sandbox_join {
	int user_fd, net_fd, ipc_fd, mnt_fd;   /* the request's namespaces, or -1 */
	uint32_t lease;                        /* the request's leased id */
	char paths[3][32];                     /* "/proc/self/fd/N" for linux.namespaces[].path */
};

/* run.tinyrun.sandbox.request=ID: refuse unless ID is alive and a sandbox;
 * open its namespaces through a pidfd-verified /proc/<pid> and point cfg's
 * user, network and ipc namespaces at them. No-op without the annotation. */
int container_sandbox_join_open(const char *root, struct oci_config *cfg, struct sandbox_join *j,
				struct error *err);
void container_sandbox_join_close(struct sandbox_join *j);
/* After the state dir exists: lease an id (or record the request's) and map
 * the process's uid/gid to it in cfg. No-op without run.tinyrun.userns. */
int container_sandbox_lease(struct container *c, struct oci_config *cfg, const struct sandbox_join *j,
			    struct error *err);

/* In the child, in its new user namespace (still with its capabilities
 * there): no user namespace may be made inside it (user.max_user_namespaces
 * = 0), so the task cannot gain a namespace's capabilities; every other
 * namespace needs CAP_SYS_ADMIN, which it lacks. */
int container_sandbox_child_limits(const struct oci_config *cfg, struct error *err);

#endif
