/* One `criu swrk 3` service process: started with one end of a
 * SOCK_SEQPACKET socketpair as its fd 3, one request sent, its notifications
 * answered through a callback, then its final answer (runc and crun talk to
 * CRIU this way). */
#ifndef TINYRUN_CRIU_SWRK_H
#define TINYRUN_CRIU_SWRK_H

#include <sys/types.h>

#include "oci/error.h"
#include "runtime/criu/rpc.h"

struct criu_swrk {
	pid_t pid;
	int sock;
};

/* A notification ("setup-namespaces", "post-restore", "orphan-pts-master" ...):
 * fd is the one CRIU sent with it, or -1 (the callback owns it). A negative
 * return ends the session with that error. */
typedef int (*criu_notify_fn)(void *arg, const struct criu_resp *r, int fd, struct error *err);

/* Start criu at path; fds[0..n-1] become its fds 4, 5, ... (inherit_fd). */
int criu_swrk_start(struct criu_swrk *s, const char *path, const int *fds, size_t n, struct error *err);
/* Send the request; answer notifications (notify may be NULL) until the final
 * answer, in *resp. An unsuccessful answer is an error naming CRIU's errno
 * and message. */
int criu_swrk_call(struct criu_swrk *s, enum criu_req_type type, const struct criu_opts *o,
		   criu_notify_fn notify, void *arg, struct criu_resp *resp, struct error *err);
/* Close our end and reap criu (it exits once the socket closes). */
void criu_swrk_end(struct criu_swrk *s);

#endif
