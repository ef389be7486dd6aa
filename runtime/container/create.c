/* Parent side of container creation: plan, state dir, clone, save state; the
 * answers to the child between clone and SYNC_CREATED are parent.c's. */
#include "runtime/container/create.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "runtime/linux/attrs.h"
#include "runtime/container/create_log.h"
#include "runtime/sandbox/fence.h"
#include "runtime/container/gc.h"
#include "runtime/container/hooks.h"
#include "runtime/container/init-image.h"
#include "rootfs/rootfs.h"
#include "runtime/log.h"
#include "oci/util.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/rdt.h"
#include "runtime/container/notify.h"
#include "runtime/container/parent.h"
#include "runtime/container/process.h"
#include "runtime/sandbox/scratch.h"
#include "runtime/sandbox/room.h"
#include "runtime/container/sync.h"
#include "runtime/linux/sysctl.h"
#include "runtime/linux/pidfd.h"
#include "runtime/linux/procfs.h"

/* The config checks of create (oci_config_check_create) and those that
 * take the options or the host into account. */
static int plan_check(const struct oci_config *cfg, const struct create_opts *o, struct error *err)
{
	int r;

	if ((r = oci_config_check_create(cfg, err)) < 0)
		return r;
	if (cfg->process.terminal && !o->console_socket && !o->run_mode)
		return error_set(err, EINVAL, "process.terminal is true: --console-socket is required when the runtime detaches");
	if (!cfg->process.terminal && o->console_socket)
		return error_set(err, EINVAL, "--console-socket given but process.terminal is false");
	return sysctl_check(&cfg->linux_, err);
}

/* realpath(PATH) when PATH is BASE, a real path (realpath's own answer, not
 * "/"), then "/" and plain names: realpath's readlink of each of BASE's
 * components again is skipped, the names' are done as realpath does them.
 * Anything else (".", "..", "//", a symlink among the names, an error) is
 * realpath's, from the start. */
static char *realpath_below(const char *base, const char *path, char *out)
{
	size_t blen = strlen(base), len = strlen(path);
	char buf[PATH_MAX], link[2];
	const char *name;

	if (blen < 2 || base[0] != '/' || strncmp(path, base, blen) || path[blen] != '/' || len >= sizeof(buf))
		return realpath(path, out);
	memcpy(buf, path, len + 1);
	for (name = buf + blen + 1;; name = buf + blen + 1) {
		char *end = strchr(name, '/');
		size_t nlen = end ? (size_t)(end - name) : strlen(name);

		if (nlen == 0 || (nlen == 1 && name[0] == '.') || (nlen == 2 && name[0] == '.' && name[1] == '.'))
			return realpath(path, out);
		if (end)
			*end = '\0';
		if (readlink(buf, link, sizeof(link)) >= 0 || errno != EINVAL)
			return realpath(path, out);
		if (!end)
			break;
		*end = '/';
		blen = (size_t)(end - buf);
	}
	memcpy(out, path, len + 1);
	return out;
}

/* The rootfs' real path; mounts[].destination naming paths inside it are
 * then taken relative to it (runc). BUNDLE is a real path (bundle_read's). */
