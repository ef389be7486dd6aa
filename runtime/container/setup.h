/* The one process-setup path: the tail both children run, the container's
 * init (child.c) and an exec'd process (exec.c), from "no host fd left" to
 * execve. Everything before it (namespaces, rootfs, cgroup, limits, labels)
 * is each child's own; the order in here is a security order, keep it:
 *
 *   setup_tail()                                      both
 *     1. close every fd of the runtime (CVE-2024-21626): all from first_fd
 *        up but keep[] (the sync socket; create: the O_PATH exec fifo and
 *        the container's /proc/thread-self/fd it is reopened through, and
 *        the pipes to run.oci.hooks.stdout/.stderr while startContainer
 *        hooks are to run: never the host's files, hooks.h's relay copies)
 *     2. forget the log file (its fd is gone)
 *     3. make_cwd (create): mkdir -p process.cwd
 *     4. seccomp point SETUP_AS_ROOT
 *     5. env (exec): process.env with HOME, read from the container's passwd
 *     6. drop the bounding set (needs CAP_SETPCAP: before the uid change)
 *     7. become the user: cwd entered as root (retried as the user), stdio
 *        owner, groups, gid, uid, cwd inside the root, capabilities, umask
 *     8. find the program in process.env's PATH
 *     9. the runtime-binary check (CVE-2019-5736 class)
 *    10. NoNewPrivileges
 *    11. seccomp point SETUP_AFTER_NNP
 *   [create only: SYNC_CREATED, wait for `start` (the exec fifo or
 *    SYNC_START)]
 *   setup_start()                                     both
 *    12. seccomp point SETUP_AFTER_START
 *   [create only: startContainer hooks, under the filter as in runc]
 *   setup_exec()                                      both
 *    13. Landlock (runtime/sandbox/fence.h: after every mount, the start wait and the
 *        hooks; the init's execveat of its memfd is not a path it checks)
 *        and execve (run.tinyrun.init: execveat of the sealed tinyrun-init,
 *        which forks the program as PID 2 and stays PID 1: after every
 *        step above, so it runs as the user, with NoNewPrivileges and the
 *        capabilities of the program; with NoNewPrivileges and no notify
 *        action the task loads the filter itself (init.c), not here)
 *
 * The filter is loaded at exactly one of the three points: setup.c's
 * setup_seccomp owns that rule. */
#ifndef TINYRUN_SETUP_H
#define TINYRUN_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/sandbox/limits.h"
#include "runtime/container/process.h"
#include "seccomp/seccomp.h"

struct setup {
	const struct oci_process *p;
	int sync_fd;                        /* to the parent: the seccomp notify fd goes there */
	int first_fd;                       /* 3 + --preserve-fds: from here up the fds are the runtime's */
	int keep[9];                        /* of those, the ones that stay open (-1 or 0: none) */
#define SETUP_KEEP_FIFO_DIR 4               /* create: keep[] slot of the exec fifo's /proc/thread-self/fd */
#define SETUP_KEEP_HOOKS_OUT 5              /* create: 5-7, the relay's pipes of run.oci.hooks.stdout/.stderr (hooks.h) */
#define SETUP_KEEP_CPU_USAGE 8              /* create, with the init: the time limits' CPU usage file (runtime/sandbox/limits.h) */
	bool make_cwd;                      /* create: make process.cwd (mkdir -p) */
	enum setgroups_mode groups;         /* process_become_user's (process.h) */
	const struct seccomp_prog *seccomp; /* the compiled linux.seccomp, or NULL */
	char ***env;                        /* exec: set at step 5 (create reads it after pivot_root) */
	dev_t self_dev;                     /* the runtime binary (/proc/self/exe, taken by the parent) */
	ino_t self_ino;
	bool use_init;                      /* run.tinyrun.init: exec tinyrun-init from init_fd */
	int init_fd;                        /* the sealed memfd of tinyrun-init (init-image.h) */
	int status_fd;                      /* <state dir>/exit-status, written by tinyrun-init */
	const struct oci_config *fence_cfg; /* its Landlock rules (runtime/sandbox/fence.h), when landlock_abi > 0 */
	int landlock_abi;                   /* > 0: Landlock at this ABI right before the execve */
	const struct limits_plan *limits;   /* the time limits tinyrun-init enforces, or NULL */
};

/* The seccomp points, in the order the path reaches them. */
enum setup_point {
	SETUP_AS_ROOT,        /* fds closed, still root with every capability */
	SETUP_AFTER_NNP,      /* the user, its capabilities, NoNewPrivileges set */
	SETUP_AFTER_START,    /* after the start wait, before startContainer hooks and execve */
};

/* Where a filter goes in for process p (notify: the filter has an
 * SCMP_ACT_NOTIFY action). The rule, with its reasons, is in setup.c. */
enum setup_point setup_seccomp_point(const struct oci_process *p, bool notify);

/* Steps 1 to 11; exe (PATH_MAX bytes) gets the program's path. 0 or a
 * negative errno with err filled. */
int setup_tail(const struct setup *s, char *exe, struct error *err);
/* Step 12: 0 or a negative errno with err filled. */
int setup_start(const struct setup *s, struct error *err);
/* Step 13 with environment env: returns only on failure (err filled, in
 * runc's lower-case wording, which clients match). */
int setup_exec(const struct setup *s, const char *exe, char **env, struct error *err);

#endif
