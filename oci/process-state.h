/* The containerProcessState a runtime sends to a seccomp agent
 * (config-linux.md "The Container Process State"). */
#ifndef TINYRUN_OCI_PROCESS_STATE_H
#define TINYRUN_OCI_PROCESS_STATE_H

#include <stddef.h>
#include <sys/types.h>

/* {"ociVersion", "fds": ["seccompFd"], "pid", "metadata" (left out when
 * NULL), "state": state_json} where state_json is the spec state object as
 * oci_state_to_json produced it (parsed and re-written, so it must be a JSON
 * object). *out is malloc'd and NUL-terminated. 0 or a negative errno
 * (-EINVAL for a state_json that is not an object). */
int oci_container_process_state_json(const char *state_json, pid_t pid, const char *metadata,
				     char **out, size_t *len);

#endif
