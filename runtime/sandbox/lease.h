/* Leased host ids for run.tinyrun.userns=auto (SPEC-NOTES "Sandbox").
 *
 * No daemon, nothing runc would take for a container: a lock file
 * <root>/.uid-leases.lock (flock; runc and `list` skip non-directories) and,
 * in each container's own state dir, the record `uid-lease` ("<id>\n"; the
 * host uid and gid are the same number). Picking scans the records of the
 * other state dirs under the lock and takes the lowest id of the range that
 * no live container holds and no range of /etc/subuid or /etc/subgid lists
 * (lease_subid.h: read at each lease, a user's rootless ids are not ours). A record is held while its state dir is locked
 * (a create or delete in progress) or its init is alive; a record of a
 * stopped or dead half-made container is free to reuse. Deleting the state
 * dir (container_dir_remove) returns the id. */
#ifndef TINYRUN_LEASE_H
#define TINYRUN_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/container/statedir.h"

#define LEASE_RECORD "uid-lease"
#define LEASE_LOCK ".uid-leases.lock"

/* Pick a free id of sb's range and record it in c's state dir (c->dirfd,
 * c->rootfd open): 0 and *id, or -errno ("no free id in 100000-165535 ..."). */
int container_lease_acquire(struct container *c, const struct oci_sandbox *sb, uint32_t *id,
			    struct error *err);
/* Record `id` (the lease of the request c joins) in c's state dir. */
int container_lease_share(struct container *c, uint32_t id, struct error *err);
/* The id recorded in a state dir: 0, -ENOENT when it has none. */
int container_lease_read(int state_dirfd, uint32_t *id);
/* Return the lease of the container whose state dir is state_dirfd (for
 * delete and gc): removes the record; 0 when there was none. */
int container_lease_release(int state_dirfd);
/* Is the record in the state dir `name` below c->rootfd held (see above)? */
bool container_lease_held(int rootfd, const char *name);

#endif