int container_resolve_rootfs(struct oci_config *cfg, const char *bundle, char *out, struct error *err)
{
	char joined[PATH_MAX];
	struct stat sb;

	if (cfg->root_path[0] == '/')
		snprintf(joined, sizeof(joined), "%s", cfg->root_path);
	else if (snprintf(joined, sizeof(joined), "%s/%s", bundle, cfg->root_path) >= (int)sizeof(joined))
		return error_set(err, ENAMETOOLONG, "config.json: .root.path: too long");
	/* the bundle's own components were read as links by bundle_read already */
	if (!realpath_below(bundle, joined, out))
		return error_sys(err, errno, "config.json: .root.path %s", joined);
	if (stat(out, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return error_set(err, ENOTDIR, "config.json: .root.path %s: not a directory", out);
	if (oci_mounts_strip_root(cfg, out) < 0)
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

int container_state_json(const struct container *c, const char *status, char **out, size_t *len,
			 struct error *err)
{
	return oci_state_to_json(&c->st, status, true, out, len, err);
}

static pid_t clone_child(struct child_ctx *ctx, struct created *out, bool into_cgroup)
{
	struct clone_args ca = {
		.flags = (uint64_t)ctx->clone_ns | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&out->pidfd,
		.exit_signal = SIGCHLD,
	};
	pid_t pid;

	if (into_cgroup) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = ctx->join.clone_dirfd;
	}
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0 && errno == ENOSYS && !into_cgroup) {
		out->pidfd = -1;
		pid = syscall(SYS_clone, ctx->clone_ns | SIGCHLD, 0, NULL, NULL, 0);
	}
	if (pid == 0)
		container_child_main(ctx);
	return pid;
}

/* Into the cgroup2 directly when we can; otherwise the child writes its
 * cgroup.procs itself (and makes its cgroup namespace after that). */
static pid_t do_clone(struct child_ctx *ctx, struct created *out, struct error *err)
{
	pid_t pid;

	if (ctx->join.clone_dirfd >= 0) {
		pid = clone_child(ctx, out, true);
		if (pid >= 0 || (errno != EOPNOTSUPP && errno != EBUSY && errno != EINVAL && errno != ENOSYS))
			return pid < 0 ? error_sys(err, errno, "clone") : pid;
		log_debug("clone3 into the cgroup: %s; the child joins it by itself", strerror(errno));
		if (cgroup_join_without_clone(&out->cg, &ctx->join, err) < 0)
			return -1;
		if (ctx->clone_ns & CLONE_NEWCGROUP) {
			ctx->clone_ns &= ~CLONE_NEWCGROUP;
			ctx->late_cgroupns = true;
		}
	}
	pid = clone_child(ctx, out, false);
	return pid < 0 ? error_sys(err, errno, "clone") : pid;
}

void container_teardown(struct container *c, struct cgroup *cg, pid_t pid)
{
	struct error err;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
	}
	if (cg && cg->path && cgroup_destroy(cg, &err) < 0)
		log_warn("%s", err.msg);
	container_dir_remove(c);
}

static int save_copy_of_config(struct container *c, const char *json, size_t len, struct error *err)
{
	int fd = openat(c->dirfd, "config.json", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, json, len) != (ssize_t)len) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_sys(err, e, "%s/config.json", c->dir);
	}
	close(fd);
	return 0;
}

static void plan_namespaces(struct child_ctx *ctx, const struct oci_config *cfg)
{
	struct ns_plan p;

	ns_plan_make(&cfg->linux_, &p);
	ctx->clone_ns = p.clone_ns;
	ctx->unshare_ns = p.unshare_ns;
	ctx->join_any = p.join_any;
	ctx->must_fork = p.must_fork;
	ctx->userns = p.userns;
}

/* runtime.md: a failed create goes on with the lifecycle's end: the
 * container is stopped, then the poststop hooks run (failures only warn). */
static void poststop_after_failure(struct container *c, const struct oci_config *cfg, pid_t pid)
{
	struct error err;
	char *json;
	size_t len;

	kill(pid, SIGKILL);
	waitpid(pid, NULL, __WALL);
	c->st.pid = 0;
	if (container_state_json(c, "stopped", &json, &len, &err) == 0) {
		hooks_run_warn(&cfg->hooks, OCI_HOOK_POSTSTOP, json, len);
		free(json);
	}
}

static bool has_resources(const struct oci_config *cfg)
{
	const struct oci_resources *r = &cfg->linux_.resources;

	return cfg->linux_.has_resources &&
	       (r->has_memory || r->has_cpu || r->has_pids || r->has_blkio || r->n_hugepage_limits ||
		r->has_network || r->n_rdma || r->n_unified);
}

static bool any_create_hooks(const struct oci_hooks *h)
{
	return h->n[OCI_HOOK_PRESTART] || h->n[OCI_HOOK_CREATE_RUNTIME] ||
	       h->n[OCI_HOOK_CREATE_CONTAINER] || h->n[OCI_HOOK_START_CONTAINER];
}

