#include "runtime/container/hooks.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/callerenv.h"
#include "runtime/container/hooks_output.h"
#include "runtime/log.h"

static const char *const kind_names[OCI_HOOK_KINDS] = {
	"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop",
};

const char *hooks_kind_name(enum oci_hook_kind kind)
{
	return kind_names[kind];
}

/* createContainer and startContainer hooks run in the container. */
static bool in_container(enum oci_hook_kind kind)
{
	return kind == OCI_HOOK_CREATE_CONTAINER || kind == OCI_HOOK_START_CONTAINER;
}

/* Every fd above stderr: preserved fds (--preserve-fds, LISTEN_FDS) are the
 * container's, and nothing else of the runtime's belongs to a hook. */
static void close_from_3(void)
{
	long max;

	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	max = sysconf(_SC_OPEN_MAX);
	for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		close((int)fd);
}

/* A host hook without "env" gets the runtime's caller's environment (runc,
 * crun: hooks look up PATH), as captured at our start (oci/callerenv.h),
 * never `environ`: the image's process.env must never reach a program that
 * runs as root on the host; "env": [] means an empty one. A hook in the container
 * without "env" gets the container process's (process.env, as runc's init
 * hands its own on), never the caller's: its secrets must not reach the
 * image. Every hook gets only stdin (the state), stdout and stderr. */
static void hook_child(const struct oci_hook *h, enum oci_hook_kind kind, int in_fd,
		       char *const *process_env)
{
	static char *const no_env[] = { NULL };
	char *const argv0[] = { h->path, NULL };
	int out, errfd;

	hooks_output_for(kind, &out, &errfd);
	if (dup2(in_fd, STDIN_FILENO) < 0)
		_exit(127);
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	if (errfd >= 0)
		dup2(errfd, STDERR_FILENO);
	close_from_3();
	if (!in_container(kind))
		process_env = callerenv_list();
	execve(h->path, h->n_args ? h->args : argv0, h->env ? h->env : process_env ? process_env : no_env);
	dprintf(STDERR_FILENO, "tinyrun: hook %s: %s\n", h->path, strerror(errno));
	_exit(127);
}

/* Feed the state and wait, killing the hook after its timeout. The pipe may
 * be closed early by a hook that does not read stdin: ignore EPIPE. */
static int hook_wait(pid_t pid, int pidfd, int timeout_s, int *status)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, timeout_s > 0 ? timeout_s * 1000 : -1);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
		return -ETIMEDOUT;
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static int hook_run_one(const struct oci_hook *h, enum oci_hook_kind kind, char *const *process_env,
			const char *json, size_t len, struct error *err)
{
	int pfd[2], pidfd, status = 0, r;
	void (*old)(int);
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return error_sys(err, errno, "hook %s: pipe", h->path);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error_sys(err, errno, "hook %s: fork", h->path);
	}
	if (pid == 0)
		hook_child(h, kind, pfd[0], process_env);
	close(pfd[0]);
	old = signal(SIGPIPE, SIG_IGN);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(pfd[1], json + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += n;
	}
	close(pfd[1]);
	signal(SIGPIPE, old);
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		r = waitpid(pid, &status, 0) < 0 ? -errno : 0;
	else {
		r = hook_wait(pid, pidfd, h->has_timeout ? h->timeout : 0, &status);
		close(pidfd);
	}
	if (r == -ETIMEDOUT)
		/* runc's words after ours */
		return error_set(err, ETIMEDOUT, "hook %s: timed out: hook ran past specified timeout of %d.0s",
				 h->path, h->timeout);
	if (r < 0)
		return error_sys(err, -r, "hook %s: wait", h->path);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status)) {
		/* with the signal's name in lower case, as runc (Go) says it */
		char name[64];

		snprintf(name, sizeof(name), "%s", strsignal(WTERMSIG(status)));
		for (char *q = name; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		return error_set(err, ECANCELED, "hook %s: killed by signal %d: %s", h->path, WTERMSIG(status), name);
	}
	return error_set(err, ECANCELED, "hook %s: exit status %d", h->path, WEXITSTATUS(status));
}

int hooks_run(const struct oci_hooks *hooks, enum oci_hook_kind kind, char *const *process_env,
	      const char *state_json, size_t len, struct error *err)
{
	int r = 0;

	if (hooks->n[kind] && !in_container(kind) && hooks_output_open(hooks, err) < 0)
		return -err->code;
	for (size_t i = 0; i < hooks->n[kind]; i++) {
		log_debug("running %s hook %s", kind_names[kind], hooks->list[kind][i].path);
		r = hook_run_one(&hooks->list[kind][i], kind, process_env, state_json, len, err);
		if (r < 0) {
			error_prefix(err, "error running %s hook #%zu", kind_names[kind], i);
			break;
		}
	}
	hooks_output_done(kind);
	return r;
}

void hooks_run_warn(const struct oci_hooks *hooks, enum oci_hook_kind kind,
		    const char *state_json, size_t len)
{
	struct error oerr;

	if (hooks->n[kind] && hooks_output_open(hooks, &oerr) < 0)
		log_warn("%s", oerr.msg);
	for (size_t i = 0; i < hooks->n[kind]; i++) {
		struct error err;

		if (hook_run_one(&hooks->list[kind][i], kind, NULL, state_json, len, &err) < 0)
			log_warn("error running %s hook #%zu: %s", kind_names[kind], i, err.msg);
	}
}
