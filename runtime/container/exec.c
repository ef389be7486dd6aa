#include "runtime/container/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/linux/attrs.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/join.h"
#include "runtime/log.h"
#include "runtime/linux/namespaces.h"
#include "runtime/sandbox/fence.h"
#include "runtime/container/process.h"
#include "runtime/container/setup.h"
#include "runtime/container/sync.h"
#include "runtime/linux/pidfd.h"
#include "runtime/linux/procfs.h"
#include "runtime/linux/terminal.h"
#include "runtime/container/wait.h"

struct exec_ctx {
	const char *id;
	dev_t self_dev;
	ino_t self_ino;
	const struct oci_config *cfg;
	struct oci_process *p;
	char **env;                   /* p->env as the process gets it (process_env_final) */
	const struct exec_opts *o;
	int init_pidfd;
	int ns_flags;                 /* joined by the child (all but pid and time) */
	int late_ns;                  /* pid and time, when the parent may not join them (rootless):
	                               * the child joins them with its others, then forks into them */
	int sync_fd;
	bool has_seccomp;
	struct seccomp_prog seccomp;
	struct cgroup_join join;
	int landlock_abi;             /* the container's fence (runtime/sandbox/fence.h), recorded by create */
};

static int exec_terminal(struct exec_ctx *x, struct error *err)
{
	int slave, master = terminal_open("/", x->p, &slave, err), r;

	if (master < 0)
		return master;
	terminal_relay_prepare(slave, x->o->console_socket);
	if ((r = sync_send_fd(x->sync_fd, SYNC_PTY, master, "terminal: send the pty", err)) < 0)
		return r;
	r = terminal_take(slave, err);
	close(slave);
	return r;
}

/* An unprivileged exec (rootless): the container's pid namespace belongs to
 * its user namespace, which the parent must not enter (the container's root
 * could then ptrace it). This child joins every namespace at once, the user
 * namespace first (setns of a pidfd checks the others with its
 * capabilities), the init's time namespace too when it may, then forks into
 * the pid namespace with CLONE_PARENT: the process is the runtime's child
 * as usual, and SYNC_PID names it. Like the intermediate of create's slow
 * path (child.c), its first message waits until SYNC_PID is sent. */
static int exec_late_pidns(struct exec_ctx *x, struct error *err)
{
	int flags = x->ns_flags | x->late_ns;

	if (setns(x->init_pidfd, flags) < 0) {
		/* the host's time namespace is not an unprivileged user's to join */
		bool time_optional = (flags & CLONE_NEWTIME) && !x->cfg->linux_.ns[OCI_NS_TIME].present;

		if (errno != EPERM || !time_optional)
			return error_sys(err, errno, "join the container's namespaces");
		flags &= ~CLONE_NEWTIME;
		if (setns(x->init_pidfd, flags) < 0)
			return error_sys(err, errno, "join the container's namespaces");
	}
	/* nothing joined that only a child enters (no pid namespace, the host's time one): no fork */
	if (!(flags & (CLONE_NEWPID | CLONE_NEWTIME)))
		return 0;
	return sync_fork_handoff(x->sync_fd, CLONE_PARENT, "fork into the container's pid namespace", err);
}

static int exec_prepare(struct exec_ctx *x, const struct setup *s, char *exe, struct error *err)
{
	struct oci_process *p = x->p;
	int r;

	if ((r = attrs_affinity_initial(p, err)) < 0 || (r = cgroup_join_self(&x->join, err)) < 0)
		return r;
	if (x->late_ns)
		r = exec_late_pidns(x, err);
	else if (setns(x->init_pidfd, x->ns_flags) < 0)
		r = error_sys(err, errno, "join the container's namespaces");
	if (r < 0)
		return r;
	if (x->o->join_keyring)
		process_join_keyring(x->id);
	if ((r = p->terminal ? exec_terminal(x, err) : terminal_none(err)) < 0)
		return r;
	if ((r = process_apply_limits(p, err)) < 0 || (r = attrs_affinity_final(p, true, err)) < 0 ||
	    (r = attrs_apply(p, &x->cfg->linux_, err)) < 0 || (r = attrs_set_labels(p, err)) < 0)
		return r;
	/* CVE-2024-21626: nothing of the host (cgroup dirs, the caller's fds,
	 * the pidfd) stays open while the container's paths are resolved; then
	 * the user, the program, NoNewPrivileges, seccomp: setup.h */
	return setup_tail(s, exe, err);
}

