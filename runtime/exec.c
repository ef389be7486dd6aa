#include "exec.h"

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

#include "attrs.h"
#include "cgroup.h"
#include "cgroup-join.h"
#include "log.h"
#include "namespaces.h"
#include "process.h"
#include "sync.h"
#include "terminal.h"
#include "wait.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

struct exec_ctx {
	const char *id;
	dev_t self_dev;
	ino_t self_ino;
	const struct oci_config *cfg;
	struct oci_process *p;
	char **env;                   /* p->env, plus HOME when it has none */
	const struct exec_opts *o;
	int init_pidfd;
	int ns_flags;                 /* joined by the child (all but pid and time) */
	int sync_fd;
	bool has_seccomp;
	struct seccomp_prog seccomp;
	struct cgroup_join join;
};

static int exec_terminal(struct exec_ctx *x, struct error *err)
{
	int slave, master = terminal_open("/", x->p, &slave, err), r;

	if (master < 0)
		return master;
	r = sync_send(x->sync_fd, SYNC_PTY, 0, NULL, 0, master);
	close(master);
	if (r < 0)
		return error_sys(err, -r, "terminal: send the pty");
	r = terminal_take(slave, err);
	close(slave);
	return r;
}

static int exec_seccomp(struct exec_ctx *x, struct error *err)
{
	int r = seccomp_prog_load(&x->seccomp, err);

	if (r > 0) {
		int sent = sync_send(x->sync_fd, SYNC_SECCOMP_FD, 0, NULL, 0, r);
		close(r);
		if (sent < 0)
			return error_sys(err, -sent, "seccomp: send the notify fd");
	}
	return r < 0 ? r : 0;
}

static int exec_prepare(struct exec_ctx *x, char *exe, struct error *err)
{
	struct oci_process *p = x->p;
	struct stat exe_st;
	int r;

	if ((r = attrs_affinity_initial(p, err)) < 0 || (r = cgroup_join_self(&x->join, err)) < 0)
		return r;
	if (setns(x->init_pidfd, x->ns_flags) < 0)
		return error_sys(err, errno, "join the container's namespaces");
	if (x->o->join_keyring)
		process_join_keyring(x->id);
	if (p->terminal && (r = exec_terminal(x, err)) < 0)
		return r;
	if ((r = process_apply_limits(p, err)) < 0 || (r = attrs_apply(p, &x->cfg->linux_, err)) < 0 ||
	    (r = attrs_set_labels(p, err)) < 0)
		return r;
	/* CVE-2024-21626: nothing of the host (cgroup dirs, the caller's fds,
	 * the pidfd) stays open while the container's paths are resolved */
	if ((r = process_close_fds(3 + x->o->preserve_fds, &x->sync_fd, 1, err)) < 0)
		return r;
	log_forget_file();
	if (x->has_seccomp && !p->no_new_privileges && (r = exec_seccomp(x, err)) < 0)
		return r;
	x->env = process_env_with_home(p);
	if ((r = process_drop_bounding(p, err)) < 0 ||
	    (r = process_become_user(p, true, err)) < 0 ||
	    (r = process_find_exec(p, exe, PATH_MAX, &exe_st, err)) < 0 ||
	    (r = process_check_not_runtime(exe, &exe_st, x->self_dev, x->self_ino, err)) < 0 ||
	    (r = process_set_no_new_privs(p, err)) < 0)
		return r;
	if (x->has_seccomp && p->no_new_privileges && (r = exec_seccomp(x, err)) < 0)
		return r;
	return 0;
}

__attribute__((noreturn)) static void exec_child(struct exec_ctx *x)
{
	static char exe[PATH_MAX];
	struct error err = { 0 };
	extern char **environ;

	/* no signal blocked or ignored by the runtime or its caller reaches the process */
	process_reset_signals();
	/* as runc: process.json's oomScoreAdj, else the container's */
	if (process_set_oom_score(x->p->has_oom_score_adj ? x->p : &x->cfg->process, &err) < 0)
		goto fail;
	/* see child.c: no container process may ptrace us or open our /proc files */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_close_range, 3 + x->o->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
	if (exec_prepare(x, exe, &err) == 0) {
		environ = x->env;
		execve(exe, x->p->args, x->env);
		error_sys(&err, errno, "exec %s", exe);
	}
fail:
	sync_send(x->sync_fd, SYNC_ERROR, 0, err.msg, strlen(err.msg), -1);
	_exit(255);
}

static int ns_flags_of(const struct oci_config *cfg)
{
	int flags = 0;

	for (int t = 0; t < OCI_NS_TYPES; t++)
		if (cfg->linux_.ns[t].present)
			flags |= ns_clone_flag(t);
	return flags;
}

