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

/* CLONE_NEW* flag of a namespace type. */
int ns_clone_flag(enum oci_ns_type t);
/* Flags of the namespaces to create (listed without a path). */
int ns_new_flags(const struct oci_linux *l);
bool ns_any_path(const struct oci_linux *l);
/* setns() into every namespace with a path: the user namespace first. */
int ns_join_paths(const struct oci_linux *l, struct error *err);
/* Parent side: write uid_map/gid_map of `pid`. */
int ns_write_id_maps(pid_t pid, const struct oci_linux *l, struct error *err);
/* Child side, after unshare(CLONE_NEWTIME): /proc/self/timens_offsets. */
int ns_write_time_offsets(const struct oci_linux *l, struct error *err);

#endif
