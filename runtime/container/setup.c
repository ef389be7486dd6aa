/* The process-setup tail shared by the container's init and exec: see setup.h
 * for the steps and their order. */
#include "runtime/container/setup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/sandbox/fence.h"
#include "runtime/container/process.h"
#include "runtime/container/sync.h"
#include "runtime/log.h"

enum setup_point setup_seccomp_point(const struct oci_process *p, bool notify)
{
	/* Without NoNewPrivileges the kernel takes a filter only from a task
	 * with CAP_SYS_ADMIN: load it while still root, before the bounding
	 * set, the uid and the capabilities change (as runc). The filter then
	 * must allow the rest of the set-up, as in runc. */
	if (!p->no_new_privileges)
		return SETUP_AS_ROOT;
	/* A notify filter hands its listener fd to the runtime, which must
	 * still be listening: create's parent stops at SYNC_CREATED, so the
	 * filter goes in right after NoNewPrivileges, before the start wait. */
	if (notify)
		return SETUP_AFTER_NNP;
	/* Otherwise as late as possible: after the start wait (the exec fifo),
	 * so that as little as possible of the runtime's own code runs under the
	 * container's filter; startContainer hooks do run under it, as in runc.
	 * In exec nothing lies between NoNewPrivileges and here. */
	return SETUP_AFTER_START;
}

/* Called at every point; loads the filter at the one the rule picks, and
 * sends a notify listener fd to the parent (SYNC_SECCOMP_FD). */
/* With tinyrun-init and NoNewPrivileges the task loads the filter itself
 * (init.c), so the init can fork under a filter that denies it; a notify
 * filter (its listener goes to our parent) and one that must go in as root
 * stay here. */
static bool init_loads_filter(const struct setup *s)
{
	return s->use_init && s->seccomp && s->p->no_new_privileges && !s->seccomp->notify;
}

static int setup_seccomp(const struct setup *s, enum setup_point at, struct error *err)
{
	int r;

	if (!s->seccomp || init_loads_filter(s) || setup_seccomp_point(s->p, s->seccomp->notify) != at)
		return 0;
	r = seccomp_prog_load(s->seccomp, err);
	if (r <= 0)
		return r;
	/* the notify fd: the parent hands it to linux.seccomp.listenerPath */
	return sync_send_fd(s->sync_fd, SYNC_SECCOMP_FD, r, "seccomp: send the notify fd", err);
}

static int mkdir_cwd(const char *cwd)
{
	char path[4096];

	if (strlen(cwd) >= sizeof(path))
		return -ENAMETOOLONG;
	if (strcmp(cwd, "/") == 0)
		return 0;       /* the root is there */
	strcpy(path, cwd);
	for (char *p = path + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = 0;
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int setup_tail(const struct setup *s, char *exe, struct error *err)
{
	const struct oci_process *p = s->p;
	struct stat exe_st;
	struct process_caps held;
	int r;

	/* while the --log fd is still open */
	process_warn_ungrantable(p, &held);
	/* CVE-2024-21626: the cwd, PATH and program are the container's; no
	 * host fd may be open while they are resolved (the sync socket and the
	 * O_PATH exec fifo lead nowhere: not directories, not executable) */
	if ((r = process_close_fds(s->first_fd, s->keep, sizeof(s->keep) / sizeof(s->keep[0]), err)) < 0)
		return r;
	log_forget_file();
	if (s->make_cwd && (r = mkdir_cwd(p->cwd)) < 0)
		return error_sys(err, -r, "process.cwd %s", p->cwd);
	if ((r = setup_seccomp(s, SETUP_AS_ROOT, err)) < 0)
		return r;
	if (s->env)
		*s->env = process_env_final(p, NULL);
	if ((r = process_drop_bounding(p, err)) < 0 ||
	    (r = process_become_user(p, s->groups, &held, err)) < 0 ||
	    (r = process_find_exec(p, exe, PATH_MAX, &exe_st, err)) < 0 ||
	    (r = process_check_not_runtime(exe, &exe_st, s->self_dev, s->self_ino, err)) < 0 ||
	    (r = process_set_no_new_privs(p, err)) < 0)
		return r;
	return setup_seccomp(s, SETUP_AFTER_NNP, err);
}

int setup_start(const struct setup *s, struct error *err)
{
	return setup_seccomp(s, SETUP_AFTER_START, err);
}

/* tinyrun-init STATUS_FD FILTER_FD FILTER_FLAGS WALL_MS CPU_MS CPU_FD
 * CPU_KIND EXE ARG0 ...: from its sealed memfd, so that /proc/1/exe is
 * that anonymous file; the status fd and the time limits' CPU usage fd
 * (and nothing else of the runtime's) go through the exec. */
static int exec_init(const struct setup *s, const char *exe, char **env, struct error *err)
{
	size_t n = 0;
	char fd[16], filter[16] = "-1", flags[16] = "0", limits[4][24];

	while (s->p->args[n])
		n++;
	char *argv[n + 10];

	if (init_loads_filter(s)) {
		size_t len = (size_t)s->seccomp->len * sizeof(s->seccomp->filter[0]);
		int mfd = memfd_create("tinyrun-seccomp", 0);

		if (mfd < 0 || write(mfd, s->seccomp->filter, len) != (ssize_t)len)
			return error_sys(err, errno, "run.tinyrun.init: the seccomp filter for the init");
		snprintf(filter, sizeof(filter), "%d", mfd);
		snprintf(flags, sizeof(flags), "%u", s->seccomp->flags);
	}
	snprintf(fd, sizeof(fd), "%d", s->status_fd);
	argv[0] = "tinyrun-init";
	argv[1] = fd;
	argv[2] = filter;
	argv[3] = flags;
	limits_init_args(s->limits, limits);   /* the wall clock starts now */
	for (size_t i = 0; i < 4; i++)
		argv[4 + i] = limits[i];
	argv[8] = (char *)exe;
	for (size_t i = 0; i <= n; i++)
		argv[9 + i] = s->p->args[i];
	if (s->status_fd >= 0 && fcntl(s->status_fd, F_SETFD, 0) < 0)
		return error_sys(err, errno, "run.tinyrun.init: status fd");
	syscall(SYS_execveat, s->init_fd, "", argv, env, AT_EMPTY_PATH);
	return error_sys_lc(err, errno, "exec tinyrun-init (for %s)", exe);
}

/* env goes to execve only: `environ` is the runtime's (a child cloned with
 * CLONE_VM shares it), never the container's (oci/callerenv.h) */
int setup_exec(const struct setup *s, const char *exe, char **env, struct error *err)
{
	if (s->landlock_abi > 0 && fence_apply(s->fence_cfg, s->landlock_abi, err) < 0)
		return -1;
	if (s->use_init)
		return exec_init(s, exe, env, err);
	execve(exe, s->p->args, env);
	return error_sys_lc(err, errno, "exec %s", exe);
}
