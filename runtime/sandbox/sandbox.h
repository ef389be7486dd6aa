/* The runtime side of the sandbox annotations (oci/sandbox/annotations_sandbox.c):
 * the leased identity (lease.h) and the tasks of one request, which join the
 * first container's user, network, ipc namespaces, workspace and /tmp. */
#ifndef TINYRUN_SANDBOX_H
#define TINYRUN_SANDBOX_H

#include <stdint.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/sandbox/request_key.h"
#include "runtime/container/statedir.h"

struct room_join {
	int user_fd, net_fd, ipc_fd, mnt_fd;   /* the request's namespaces, or -1 */
	uint32_t lease;                        /* the request's leased id */
	char paths[3][32];                     /* "/proc/self/fd/N" for linux.namespaces[].path */
	bool keyed;                            /* a request's creator with a key: records its hash */
	int64_t request_deadline_rt_ms;        /* the request's deadline (limits.h), 0: none */
	struct request_key key;
};

/* Before anything exists. run.tinyrun.sandbox.request=ID: refuse unless ID
 * is alive, a sandbox, and has the key the bundle's request-key-file holds
 * (request_key.h); open its namespaces through a pidfd-verified
 * /proc/<pid> and point cfg's user, network and ipc namespaces at them.
 * request-key-file alone (a request's creator): hash the key into j->key.
 * No-op without either annotation. */
int room_join_open(const char *root, const char *bundle, struct oci_config *cfg,
				struct room_join *j, struct error *err);
void room_join_close(struct room_join *j);
/* After the state dir exists: lease an id (or record the request's) and map
 * the process's uid/gid to it in cfg. No-op without run.tinyrun.userns. */
int room_lease(struct container *c, struct oci_config *cfg, const struct room_join *j,
			    struct error *err);
/* After the state dir exists: a request's creator records its key's hash
 * (the tasks' check). No-op otherwise. */
int room_key_record(struct container *c, const struct room_join *j, struct error *err);

/* In the child, in its new user namespace (still with its capabilities
 * there): no user namespace may be made inside it (user.max_user_namespaces
 * = 0), so the task cannot gain a namespace's capabilities; every other
 * namespace needs CAP_SYS_ADMIN, which it lacks. */
int room_child_limits(const struct oci_config *cfg, struct error *err);

#endif
