/* linux.resources as the properties of the container's systemd unit, as
 * runc sets them (StartTransientUnit, and SetUnitProperties on `update`):
 * systemd then keeps the limits it would otherwise reset to its own (none)
 * when it next realizes the unit's cgroup (a daemon-reload, a
 * `systemctl set-property`). tinyrun still writes every resource to
 * cgroupfs itself; these are what systemd knows of them. */
#ifndef TINYRUN_CGROUP_SYSTEMD_PROPS_H
#define TINYRUN_CGROUP_SYSTEMD_PROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * CPUQuotaPerSecUSec, CPUQuotaPeriodUSec, AllowedCPUs, AllowedMemoryNodes,
 * IOWeight, and linux.resources.unified's memory.high/low/min/max/swap.max,
 * pids.max, cpu.max, cpu.weight, cpuset.cpus/mems as runc converts them)
 * or v1 (MemoryLimit, CPUShares, CPUQuotaPerSecUSec, CPUQuotaPeriodUSec,
 * BlockIOWeight, TasksMax, AllowedCPUs, AllowedMemoryNodes). version: the
 * systemd's (0: unknown: none of the versioned ones). A value systemd
 * cannot take (a swap below the limit, a bad cpu list) is left out: the
 * cgroupfs write names it. */
void cgsd_append_resource_props(struct dbus_writer *w, const struct oci_resources *res, bool v2,
				unsigned version);

/* cgroup v1: DevicePolicy and DeviceAllow for the devices cgroup that
 * tinyrun's own writes leave (cg_v1_devices_final), as runc sends them. On
 * v1 a systemd that realizes the unit's cgroup again (a daemon-reload)
 * writes its own rules there; without these they would be "a" to
 * devices.allow: every device. Exceptions systemd cannot name ("*:m", a
 * major /proc/devices does not name alone) are left out: its list is never
 * wider than tinyrun's. An allow-all with deny rules after it has no
 * systemd form: strict with an empty list (none), with a warning. devices:
 * the text of /proc/devices (NULL: unknown). -ENOMEM, else 0. */
int cgsd_append_device_props(struct dbus_writer *w, const struct oci_resources *res, const char *devices,
			     unsigned version);

/* The name /proc/devices (its text) gives MAJOR of type 'c' or 'b', when
 * that major has one name, no other major of the type has it, and it has no
 * glob character (systemd's "char-NAME" allows every major of the name):
 * 1, else 0. */
int cgsd_device_group(const char *devices, char type, int64_t major, char *name, size_t size);

/* "0-3,8" -> a bitmask, byte i holding cpus 8i..8i+7 (systemd's "ay"):
 * its length, or -1 for a bad list (n bytes at most). */
int cgsd_cpuset_mask(const char *list, uint8_t *mask, size_t n);

#endif
