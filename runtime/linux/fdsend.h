/* One fd to a listener on a unix socket, as runc's cmsg.SendRawFd: the
 * console socket's pty master (terminal.c), --pidfd-socket's pidfd (pidfd.c).
 * Bounded in time: a listener that never accepts (its backlog full) or never
 * reads makes the command fail, not hang with the container's state dir
 * locked. */
#ifndef TINYRUN_FDSEND_H
#define TINYRUN_FDSEND_H

#include "oci/error.h"

/* How long the connect, then the send, may wait for the listener. */
#define FDSEND_TIMEOUT_S 5

/* Connect to the unix stream socket at `path` and send one message: the
 * bytes of `name` (no NUL: runc sends a Go string), `fd` as SCM_RIGHTS.
 * `opt` ("--console-socket") names the option in errors. */
int fdsend_to(const char *path, const char *opt, const char *name, int fd, struct error *err);

#endif
