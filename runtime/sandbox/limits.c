/* The time limits of a task: limits.h. */
#include "runtime/sandbox/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/container/wait.h"
#include "runtime/init/init_args.h"

#define REQUEST_DEADLINE_FILE "request-deadline"

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool any(const struct oci_limits *l, int64_t request_deadline_rt_ms)
{
	return l->wall_ms || l->cpu_ms || l->request_deadline_ms || request_deadline_rt_ms;
}

int limits_check(const struct oci_config *cfg, bool foreground, int64_t request_deadline_rt_ms,
		 struct error *err)
{
	const struct oci_limits *l = &cfg->sandbox.time;
	const char *key = l->wall_ms ? OCI_ANNOTATION_WALL_TIME : l->cpu_ms ? OCI_ANNOTATION_CPU_TIME :
			  l->request_deadline_ms ? OCI_ANNOTATION_REQUEST_DEADLINE : NULL;

	if (cfg->init || foreground || !any(l, request_deadline_rt_ms))
		return 0;
	if (key)
		return error_set(err, EINVAL, "config.json: .annotations[\"%s\"]: needs \"run.tinyrun.init\": \"true\" "
				 "with create and run --detach (without the init only a foreground run enforces it)", key);
	return error_set(err, EINVAL, "run.tinyrun.sandbox.request: request \"%s\" has a deadline (%s): its tasks need "
			 "\"run.tinyrun.init\": \"true\" with create and run --detach", cfg->sandbox.request,
			 OCI_ANNOTATION_REQUEST_DEADLINE);
}

int limits_request_read(const struct container *request, int64_t *deadline_rt_ms, struct error *err)
{
	char *text = NULL, *end;
	size_t len;
	int r = container_read_file(request, REQUEST_DEADLINE_FILE, &text, &len);

	*deadline_rt_ms = 0;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return error_sys(err, -r, "run.tinyrun.sandbox.request: %s/%s", request->dir, REQUEST_DEADLINE_FILE);
	errno = 0;
	*deadline_rt_ms = strtoll(text, &end, 10);
	if (errno || end == text || *end != '\n' || *deadline_rt_ms <= 0)
		r = error_set(err, EINVAL, "run.tinyrun.sandbox.request: %s/%s: not a deadline", request->dir,
			      REQUEST_DEADLINE_FILE);
	free(text);
	return r;
}

/* A request's first container: its deadline from now, on disk for its tasks. */
static int request_record(struct container *c, int64_t ms, int64_t *deadline_rt_ms, struct error *err)
{
	char text[32];

	*deadline_rt_ms = clock_ms(CLOCK_REALTIME) + ms;
	snprintf(text, sizeof(text), "%" PRId64 "\n", *deadline_rt_ms);
	return container_record_write(c->dirfd, REQUEST_DEADLINE_FILE, text, err);
}

int limits_prepare(struct container *c, const struct oci_config *cfg, const struct cgroup *cg,
		   int64_t request_deadline_rt_ms, struct limits_plan *p, struct error *err)
{
	const struct oci_limits *l = &cfg->sandbox.time;
	int r;

	*p = (struct limits_plan){ .wall_ms = l->wall_ms, .cpu_ms = l->cpu_ms, .deadline_rt_ms = request_deadline_rt_ms,
				   .cpu_fd = -1, .by_init = cfg->init };
	if (l->request_deadline_ms && (r = request_record(c, l->request_deadline_ms, &p->deadline_rt_ms, err)) < 0)
		return r;
	if (l->cpu_ms && (p->cpu_fd = cgroup_cpu_usage_open(cg, &p->cpu_kind, err)) < 0) {
		error_prefix(err, "config.json: .annotations[\"%s\"]", OCI_ANNOTATION_CPU_TIME);
		return p->cpu_fd;
	}
	return 0;
}

void limits_close(struct limits_plan *p)
{
	if (p->cpu_fd >= 0)
		close(p->cpu_fd);
	p->cpu_fd = -1;
}

