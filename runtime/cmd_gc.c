/* `tinyrun gc [ID]`: remove what crashed creates left (runtime/container/gc.h). */
#include <stdio.h>

#include "cli.h"
#include "runtime/container/gc.h"

int cmd_gc(struct global_opts *g, int argc, char **argv)
{
	struct error err;
	int r;

	if (argc > 2)
		return cli_usage_error("gc", "expected at most one container id");
	if (argc == 2 && argv[1][0] == '-')
		return cli_usage_error("gc", "unknown option %s", argv[1]);
	if (argc == 2) {
		if ((r = gc_id(g->root, argv[1], &err)) < 0)
			return cli_fail(&err);
		if (r == 1)
			printf("%s\n", argv[1]);
		return 0;
	}
	return gc_root(g->root, stdout, &err) < 0 ? cli_fail(&err) : 0;
}
