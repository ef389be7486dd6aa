/* The container's first process, from clone to execve. Everything it needs
 * was computed by the parent (create.c) before clone. Errors go back to the
 * parent as text over the sync socket. */
#include "runtime/container/create.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <linux/keyctl.h>

#include "runtime/linux/attrs.h"
#include "runtime/container/hooks.h"
#include "runtime/log.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/netdev.h"
#include "runtime/container/process.h"
#include "runtime/sandbox/room.h"
#include "runtime/container/setup.h"
#include "runtime/linux/procfs.h"
#include "rootfs/rootfs.h"
#include "runtime/sandbox/output.h"
#include "runtime/container/sync.h"
#include "runtime/linux/sysctl.h"
#include "runtime/linux/terminal.h"

static int expected(int r, enum sync_type want, struct error *err);

/* SYNC_MAPS_DONE, after the bind sources the runtime opened through our root
 * (SYNC_BIND_SRC): they replace the host-side fds we inherited, which are
 * never used (a clone of the host's mount would have no flag locked). */
static int expect_maps_done(struct child_ctx *ctx, struct error *err)
{
	size_t n = ctx->cfg->n_mounts;
	struct sync_msg m;
	int r, fd;

	for (size_t i = n; ctx->mount_fds && i < 2 * n; i++)
		if (ctx->mount_fds[i] >= 0) {
			close(ctx->mount_fds[i]);
			ctx->mount_fds[i] = -1;
		}
	while ((r = sync_recv(ctx->sync_fd, &m, NULL, 0, &fd)) == SYNC_BIND_SRC) {
		if (!ctx->mount_fds || fd < 0 || m.value < 0 || (size_t)m.value >= n) {
			if (fd >= 0)
				close(fd);
			return error_set(err, EPROTO, "internal: sync: bind source");
		}
		ctx->mount_fds[n + (size_t)m.value] = fd;
	}
	if (r != SYNC_MAPS_DONE && fd >= 0)
		close(fd);
	return expected(r, SYNC_MAPS_DONE, err);
}

static int expect(int fd, enum sync_type want, char *payload, size_t size, struct error *err)
{
	struct sync_msg m;

	return expected(sync_recv(fd, &m, payload, size, NULL), want, err);
}

/* sync_recv's r: 0 when it is the message wanted, else the error */
static int expected(int r, enum sync_type want, struct error *err)
{
	if (r == (int)want)
		return 0;
	/* EOF: the creator died (killed, crashed) before its answer; what it
	 * made (state dir, cgroups) is gc's */
	if (r == 0 || r == -ECONNRESET)
		return error_set(err, EPIPE, "the runtime that was creating the container exited before it was done: "
				 "the container is not created (tinyrun gc removes what it left)");
	if (r < 0)
		return error_sys(err, -r, "reading the runtime's answer");
	return error_set(err, EPROTO, "internal: expected message %d from the runtime, got %d", want, r);
}

/* Slow path: join namespaces by path, unshare the new ones, fork into the pid
 * and time namespaces. Returns in the process that becomes the container init. */
static int enter_namespaces(struct child_ctx *ctx, struct error *err)
{
	const struct oci_linux *l = &ctx->cfg->linux_;
	int r;

	if ((r = ns_join_paths(l, err)) < 0)
		return r;
	if (ctx->unshare_ns && unshare(ctx->unshare_ns) < 0)
		return error_sys(err, errno, "linux.namespaces: unshare");
	if (ctx->unshare_ns & CLONE_NEWUSER) {
		if (sync_send(ctx->sync_fd, SYNC_NS_READY, 0, NULL, 0, -1) < 0 ||
		    (r = expect_maps_done(ctx, err)) < 0)
			return r < 0 ? r : error_set(err, EPROTO, "internal: sync");
	}
	if ((r = ns_write_time_offsets(l, err)) < 0)
		return r;
	if (!ctx->must_fork)
		return 0;
	return sync_fork_handoff(ctx->sync_fd, 0, "fork into the pid namespace", err);
}

/* A leased identity (run.tinyrun.userns=auto) maps only the process's id,
 * not 0. With the minimal root the set-up keeps the runtime's own (host) ids,
 * with the namespace's capabilities, so host paths stay reachable (the rootfs
 * below a root-only directory); rootfs/sandbox/minimal.c makes the root's files as the
 * process's id (setfsuid), and setup_tail switches to it for good. */
