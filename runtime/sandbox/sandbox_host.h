/* Says why the host cannot give a container its user namespace (issue 31
 * §5; SPEC-NOTES "Sandbox profile", "When the host says no"): the knob
 * that blocks it, by name and value, in the error and for the result
 * (oci_exit.host_blocked). */
#ifndef TINYRUN_SANDBOX_HOST_H
#define TINYRUN_SANDBOX_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/config.h"
#include "oci/error.h"

/* The host's user namespace sysctls; -1 where this kernel has none. */
struct host_userns_knobs {
	long max_user_namespaces;      /* /proc/sys/user/max_user_namespaces */
	long apparmor_restrict;        /* /proc/sys/kernel/apparmor_restrict_unprivileged_userns */
	long unprivileged_clone;       /* /proc/sys/kernel/unprivileged_userns_clone (Debian's) */
};

void sandbox_host_knobs_read(struct host_userns_knobs *k);

/* Pure. The knob that explains a user namespace the kernel refused with
 * errno e (0: before trying, so only a knob that refuses every one), for a
 * caller that is (privileged) root or not: "user namespaces are disabled:
 * /proc/sys/user/max_user_namespaces is 0", ... in buf; NULL when none does. */
const char *sandbox_host_userns_why(int e, const struct host_userns_knobs *k, bool privileged, char *buf,
				    size_t size);

/* Before anything exists: a run.tinyrun.userns=auto container on a host
 * where no user namespace can be made is refused, naming the knob
 * ("sandbox: user namespaces are disabled: ..."). 0 otherwise. */
int room_host_check(const struct oci_config *cfg, struct error *err);

/* After clone failed with err->code for a config with a new user namespace
 * (clone_ns has CLONE_NEWUSER): append the knob that explains it. */
void room_explain_clone(unsigned long clone_ns, struct error *err);

/* The knob named by the last refusal above (for --result), or NULL. */
const char *room_host_blocked(void);

#endif
