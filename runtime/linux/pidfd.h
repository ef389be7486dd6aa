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

/* pidfs ioctls (Linux 6.11): a namespace of the process a pidfd names */
#include <linux/ioctl.h>
#ifndef PIDFD_GET_IPC_NAMESPACE
#define PIDFD_GET_IPC_NAMESPACE _IO(0xFF, 2)
#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)
#define PIDFD_GET_NET_NAMESPACE _IO(0xFF, 4)
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

/* The namespace `name` ("net", ...; ioc its PIDFD_GET_*_NAMESPACE) of the
 * process pidfd names: from the pidfd itself, or (older kernels)
 * /proc/<pid>/ns/<name> below a proven procfs, after which the pidfd must
 * still name a live process, so the pid was not reused meanwhile. An fd,
 * or -errno (-ESRCH: the process is gone). */
int pidfd_ns_open(int pidfd, pid_t pid, const char *name, unsigned long ioc);

#endif
