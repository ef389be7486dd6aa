/* The task's output through the runtime, within its limits: output.h. */
#include "runtime/sandbox/output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "runtime/log.h"

#define TOTAL_FILE "output-total"   /* in the request's state dir: bytes passed on, decimal */
#define CHUNK 65536
#define DRAIN_READS 256             /* after the reap: at most this many reads a stream */

int output_refuse_detached(const struct oci_config *cfg, struct error *err)
{
	const struct oci_output_limits *l = &cfg->sandbox.limits;

	if (!l->output && !l->request_output)
		return 0;
	return error_set(err, EINVAL, "%s: the runtime passes the task's output on only while it waits for it: "
			 "run it in the foreground (not run --detach or create)",
			 l->output ? OCI_ANNOTATION_OUTPUT_LIMIT : OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT);
}

int output_open(struct output_relay *o, const struct oci_config *cfg, bool detach, struct error *err)
{
	const struct oci_output_limits *l = &cfg->sandbox.limits;
	int p[2][2], r;

	*o = (struct output_relay){ .fd = { -1, -1 }, .child = { -1, -1 }, .request_fd = -1 };
	if (!l->output && !l->request_output)
		return 0;
	if (detach && (r = output_refuse_detached(cfg, err)) < 0)
		return r;
	if (pipe2(p[0], O_CLOEXEC) < 0)
		return error_sys(err, errno, "%s: pipe", OCI_ANNOTATION_OUTPUT_LIMIT);
	if (pipe2(p[1], O_CLOEXEC) < 0) {
		close(p[0][0]);
		close(p[0][1]);
		return error_sys(err, errno, "%s: pipe", OCI_ANNOTATION_OUTPUT_LIMIT);
	}
	for (int i = 0; i < 2; i++) {
		o->fd[i] = p[i][0];
		o->child[i] = p[i][1];
		fcntl(o->fd[i], F_SETFL, O_NONBLOCK);
	}
	o->on = true;
	o->limit = l->output;
	o->request_limit = l->request_output;
	return 0;
}

int output_started(struct output_relay *o, const struct oci_config *cfg, const char *root,
		   const struct container *c, struct error *err)
{
	struct container rc = { .rootfd = -1, .dirfd = -1 };
	int dirfd = c->dirfd, r;

	for (int i = 0; i < 2; i++)
		if (o->child[i] >= 0) {
			close(o->child[i]);
			o->child[i] = -1;
		}
	if (!o->on || !o->request_limit)
		return 0;
	if (cfg->sandbox.request) {
		if ((r = container_load(root, cfg->sandbox.request, false, &rc, err)) < 0) {
			error_prefix(err, OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT);
			return r;
		}
		dirfd = rc.dirfd;
	}
	o->request_fd = openat(dirfd, TOTAL_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	r = o->request_fd < 0 ? error_sys(err, errno, "%s: the request's %s", OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT,
					  TOTAL_FILE) : 0;
	container_close(&rc);
	return r;
}

void output_child_stdio(const int child[2])
{
	dup2(child[0], STDOUT_FILENO);
	dup2(child[1], STDERR_FILENO);
}

/* The request's total, under its lock: up to `want` more bytes taken */
static uint64_t request_take(struct output_relay *o, uint64_t want)
{
	char buf[32];
	uint64_t total = 0, take;
	ssize_t n;
	int len;

	if (o->request_fd < 0 || !want)
		return want;
	if (flock(o->request_fd, LOCK_EX) < 0)
		return 0;
	if ((n = pread(o->request_fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = 0;
		total = strtoull(buf, NULL, 10);
	}
	take = total >= o->request_limit ? 0 : o->request_limit - total < want ? o->request_limit - total : want;
	len = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)(total + take));
	if (take && (pwrite(o->request_fd, buf, len, 0) != len || ftruncate(o->request_fd, len) < 0))
		take = 0;
	flock(o->request_fd, LOCK_UN);
	return take;
}

/* Past a limit: the task's whole cgroup and its init, once */
static void end_task(struct output_relay *o)
{
	struct error err;

	if (o->ended)
		return;
	o->ended = true;
	if (o->cg && o->cg->path && cgroup_kill_all(o->cg, SIGKILL, &err) < 0)
		log_warn("%s", err.msg);
	if (o->pid > 0)
		kill(o->pid, SIGKILL);
}

static void pass_on(int to, const char *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;   /* our reader is gone: the bytes are dropped, the task read on */
		off += (size_t)w;
	}
}

/* One read of stream i: >0 bytes read, 0 nothing now, <0 closed */
static ssize_t pump_once(struct output_relay *o, int i)
{
	static char buf[CHUNK];
	ssize_t n = read(o->fd[i], buf, sizeof(buf));
	uint64_t pass, room;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(o->fd[i]);
		o->fd[i] = -1;
		return -1;
	}
	if (n < 0)
		return 0;
	o->written[i] += (uint64_t)n;
	pass = o->truncated[i] ? 0 : (uint64_t)n;
	if (o->limit) {
		room = o->limit > o->passed[i] ? o->limit - o->passed[i] : 0;
		pass = pass < room ? pass : room;
	}
	pass = request_take(o, pass);
	pass_on(i ? STDERR_FILENO : STDOUT_FILENO, buf, pass);
	o->passed[i] += pass;
	if (pass < (uint64_t)n && !o->truncated[i]) {
		o->truncated[i] = true;
		end_task(o);
	}
	return n;
}

void output_pump(struct output_relay *o, int i)
{
	if (o->fd[i] >= 0)
		pump_once(o, i);
}

void output_drain(struct output_relay *o)
{
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < DRAIN_READS && o->fd[i] >= 0 && pump_once(o, i) > 0; k++)
			;
}

/* the reasons that rank above output-limit (result.h) */
static bool ranks_above(const char *reason)
{
	static const char *const above[] = { "not-started", "infrastructure-failure", "timeout", "cpu-time" };

	for (size_t i = 0; i < sizeof(above) / sizeof(above[0]); i++)
		if (strcmp(reason, above[i]) == 0)
			return true;
	return false;
}

void output_result(const struct output_relay *o, struct oci_exit *e)
{
	if (!o->on)
		return;
	e->has_output = true;
	e->stdout_bytes = o->written[0];
	e->stderr_bytes = o->written[1];
	e->stdout_truncated = o->truncated[0];
	e->stderr_truncated = o->truncated[1];
	if (o->ended && !ranks_above(e->reason))
		e->reason = "output-limit";
}

void output_close(struct output_relay *o)
{
	int *fds[] = { &o->fd[0], &o->fd[1], &o->child[0], &o->child[1], &o->request_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}
