/* The spec's name tables, one place each. They drive parsing, the runtime's
 * own lookups (kill signals) and `features`, so nothing can drift. */
#ifndef TINYRUN_OCI_TABLES_H
#define TINYRUN_OCI_TABLES_H

#include <stdbool.h>
#include <stddef.h>

struct oci_name {
	const char *name;
	int value;
};

/* "CAP_CHOWN" .. "CAP_CHECKPOINT_RESTORE" -> 0..40 */
extern const struct oci_name oci_capabilities[];
extern const size_t oci_n_capabilities;
/* "RLIMIT_AS" ... -> RLIMIT_* */
extern const struct oci_name oci_rlimits[];
extern const size_t oci_n_rlimits;
/* "pid" "network" "mount" "ipc" "uts" "user" "cgroup" "time" -> enum oci_ns_type */
extern const struct oci_name oci_namespaces[];
extern const size_t oci_n_namespaces;
/* "SIGKILL" -> 9, real-time "SIGRTMIN+3" handled by oci_signal_parse */
extern const struct oci_name oci_signals[];
extern const size_t oci_n_signals;
/* every mount option the spec names (for features.mountOptions) */
extern const char *const oci_mount_options[];
extern const size_t oci_n_mount_options;

/* ---- more spec names (added with the parser) -------------------------- */

/* hooks: "prestart" ... "poststop" -> enum oci_hook_kind (spec order) */
extern const struct oci_name oci_hook_names[];
extern const size_t oci_n_hook_names;
/* linux.seccomp: actions -> enum oci_seccomp_action, operators -> enum
 * oci_seccomp_op, architectures (value = table index; the seccomp module maps
 * the name), flags -> SECCOMP_FILTER_FLAG_* bit. Sorted by name. */
extern const struct oci_name oci_seccomp_actions[];
extern const size_t oci_n_seccomp_actions;
extern const struct oci_name oci_seccomp_operators[];
extern const size_t oci_n_seccomp_operators;
extern const struct oci_name oci_seccomp_archs[];
extern const size_t oci_n_seccomp_archs;
extern const struct oci_name oci_seccomp_flags[];
extern const size_t oci_n_seccomp_flags;
/* process.scheduler.policy -> SCHED_*, .flags -> SCHED_FLAG_* bit */
extern const struct oci_name oci_sched_policies[];
extern const size_t oci_n_sched_policies;
extern const struct oci_name oci_sched_flags[];
extern const size_t oci_n_sched_flags;
/* process.ioPriority.class -> IOPRIO_CLASS_* */
extern const struct oci_name oci_ioprio_classes[];
extern const size_t oci_n_ioprio_classes;
/* linux.memoryPolicy.mode -> MPOL_*, .flags -> MPOL_F_* bit */
extern const struct oci_name oci_mempolicy_modes[];
extern const size_t oci_n_mempolicy_modes;
extern const struct oci_name oci_mempolicy_flags[];
extern const size_t oci_n_mempolicy_flags;
/* linux.personality.domain -> PER_LINUX / PER_LINUX32 */
extern const struct oci_name oci_personality_domains[];
extern const size_t oci_n_personality_domains;
/* linux.rootfsPropagation (and r* forms, as runc) -> enum oci_rootfs_propagation_mode */
extern const struct oci_name oci_rootfs_propagations[];
extern const size_t oci_n_rootfs_propagations;

/* What each name of oci_mount_options does (same order, sorted by name). */
enum oci_mount_option_kind {
	OCI_MOPT_NOTHING,         /* "defaults" */
	OCI_MOPT_SET,             /* value: MS_* to set */
	OCI_MOPT_CLEAR,           /* value: MS_* to clear */
	OCI_MOPT_BIND,            /* value: MS_BIND or MS_BIND|MS_REC */
	OCI_MOPT_PROPAGATION,     /* value: enum oci_propagation */
	OCI_MOPT_ATTR_SET,        /* value: MOUNT_ATTR_* to set recursively */
	OCI_MOPT_ATTR_CLEAR,      /* value: MOUNT_ATTR_* to clear recursively */
	OCI_MOPT_TMPCOPYUP,
	OCI_MOPT_IDMAP,
	OCI_MOPT_RIDMAP,
};
struct oci_mount_option {
	const char *name;
	enum oci_mount_option_kind kind;
	unsigned long value;
};
extern const struct oci_mount_option oci_mount_option_table[];
/* NULL for anything else (filesystem data). */
const struct oci_mount_option *oci_mount_option_find(const char *name);

/* -1 when not found */
int oci_name_lookup(const struct oci_name *t, size_t n, const char *name);
const char *oci_name_of(const struct oci_name *t, size_t n, int value);

/* "KILL", "SIGKILL", "9", "SIGRTMIN+1", "RTMAX-2" -> signal number, or -1. */
int oci_signal_parse(const char *s);

#endif