__attribute__((noreturn)) static void exec_child(struct exec_ctx *x)
{
	static char exe[PATH_MAX];
	struct error err = { 0 };
	/* the shared tail (setup.h) as exec runs it */
	struct setup s = {
		.p = x->p,
		.sync_fd = x->sync_fd,
		.first_fd = 3 + x->o->preserve_fds,
		.keep = { x->sync_fd, -1 },
		/* rootless, as create (child.c): its user namespace denies setgroups */
		.groups = x->cfg->keep_groups ? SETGROUPS_KEEP : geteuid() != 0 ? SETGROUPS_DENIED : SETGROUPS_SET,
		.seccomp = x->has_seccomp ? &x->seccomp : NULL,
		.env = &x->env,
		.self_dev = x->self_dev,
		.self_ino = x->self_ino,
		.fence_cfg = x->cfg,
		.landlock_abi = x->landlock_abi,
	};

	/* no signal blocked or ignored by the runtime or its caller reaches the process */
	process_reset_signals();
	/* as runc: process.json's oomScoreAdj, else the container's */
	if (process_set_oom_score(x->p->has_oom_score_adj ? x->p : &x->cfg->process, &err) < 0)
		goto fail;
	/* see child.c: no container process may ptrace us or open our /proc files */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_close_range, 3 + x->o->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
	if (exec_prepare(x, &s, exe, &err) == 0 && setup_start(&s, &err) == 0)
		setup_exec(&s, exe, x->env, &err);
fail:
	sync_send(x->sync_fd, SYNC_ERROR, 0, err.msg, strlen(err.msg), -1);
	_exit(255);
}

/* Wait for the child to exec (its sync socket closes) or to report an error. */
static int exec_answer(struct exec_ctx *x, struct container *c, pid_t *pid, int *pidfd, int sync_fd, int *pty_master,
		       struct error *err)
{
	char payload[SYNC_PAYLOAD_MAX];
	struct sync_msg m;
	int fd, r;

	for (;;) {
		r = sync_recv(sync_fd, &m, payload, sizeof(payload), &fd);
		if (r == SYNC_PID && x->late_ns && m.value > 0) {
			/* exec_late_pidns: the intermediate is gone, the process is our child */
			waitpid(*pid, NULL, 0);
			*pid = m.value;
			close(*pidfd);
			if ((*pidfd = syscall(SYS_pidfd_open, *pid, 0)) < 0)
				return error_sys(err, errno, "pidfd_open of the exec'd process");
			continue;
		}
		if (r == SYNC_PTY) {
			if ((r = sync_answer_pty(x->o->console_socket, fd, pty_master, err)) < 0)
				return r;
			continue;
		}
		if (r == SYNC_SECCOMP_FD) {
			/* the state names the container's init; pid is this process */
			if ((r = sync_answer_seccomp_fd(c, &x->cfg->linux_.seccomp, "running", *pid, fd, err)) < 0)
				return r;
			continue;
		}
		if (r == SYNC_ERROR)
			return error_set(err, ECANCELED, "%s", payload);
		return 0;   /* EOF: exec happened */
	}
}

/* The init's pid namespace (when the config has one) and its time namespace,
 * whatever the config says: CRIU restores a container's tasks into a new
 * time namespace (to keep their clocks), and runc's exec joins every
 * namespace of the init, so a process exec'd there is in it too and a
 * second checkpoint finds one tree ("Can't restore sub-task in NS" else).
 * One setns for both. Joining the time namespace one is already in changes
 * nothing; an unprivileged exec may not join the host's (EPERM), and a
 * kernel without time namespaces refuses the flag (EINVAL): then the pid
 * namespace alone, as before, unless the config asked for the time one. */
static int join_pid_time(int pidfd, const struct oci_config *cfg, int *late_ns, struct error *err)
{
	bool want_time = cfg->linux_.ns[OCI_NS_TIME].present;
	int flags = CLONE_NEWTIME | (cfg->linux_.ns[OCI_NS_PID].present ? CLONE_NEWPID : 0);

	if (setns(pidfd, flags) == 0)
		return 0;
	if (errno == EPERM && cfg->linux_.ns[OCI_NS_USER].present) {
		*late_ns = flags;   /* rootless: the child joins them, after the user namespace */
		return 0;
	}
	if (want_time || (errno != EPERM && errno != EINVAL))
		return error_sys(err, errno, "join the container's pid%s namespace", want_time ? " and time" : "");
	flags &= ~CLONE_NEWTIME;
	if (flags && setns(pidfd, flags) < 0)
		return error_sys(err, errno, "join the container's pid namespace");
	return 0;
}

