/* linux.netDevices: move host network interfaces into the container's
 * network namespace (renamed when `name` is given), over rtnetlink. */
#ifndef TINYRUN_NETDEV_H
#define TINYRUN_NETDEV_H

#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* Parent, once the container's network namespace exists (pid is in it). */
int netdev_move_all(const struct oci_linux *l, pid_t pid, struct error *err);

#endif
