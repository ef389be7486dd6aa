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
#include "runtime/sandbox/sandbox_host.h"

/* Declared by their modules, each a no-op without its annotation:
 * room_host_check, room_explain_clone, room_host_blocked (sandbox_host.h:
 * the host knob that refuses a user namespace, named); room_join_open,
 * room_join_close, room_lease, room_key_record, room_child_limits
 * (sandbox.h: a request's namespaces, the leased id, the request's key,
 * the child's limits). */

/* the child, in its new user namespace: the ids its set-up runs as (0, or
 * the leased id); true when it keeps the runtime's own (leased id with the
 * built root: rootfs/sandbox/minimal.c makes files as the process's id) */
bool room_child_ids(const struct oci_config *cfg, uid_t *uid, gid_t *gid);
/* the child: the request's mount namespace fd for the rootfs, or -1 */
int room_request_mnt_fd(const struct oci_config *cfg, int fd);

#endif
