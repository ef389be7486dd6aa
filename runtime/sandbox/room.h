/* The runtime's calls into the sandbox room (runtime/sandbox/): the only
 * header of the room the core (runtime/container/, runtime/cmd_*.c)
 * includes for it. Each hook is a no-op, or answers "nothing", when the
 * config asks for none of the room's annotations (run.tinyrun.userns=auto,
 * run.tinyrun.sandbox.request, run.tinyrun.rootfs=minimal, the limits).
 * The room's own modules with their own prefixes (limits_, output_, fence_,
 * scratch_, container_lease_) are called as they are: each is already a no-op
 * without its annotation. */
#ifndef TINYRUN_ROOM_H
#define TINYRUN_ROOM_H

#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/container/statedir.h"
#include "runtime/sandbox/sandbox.h"

/* create, before anything exists: a host whose knobs allow no user
 * namespace for the config is refused by the knob's name */
int room_host_check(const struct oci_config *cfg, struct error *err);
/* create, when clone3 failed: names the host knob that said no */
void room_explain_clone(unsigned long clone_ns, struct error *err);
/* run's result: the host knob that refused the last clone, or NULL */
const char *room_host_blocked(void);

/* create: a task of a request opens the request's namespaces (j->mnt_fd
 * and j->request_deadline_rt_ms are read by the caller); always closed */
int room_join_open(const char *root, const char *bundle, struct oci_config *cfg, struct room_join *j,
		   struct error *err);
void room_join_close(struct room_join *j);
/* create, once the state dir exists: the leased id, the request's key */
int room_lease(struct container *c, struct oci_config *cfg, const struct room_join *j, struct error *err);
int room_key_record(struct container *c, const struct room_join *j, struct error *err);

/* the child, in its new user namespace: the ids its set-up runs as (0, or
 * the leased id); true when it keeps the runtime's own (leased id with the
 * built root: rootfs/sandbox/minimal.c makes files as the process's id) */
bool room_child_ids(const struct oci_config *cfg, uid_t *uid, gid_t *gid);
/* the child: the per-process limits the room sets before the mounts */
int room_child_limits(const struct oci_config *cfg, struct error *err);
/* the child: the request's mount namespace fd for the rootfs, or -1 */
int room_request_mnt_fd(const struct oci_config *cfg, int fd);

#endif
