#include <errno.h>
#include <getopt.h>

#include "cli.h"
#include "runtime/container/gc.h"
#include "runtime/container/lifecycle.h"

const struct cli_opt cmd_delete_opts[] = {
	{ "force", 'f', 'f', NULL, "kill a running container (SIGKILL) first" },
	{ 0 },
};

int cmd_delete(struct global_opts *g, int argc, char **argv)
{
	struct container c;
	struct error err;
	enum container_status s;
	bool force = false;
	int ch;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_delete_opts, false)) != -1) {
		if (ch != 'f')
			return cli_usage_error("delete", "unknown option %s", argv[optind - 1]);
		force = true;
	}
	if (argc - optind != 1)
		return cli_usage_error("delete", "expected exactly one container id");
	if (container_load(g->root, argv[optind], true, &c, &err) < 0) {
		/* runc: delete --force of a container that does not exist succeeds */
		return force && err.code == ENOENT ? 0 : cli_fail(&err);
	}
	s = container_status(&c);
	if ((s == STATUS_RUNNING || s == STATUS_PAUSED) && !force) {
		container_close(&c);
		return cli_failf("cannot delete container \"%s\": it is %s (use --force)", argv[optind],
				 container_status_name(s));
	}
	if (s == STATUS_CREATING && !force) {
		container_close(&c);
		/* we hold its lock, so its creator is gone: a create that died half-way */
		return cli_failf("cannot delete container \"%s\": its create did not finish (use --force, or tinyrun gc)",
				 argv[optind]);
	}
	if (!c.has_state)   /* we hold its lock: its create died half-way */
		gc_clean_locked(&c);
	else
		lifecycle_destroy(&c, NULL, &err);
	container_close(&c);
	return 0;
}
