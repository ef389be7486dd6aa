/* The seccomp profiles tinyrun ships (seccomp/profiles/<name>.json), for
 * `tinyrun spec --seccomp NAME`. */
#ifndef TINYRUN_OCI_PROFILES_H
#define TINYRUN_OCI_PROFILES_H

#include <stddef.h>

/* "default", "strict" */
extern const char *const oci_seccomp_profile_names[];
extern const size_t oci_n_seccomp_profiles;

/* The profile's JSON text (a linux.seccomp object), or NULL for an unknown
 * name. Static, NUL-terminated. */
const char *oci_seccomp_profile(const char *name);

#endif
