/* run.tinyrun.output-limit and .request-output-limit (oci/sandbox/annotations_output.c):
 * `run` in the foreground reads the task's stdout and stderr from two pipes
 * of its own (the task never gets the runtime's fds) and passes on at most
 * the limit of each stream, and of the request's tasks together, to its own
 * stdout and stderr. Past a limit it stops passing that stream, marks it
 * truncated and ends the task: its whole cgroup (and its init, so its pid
 * namespace), reason "output-limit". It goes on reading (and counting) until
 * the task is gone, so no writer blocks on a full pipe. The counts are the
 * bytes the task wrote (read from its pipe); what was passed on is the
 * smaller of that and the limit. */
#ifndef TINYRUN_OUTPUT_H
#define TINYRUN_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"
#include "oci/events.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/statedir.h"

struct output_relay {
	bool on;                   /* a limit is set: the rest is used */
	int fd[2];                 /* the pipes' read ends (stdout, stderr), non-blocking, or -1 */
	int child[2];              /* their write ends, the task's fds 1 and 2 until it starts, or -1 */
	uint64_t limit;            /* per stream (0: only the request's) */
	uint64_t request_limit;    /* the request's, both streams, all tasks (0: none) */
	int request_fd;            /* <request's state dir>/output-total, or -1 */
	uint64_t written[2];       /* bytes read from the task */
	uint64_t passed[2];        /* bytes passed on */
	bool truncated[2];
	bool ended;                /* a limit ended the task */
	pid_t pid;                 /* the container's init, */
	const struct cgroup *cg;   /* and its cgroup, ended past a limit */
};

/* A limit is set: refused (create, run --detach: nobody passes the output on). */
int output_refuse_detached(const struct oci_config *cfg, struct error *err);
/* Before create: the pipes when cfg sets a limit (o->on), else nothing.
 * detach (run -d, create): refused, naming the annotation. */
int output_open(struct output_relay *o, const struct oci_config *cfg, bool detach, struct error *err);
/* After create: the write ends closed (the task holds them), the request's
 * total opened (the task's request, or c itself for a request's creator). */
int output_started(struct output_relay *o, const struct oci_config *cfg, const char *root,
		   const struct container *c, struct error *err);
/* In the child, first: the write ends become fds 1 and 2. */
void output_child_stdio(const int child[2]);
/* What poll says for fd[i]: read, pass on, count; past a limit, end the task. */
void output_pump(struct output_relay *o, int i);
/* Once the task is reaped: what is left in the pipes, without waiting. */
void output_drain(struct output_relay *o);
/* Into the result: the usage counts, and reason "output-limit" over the
 * reasons below it (result.h). */
void output_result(const struct output_relay *o, struct oci_exit *e);
void output_close(struct output_relay *o);

#endif
