#include "cli.h"
#include "runtime/container/lifecycle.h"

static int set_frozen(struct global_opts *g, int argc, char **argv, bool frozen)
{
	const char *cmd = frozen ? "pause" : "resume";
	struct container c;
	struct cgroup cg;
	struct error err;
	enum container_status s;
	int r;

	if (argc != 2)
		return cli_usage_error(cmd, "expected exactly one container id");
	if (container_load(g->root, argv[1], true, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (frozen ? s != STATUS_RUNNING && s != STATUS_CREATED : s != STATUS_PAUSED) {
		container_close(&c);
		/* runc's ErrNotRunning / ErrNotPaused texts */
		return cli_failf("cannot %s container \"%s\": it is %s (container not %s)", cmd, argv[1],
				 container_status_name(s), frozen ? "running" : "paused");
	}
	if (!c.st.cgroup_path) {
		container_close(&c);
		return cli_failf("cannot %s container \"%s\": it has no cgroup", cmd, argv[1]);
	}
	r = cgroup_open(c.st.cgroup_path, c.st.systemd_cgroup, &cg, &err);
	if (r == 0) {
		r = cgroup_freeze(&cg, frozen, &err);
		cgroup_close(&cg);
	}
	container_close(&c);
	return r < 0 ? cli_fail(&err) : 0;
}

int cmd_pause(struct global_opts *g, int argc, char **argv)
{
	return set_frozen(g, argc, argv, true);
}

int cmd_resume(struct global_opts *g, int argc, char **argv)
{
	return set_frozen(g, argc, argv, false);
}
