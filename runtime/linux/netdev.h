/* linux.netDevices: move host network interfaces into the container's
 * network namespace (renamed when `name` is given), over rtnetlink. */
#ifndef TINYRUN_NETDEV_H
#define TINYRUN_NETDEV_H

#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* Parent, when the child asks (SYNC_NETDEV: it is in its final network
 * namespace and waits): each device, as runc 1.2+ moves it, from the host's
 * namespace into that of the process pidfd names (pid: the same process, for
 * /proc before Linux 6.11): its permanent global IPv4/IPv6 addresses read,
 * set down, moved and renamed in one RTM_NEWLINK; then, through a netlink
 * socket of the container's namespace, the addresses added back and the
 * device set up. MTU, MAC and the rest go with the device. */
int netdev_move_all(const struct oci_linux *l, pid_t pid, int pidfd, struct error *err);

/* Child, in a network namespace it created: bring `lo` up (runc's and
 * crun's "loopback" network), one RTM_NEWLINK. */
int netdev_loopback_up(struct error *err);

#endif
