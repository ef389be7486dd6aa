#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "runtime/container/lifecycle.h"
#include "oci/tables.h"

static int signal_init(struct container *c, int sig, struct error *err)
{
	int pidfd = syscall(SYS_pidfd_open, c->st.pid, 0), r = 0;

	if (pidfd < 0)
		return error_sys(err, errno, "container \"%s\": pid %d", c->id, (int)c->st.pid);
	/* the pidfd pins the process: check it is still ours, then signal it */
	if (!container_alive(c))
		r = error_set(err, ESRCH, "container \"%s\": container not running", c->id);
	else if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0)
		r = error_sys(err, errno, "container \"%s\": kill", c->id);
	close(pidfd);
	return r;
}

/* runc thaws a paused container for KILL, else the signal waits for resume. */
static void thaw_for_kill(struct container *c, int sig)
{
	struct cgroup cg;
	struct error err;

	if (sig != SIGKILL || !c->st.cgroup_path ||
	    cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, &err) < 0)
		return;
	cgroup_freeze(&cg, false, &err);
	cgroup_close(&cg);
}

/* --all: every process in the cgroup; a stopped container (cgroup empty or
 * gone) is not an error, as runc. */
static int signal_all(struct container *c, int sig, struct error *err)
{
	struct cgroup cg;
	int r;

	if (!c->st.cgroup_path)
		return signal_init(c, sig, err);
	r = cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, err);
	if (r == -ENOENT && container_status(c) == STATUS_STOPPED)
		return 0;
	if (r < 0)
		return r;
	r = cgroup_kill_all(&cg, sig, err);
	cgroup_close(&cg);
	return r;
}

/* The init shares our pid namespace (the config had none of its own): its
 * death takes no other process with it. */
static bool shares_our_pidns(pid_t pid)
{
	char path[64];
	struct stat ours, its;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return stat("/proc/self/ns/pid", &ours) == 0 && stat(path, &its) == 0 &&
	       ours.st_dev == its.st_dev && ours.st_ino == its.st_ino;
}

/* Processes left in the cgroup of a stopped container: only possible
 * without a pid namespace of its own (an init's death ends its namespace). */
static bool cgroup_has_pids(const struct container *c)
{
	struct cgroup cg;
	struct error err;
	pid_t *pids = NULL;
	size_t n = 0;

	if (!c->st.cgroup_path || cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, &err) < 0)
		return false;
	if (cgroup_pids(&cg, &pids, &n, &err) < 0)
		n = 0;
	free(pids);
	cgroup_close(&cg);
	return n > 0;
}

const struct cli_opt cmd_kill_opts[] = {
	{ "all", 'a', 'a', NULL, "signal every process in the container's cgroup, not only its init" },
	{ 0 },
};

int cmd_kill(struct global_opts *g, int argc, char **argv)
{
	struct container c;
	struct error err;
	enum container_status s;
	bool all = false;
	int ch, sig = SIGTERM, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_kill_opts, false)) != -1) {
		if (ch != 'a')
			return cli_usage_error("kill", "unknown option %s", argv[optind - 1]);
		all = true;
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_usage_error("kill", "expected a container id and an optional signal");
	/* 0 checks that the container runs, as kill(2) */
	if (argc - optind == 2 && (sig = oci_signal_parse(argv[optind + 1])) < 0)
		return cli_failf("kill: invalid signal \"%s\"", argv[optind + 1]);
	if (container_load(g->root, argv[optind], true, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	/* as runc: KILL of a container without its own pid namespace kills
	 * every process of its cgroup, even once the init is gone; killing
	 * only the init would leave the others running */
	if (sig == SIGKILL && !all && c.st.cgroup_path &&
	    (s == STATUS_STOPPED ? cgroup_has_pids(&c) : s != STATUS_CREATING && shares_our_pidns(c.st.pid)))
		all = true;
	if (s == STATUS_CREATING || (s == STATUS_STOPPED && !all)) {
		container_close(&c);
		/* containerd and podman match "container not running" */
		return cli_failf("cannot kill container \"%s\": container not running", argv[optind]);
	}
	r = all ? signal_all(&c, sig, &err) : signal_init(&c, sig, &err);
	if (r == 0 && s == STATUS_PAUSED)
		thaw_for_kill(&c, sig);
	container_close(&c);
	return r < 0 ? cli_fail(&err) : 0;
}
