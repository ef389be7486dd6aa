/* The runtime's side of create between clone and SYNC_CREATED: the answers
 * to the child's messages (sync.h; the protocol as a whole: HACKING.md). */
#ifndef TINYRUN_PARENT_H
#define TINYRUN_PARENT_H

#include "runtime/container/create.h"

/* Answer the child on sync_fd until it reports SYNC_CREATED (0) or fails
 * (SYNC_ERROR: its message; EOF: "container init exited before it was
 * created"). Writes the id maps, runs prestart and createRuntime hooks,
 * passes the pty and the seccomp listener on, idmaps trees; out->pid and
 * c->st.pid follow the slow path's SYNC_PID. */
int parent_answer_child(struct container *c, const struct oci_config *cfg, const struct create_opts *o,
			struct created *out, int sync_fd, struct error *err);

/* Once the child's user and mount namespaces exist: its id maps written, then
 * the bind sources the container's root cannot reach, each as an fd of the
 * child's own (locked) copy of its mount (SYNC_BIND_SRC), then SYNC_MAPS_DONE. */
int parent_maps_done(int sync_fd, const struct oci_config *cfg, const struct created *out, struct error *err);

#endif
