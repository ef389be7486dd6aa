/* The time limits of a task (oci/sandbox/annotations_limits.c: run.tinyrun.wall-time,
 * run.tinyrun.cpu-time, run.tinyrun.request-deadline): who enforces them and
 * how the runtime learns that one ended the task.
 *
 *  - With run.tinyrun.init (the sandbox profile) tinyrun-init does, for run,
 *    run --detach and create/start alike, with no runtime process alive
 *    (init.c): the child hands it the limits when it execs it (the clock
 *    starts at start, not create) and the cgroup's CPU usage file, which
 *    create opens before clone (the minimal root has no /sys).
 *  - Without it only a foreground `run` can, as it waits anyway: its wait
 *    loop calls limits_watch (wait.c), which kills the container's cgroup.
 *    create and run --detach are refused (limits_check).
 * The request's deadline is recorded in its first container's state dir
 * (`request-deadline`: CLOCK_REALTIME ms, not a clock a time namespace
 * shifts); a task's deadline is the earlier of its own wall time and the
 * request's. A task that starts after that does not run: its init (or the
 * foreground run) ends it at once as one that reached it.
 * The limit that fired follows the wait status in <state dir>/exit-status
 * ("9 timeout", "9 cpu-time": result.c), written by the init or by run. */
#ifndef TINYRUN_LIMITS_H
#define TINYRUN_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/statedir.h"

struct limits_plan {
	int64_t wall_ms;           /* run.tinyrun.wall-time, 0: none */
	int64_t cpu_ms;            /* run.tinyrun.cpu-time, 0: none */
	int64_t deadline_rt_ms;    /* the request's deadline, CLOCK_REALTIME ms, 0: none */
	int cpu_fd;                /* the cgroup's CPU usage file (cpu_ms), or -1 */
	int cpu_kind;              /* its kind: runtime/init/init_args.h */
	bool by_init;              /* tinyrun-init enforces them */
	/* a foreground run's own watch (no init) */
	const struct cgroup *cg;
	pid_t pid;
	int64_t deadline_ms;       /* CLOCK_MONOTONIC ms, 0: none */
	int64_t cpu_base_ns;       /* the usage when the task started */
	const char *fired;         /* INIT_LIMIT_WALL / INIT_LIMIT_CPU, or NULL */
};

/* Before anything is made: refuse limits (the config's, or the request's
 * deadline: request_deadline_rt_ms, 0 for none) that nobody would enforce:
 * without the init, anything but a foreground run. */
int limits_check(const struct oci_config *cfg, bool foreground, int64_t request_deadline_rt_ms,
		 struct error *err);
/* A task of a request: the deadline its first container recorded (0: none). */
int limits_request_read(const struct container *request, int64_t *deadline_rt_ms, struct error *err);
/* After the cgroup exists, before clone: fill p, record a request's
 * deadline in c's state dir, open the CPU usage file. p is usable (for
 * limits_close) even on failure. */
int limits_prepare(struct container *c, const struct oci_config *cfg, const struct cgroup *cg,
		   int64_t request_deadline_rt_ms, struct limits_plan *p, struct error *err);
void limits_close(struct limits_plan *p);

/* In the child, right before it execs tinyrun-init: its WALL_MS CPU_MS
 * CPU_FD CPU_KIND arguments (init.c), the wall time counted from now; the
 * CPU fd is made to survive the exec. p may be NULL (none). */
void limits_init_args(const struct limits_plan *p, char args[4][24]);

/* A foreground run without the init, right before SYNC_START: start the
 * watch (wait.c calls limits_watch) on the container's cgroup and init pid.
 * true: the deadline has passed already, the container was killed and must
 * not be started. */
bool limits_watch_begin(struct limits_plan *p, const struct cgroup *cg, pid_t pid);
/* wait.c's watch: kill the container at a limit; the ms until the next
 * check, -1 for none. */
int limits_watch(void *plan);
/* After the wait, for run's record: the limit that ended the task (wait
 * status ws), or NULL. */
const char *limits_fired(struct limits_plan *p, int ws);

#endif
