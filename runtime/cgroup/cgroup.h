/* One small interface over cgroup v2 (unified) and v1 (hybrid hosts), and
 * systemd units. cgroup_plan / cgroup_open choose the backend once
 * (runtime/cgroup/backend.h: v1, v2, systemd, none) and keep it in cg->ops;
 * the other calls go through it. No JSON here: resources come as struct
 * oci_resources.
 *
 * Placement (cgroup_resolve_path):
 *  - no linux.cgroupsPath: "/tinyrun/<id>";
 *  - absolute path: taken as is, relative to each hierarchy's root;
 *  - relative path: under the default parent, "/tinyrun/<path>" (runc puts it
 *    under its own cgroup instead; containerd and podman always pass absolute
 *    or systemd paths);
 *  - --systemd-cgroup: "slice:prefix:name" ("" slice = system.slice; default
 *    "system.slice:tinyrun:<id>") mapped to the cgroupfs path systemd uses,
 *    "/system.slice/prefix-name.scope" (a name ending in ".slice" is that
 *    slice itself). With systemd as PID 1 (sd_booted) the cgroup is a
 *    transient unit made over D-Bus (systemd.h): cgroup_plan only
 *    resolves the path, and cgroup_enter_systemd_unit (join.h) makes
 *    the unit once the init pid exists. Without systemd, refused. For a
 *    rootless caller (CGROUP_SYSTEMD_USER) the unit is its own systemd's:
 *    "user.slice:tinyrun:<id>" by default, under that manager's cgroup.
 * Paths are cleaned lexically ("..", "//") so they never leave the hierarchy.
 *
 * Hierarchies: v2: /sys/fs/cgroup, every available controller enabled in the
 * parents' cgroup.subtree_control. v1/hybrid: every mounted v1 hierarchy
 * (cpuset cpu cpuacct memory devices freezer blkio pids net_cls net_prio
 * hugetlb perf_event rdma misc name=systemd) plus, on hybrid hosts, the
 * cgroup2 at /sys/fs/cgroup/unified (as runc does), so every tool sees the
 * container in the same place. Resources only go to the v1 controllers there
 * (`unified` keys go to the unified hierarchy).
 *
 * Devices: the config's linux.resources.devices, then the runtime's default
 * devices (null zero full random urandom tty ptmx pts tun, mknod of any), as
 * runc and crun. linux.devices entries add no rule: a node they make is only
 * usable when resources.devices allows it (containerd, podman and docker
 * always write those allow rules). Unknown access letters are ignored, as
 * runc does ("rwa" = "rw"). The last matching rule decides, per access bit;
 * no matching rule = deny. v1: devices.deny/allow;
 * v2: a BPF_PROG_TYPE_CGROUP_DEVICE program. `update` does not change them.
 *
 * Every function fills *err and returns a negative errno on failure; the
 * messages name the cgroup and file: "cgroup /tinyrun/x: memory.max: write
 * \"12\": Device or resource busy". */
#ifndef TINYRUN_CGROUP_H
#define TINYRUN_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/stats.h"
#include "oci/error.h"

enum cgroup_mode { CGROUP_MODE_V2 = 2, CGROUP_MODE_V1 = 1 /* v1 or hybrid */ };

/* Who makes the container's cgroup: the runtime on cgroupfs, or systemd
 * (--systemd-cgroup): the system's manager over the system bus, or, for a
 * rootless caller, the user's own manager over the session bus (cgroup v2
 * only; the unit's cgroup is under the manager's own, as runc's). */
enum cgroup_manager { CGROUP_FS = 0, CGROUP_SYSTEMD = 1, CGROUP_SYSTEMD_USER = 2 };

struct systemd_unit;
struct cgroup_ops;

/* A zeroed struct cgroup with v2_dirfd = -1 is "no cgroup" (rootless without
 * a delegated one): every call on it does nothing, or fails with ENODEV. */
struct cgroup {
	const struct cgroup_ops *ops;    /* the backend, chosen by cgroup_plan/open; NULL: none */
	const struct cgroup_ops *fs;     /* the cgroupfs backend (v1 or v2) of the host; systemd
	                                  * delegates to it, else == ops */
	char *path;          /* relative to each hierarchy's root, e.g. "/tinyrun/abc" */
	int v2_dirfd;        /* the container's v2 cgroup dir (for CLONE_INTO_CGROUP), or -1;
	                      * only on pure v2 hosts: on v1/hybrid use cgroup_attach */
	bool created;        /* we made it (so delete removes it) */
	bool hybrid;         /* v1 with a cgroup2 at /sys/fs/cgroup/unified */
	bool unchecked;      /* opened for a status only: v1 does not stat it first */
	uint32_t v1_mask;    /* v1: bit per hierarchy the container is in (v1.c) */
	uint32_t v1_made;    /* v1: those whose dir is the container's to remove: made by
	                      * create (one there before had to be empty: it is left when
	                      * create fails), all of them once re-opened from the state */
	struct systemd_unit *unit;   /* the transient systemd unit (--systemd-cgroup with
	                              * systemd as PID 1: the systemd backend), or NULL */
};

enum cgroup_mode cgroup_detect(void);
/* "v2", "hybrid" or "v1": for `features` and --debug. */
const char *cgroup_mode_name(void);

/* Where the runtime's --debug notes go (ignored/converted fields, systemd
 * path mapping). NULL: dropped. */
