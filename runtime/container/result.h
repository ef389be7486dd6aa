/* Why the container's process ended: the wait status (run's own, or the
 * one tinyrun-init recorded in <state dir>/exit-status) and the cgroup's
 * counters, to one reason (oci/events.h: struct oci_exit), in this order:
 *   timeout, cpu-time a time limit ended it (limits.h): the word after the
 *                     wait status in exit-status, written by the init or run
 *   policy-violation  killed by SIGSYS (the seccomp filter's kill action)
 *   oom-kill          killed by SIGKILL, or failed, with an OOM kill counted
 *                     (memory.events oom_kill on v2, memory.oom_control on v1)
 *   pids-limit        failed (status != 0) with forks refused at pids.max
 *                     (pids.events max)
 *   signal / exit     otherwise; "unknown" when no wait status is known and
 *                     no counter says more. */
#ifndef TINYRUN_RESULT_H
#define TINYRUN_RESULT_H

#include <stdbool.h>

#include "oci/events.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/statedir.h"

/* wait_status < 0: unknown. limit: the time limit that ended it, or NULL.
 * cg may be NULL or "no cgroup". */
void result_make(int wait_status, const char *limit, const struct cgroup *cg, struct oci_exit *e);
/* The wait status saved in the state dir (exit-status), or -1. */
int result_saved_status(const struct container *c);
/* The time limit saved after it ("timeout", "cpu-time"), or NULL. */
const char *result_saved_limit(const struct container *c);
/* Save one (run in the foreground, for --keep and events), with the limit
 * that ended it (or NULL). */
void result_save_status(const struct container *c, int wait_status, const char *limit);

#endif
