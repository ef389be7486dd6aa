#ifndef TINYRUN_OCI_SPEC_H
#define TINYRUN_OCI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default config.json `tinyrun spec` writes (like runc's): busybox-style
 * "sh" with a terminal, the usual namespaces, mounts, masked/readonly paths.
 * rootless: a user namespace mapping the caller's uid/gid to 0, no network ns,
 * bind-mounted /sys, no cgroup resources. Returns a static or malloc'd string
 * the caller frees (always malloc'd). */
char *oci_spec_default(bool rootless, unsigned uid, unsigned gid);
/* The same, with `seccomp_json` (a profile, e.g. oci_seccomp_profile()) as
 * linux.seccomp when non-NULL; *bad_profile set when it does not parse. */
char *oci_spec_generate(bool rootless, unsigned uid, unsigned gid, const char *seccomp_json, int *bad_profile);
/* The same with ociVersion `oci_version` (NULL: 1.3.0, the spec tinyrun
 * implements); spec --oci-version checks it with oci_spec_version_writable(). */
char *oci_spec_generate_version(bool rootless, unsigned uid, unsigned gid, const char *seccomp_json,
				int *bad_profile, const char *oci_version);

/* The sandbox profile: oci/sandbox/spec_sandbox.h */

#endif