void cgroup_set_debug(void (*fn)(const char *msg));
/* Where its warnings go (NULL: dropped). */
void cgroup_set_warn(void (*fn)(const char *msg));

/* The container's cgroup path, see above (for CGROUP_SYSTEMD_USER, the part
 * under the user manager's own cgroup). *out is malloc'd. */
int cgroup_resolve_path(const char *id, const char *cgroups_path, enum cgroup_manager mgr,
			char **out, struct error *err);

/* Where the cgroup will be, with nothing made yet: cg->path (linux.cgroupsPath,
 * systemd form with a systemd manager, or the default "/tinyrun/<id>") and
 * the backend. The user's systemd is asked for its own cgroup here (one
 * D-Bus call); a systemd unit (cg->unit) is only resolved: see
 * cgroup_enter_systemd_unit. On failure cgroup_close(cg) is still safe. */
int cgroup_plan(const char *id, const struct oci_config *cfg, enum cgroup_manager mgr,
		struct cgroup *cg, struct error *err);
/* Create the planned cgroup in every hierarchy and apply resources. On
 * failure nothing is left behind and cgroup_close(cg) is still safe. */
int cgroup_make(struct cgroup *cg, const struct oci_config *cfg, struct error *err);
/* Put `pid` in the cgroup (v1: every hierarchy; v2: cgroup.procs). Not needed
 * after clone3(CLONE_INTO_CGROUP, v2_dirfd). */
int cgroup_attach(const struct cgroup *cg, pid_t pid, struct error *err);
/* Re-open a cgroup recorded in the state (path, mode) for later commands.
 * -ENOENT when the cgroup is gone. Cheap: one open on v2, a few stats on v1. */
int cgroup_open(const char *path, enum cgroup_manager mgr, struct cgroup *cg, struct error *err);
/* The same, for cgroup_is_frozen only (a status: `state`, `list`): a v1
 * cgroup is not checked to exist first (a missing one reads as not frozen). */
int cgroup_open_unchecked(const char *path, enum cgroup_manager mgr, struct cgroup *cg, struct error *err);
/* Apply the fields present in `res` to a live cgroup (`update`). Devices are
 * not changed. memory.checkBeforeUpdate is honoured on v2. */
int cgroup_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err);
/* Freeze (and wait until the kernel reports it frozen) or thaw. */
int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error *err);
/* v1: /sys/fs/cgroup/NAME is a hierarchy of its own, as the runtime's probe
 * found it before clone (false when it did not probe: the caller checks). */
bool cgroup_v1_hierarchy_mounted(const char *name);
bool cgroup_is_frozen(const struct cgroup *cg);
/* cgroup v1: PID was moved into another freezer cgroup, which is frozen: it
 * cannot die before someone thaws that (not the runtime: not its cgroup). */
bool cgroup_frozen_elsewhere(const struct cgroup *cg, pid_t pid);
/* Send sig to every process in the cgroup and its sub-cgroups (cgroup.kill
 * for SIGKILL where the kernel has it, else each pid with the cgroup frozen
 * meanwhile so no new process escapes). */
int cgroup_kill_all(const struct cgroup *cg, int sig, struct error *err);
/* pids in the cgroup and its sub-cgroups; *pids malloc'd (NULL when *n == 0). */
int cgroup_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err);
/* Kill what is left, wait until empty (up to 10 s), rmdir in every hierarchy,
 * sub-cgroups first. Parents are left alone. A cgroup already gone is fine.
 * A systemd unit is stopped first (StopUnit). */
int cgroup_destroy(struct cgroup *cg, struct error *err);
/* Free what cg holds; it is then the "no cgroup" one. */
void cgroup_close(struct cgroup *cg);

/* ---- stats, for `events`: struct cgroup_stats is in oci/stats.h ---- */

int cgroup_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err);
void cgroup_stats_free(struct cgroup_stats *st);

/* OOM kills seen so far (memory.events oom_kill on v2, memory.oom_control
 * oom_kill on v1). */
int cgroup_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err);

/* The time limits' CPU usage file, read-only (cpu_usage.c): v2 cpu.stat, v1
 * cpuacct.usage; *kind is INIT_CPU_V2_STAT or INIT_CPU_V1_USAGE
 * (runtime/init/init_args.h). An fd, or a negative errno (no cgroup, a
 * systemd unit not made yet, no cpuacct hierarchy). */
int cgroup_cpu_usage_open(const struct cgroup *cg, int *kind, struct error *err);

/* Forks refused at the pids limit so far (pids.events "max", v1 and v2). */
int cgroup_pids_limit_hits(const struct cgroup *cg, uint64_t *count, struct error *err);

/* For `events`: fd becomes ready (poll for `events`) when the cgroup's
 * memory events change; then cgroup_oom_watch_read tells how many OOM events
 * happened since the previous call (v2: new oom_kill count in memory.events;
 * v1: the memory.oom_control eventfd count), 0 on other changes. */
struct cgroup_oom_watch {
	int fd;                         /* poll this */
	short events;                   /* for this: v1's eventfd POLLIN; v2's memory.events
	                                 * POLLPRI (kernfs says POLLIN at all times) */
	int ctl_fd;                     /* v1: memory.oom_control, kept open */
	uint64_t last;
	const struct cgroup *cg;
};
int cgroup_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err);
int cgroup_oom_watch_read(struct cgroup_oom_watch *w, uint64_t *new_kills, struct error *err);
void cgroup_oom_watch_close(struct cgroup_oom_watch *w);

#endif
