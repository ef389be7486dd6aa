/* --systemd-cgroup with systemd as PID 1: the container's cgroup is a
 * transient systemd unit, asked for over D-Bus (org.freedesktop.systemd1
 * Manager), as runc's and crun's systemd drivers do. The D-Bus client is our
 * own (dbus_conn.h, dbus_wire.h): no library is loaded; the system bus is
 * connected to only by these calls.
 *
 * Errors read "--systemd-cgroup: StartTransientUnit tinyrun-x.scope: <the
 * bus error's message>". */
#ifndef TINYRUN_CGROUP_SYSTEMD_DBUS_H
#define TINYRUN_CGROUP_SYSTEMD_DBUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

struct dbus_writer;

struct systemd_unit {
	char name[256];         /* "tinyrun-abc.scope", or "a-b.slice" */
	char slice[256];        /* a scope's Slice=, a slice's Wants= */
	char description[320];
	bool user;              /* the user's manager (session bus), not the system's */
	bool v2;                /* the host is cgroup v2: the properties' v2 names */
	bool pending;           /* resolved, not asked for yet (the init pid does not exist yet) */
	bool started;           /* StartTransientUnit returned a job: ours to stop */
};

/* sd_booted(): /run/systemd/system is a directory. */
bool cgsd_booted(void);

/* The bus: the system's (the caller's DBUS_SYSTEM_BUS_ADDRESS, else
 * /run/dbus/system_bus_socket), or, for u->user, the caller's session bus
 * (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus, as runc and sd-bus).
 *
 * StartTransientUnit(u->name, "fail") and wait for its job. A scope gets
 * Slice=u->slice, Delegate=yes, PIDs=[pid]; a slice gets Wants=u->slice and
 * no pid. Both DefaultDependencies=no and Memory/CPU/TasksAccounting=yes.
 * res (NULL: none) as unit properties too (systemd-props.h; systemd's
 * Version asked first when one of them needs it).
 * u->started is set once systemd has the unit (even if its job then fails). */
int cgsd_start_unit(struct systemd_unit *u, pid_t pid, const struct oci_resources *res, struct error *err);

/* StopUnit(name, "replace") and wait a few seconds for its job. A unit
 * systemd does not know (NoSuchUnit) is already stopped: 0. */
int cgsd_stop_unit(const char *name, bool user, struct error *err);

/* SetUnitProperties(u->name, runtime, res as properties: systemd-props.h),
 * for `update`: systemd keeps the new limits. */
int cgsd_set_properties(const struct systemd_unit *u, const struct oci_resources *res, struct error *err);

/* AttachProcessesToUnit(u->name, "/" + sub or "", [pid]): systemd moves pid
 * into the unit's cgroup (or its sub-cgroup sub, "" for none). */
int cgsd_attach_pid(const struct systemd_unit *u, const char *sub, pid_t pid, struct error *err);

/* The user's manager's own cgroup (its ControlGroup property, e.g.
 * "/user.slice/user-1000.slice/user@1000.service"), absolute and clean. */
int cgsd_user_manager_cgroup(char *out, size_t size, struct error *err);

/* The StartTransientUnit call cgsd_start_unit sends, into w (for the unit
 * test); version: systemd's, for res's versioned properties (0: unknown);
 * devices: /proc/devices' text, for a v1 unit's DeviceAllow (NULL: unknown).
 * -ENOMEM, else 0. */
int cgsd_start_call(struct dbus_writer *w, uint32_t serial, const struct systemd_unit *u, pid_t pid,
		    const struct oci_resources *res, unsigned version, const char *devices);

#endif