static int become_ns_root(const struct oci_config *cfg, struct error *err)
{
	/* without the minimal root, the config's mounts make files as the one
	 * mapped id (like any user namespace whose root maps to an unprivileged uid) */
	uid_t uid;
	gid_t gid;

	if (room_child_ids(cfg, &uid, &gid))
		return 0;
	if (setresgid(gid, gid, gid) < 0)
		return error_sys(err, errno, "setresgid(%u) in the user namespace", (unsigned)gid);
	if (setresuid(uid, uid, uid) < 0)
		return error_sys(err, errno, "setresuid(%u) in the user namespace", (unsigned)uid);
	return 0;
}

static int set_names(const struct oci_config *cfg, struct error *err)
{
	if (cfg->hostname && sethostname(cfg->hostname, strlen(cfg->hostname)) < 0)
		return error_sys(err, errno, "hostname \"%s\"", cfg->hostname);
	if (cfg->domainname && setdomainname(cfg->domainname, strlen(cfg->domainname)) < 0)
		return error_sys(err, errno, "domainname \"%s\"", cfg->domainname);
	return 0;
}

static void join_keyring(struct child_ctx *ctx)
{
	if (!ctx->o->no_new_keyring)
		process_join_keyring(ctx->o->id);
}

static int setup_terminal(struct child_ctx *ctx, const struct rootfs_opts *ro, struct error *err)
{
	int slave, master, r;

	master = terminal_open(ctx->rootfs, &ctx->cfg->process, &slave, err);
	if (master < 0)
		return master;
	terminal_relay_prepare(slave, ctx->o->console_socket);
	if ((r = sync_send_fd(ctx->sync_fd, SYNC_PTY, master, "terminal: send the pty", err)) < 0)
		return r;
	if ((r = rootfs_bind_console(ro, slave, err)) < 0 || (r = terminal_take(slave, err)) < 0)
		return r;
	close(slave);
	return 0;
}

/* The container's /proc/thread-self/fd, of a procfs proven to be one (an image's
 * fake /proc would take the write): opened right after pivot_root, before
 * any filter, since a filter loaded as root (no NoNewPrivileges) runs over
 * the start wait and may deny openat2 (runtime-tools' default profile does).
 * The thread's directory (the same table), as runc: an fd audit of a created
 * init finds /proc/1/task/1/fd, not the process's. */
static int open_fifo_dir(struct child_ctx *ctx, struct setup *s, struct error *err)
{
	static const char what[] = "open the exec fifo's /proc/thread-self/fd (the container's /proc must be procfs)";
	int proc;

	if (ctx->o->run_mode)
		return 0;
	if ((proc = procfs_dir("/proc")) < 0)
		return error_sys(err, -proc, "%s", what);
	ctx->fifo_dir = procfs_openat(proc, "thread-self/fd", O_PATH | O_DIRECTORY);
	close(proc);
	if (ctx->fifo_dir < 0)
		return error_sys(err, -ctx->fifo_dir, "%s", what);
	s->keep[SETUP_KEEP_FIFO_DIR] = ctx->fifo_dir;
	return 0;
}

/* The O_PATH fifo reopened for writing through that directory. */
static int open_fifo(const struct child_ctx *ctx)
{
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "%d", ctx->fifo_fd);
	fd = openat(ctx->fifo_dir, name, O_WRONLY | O_CLOEXEC);   /* blocks until `start` */
	return fd < 0 ? -errno : fd;
}

static void die_of(int sig)
{
	_exit(128 + sig);
}

/* A pid namespace's init gets from outside only the signals it handles (and
 * KILL): a created container would never hear `kill ID TERM` or a pidfd's
 * SIGTERM. While it waits, the signals that end a process by default end it
 * (as runc's init, whose Go runtime handles them); execve resets them. */
static void created_signals_end_it(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM };
	struct sigaction sa = { .sa_handler = die_of };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int wait_for_start(struct child_ctx *ctx, struct error *err)
{
	int fd;

