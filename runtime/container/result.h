/* Why the container's process ended: the wait status (run's own, or the
 * one tinyrun-init recorded in <state dir>/exit-status) and the cgroup's
 * counters, to one reason (oci/events.h: struct oci_exit), in this order:
 *   not-started       set-up failed, the task never ran (result_not_started)
 *   infrastructure-failure  the runtime failed after the start: the
 *                     container's cgroup is gone at the end, or `run` has
 *                     no wait status
 *   timeout, cpu-time a time limit ended it (runtime/sandbox/limits.h): the word after the
 *                     wait status in exit-status, written by the init or run
 *   (output-limit     a limit of run.tinyrun.output-limit ended it: runtime/sandbox/output.h)
 *   policy-violation  killed by SIGSYS (the seccomp filter's kill action)
 *   file-size         killed by SIGXFSZ: a file written past RLIMIT_FSIZE
 *   oom-kill          killed by SIGKILL, or failed, with an OOM kill counted
 *                     (memory.events oom_kill on v2, memory.oom_control on v1)
 *                     and the container's own limit reached (usage.h)
 *   ancestor-oom      the same, but no limit of the container's was reached:
 *                     a parent cgroup's limit (or the machine's) chose the victim
 *   pids-limit        failed (status != 0) with forks refused at pids.max
 *                     (pids.events max)
 *   signal / exit     otherwise; "unknown" when no wait status is known and
 *                     no counter says more. */
#ifndef TINYRUN_RESULT_H
#define TINYRUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "oci/events.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/statedir.h"

/* What only the process that reaped the task knows (`run`). */
struct result_task {
	uint64_t wall_ms;          /* SYNC_START to the reaping */
	bool has_rusage;
	struct rusage ru;          /* wait4's: the init or task and what it reaped */
};

/* wait_status < 0: unknown. limit: the time limit that ended it, or NULL.
 * cg may be NULL or "no cgroup"; read before the cgroup is removed. t: NULL
 * when the caller did not reap it (`events`). */
void result_make(int wait_status, const char *limit, const struct cgroup *cg, struct oci_exit *e);
void result_make_task(int wait_status, const char *limit, const struct cgroup *cg,
		      const struct result_task *t, struct oci_exit *e);
/* Set-up failed before the task ran (msg: the error, kept by the caller). */
void result_not_started(struct oci_exit *e, const char *msg);
/* The wait status saved in the state dir (exit-status), or -1. */
int result_saved_status(const struct container *c);
/* The time limit saved after it ("timeout", "cpu-time"), or NULL. */
const char *result_saved_limit(const struct container *c);
/* The wall time and rusage saved after it (by the init, or `run`), if any. */
bool result_saved_task(const struct container *c, struct result_task *t);
/* Save one (run in the foreground, for --keep and events); t and limit
 * (the time limit that ended it) may be NULL. */
void result_save_status(const struct container *c, int wait_status, const struct result_task *t,
			const char *limit);

#endif