/* Everything the child needs that can be computed before the state exists. */
static int prepare_child_ctx(const struct global_opts *g, const struct create_opts *o,
			     const struct oci_config *cfg, struct child_ctx *ctx, struct error *err)
{
	int r;

	plan_namespaces(ctx, cfg);
	process_runtime_binary(&ctx->self_dev, &ctx->self_ino);
	/* the kernel's last capability, probed here once: the child reads the
	 * cached answer (its own probe would write, so copy, the page it is on) */
	process_cap_last_cap();
	ctx->hook_sync = any_create_hooks(&cfg->hooks);
	/* the container's hooks write into the relay's pipes (hooks.h) */
	if (ctx->hook_sync && (r = hooks_output_start(&cfg->hooks, err)) < 0)
		return r;
	ctx->rootless = geteuid() != 0;
	if (cfg->linux_.mount_label || cfg->process.selinux_label) {
		ctx->selinux = attrs_selinux_enabled();
		if (!ctx->selinux)
			log_debug("SELinux is not enabled: linux.mountLabel and process.selinuxLabel are ignored");
	}
	ctx->landlock_abi = fence_plan(cfg);
	if (cfg->init && (ctx->init_fd = init_image_memfd(err)) < 0)
		return ctx->init_fd;
	if (cfg->linux_.has_seccomp) {
		char cache[4200];

		if ((r = seccomp_compile(&cfg->linux_.seccomp, seccomp_cache_dir(cache, sizeof(cache), g->users_runtime, log_debug_msg),
					 log_debug_msg, &ctx->seccomp, err)) < 0)
			return r;
		ctx->has_seccomp = true;
	}
	/* idmapped mounts, (user namespace) bind sources and device nodes: made
	 * here, with the host's credentials */
	if ((r = rootfs_dev_nodes_open(cfg, ctx->userns, &ctx->dev_fds, err)) < 0)
		return r;
	return rootfs_mount_fds_open(cfg, o->bundle, ctx->rootfs, ctx->userns, &ctx->mount_fds, err);
}

/* NOTIFY_SOCKET: the state dir's notify/, the last mount's source (notify_plan).
 * With a user namespace the runtime clones it (the container's root may not
 * reach the state dir), as the other bind sources (rootfs/hostfds.c). */
static int notify_source(const struct oci_config *cfg, struct container *c, struct child_ctx *ctx,
			 struct error *err)
{
	size_t n = cfg->n_mounts;
	int r;