	if (ctx->o->run_mode)
		return expect(ctx->sync_fd, SYNC_START, NULL, 0, err);
	created_signals_end_it();
	fd = open_fifo(ctx);
	if (fd < 0)
		return error_sys(err, -fd, "open exec fifo through the container's /proc/thread-self/fd");
	if (write(fd, "0", 1) != 1)
		return error_sys(err, errno, "write exec fifo");
	/* fd stays open: it closes on exec, which tells `start` the program
	 * runs; an error before that is written into it for `start` to report */
	ctx->fifo_w = fd;
	close(ctx->fifo_fd);
	close(ctx->fifo_dir);
	return 0;
}

/* A cgroup namespace is rooted where we are when it is made, and a systemd
 * unit must hold us before any fork. (v1 cgroup mounts need not wait: they
 * bind the container's cgroup by the path the runtime made.) */
static bool needs_cgroup_first(const struct child_ctx *ctx)
{
	return ctx->late_cgroupns || ctx->join.wait_parent || ctx->cfg->linux_.ns[OCI_NS_CGROUP].present;
}

/* The shared tail (setup.h) as the container's init runs it. */
static void child_setup(const struct child_ctx *ctx, struct setup *s)
{
	int hout[3] = { -1, -1, -1 };

	if (ctx->cfg->hooks.n[OCI_HOOK_START_CONTAINER])
		hooks_output_fds(hout);
	*s = (struct setup){
		.p = &ctx->cfg->process,
		.sync_fd = ctx->sync_fd,
		.first_fd = 3 + ctx->o->preserve_fds,
		/* SETUP_KEEP_FIFO_DIR is filled after pivot_root (open_fifo_dir) */
		.keep = { ctx->sync_fd, ctx->fifo_fd, ctx->init_fd, ctx->status_fd, -1, hout[0], hout[1], hout[2],
			  ctx->cfg->init ? ctx->limits->cpu_fd : -1 },
		.make_cwd = true,
		.groups = ctx->cfg->keep_groups ? SETGROUPS_KEEP : ctx->rootless ? SETGROUPS_DENIED : SETGROUPS_SET,
		.seccomp = ctx->has_seccomp ? &ctx->seccomp : NULL,
		.self_dev = ctx->self_dev,
		.self_ino = ctx->self_ino,
		.use_init = ctx->cfg->init,
		.init_fd = ctx->init_fd,
		.status_fd = ctx->status_fd,
		.fence_cfg = ctx->cfg,
		.landlock_abi = ctx->landlock_abi,
		.limits = ctx->limits,
	};
}

/* rootfs_opts.idmap_request: the runtime maps the tree (SYNC_IDMAP) */
static int idmap_request(void *ud, size_t i, int tree, struct error *err)
{
	struct child_ctx *ctx = ud;
	int r = sync_send(ctx->sync_fd, SYNC_IDMAP, (int)i, NULL, 0, tree);

	if (r < 0)
		return error_sys(err, -r, "mounts[%zu]: idmap request", i);
	return expect(ctx->sync_fd, SYNC_IDMAP_DONE, NULL, 0, err);
}

