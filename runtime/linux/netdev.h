/* linux.netDevices: move host network interfaces into the container's
 * network namespace (renamed when `name` is given), over rtnetlink. */
#ifndef TINYRUN_NETDEV_H
#define TINYRUN_NETDEV_H

#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* Parent, once the container's network namespace exists (pid is in it). */
int netdev_move_all(const struct oci_linux *l, pid_t pid, struct error *err);

/* Child, in a network namespace it created: bring `lo` up (runc's and
 * crun's "loopback" network), one RTM_NEWLINK. */
int netdev_loopback_up(struct error *err);

#endif
