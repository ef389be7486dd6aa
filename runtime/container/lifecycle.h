/* Steps shared by the lifecycle commands (start, run, delete, kill). */
#ifndef TINYRUN_LIFECYCLE_H
#define TINYRUN_LIFECYCLE_H

#include <stdbool.h>

#include "oci/error.h"
#include "runtime/container/create.h"
#include "runtime/container/statedir.h"

/* Run poststart hooks with status "running", once the program runs. The
 * first failing one is an error (runtime-spec 1.3, lifecycle step 9): the
 * caller stops and destroys the container (lifecycle_destroy). */
int lifecycle_poststart(struct container *c, const struct oci_config *cfg, struct error *err);
/* The copy of config.json saved at create, parsed for hooks only.
 * Returns 1 when loaded (*buf to free). */
int lifecycle_saved_hooks(struct container *c, struct oci_config *cfg, char **buf);
/* Kill what is left, remove the cgroup, run poststop hooks, remove the state. */
int lifecycle_destroy(struct container *c, const struct oci_config *cfg_or_null, struct error *err);

#endif