/* The cgroup2 path of the container's init: the "0::" line of
 * /proc/<init>/cgroup, read while the init's pidfd says the pid is still the
 * init's. A pointer into buf, or NULL. */
static const char *init_cgroup2(const struct container *c, int init_pidfd, char *buf, size_t size)
{
	char rel[32], *line = buf, *end;

	snprintf(rel, sizeof(rel), "%d/cgroup", (int)c->st.pid);
	if (procfs_read(-1, rel, buf, size) < 0 || syscall(SYS_pidfd_send_signal, init_pidfd, 0, NULL, 0) < 0)
		return NULL;
	while (line && strncmp(line, "0::", 3) != 0)
		line = (end = strchr(line, '\n')) ? end + 1 : NULL;
	if (!line)
		return NULL;
	line[3 + strcspn(line + 3, "\n")] = '\0';
	return line + 3;
}

/* cg and j aimed at the cgroup the init is in (cgroup v2, no --cgroup), as
 * runc's exec does (libcontainer's addIntoCgroupV2) when the container's own
 * cgroup is gone or refuses a process (EBUSY: a domain controller enabled
 * in it, the no-internal-process rule). The container could put its
 * processes there itself; the runtime's own cgroup is never the answer.
 * 1: no other place (cg and j untouched); 0: done; -errno with err set
 * (then cg is closed). */
static int exec_use_init_cgroup(const struct container *c, const struct exec_opts *o, int init_pidfd,
				struct cgroup *cg, struct cgroup_join *j, const char *why, struct error *err)
{
	char buf[8192];
	const char *init;
	int r;

	/* no ".." (an init outside our cgroup namespace's root reads "/../x"): no path below our /sys/fs/cgroup */
	if (o->n_subs || cgroup_detect() != CGROUP_MODE_V2 || !(init = init_cgroup2(c, init_pidfd, buf, sizeof(buf))) ||
	    !cgroup_sub_clean(init) || !strcmp(init, c->st.cgroup_path))
		return 1;
	log_debug("exec: container \"%s\": its cgroup %s %s, joining its init's: %s", c->id, c->st.cgroup_path,
		  why, init);
	cgroup_join_close(j);
	cgroup_close(cg);
	if ((r = cgroup_open(init, false, cg, err)) < 0)
		return r;
	return cgroup_join_prepare(cg, j, err);
}

/* Never a process outside the container's cgroup: no cgroup, no exec. cg
 * (zeroed, v2_dirfd -1) is the caller's to cgroup_close in every case. */
static int exec_join_cgroup(const struct container *c, const struct exec_opts *o, int init_pidfd, struct cgroup *cg,
			    struct cgroup_join *j, struct error *err)
{
	int r, f;

	if (!c->st.cgroup_path)
		return o->n_subs ? error_set(err, ENODEV, "container \"%s\": exec --cgroup: the container has no cgroup",
					     c->id) : 0;
	if ((r = cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, cg, err)) == 0)
		r = cgroup_join_prepare_sub(cg, o->subs, o->n_subs, j, err);
	else if (err->code == ENOENT && (f = exec_use_init_cgroup(c, o, init_pidfd, cg, j, "is gone", err)) <= 0)
		r = f;   /* 1: no other place, the ENOENT stands */
	if (r < 0 && err->code == EINVAL)   /* a bad --cgroup, named as it is */
		error_prefix(err, "container \"%s\"", c->id);
	else if (r < 0)
		error_prefix(err, "container \"%s\": adding pid to its cgroup", c->id);
	return r;
}

/* clone3 into the container's cgroup (on v2, when that refuses it, the
 * init's), or, where the kernel refuses CLONE_INTO_CGROUP, with the child
 * writing cgroup.procs itself. Returns the pid (0 in the child), or -errno
 * with err set. */
