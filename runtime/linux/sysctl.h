#ifndef TINYRUN_SYSCTL_H
#define TINYRUN_SYSCTL_H

#include "oci/config.h"
#include "oci/error.h"

/* Refuse keys that would change the host: net.* without a network namespace
 * of the container's own, kernel.{hostname,domainname} and IPC keys without
 * the matching namespace, anything outside the namespaced sets. */
int sysctl_check(const struct oci_linux *l, struct error *err);
/* Child, before pivot_root and readonlyPaths: write every key through
 * <rootfs>/proc/sys, verified to be a procfs (the container's own). */
int sysctl_apply(const struct oci_linux *l, const char *rootfs, struct error *err);

#endif
