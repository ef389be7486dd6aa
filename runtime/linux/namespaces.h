/* Namespaces: which to create, which to join, the id maps, time offsets. */
#ifndef TINYRUN_NAMESPACES_H
#define TINYRUN_NAMESPACES_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* Linux 5.6; older C libraries lack it. The one fallback for every user. */
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Flags of the namespaces to create (listed without a path). */
int ns_new_flags(const struct oci_linux *l);
bool ns_any_path(const struct oci_linux *l);

/* How create makes the container's namespaces, decided from the config
 * alone (runtime/container/create.c copies it into the child's context).
 * Fast path, when nothing is joined and there is no time namespace: clone()
 * creates every new namespace. Slow path: the child setns()es into the
 * ones with a path (user first), then unshare()s the new ones, and forks
 * when it must enter a pid or time namespace (those apply to children). */
struct ns_plan {
	int clone_ns;      /* CLONE_NEW* made by clone itself (fast path), else 0 */
	int unshare_ns;    /* slow path: CLONE_NEW* made by unshare in the child */
	bool join_any;     /* some namespace has a path */
	bool must_fork;    /* slow path: fork to enter the new/joined pid ns, or a time ns */
	bool userns;       /* a user namespace, new or joined */
};
void ns_plan_make(const struct oci_linux *l, struct ns_plan *p);
/* exec: the namespaces of the container it enters with one setns() on the
 * init's pidfd; pid and time are left out (joined apart, before the fork). */
int ns_exec_join_flags(const struct oci_linux *l);
/* setns() into every namespace with a path: the user namespace first. */
int ns_join_paths(const struct oci_linux *l, struct error *err);
/* Parent side: write uid_map/gid_map of `pid`. */
int ns_write_id_maps(pid_t pid, const struct oci_linux *l, struct error *err);
/* Child side, after unshare(CLONE_NEWTIME): /proc/self/timens_offsets. */
int ns_write_time_offsets(const struct oci_linux *l, struct error *err);

#endif
