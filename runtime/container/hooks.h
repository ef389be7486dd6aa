/* Lifecycle hooks (config.md "POSIX-platform Hooks"): each hook runs with the
 * container state JSON on stdin; a timeout kills it. */
#ifndef TINYRUN_HOOKS_H
#define TINYRUN_HOOKS_H

#include <stddef.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/container/hooks_output.h"   /* (where their output goes) */

/* Run every hook of `kind` in order; stop at the first failure. A hook in
 * the container without "env" gets `process_env` (NULL: an empty one); a
 * host hook the caller's environment (oci/callerenv.h). */
int hooks_run(const struct oci_hooks *hooks, enum oci_hook_kind kind, char *const *process_env,
	      const char *state_json, size_t len, struct error *err);
const char *hooks_kind_name(enum oci_hook_kind kind);

/* poststop: every hook runs; a failure is logged as a warning (runtime.md
 * lifecycle step 13). A failing poststart hook is an error: hooks_run. */
void hooks_run_warn(const struct oci_hooks *hooks, enum oci_hook_kind kind,
		    const char *state_json, size_t len);
#endif
