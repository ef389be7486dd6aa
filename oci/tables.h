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

/* -1 when not found */
int oci_name_lookup(const struct oci_name *t, size_t n, const char *name);
const char *oci_name_of(const struct oci_name *t, size_t n, int value);

/* "KILL", "SIGKILL", "9", "SIGRTMIN+1", "RTMAX-2" -> signal number, or -1. */
int oci_signal_parse(const char *s);

#endif
