#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "runtime/container/lifecycle.h"

int cmd_state(struct global_opts *g, int argc, char **argv)
{
	struct container c;
	struct error err;
	char *json;
	size_t len;
	enum container_status s;

	if (argc != 2)
		return cli_usage_error("state", "expected exactly one container id");
	if (container_load(g->root, argv[1], false, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (!c.has_state) {
		c.st = (struct container_state){ .id = (char *)argv[1], .oci_version = "1.3.0", .owner = "" };
		c.has_state = true;
	}
	if (s == STATUS_STOPPED)
		c.st.pid = 0;
	if (container_state_json(&c, container_status_name(s), &json, &len, &err) < 0) {
		container_close(&c);
		return cli_fail(&err);
	}
	fwrite(json, 1, len, stdout);
	if (len && json[len - 1] != '\n')
		putchar('\n');
	return 0;   /* main returns next: json and the state dir's fd go with the process */
}
