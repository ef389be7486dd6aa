#ifndef TINYRUN_OCI_SPEC_H
#define TINYRUN_OCI_SPEC_H

#include <stdbool.h>

/* The default config.json `tinyrun spec` writes (like runc's): busybox-style
 * "sh" with a terminal, the usual namespaces, mounts, masked/readonly paths.
 * rootless: a user namespace mapping the caller's uid/gid to 0, no network ns,
 * bind-mounted /sys, no cgroup resources. Returns a static or malloc'd string
 * the caller frees (always malloc'd). */
char *oci_spec_default(bool rootless, unsigned uid, unsigned gid);
/* The same, with `seccomp_json` (a profile, e.g. oci_seccomp_profile()) as
 * linux.seccomp when non-NULL; *bad_profile set when it does not parse. */
char *oci_spec_generate(bool rootless, unsigned uid, unsigned gid, const char *seccomp_json, int *bad_profile);

#endif