/* *ENV: process.env as the process gets it (process_env_final, in ROOM) */
static int prepare(struct child_ctx *ctx, struct setup *s, char *state, char *start_state, char *exe,
		   char ***env, struct process_env *room, struct error *err)
{
	const struct oci_config *cfg = ctx->cfg;
	const struct oci_process *p = &cfg->process;
	struct rootfs_opts ro = {
		.rootfs = ctx->rootfs,
		.no_pivot = ctx->o->no_pivot,
		.userns = ctx->userns,
		.runtime_userns = procfs_in_userns,
		.new_netns = cfg->linux_.ns[OCI_NS_NET].present,
		.joined_netns = cfg->linux_.ns[OCI_NS_NET].path != NULL,
		.new_cgroupns = cfg->linux_.ns[OCI_NS_CGROUP].present,
		.cgroup_path = ctx->cgroup_path,
		/* the probe saw the host's mounts: a joined mount namespace has its own */
		.cgroup_v1_mounted = cfg->linux_.ns[OCI_NS_MOUNT].path ? NULL : cgroup_v1_hierarchy_mounted,
		.new_pidns = cfg->linux_.ns[OCI_NS_PID].present,
		.proc_fd = -1,
		.mount_fds = ctx->mount_fds,
		.dev_fds = ctx->dev_fds,
		.root_data = ctx->root_data,
		.selinux = ctx->selinux,
		.request_mnt_fd = room_request_mnt_fd(cfg, ctx->request_mnt_fd),
		.idmap_request = idmap_request,
		.idmap_ud = ctx,
	};
	int r;

	/* The cgroup namespace's root and the cgroup mounts come from the cgroup
	 * we are in: then join first. Otherwise (v1 tasks files) join as late as
	 * possible, so what the set-up allocates (mounts, device nodes) is not
	 * charged to the container's memory limit. */
	if (needs_cgroup_first(ctx) && (r = cgroup_join_self(&ctx->join, err)) < 0)
		return r;
	if ((ctx->join_any || ctx->unshare_ns || ctx->must_fork) && (r = enter_namespaces(ctx, err)) < 0)
		return r;
	if (ctx->clone_ns & CLONE_NEWUSER && (r = expect_maps_done(ctx, err)) < 0)
		return r;
	/* linux.netDevices: the runtime moves them now that we are in the
	 * network namespace for good (joined, unshared or cloned), before the
	 * set-up (sysctls) that may name them; as runc, before any hook */
	if (cfg->linux_.n_net_devices) {
		if (sync_send(ctx->sync_fd, SYNC_NETDEV, 0, NULL, 0, -1) < 0)
			return error_set(err, EPROTO, "internal: sync");
		if ((r = expect(ctx->sync_fd, SYNC_NETDEV_DONE, NULL, 0, err)) < 0)
			return r;
	}
	if (ctx->userns && (r = become_ns_root(cfg, err)) < 0)
		return r;
	if ((r = room_child_limits(cfg, err)) < 0)
		return r;
	if (ctx->late_cgroupns && !ctx->unshare_ns && unshare(CLONE_NEWCGROUP) < 0)
		return error_sys(err, errno, "linux.namespaces: cgroup namespace");
	if ((r = set_names(cfg, err)) < 0)
		return r;
	if (cfg->linux_.ns[OCI_NS_NET].present && !cfg->linux_.ns[OCI_NS_NET].path &&
	    (r = netdev_loopback_up(err)) < 0)
		return r;
	join_keyring(ctx);
	if ((r = rootfs_prepare(cfg, &ro, err)) < 0)
		return r;
	if ((r = p->terminal ? setup_terminal(ctx, &ro, err) : terminal_none(err)) < 0)
		return r;
	if (ctx->hook_sync) {
		/* hooks look for the container's init in its cgroup (device rules ...) */
		if ((r = cgroup_join_self(&ctx->join, err)) < 0)
			return r;
		if (sync_send(ctx->sync_fd, SYNC_HOOKS, 0, NULL, 0, -1) < 0 ||
		    (r = expect(ctx->sync_fd, SYNC_HOOKS_DONE, state, SYNC_PAYLOAD_MAX, err)) < 0)
			return r < 0 ? r : error_set(err, EPROTO, "internal: sync");
		if (cfg->hooks.n[OCI_HOOK_START_CONTAINER] &&
		    (r = expect(ctx->sync_fd, SYNC_START_STATE, start_state, SYNC_PAYLOAD_MAX, err)) < 0)
			return r;
		/* as runc: createContainer hooks start in the rootfs (relative paths
		 * such as ./lib name the container's files) */
		if (chdir(ctx->rootfs) < 0)
			return error_sys(err, errno, "createContainer hooks: chdir %s", ctx->rootfs);
		if ((r = hooks_run(&cfg->hooks, OCI_HOOK_CREATE_CONTAINER, p->env, state, strlen(state), err)) < 0)
			return r;
	}
	if (ctx->rootless && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_sys(err, errno, "prctl(PR_SET_DUMPABLE)");
	if ((r = sysctl_apply(&cfg->linux_, ctx->rootfs, err)) < 0 || (r = rootfs_pivot(cfg, &ro, err)) < 0 ||
	    (r = rootfs_reopen_dev_null(err)) < 0 || (r = open_fifo_dir(ctx, s, err)) < 0)
		return r;
	*env = process_env_final(p, room);
	if ((r = cgroup_join_self(&ctx->join, err)) < 0)
		return r;
	if ((r = process_apply_limits(p, err)) < 0 || (r = attrs_affinity_final(p, false, err)) < 0 ||
	    (r = attrs_apply(p, &cfg->linux_, err)) < 0 || (r = attrs_set_labels(p, err)) < 0)
		return r;
	/* the kernel would drop it at the uid change anyway, and a filter may
	 * deny prctl later: from here the sync socket's EOF tells us */
	prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
	/* the fds, the user, the program, NoNewPrivileges, seccomp: setup.h */
	return setup_tail(s, exe, err);
}

/* Until create has saved the state the child dies with its creator (a
 * SIGKILLed tinyrun leaves no half-made container running): the kernel's
 * parent-death signal while the set-up runs as root, then the sync socket,
 * whose only other end is the creator's (closed here first): its EOF ends
 * every wait of the child. The creator may already be gone when the signal
 * is armed: its pidfd says so (getppid cannot: in a new pid namespace it is
 * 0 whoever the parent is). The slow path's fork into the pid namespace
 * clears the signal for the init, its intermediate keeps it; the socket
 * still holds for both. */
static void creator_watch(struct child_ctx *ctx)
{
	struct pollfd p = { .fd = ctx->creator_pidfd, .events = POLLIN };

	if (ctx->parent_sync_fd >= 0)
		close(ctx->parent_sync_fd);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (ctx->creator_pidfd >= 0) {
		if (poll(&p, 1, 0) != 0)
			_exit(1);
		close(ctx->creator_pidfd);
	} else if (!(ctx->clone_ns & CLONE_NEWPID) && getppid() != ctx->creator_pid) {
		_exit(1);
	}
}

void container_child_main(struct child_ctx *ctx)
{
	static char state[SYNC_PAYLOAD_MAX], start_state[SYNC_PAYLOAD_MAX], exe[PATH_MAX];
	const struct oci_process *p = &ctx->cfg->process;
	struct error err = { 0 };
	struct setup s;
	bool created = false;
	/* the env on our stack, not the heap: no allocator page is copied */
	struct process_env env_room;
	char **container_env = NULL;

	/* no signal blocked or ignored by the runtime or its caller reaches the process */
	process_reset_signals();
	creator_watch(ctx);
	if (ctx->o->output_fds)   /* run.tinyrun.output-limit: the runtime's pipes (runtime/sandbox/output.h) */
		output_child_stdio(ctx->o->output_fds);
	if (process_set_oom_score(p, &err) < 0)
		goto fail;
	/* While this process runs the runtime's code inside the container, no
	 * container process may ptrace it or open its /proc files (its exe is a
	 * sealed copy anyway: selfseal.h). Rootless: once the host-side hooks
	 * and maps, which reach /proc/<pid> as the caller, are done (prepare). */
	if (!ctx->rootless)
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* the flock on the state dir belongs to the runtime, not to the container */
	close(ctx->state_dirfd);
	/* the cwd is the bundle (the parent cloned us from there): relative
	 * mount sources are relative to it, as in runc */
	syscall(SYS_close_range, 3 + ctx->o->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
	child_setup(ctx, &s);
	if (prepare(ctx, &s, state, start_state, exe, &container_env, &env_room, &err) < 0)
		goto fail;
	if (sync_send(ctx->sync_fd, SYNC_CREATED, 0, NULL, 0, -1) < 0)
		_exit(1);
	created = true;
	/* create: the state is saved (or the creator is gone: EOF, we end) */
	if (!ctx->o->run_mode && expect(ctx->sync_fd, SYNC_SAVED, NULL, 0, &err) < 0)
		_exit(1);
	if (wait_for_start(ctx, &err) < 0)
		goto fail;
	/* as runc: startContainer hooks run under the container's filter */
	if (setup_start(&s, &err) < 0)
		goto fail;
	if (ctx->cfg->hooks.n[OCI_HOOK_START_CONTAINER] &&
	    hooks_run(&ctx->cfg->hooks, OCI_HOOK_START_CONTAINER, container_env, start_state, strlen(start_state), &err) < 0)
		goto fail;
	setup_exec(&s, exe, container_env, &err);
fail:
	/* before `created` the parent reports it; after, in `run` too (the socket is
	 * still open) but not after `start`, whose process is gone: say it here. */
	if (ctx->fifo_w >= 0 && write(ctx->fifo_w, err.msg, strlen(err.msg)) > 0)
		_exit(127);
	if (sync_send(ctx->sync_fd, SYNC_ERROR, 0, err.msg, strlen(err.msg), -1) < 0 || (created && !ctx->o->run_mode))
		dprintf(STDERR_FILENO, "tinyrun: %s\n", err.msg);
	_exit(127);
}
