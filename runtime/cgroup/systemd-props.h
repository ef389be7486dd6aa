/* linux.resources as the properties of the container's systemd unit, as
 * runc sets them (StartTransientUnit, and SetUnitProperties on `update`):
 * systemd then keeps the limits it would otherwise reset to its own (none)
 * when it next realizes the unit's cgroup (a daemon-reload, a
 * `systemctl set-property`). tinyrun still writes every resource to
 * cgroupfs itself; these are what systemd knows of them. */
#ifndef TINYRUN_CGROUP_SYSTEMD_PROPS_H
#define TINYRUN_CGROUP_SYSTEMD_PROPS_H

#include <stdbool.h>

#include "oci/config.h"
#include "runtime/cgroup/dbus_wire.h"

/* The systemd versions the properties need: CPUQuotaPeriodUSec 242,
 * AllowedCPUs and AllowedMemoryNodes 244. */
#define CGSD_VERSION_PERIOD 242
#define CGSD_VERSION_CPUSET 244

/* One (sv) of an a(sv): the name and the variant's type; its value follows. */
void cgsd_prop(struct dbus_writer *w, const char *name, const char *type);

/* Whether res asks for a property that only some systemd versions know
 * (the caller asks systemd's Version first, once). */
bool cgsd_props_need_version(const struct oci_resources *res);

/* Append res's properties, each one (sv) of an a(sv) being written: v2
 * (MemoryMax, MemoryLow, MemorySwapMax, TasksMax, CPUWeight,
 * CPUQuotaPerSecUSec, CPUQuotaPeriodUSec, AllowedCPUs, AllowedMemoryNodes)
 * or v1 (MemoryLimit, CPUShares, CPUQuotaPerSecUSec, CPUQuotaPeriodUSec,
 * BlockIOWeight, TasksMax, AllowedCPUs, AllowedMemoryNodes). version: the
 * systemd's (0: unknown: none of the versioned ones). A value systemd
 * cannot take (a swap below the limit, a bad cpu list) is left out: the
 * cgroupfs write names it. */
void cgsd_append_resource_props(struct dbus_writer *w, const struct oci_resources *res, bool v2,
				unsigned version);

/* "0-3,8" -> a bitmask, byte i holding cpus 8i..8i+7 (systemd's "ay"):
 * its length, or -1 for a bad list (n bytes at most). */
int cgsd_cpuset_mask(const char *list, uint8_t *mask, size_t n);

#endif