static pid_t exec_clone(const struct container *c, const struct exec_opts *o, struct cgroup *cg,
			struct cgroup_join *j, int init_pidfd, int *pidfd, struct error *err)
{
	struct clone_args ca = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD,
				 .pidfd = (uint64_t)(uintptr_t)pidfd };
	pid_t pid;
	int r, e;

	if (j->clone_dirfd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = j->clone_dirfd;
	}
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	e = errno;
	if (pid < 0 && e == EBUSY && (ca.flags & CLONE_INTO_CGROUP)) {
		/* a cgroup that takes no process: cgroup.procs would say the same */
		if ((r = exec_use_init_cgroup(c, o, init_pidfd, cg, j, "refuses a process (EBUSY)", err)) < 0)
			return r;
		if (r == 0 && j->clone_dirfd >= 0) {
			ca.cgroup = j->clone_dirfd;
			pid = syscall(SYS_clone3, &ca, sizeof(ca));
			e = errno;
		}
		if (pid < 0 && e == EBUSY) {   /* runc's words: "error adding pid N to cgroups: ..." */
			const char *sub = j->n_subs ? j->subs[0].path : "";

			return error_sys(err, EBUSY, "container \"%s\": adding pid of the new process to cgroups: %s%s%s",
					 c->id, cg->path, *sub ? "/" : "", sub);
		}
	}
	if (pid < 0 && (ca.flags & CLONE_INTO_CGROUP)) {
		ca.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
		if ((r = cgroup_join_without_clone(cg, j, err)) < 0) {
			error_prefix(err, "container \"%s\": adding pid to its cgroup", c->id);
			return r;
		}
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
	}
	return pid < 0 ? error_sys(err, errno, "clone") : pid;
}

int exec_process(struct container *c, const struct oci_config *cfg, struct oci_process *p,
		 const struct exec_opts *o, struct error *err)
{
	struct exec_ctx x = { .id = c->id, .cfg = cfg, .p = p, .o = o, .init_pidfd = -1,
			      .join = { .clone_dirfd = -1, .procs_fd = -1 } };
	struct cgroup cg = { .v2_dirfd = -1 };
	int sv[2] = { -1, -1 }, pidfd = -1, pty = -1, r, sig;
	pid_t pid;

	x.ns_flags = ns_exec_join_flags(&cfg->linux_);
	process_runtime_binary(&x.self_dev, &x.self_ino);
	x.landlock_abi = fence_asked(cfg) ? fence_recorded(c->dirfd) : -1;
	if (cfg->linux_.has_seccomp) {
		if ((r = seccomp_compile(&cfg->linux_.seccomp, o->seccomp_cache, log_debug_msg, &x.seccomp, err)) < 0)
			return r;
		x.has_seccomp = true;
	}
	x.init_pidfd = syscall(SYS_pidfd_open, c->st.pid, 0);
	if (x.init_pidfd < 0 || !container_alive(c)) {
		r = error_set(err, ESRCH, "container \"%s\": container not running", c->id);
		goto out;
	}
	if ((r = exec_join_cgroup(c, o, x.init_pidfd, &cg, &x.join, err)) < 0 ||
	    (r = join_pid_time(x.init_pidfd, cfg, &x.late_ns, err)) < 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = error_sys(err, errno, "socketpair");
		goto out;
	}
	x.sync_fd = sv[1];
	if (!o->detach)
		wait_block_signals();
	/* is AppArmor on: the host's answer, before the container's /sys is in view */
	if (p->apparmor_profile)
		attrs_probe_lsm();
	if (p->selinux_label)
		attrs_selinux_enabled();
	if (cfg->linux_.ns[OCI_NS_USER].present)
		process_raise_hard_limits(p);
	if ((pid = exec_clone(c, o, &cg, &x.join, x.init_pidfd, &pidfd, err)) < 0) {
		r = pid;
		goto out;
	}
	if (pid == 0)
		exec_child(&x);
	close(sv[1]);
	sv[1] = -1;
	/* as create: a child waiting to be put in its unit (a rootless caller's:
	 * that systemd moves it in) goes on once there; else a no-op */
	if ((r = cgroup_enter_systemd_unit(&cg, cfg, pid, &x.join, err)) < 0) {
		error_prefix(err, "container \"%s\": adding pid to its cgroup", c->id);
		goto kill;
	}
	if ((r = exec_answer(&x, c, &pid, &pidfd, sv[0], &pty, err)) < 0)
		goto reap;
	if (o->pid_file && (r = container_write_pid_file(o->pid_file, pid, err)) < 0)
		goto kill;
	if (o->pidfd_socket && (r = pidfd_send_to(o->pidfd_socket, pid, "setns", err)) < 0)
		goto kill;
	r = o->detach ? 0 : wait_container(pid, pidfd, pty, &sig, NULL);
	goto out;
kill:
	kill(pid, SIGKILL);
reap:
	waitpid(pid, NULL, 0);
out:
	if (pty >= 0)
		close(pty);
	if (pidfd >= 0)
		close(pidfd);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (x.init_pidfd >= 0)
		close(x.init_pidfd);
	cgroup_join_close(&x.join);
	cgroup_close(&cg);
	if (x.has_seccomp)
		seccomp_prog_free(&x.seccomp);
	return r;
}
