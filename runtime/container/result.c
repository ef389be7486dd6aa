/* Why the process ended (result.h). */
#include "runtime/container/result.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include "runtime/init/init_args.h"

void result_make(int ws, const char *limit, const struct cgroup *cg, struct oci_exit *e)
{
	struct error err;

	*e = (struct oci_exit){ .reason = "unknown", .exit_code = -1 };
	if (cg && cg->path) {
		cgroup_oom_kill_count(cg, &e->oom_kills, &err);
		cgroup_pids_limit_hits(cg, &e->pids_limit_hits, &err);
	}
	if (ws >= 0 && (WIFEXITED(ws) || WIFSIGNALED(ws))) {
		e->has_status = true;
		e->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
		e->exit_code = e->signal ? -1 : WEXITSTATUS(ws);
		e->status = e->signal ? 128 + e->signal : e->exit_code;
	}
	if (limit)   /* a time limit the init or run enforced (sbtime) */
		e->reason = limit;
	else if (e->has_status && e->signal == SIGSYS)
		e->reason = "policy-violation";
	else if (e->oom_kills && (!e->has_status || e->signal == SIGKILL || e->status != 0))
		e->reason = "oom-kill";
	else if (e->pids_limit_hits && (!e->has_status || e->status != 0))
		e->reason = "pids-limit";
	else if (e->has_status)
		e->reason = e->signal ? "signal" : "exit";
}

/* "STATUS\n" or "STATUS LIMIT\n": the status, *limit the word or NULL */
static int saved(const struct container *c, const char **limit)
{
	char buf[48];
	int fd = openat(c->dirfd, "exit-status", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	char *end;
	long v;

	*limit = NULL;
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n' && *end != ' ') || v < 0 || v > 0xffff)
		return -1;
	if (!strcmp(end, " " INIT_LIMIT_WALL "\n"))
		*limit = INIT_LIMIT_WALL;
	else if (!strcmp(end, " " INIT_LIMIT_CPU "\n"))
		*limit = INIT_LIMIT_CPU;
	return (int)v;
}

int result_saved_status(const struct container *c)
{
	const char *limit;

	return saved(c, &limit);
}

const char *result_saved_limit(const struct container *c)
{
	const char *limit;

	saved(c, &limit);
	return limit;
}

void result_save_status(const struct container *c, int ws, const char *limit)
{
	char buf[48];
	int n = snprintf(buf, sizeof(buf), limit ? "%d %s\n" : "%d\n", ws, limit);
	int fd = openat(c->dirfd, "exit-status", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	if (write(fd, buf, n) != n)
		unlinkat(c->dirfd, "exit-status", 0);
	close(fd);
}