static int send_listener(struct exec_ctx *x, struct container *c, pid_t pid, int fd, struct error *err)
{
	const struct oci_seccomp *s = &x->cfg->linux_.seccomp;
	char *json;
	size_t len;
	int r = oci_state_to_json(&c->st, "running", true, &json, &len, err);

	if (r < 0)
		return r;
	r = seccomp_send_listener(s->listener_path, s->listener_metadata, json, pid, fd, err);
	free(json);
	return r;
}

/* Wait for the child to exec (its sync socket closes) or to report an error. */
static int exec_answer(struct exec_ctx *x, struct container *c, pid_t pid, int sync_fd, int *pty_master,
		       struct error *err)
{
	char payload[1024];
	struct sync_msg m;
	int fd, r;

	for (;;) {
		r = sync_recv(sync_fd, &m, payload, sizeof(payload), &fd);
		if (r == SYNC_PTY) {
			if (x->o->console_socket) {
				r = terminal_send(x->o->console_socket, fd, err);
				close(fd);
				if (r < 0)
					return r;
			} else {
				*pty_master = fd;
			}
			continue;
		}
		if (r == SYNC_SECCOMP_FD) {
			r = fd < 0 ? error_set(err, EPROTO, "seccomp: no notify fd") : send_listener(x, c, pid, fd, err);
			if (fd >= 0)
				close(fd);
			if (r < 0)
				return r;
			continue;
		}
		if (r == SYNC_ERROR)
			return error_set(err, ECANCELED, "%s", payload);
		return 0;   /* EOF: exec happened */
	}
}

static int join_pid_time(int pidfd, const struct oci_config *cfg, struct error *err)
{
	int flags = 0;

	if (cfg->linux_.ns[OCI_NS_PID].present)
		flags |= CLONE_NEWPID;
	if (cfg->linux_.ns[OCI_NS_TIME].present)
		flags |= CLONE_NEWTIME;
	if (flags && setns(pidfd, flags) < 0)
		return error_sys(err, errno, "join the container's pid namespace");
	return 0;
}

int exec_process(struct container *c, const struct oci_config *cfg, struct oci_process *p,
		 const struct exec_opts *o, struct error *err)
{
	struct exec_ctx x = { .id = c->id, .cfg = cfg, .p = p, .o = o, .init_pidfd = -1,
			      .join = { .clone_dirfd = -1, .procs_fd = -1 } };
	struct cgroup cg = { .v2_dirfd = -1 };
	struct clone_args ca = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	int sv[2] = { -1, -1 }, pidfd = -1, pty = -1, r, sig;
	bool have_cg = false;
	pid_t pid;

	x.ns_flags = ns_flags_of(cfg) & ~(CLONE_NEWPID | CLONE_NEWTIME);
	{
		struct stat self;
		if (stat("/proc/self/exe", &self) == 0) {
			x.self_dev = self.st_dev;
			x.self_ino = self.st_ino;
		}
	}
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
	/* never a process outside the container's cgroup: no cgroup, no exec */
	if (c->st.cgroup_path) {
		r = cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, err);
		if (r == 0) {
			have_cg = true;
			r = cgroup_join_prepare(&cg, &x.join, err);
		}
		if (r < 0) {
			error_prefix(err, "container \"%s\": cannot join its cgroup", c->id);
			goto out;
		}
	}
	if ((r = join_pid_time(x.init_pidfd, cfg, err)) < 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = error_sys(err, errno, "socketpair");
		goto out;
	}
	x.sync_fd = sv[1];
	if (!o->detach)
		wait_block_signals();
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	if (x.join.clone_dirfd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = x.join.clone_dirfd;
	}
	/* kernel facts from the host, before the container's /proc and /sys are in view */
	process_cap_last_cap();
	if (p->apparmor_profile)
		attrs_probe_lsm();
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0 && (ca.flags & CLONE_INTO_CGROUP)) {
		/* the child writes cgroup.procs itself */
		ca.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
		if ((r = cgroup_join_without_clone(&cg, &x.join, err)) < 0) {
			error_prefix(err, "container \"%s\": cannot join its cgroup", c->id);
			goto out;
		}
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
	}
	if (pid == 0)
		exec_child(&x);
	if (pid < 0) {
		r = error_sys(err, errno, "clone");
		goto out;
	}
	close(sv[1]);
	sv[1] = -1;
	if ((r = exec_answer(&x, c, pid, sv[0], &pty, err)) < 0)
		goto reap;
	if (o->pid_file && (r = write_pid_file(o->pid_file, pid, err)) < 0)
		goto kill;
	r = o->detach ? 0 : wait_container(pid, pidfd, pty, &sig);
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
	if (have_cg)
		cgroup_close(&cg);
	if (x.has_seccomp)
		seccomp_prog_free(&x.seccomp);
	return r;
}
