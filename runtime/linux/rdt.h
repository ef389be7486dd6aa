/* linux.intelRdt: a resctrl group (closID, or one named after the container)
 * with the config's schemata; the container's init joins it. */
#ifndef TINYRUN_RDT_H
#define TINYRUN_RDT_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* Before clone: resctrl must be mounted; make the group and write schemata.
 * *created tells delete to remove it. */
int rdt_prepare(const char *id, const struct oci_intel_rdt *r, bool *created, struct error *err);
int rdt_attach(const char *id, const struct oci_intel_rdt *r, pid_t pid, struct error *err);
void rdt_remove(const char *id);

#endif
