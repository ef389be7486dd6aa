/* Why the process ended (result.h). */
#include "runtime/container/result.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/usage.h"
#include "runtime/init/init_args.h"

static void set_status(struct oci_exit *e, int ws)
{
	if (ws < 0 || !(WIFEXITED(ws) || WIFSIGNALED(ws)))
		return;
	e->has_status = true;
	e->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
	e->exit_code = e->signal ? -1 : WEXITSTATUS(ws);
	e->status = e->signal ? 128 + e->signal : e->exit_code;
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

/* the reaper's figures; CPU from rusage only where the cgroup gave none */
static void add_task(struct oci_usage *u, const struct result_task *t)
{
	u->has_wall = true;
	u->wall_ms = t->wall_ms;
	if (!t->has_rusage)
		return;
	u->has_csw = true;
	u->voluntary_csw = (uint64_t)t->ru.ru_nvcsw;
	u->involuntary_csw = (uint64_t)t->ru.ru_nivcsw;
	if (!u->has_cpu) {
		u->has_cpu = true;
		u->cpu_source = "rusage";
		u->cpu_user_us = tv_us(t->ru.ru_utime);
		u->cpu_system_us = tv_us(t->ru.ru_stime);
	}
}

void result_make_task(int ws, const char *limit, const struct cgroup *cg, const struct result_task *t,
		      struct oci_exit *e)
{
	static char lost[sizeof(((struct error *)0)->msg) + 64];
	struct cgroup_usage cu = { 0 };
	struct error err;
	bool failed;

	*e = (struct oci_exit){ .reason = "unknown", .exit_code = -1, .usage.cleanup = -1 };
	if (cg && cg->path) {
		cgroup_oom_kill_count(cg, &e->oom_kills, &err);
		cgroup_pids_limit_hits(cg, &e->pids_limit_hits, &err);
		if (cgroup_usage(cg, &cu, &err) == -ENOENT) {
			snprintf(lost, sizeof(lost), "the container's cgroup is gone: %s", err.msg);
			e->error = lost;
		}
		e->usage = cu.u;
	}
	set_status(e, ws);
	if (t)
		add_task(&e->usage, t);
	failed = !e->has_status || e->status != 0;
	if (t && !e->has_status && !e->error)
		e->error = "the container's wait status is unknown";
	if (e->error)
		e->reason = "infrastructure-failure";
	else if (limit)   /* a time limit the init or run enforced (runtime/sandbox/limits.h) */
		e->reason = limit;
	else if (e->has_status && e->signal == SIGSYS)
		e->reason = "policy-violation";
	else if (e->has_status && e->signal == SIGXFSZ)   /* past RLIMIT_FSIZE */
		e->reason = "file-size";
	else if (e->oom_kills && (failed || e->signal == SIGKILL))
		e->reason = cu.own_limit_hit ? "oom-kill" : "ancestor-oom";
	else if (e->pids_limit_hits && failed)
		e->reason = "pids-limit";
	else if (e->has_status)
		e->reason = e->signal ? "signal" : "exit";
}

void result_make(int ws, const char *limit, const struct cgroup *cg, struct oci_exit *e)
{
	result_make_task(ws, limit, cg, NULL, e);
}

void result_not_started(struct oci_exit *e, const char *msg)
{
	e->reason = "not-started";
	e->error = msg;
}

/* exit-status: "STATUS[ WALL_MS NVCSW NIVCSW UTIME_US STIME_US][ LIMIT]\n"
 * (init.c writes the six numbers, `run` without the init too; LIMIT: the
 * time limit that ended the task; an older record has the status alone).
 * The number of numbers, *limit the word or NULL; 0: no valid record. */
static int read_record(const struct container *c, unsigned long long v[6], const char **limit)
{
	char buf[192], *p = buf, *end;
	int fd = openat(c->dirfd, "exit-status", O_RDONLY | O_NOFOLLOW | O_CLOEXEC), n_fields = 0;
	ssize_t n;

	*limit = NULL;
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	while (n_fields < 6 && *p >= '0' && *p <= '9') {
		v[n_fields++] = strtoull(p, &end, 10);
		if (*end != ' ' && *end != '\n' && *end)
			return 0;
		p = *end == ' ' ? end + 1 : end;
	}
	if (!strcmp(p, INIT_LIMIT_WALL "\n"))
		*limit = INIT_LIMIT_WALL;
	else if (!strcmp(p, INIT_LIMIT_CPU "\n"))
		*limit = INIT_LIMIT_CPU;
	else if (*p && *p != '\n')
		return 0;
	return n_fields;
}

int result_saved_status(const struct container *c)
{
	unsigned long long v[6];
	const char *limit;

	return read_record(c, v, &limit) < 1 || v[0] > 0xffff ? -1 : (int)v[0];
}

const char *result_saved_limit(const struct container *c)
{
	unsigned long long v[6];
	const char *limit;

	return read_record(c, v, &limit) < 1 ? NULL : limit;
}

bool result_saved_task(const struct container *c, struct result_task *t)
{
	unsigned long long v[6];
	const char *limit;

	if (read_record(c, v, &limit) != 6)
		return false;
	*t = (struct result_task){ .wall_ms = v[1], .has_rusage = true };
	t->ru.ru_nvcsw = (long)v[2];
	t->ru.ru_nivcsw = (long)v[3];
	t->ru.ru_utime = (struct timeval){ .tv_sec = (time_t)(v[4] / 1000000), .tv_usec = (suseconds_t)(v[4] % 1000000) };
	t->ru.ru_stime = (struct timeval){ .tv_sec = (time_t)(v[5] / 1000000), .tv_usec = (suseconds_t)(v[5] % 1000000) };
	return true;
}

void result_save_status(const struct container *c, int ws, const struct result_task *t, const char *limit)
{
	char buf[192];
	int n = t && t->has_rusage
		? snprintf(buf, sizeof(buf), "%d %llu %ld %ld %llu %llu", ws, (unsigned long long)t->wall_ms,
			   t->ru.ru_nvcsw, t->ru.ru_nivcsw, (unsigned long long)tv_us(t->ru.ru_utime),
			   (unsigned long long)tv_us(t->ru.ru_stime))
		: snprintf(buf, sizeof(buf), "%d", ws);
	int fd = openat(c->dirfd, "exit-status", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	n += snprintf(buf + n, sizeof(buf) - (size_t)n, limit ? " %s\n" : "\n", limit);
	if (fd < 0)
		return;
	if (write(fd, buf, n) != n)
		unlinkat(c->dirfd, "exit-status", 0);
	close(fd);
}
