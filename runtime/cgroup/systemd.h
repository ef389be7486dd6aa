/* The systemd backend (--systemd-cgroup): the cgroup path systemd uses for
 * "slice:prefix:name", and, with systemd as PID 1, the container's cgroup as
 * a transient unit asked for over D-Bus (systemd-dbus.h) once the init pid
 * exists; everything else goes to the host's cgroupfs backend (cg->fs), at
 * the unit's path. Without systemd running the path is a plain cgroupfs one
 * and the backend stays cg->fs. */
#ifndef TINYRUN_CGROUP_SYSTEMD_H
#define TINYRUN_CGROUP_SYSTEMD_H

#include <stddef.h>

#include "oci/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/systemd-dbus.h"

/* "slice:prefix:name" (NULL or "": "system.slice:tinyrun:<id>", for the
 * user's manager "user.slice:tinyrun:<id>") -> the cgroupfs path systemd
 * uses in out (the user's: under its manager's cgroup, which cgsd_plan puts
 * in front), and the unit's name, slice and manager in u. */
int cgsd_path(const char *id, const char *spec, bool user, char *out, size_t size, struct systemd_unit *u,
	      struct error *err);
/* cgroup_plan: with systemd running, cg becomes a systemd cgroup whose
 * unit u (from cgsd_path) is made once the pid exists (cgroup_enter_systemd_unit);
 * without it, an error (runc's refusal: no cgroupfs fallback). The user's
 * manager: cgroup v2 only, and cg->path gets its cgroup in front. */
int cgsd_plan(const char *id, const struct systemd_unit *u, struct cgroup *cg, struct error *err);
/* cgroup_open: the unit a --systemd-cgroup path was made as (its last
 * component), when systemd is running. */
int cgsd_open_unit(struct cgroup *cg, enum cgroup_manager mgr, struct error *err);

#endif
