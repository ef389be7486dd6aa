/* Container creation: the parent side (create.c) and the child side
 * (child.c) of one clone, talking over the sync socket (sync.h). */
#ifndef TINYRUN_CREATE_H
#define TINYRUN_CREATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/join.h"
#include "runtime/cli.h"
#include "oci/config.h"
#include "seccomp/seccomp.h"
#include "runtime/container/statedir.h"
#include "runtime/sandbox/limits.h"

struct create_opts {
	const char *id;
	const char *bundle;          /* absolute */
	const char *config_file;     /* --config (crun): NULL = config.json */
	const char *config_path;     /* <bundle>/config.json */
	const char *pid_file;
	const char *console_socket;
	const char *pidfd_socket;    /* --pidfd-socket: the init's pidfd goes there */
	bool no_pivot;
	bool no_new_keyring;
	int preserve_fds;
	bool run_mode;               /* run: no exec fifo, the parent sends SYNC_START */
	bool notify;                 /* NOTIFY_SOCKET: notify_plan added its mount (notify.h) */
	const int *output_fds;       /* run.tinyrun.output-limit: the task's stdout and stderr
	                              * (runtime/sandbox/output.h), or NULL: the runtime's own */
	bool foreground;             /* run without --detach: it waits, so it can enforce the time
	                              * limits without the init (runtime/sandbox/limits.h) */
};

/* Everything the child needs, computed before clone. */
struct child_ctx {
	const struct create_opts *o;
	const struct oci_config *cfg;
	const char *rootfs;          /* absolute, resolved */
	int sync_fd;                 /* child's end */
	int parent_sync_fd;          /* the parent's end: the child closes it first (EOF = creator gone) */
	int fifo_fd;                 /* O_PATH exec.fifo, -1 in run mode */
	int fifo_w;                  /* child: the fifo opened for writing once started, or -1 */
	int fifo_dir;                /* child: the container's /proc/self/fd (O_PATH), opened before
	                              * any filter (one loaded as root may deny openat2), or -1 */
	int state_dirfd;             /* the parent's locked state dir: the child must drop it */
	int clone_ns;                /* CLONE_NEW* flags created by clone itself */
	int unshare_ns;              /* slow path: created by unshare in the child */
	bool join_any;               /* some namespace has a path */
	bool must_fork;              /* slow path needs a fork to enter the pid/time ns */
	bool userns;                 /* the container has a (new or joined) user ns */
	dev_t self_dev;              /* the runtime binary (/proc/self/exe) */
	ino_t self_ino;
	bool selinux;                /* SELinux enabled on the host (labels apply) */
	bool rootless;               /* run by an unprivileged user */
	struct cgroup_join join;     /* how the child joins its cgroup by itself */
	const char *cgroup_path;     /* the container's cgroup (every hierarchy), or NULL */
	bool late_cgroupns;          /* unshare the cgroup namespace once joined (v1) */
	bool hook_sync;              /* prestart/createRuntime/createContainer hooks exist */
	int *mount_fds;              /* idmapped trees made before clone, or NULL */
	int *dev_fds;                /* linux.devices' nodes made before clone (user namespace), or NULL */
	const char *root_data;       /* the "/" overlay's data with its scratch (runtime/sandbox/scratch.h), or NULL */
	int request_mnt_fd;          /* run.tinyrun.sandbox.request: the request's mount ns, or -1 */
	bool has_seccomp;
	struct seccomp_prog seccomp;
	int init_fd;                 /* run.tinyrun.init: sealed memfd of tinyrun-init, or -1 */
	int status_fd;               /* run.tinyrun.init: <state dir>/exit-status for it, or -1 */
	int creator_pidfd;           /* pidfd of the creating tinyrun: the child dies with it */
	pid_t creator_pid;
	int landlock_abi;            /* fence_plan's (runtime/sandbox/fence.h): -1 none asked, 0 none in the kernel */
	const struct limits_plan *limits; /* the time limits (runtime/sandbox/limits.h) */
};

/* What create leaves for run/start. */
struct created {
	pid_t pid;
	uint64_t pid_start_time;     /* the init's, read when its "init" record was written */
	int pidfd;                   /* -1 when the init is not our child (slow path) */
	int sync_fd;                 /* parent end, still open in run mode */
	int pty_master;              /* run without --console-socket, terminal: true */
	struct cgroup cg;
	struct limits_plan limits;   /* the time limits (runtime/sandbox/limits.h): run's watch without the init */
	int *bind_srcs;              /* the child's mount fds (rootfs_mount_fds_open), ours; NULL: none */
	size_t n_mounts;
};

/* Create the container: on success the init process is blocked before exec
 * and the state is saved; on failure nothing is left behind. */
int container_create(const struct global_opts *g, const struct create_opts *o,
		     struct oci_config *cfg, const char *config_json, size_t config_len,
		     struct container *c, struct created *out, struct error *err);

/* root.path against the bundle, resolved (realpath), a directory; mounts'
 * destinations given below it made relative to it (runc). out: PATH_MAX. */
int container_resolve_rootfs(struct oci_config *cfg, const char *bundle, char *out, struct error *err);
/* Child side: never returns. */
__attribute__((noreturn)) void container_child_main(struct child_ctx *ctx);

/* Undo a container: kill its processes, destroy the cgroup, remove the state
 * dir. Used by failed creates and by delete. */
void container_teardown(struct container *c, struct cgroup *cg, pid_t pid);

/* The spec state JSON for hooks (status as given). *out malloc'd. */
int container_state_json(const struct container *c, const char *status, char **out, size_t *len,
			 struct error *err);

#endif