/* The task's wall time from now: -1 none, 0 its request's deadline passed. */
static int64_t wall_from_now(const struct limits_plan *p)
{
	int64_t wall = p->wall_ms ? p->wall_ms : -1, left;

	if (!p->deadline_rt_ms)
		return wall;
	left = p->deadline_rt_ms - clock_ms(CLOCK_REALTIME);
	if (left <= 0)
		return 0;
	return wall < 0 || left < wall ? left : wall;
}

void limits_init_args(const struct limits_plan *p, char args[4][24])
{
	int64_t wall = p ? wall_from_now(p) : -1;

	snprintf(args[0], 24, wall < 0 ? "-" : "%" PRId64, wall);
	snprintf(args[1], 24, p && p->cpu_ms ? "%" PRId64 : "-", p ? p->cpu_ms : 0);
	snprintf(args[2], 24, p && p->cpu_fd >= 0 ? "%d" : "-", p ? p->cpu_fd : 0);
	snprintf(args[3], 24, "%d", p ? p->cpu_kind : 0);
	if (p && p->cpu_fd >= 0)
		fcntl(p->cpu_fd, F_SETFD, 0);
}

static int64_t cpu_used_ns(const struct limits_plan *p)
{
	char buf[1024];
	ssize_t n = pread(p->cpu_fd, buf, sizeof(buf), 0);

	return n > 0 ? init_cpu_usage_ns(buf, n, p->cpu_kind) : -1;
}

static void kill_container(struct limits_plan *p, const char *limit)
{
	struct error err;

	p->fired = limit;
	if (cgroup_kill_all(p->cg, SIGKILL, &err) < 0)
		kill(p->pid, SIGKILL);
}

bool limits_watch_begin(struct limits_plan *p, const struct cgroup *cg, pid_t pid)
{
	int64_t wall = wall_from_now(p);

	if (p->by_init || (wall < 0 && !p->cpu_ms))
		return false;
	p->cg = cg;
	p->pid = pid;
	p->deadline_ms = wall >= 0 ? clock_ms(CLOCK_MONOTONIC) + wall : 0;
	p->cpu_base_ns = p->cpu_ms ? cpu_used_ns(p) : 0;
	if (wall == 0) {
		kill_container(p, INIT_LIMIT_WALL);
		return true;
	}
	wait_watch(limits_watch, p);
	return false;
}

int limits_watch(void *plan)
{
	struct limits_plan *p = plan;
	int64_t now = clock_ms(CLOCK_MONOTONIC), next = -1;

	if (p->fired)
		return -1;
	if (p->deadline_ms && now >= p->deadline_ms) {
		kill_container(p, INIT_LIMIT_WALL);
		return -1;
	}
	if (p->cpu_ms && cpu_used_ns(p) - p->cpu_base_ns >= p->cpu_ms * 1000000) {
		kill_container(p, INIT_LIMIT_CPU);
		return -1;
	}
	if (p->cpu_ms)   /* as the init: a tenth of the limit, 10 to 100 ms */
		next = p->cpu_ms / 10 < 10 ? 10 : p->cpu_ms / 10 > 100 ? 100 : p->cpu_ms / 10;
	if (p->deadline_ms && (next < 0 || p->deadline_ms - now < next))
		next = p->deadline_ms - now;
	return next > 3600000 ? 3600000 : (int)next;   /* poll's int ms: an hour, then again */
}

/* SIGXCPU under a CPU limit: RLIMIT_CPU's (its tick-based count may reach
 * the limit a few ms before the cgroup's usage does), as in init.c */
const char *limits_fired(struct limits_plan *p, int ws)
{
	wait_watch(NULL, NULL);
	if (!p->fired && p->cpu_ms && ws >= 0 && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGXCPU)
		p->fired = INIT_LIMIT_CPU;
	return p->fired;
}