	if ((r = notify_dir_make(c->dirfd, err)) < 0 || !ctx->userns)
		return r;
	if (!ctx->mount_fds) {
		if (!(ctx->mount_fds = malloc(2 * n * sizeof(int))))
			return error_set(err, ENOMEM, "out of memory");
		for (size_t i = 0; i < 2 * n; i++)
			ctx->mount_fds[i] = -1;
	}
	/* opened again through the child's root once it exists (rootfs/hostfds.c) */
	ctx->mount_fds[2 * n - 1] = openat(c->dirfd, "notify", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

static void release_child_ctx(struct child_ctx *ctx, const struct oci_config *cfg)
{
	cgroup_join_close(&ctx->join);
	if (ctx->init_fd >= 0)
		close(ctx->init_fd);
	if (ctx->status_fd >= 0)
		close(ctx->status_fd);
	if (ctx->creator_pidfd >= 0)
		close(ctx->creator_pidfd);
	ctx->init_fd = ctx->status_fd = ctx->creator_pidfd = -1;
	rootfs_mount_fds_close(ctx->mount_fds, cfg->n_mounts);
	ctx->mount_fds = NULL;
	rootfs_dev_nodes_close(ctx->dev_fds, cfg->linux_.n_devices);
	ctx->dev_fds = NULL;
	if (ctx->has_seccomp)
		seccomp_prog_free(&ctx->seccomp);
}

/* runc's rootless cgroup manager: --rootless true|false, else (auto) a
 * caller other than root or root in a user namespace of its own (rootless
 * podman): a cgroup it may not make is skipped when no resource needs one */
static bool rootless_cgroups(const struct global_opts *g)
{
	return g->rootless >= 0 ? g->rootless : geteuid() != 0 || procfs_in_userns();
}

static int make_cgroup(const struct global_opts *g, const struct create_opts *o, const struct oci_config *cfg,
		       struct container *c, struct created *out, struct child_ctx *ctx, struct error *err)
{
	int r;

	if (g->no_cgroup) {
		/* crun's --cgroup-manager disabled: the caller's cgroup, nothing made */
		if (has_resources(cfg))
			log_warn("linux.resources ignored: --cgroup-manager disabled");
		out->cg.v2_dirfd = -1;
		return cgroup_join_prepare(&out->cg, &ctx->join, err);
	}
	/* cgroup_plan and cgroup_make close out->cg when they fail */
	if ((r = cgroup_plan(o->id, cfg, c->st.systemd_cgroup, &out->cg, err)) == 0 &&
	    (r = container_record_cgroup(c, out->cg.path, err)) < 0)
		cgroup_close(&out->cg);
	if (r == 0)
		r = cgroup_make(&out->cg, cfg, err);

	if (r < 0) {
		/* rootless, as runc: no cgroup is fine when no resource is asked for
		 * (cgroupfs only: systemd's refusal, an AccessDenied, stands) */
		if (c->st.systemd_cgroup != CGROUP_FS || !rootless_cgroups(g) ||
		    (r != -EACCES && r != -EPERM && r != -EROFS) || has_resources(cfg))
			return r;
		log_debug("rootless: no cgroup (%s)", err->msg);
		cgroup_close(&out->cg);
		memset(&out->cg, 0, sizeof(out->cg));
		out->cg.v2_dirfd = -1;
	}
	if ((r = cgroup_join_prepare(&out->cg, &ctx->join, err)) < 0)
		return r;
	ctx->cgroup_path = out->cg.path;
	if ((ctx->join.n || ctx->join.wait_parent) && (ctx->clone_ns & CLONE_NEWCGROUP)) {
		/* v1 or a systemd unit: the cgroup namespace waits until the child has joined */
		ctx->late_cgroupns = true;
		ctx->clone_ns &= ~CLONE_NEWCGROUP;
	}
	return 0;
}

/* run.tinyrun.scratch: this container's upper/work for the "/" overlay
 * (recorded in the state dir, removed with it) */
static int make_scratch(const struct create_opts *o, const struct oci_config *cfg, struct container *c,
			struct child_ctx *ctx, struct error *err)
{
	static char data[8400];
	int r;

	if (!cfg->tinyrun_scratch)
		return 0;
	if ((r = scratch_create(c->dirfd, cfg, o->bundle, o->id, data, sizeof(data), err)) < 0)
		return r;
	log_debug("scratch: %s/%s/%s", o->bundle, cfg->tinyrun_scratch, o->id);
	ctx->root_data = data;
	return 0;
}

/* The state dir and what hangs on it: config copy, cgroup, RDT group, exec fifo. */
static int make_state(const struct global_opts *g, const struct create_opts *o, const struct oci_config *cfg,
		      const char *config_json, size_t config_len, struct container *c, struct created *out,
		      struct child_ctx *ctx, bool *rdt_created, struct error *err)
{
	static char created_at[64];
	struct timespec now;
	int r;

	clock_gettime(CLOCK_REALTIME, &now);
	util_rfc3339(&now, created_at, sizeof(created_at));
	c->st = (struct container_state){
		.oci_version = cfg->oci_version, .id = (char *)o->id, .bundle = (char *)o->bundle,
		.rootfs = (char *)ctx->rootfs, .created = created_at, .owner = "",
		.annotations = cfg->annotations, .n_annotations = cfg->n_annotations,
		.systemd_cgroup = cli_cgroup_manager(g),
	};
	/* kept for exec (process defaults, seccomp) and the poststart/poststop hooks */
	/* tinyrun-init writes the task's wait status here (init.c) */
	if (cfg->init && (ctx->status_fd = openat(c->dirfd, "exit-status", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
						  0600)) < 0)
		return error_sys(err, errno, "%s/exit-status", c->dir);
	if ((r = fence_record(c->dirfd, ctx->landlock_abi, err)) < 0 ||
	    (r = save_copy_of_config(c, config_json, config_len, err)) < 0 ||
	    (r = make_scratch(o, cfg, c, ctx, err)) < 0 ||
	    (r = make_cgroup(g, o, cfg, c, out, ctx, err)) < 0)
		return r;
	c->st.cgroup_path = out->cg.path;
	if (cfg->linux_.has_intel_rdt && (r = rdt_prepare(o->id, &cfg->linux_.intel_rdt, rdt_created, err)) < 0)
		return r;
	if (o->run_mode)
		return 0;
	/* 0622 whatever the umask: the container's user (maybe not root) opens it */
	if (mkfifoat(c->dirfd, "exec.fifo", 0622) < 0 || fchmodat(c->dirfd, "exec.fifo", 0622, 0) < 0 ||
	    (ctx->fifo_fd = openat(c->dirfd, "exec.fifo", O_PATH | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "%s/exec.fifo", c->dir);
	return 0;
}

/* Clone the child, then what the parent does for it before it can go on. */
static int spawn(const struct create_opts *o, const struct oci_config *cfg, struct child_ctx *ctx,
		 struct created *out, int sv[2], struct error *err)
{
	int r;

	out->bind_srcs = ctx->userns ? ctx->mount_fds : NULL;
	out->n_mounts = cfg->n_mounts;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return error_sys(err, errno, "socketpair");
	ctx->sync_fd = sv[1];
	ctx->parent_sync_fd = sv[0];
	/* the child dies with us while it is being made (child.c) */
	ctx->creator_pid = getpid();
	ctx->creator_pidfd = syscall(SYS_pidfd_open, ctx->creator_pid, 0);
	if (o->run_mode && ctx->must_fork)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* the child starts in the bundle dir: chdir here, before a new user
	 * namespace could make the bundle unreachable for it (as runc) */
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (cwd < 0 || chdir(o->bundle) < 0) {
		r = error_sys(err, errno, "bundle %s", o->bundle);
		if (cwd >= 0)
			close(cwd);
		return r;
	}
	/* is AppArmor on: the host's answer, before the container's /sys is in view */
	if (cfg->process.apparmor_profile)
		attrs_probe_lsm();
	if (cfg->has_process && cfg->linux_.ns[OCI_NS_USER].present)
		process_raise_hard_limits(&cfg->process);
	if ((out->pid = do_clone(ctx, out, err)) < 0)
		room_explain_clone(ctx->clone_ns, err);   /* the knob that says no */
	if (fchdir(cwd) < 0)
		log_warn("cannot return to the working directory: %s", strerror(errno));
	close(cwd);
	if (out->pid < 0)
		return -err->code;
	/* gc kills it if it outlives a crashed create (it should not: child.c) */
	if ((r = container_record_pid(ctx->state_dirfd, "init", out->pid, &out->pid_start_time, err)) < 0)
		return r;
	if ((r = cgroup_enter_systemd_unit(&out->cg, cfg, out->pid, &ctx->join, err)) < 0)
		return r;
	close(sv[1]);
	sv[1] = -1;
	if (ctx->fifo_fd >= 0)
		close(ctx->fifo_fd);
	if (cfg->linux_.has_intel_rdt && (r = rdt_attach(o->id, &cfg->linux_.intel_rdt, out->pid, err)) < 0)
		return r;
	if ((ctx->clone_ns & CLONE_NEWUSER) && (r = parent_maps_done(sv[0], cfg, out, err)) < 0)
		return r;
	return 0;
}

static int mark_no_new_keyring(struct container *c, struct error *err)
{
	int fd = openat(c->dirfd, "no-new-keyring", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_sys(err, errno, "%s/no-new-keyring", c->dir);
	close(fd);
	return 0;
}

/* Until the child is blocked before exec; then the state is saved. */
static int finish(struct container *c, const struct oci_config *cfg, const struct create_opts *o,
		  struct created *out, int sync_fd, struct error *err)
{
	int r;

	if ((r = parent_answer_child(c, cfg, o, out, sync_fd, err)) < 0)
		return r;
	c->st.pid = out->pid;
	c->st.pid_start_time = out->pid_start_time;   /* read when "init" was recorded */
	if ((r = container_save_state(c, err)) < 0)
		return r;
	if (o->pid_file && (r = container_write_pid_file(o->pid_file, out->pid, err)) < 0)
		return r;
	/* exec needs to know whether to join the container's session keyring */
	if (o->no_new_keyring && (r = mark_no_new_keyring(c, err)) < 0)
		return r;
	/* from here the child may outlive us (create: blocked on the exec fifo);
	 * until this message it dies with us (child.c: creator_watch) */
	if (!o->run_mode && sync_send(sync_fd, SYNC_SAVED, 0, NULL, 0, -1) < 0)
		return error_set(err, ECHILD, "container init exited before it was created");
	/* only a created init's pidfd goes out: its receiver may signal it at
	 * once (a KILL before SYNC_SAVED failed the create of a saved container) */
	if (o->pidfd_socket && (r = pidfd_send_to(o->pidfd_socket, out->pid, "standard", err)) < 0)
		return r;
	/* created: other commands may act on it now (run keeps the fd) */
	flock(c->dirfd, LOCK_UN);
	return 0;
}

int container_create(const struct global_opts *g, const struct create_opts *o,
		     struct oci_config *cfg, const char *config_json, size_t config_len,
		     struct container *c, struct created *out, struct error *err)
{
	static char rootfs[PATH_MAX];
	struct child_ctx ctx = { .o = o, .cfg = cfg, .rootfs = rootfs, .fifo_fd = -1, .fifo_w = -1, .fifo_dir = -1,
				 .init_fd = -1, .status_fd = -1, .creator_pidfd = -1,
				 .parent_sync_fd = -1,
				 .join = { .clone_dirfd = -1, .procs_fd = -1 } };
	int sv[2] = { -1, -1 }, r;
	bool rdt_created = false;
	struct room_join sj;

	memset(out, 0, sizeof(*out));
	out->pidfd = out->sync_fd = out->pty_master = -1;
	out->cg.v2_dirfd = -1;
	/* a host whose knobs allow no user namespace: refused by name */
	if ((r = room_host_check(cfg, err)) < 0)
		return r;
	out->limits.cpu_fd = -1;
	ctx.limits = &out->limits;
	/* a task of a request: the request's namespaces (room.h) */
	if ((r = room_join_open(g->root, o->bundle, cfg, &sj, err)) < 0)
		return r;
	ctx.request_mnt_fd = sj.mnt_fd;
	if ((r = limits_check(cfg, o->foreground, sj.request_deadline_rt_ms, err)) < 0 ||
	    (r = plan_check(cfg, o, err)) < 0 || (r = container_resolve_rootfs(cfg, o->bundle, rootfs, err)) < 0) {
		room_join_close(&sj);
		return r;
	}
	create_log_plan(cfg, o, rootfs);
	create_log_ignored(cfg);
	if ((r = prepare_child_ctx(g, o, cfg, &ctx, err)) < 0)
		goto out;
	r = container_dir_create(g->root, o->id, c, err);
	/* a dead half-made container by that id (a crashed create): gc it, once */
	if (r == -EEXIST && gc_id(g->root, o->id, err) == 1) {
		container_close(c);
		r = container_dir_create(g->root, o->id, c, err);
	}
	if (r < 0)
		goto out;
	ctx.state_dirfd = c->dirfd;
	if ((o->notify && (r = notify_source(cfg, c, &ctx, err)) < 0) ||
	    (r = room_lease(c, cfg, &sj, err)) < 0 ||
	    (r = room_key_record(c, &sj, err)) < 0 ||
	    (r = make_state(g, o, cfg, config_json, config_len, c, out, &ctx, &rdt_created, err)) < 0 ||
	    (r = limits_prepare(c, cfg, &out->cg, sj.request_deadline_rt_ms, &out->limits, err)) < 0 ||
	    (r = spawn(o, cfg, &ctx, out, sv, err)) < 0 ||
	    (r = finish(c, cfg, o, out, sv[0], err)) < 0)
		goto fail;
	if (o->run_mode)
		out->sync_fd = sv[0];
	else
		close(sv[0]);
	goto out;
fail:
	/* our own abort, not a crash: the child dies before its socket's EOF,
	 * which it would report as the creator's death (child.c: expected) */
	if (out->pid > 0)
		kill(out->pid, SIGKILL);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (ctx.fifo_fd >= 0 && out->pid <= 0)
		close(ctx.fifo_fd);
	if (out->pty_master >= 0)
		close(out->pty_master);
	if (out->pid > 0 && cfg->hooks.n[OCI_HOOK_POSTSTOP])
		poststop_after_failure(c, cfg, out->pid);
	container_teardown(c, &out->cg, out->pid);
	limits_close(&out->limits);
	if (rdt_created)
		rdt_remove(o->id);
	if (out->pidfd >= 0)
		close(out->pidfd);
	container_close(c);
out:
	release_child_ctx(&ctx, cfg);
	room_join_close(&sj);
	return r;
}
