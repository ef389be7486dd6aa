/* One small interface over cgroup v2 (unified) and v1 (hybrid hosts).
 * runtime/cgroup.c detects the layout and dispatches to cgroup-v2.c or
 * cgroup-v1.c. No JSON here: resources come as struct oci_resources. */
#ifndef TINYRUN_CGROUP_H
#define TINYRUN_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

enum cgroup_mode { CGROUP_MODE_V2 = 2, CGROUP_MODE_V1 = 1 /* v1 or hybrid */ };

struct cgroup {
	enum cgroup_mode mode;
	char *path;          /* relative to each hierarchy's root, e.g. "/tinyrun/abc" */
	int v2_dirfd;        /* the container's v2 cgroup dir (for CLONE_INTO_CGROUP), or -1 */
	bool created;        /* we made it (so delete removes it) */
};

enum cgroup_mode cgroup_detect(void);

/* Resolve the path (linux.cgroupsPath, systemd form when `systemd`, or the
 * default "/tinyrun/<id>"), create it in every hierarchy and apply resources.
 * On failure nothing is left behind. */
int cgroup_create(const char *id, const struct oci_config *cfg, bool systemd,
		  struct cgroup *cg, struct error *err);
/* Put `pid` in the cgroup (v1: every controller; v2: cgroup.procs). */
int cgroup_attach(const struct cgroup *cg, pid_t pid, struct error *err);
/* Re-open a cgroup recorded in the state (path, mode) for later commands. */
int cgroup_open(const char *path, bool systemd, struct cgroup *cg, struct error *err);
int cgroup_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err);
int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error *err);
bool cgroup_is_frozen(const struct cgroup *cg);
/* Send sig to every process in the cgroup (cgroup.kill for SIGKILL on v2). */
int cgroup_kill_all(const struct cgroup *cg, int sig, struct error *err);
/* pids in the cgroup; *pids malloc'd. */
int cgroup_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err);
/* Kill what is left, wait until empty, rmdir in every hierarchy. */
int cgroup_destroy(struct cgroup *cg, struct error *err);
void cgroup_close(struct cgroup *cg);

#endif
