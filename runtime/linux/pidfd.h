/* --pidfd-socket (runc 1.2): a pidfd of the container's process, sent over a
 * unix socket so a manager signals that process and never a recycled pid. */
#ifndef TINYRUN_PIDFD_H
#define TINYRUN_PIDFD_H

#include <sys/types.h>

#include "oci/error.h"

/* pidfd_open(pid) sent over `path` as runc sends it: one message, payload
 * `tag` ("standard" for create/run, "setns" for exec), the pidfd as
 * SCM_RIGHTS. */
int pidfd_send_to(const char *path, pid_t pid, const char *tag, struct error *err);

#endif
