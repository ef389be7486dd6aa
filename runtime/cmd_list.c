#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lifecycle.h"

static void print_row(struct container *c, enum container_status s, int fmt, bool *first)
{
	char *json;
	size_t len;
	struct error err;

	if (fmt == 'q') {
		printf("%s\n", c->id);
	} else if (fmt == 'j') {
		if (container_state_json(c, container_status_name(s), &json, &len, &err) < 0)
			return;
		printf("%s%.*s", *first ? "" : ",", (int)len, json);
		free(json);
	} else {
		printf("%-12s %-8d %-10s %-40s %-30s %s\n", c->id, s == STATUS_STOPPED ? 0 : (int)c->st.pid,
		       container_status_name(s), c->st.bundle ? c->st.bundle : "",
		       c->st.created ? c->st.created : "", c->st.owner && *c->st.owner ? c->st.owner : "root");
	}
	*first = false;
}

int cmd_list(struct global_opts *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' }, { "format", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	int ch, fmt = 't';
	bool first = true;
	struct dirent *de;
	DIR *d;

	opterr = 0;
	while ((ch = getopt_long_only(argc, argv, "+qf:", opts, NULL)) != -1) {
		if (ch == 'q')
			fmt = 'q';
		else if (ch == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "table")))
			fmt = fmt == 'q' ? 'q' : optarg[0];
		else
			return cli_usage_error("list", "invalid option %s", argv[optind - 1]);
	}
	if (optind != argc)
		return cli_usage_error("list", "takes no arguments");
	if (fmt == 't')
		printf("%-12s %-8s %-10s %-40s %-30s %s\n", "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
	if (fmt == 'j')
		putchar('[');
	d = opendir(g->root);
	while (d && (de = readdir(d))) {
		struct container c;
		struct error err;

		if (de->d_name[0] == '.' || container_load(g->root, de->d_name, false, &c, &err) < 0)
			continue;
		if (c.has_state)
			print_row(&c, container_status(&c), fmt, &first);
		container_close(&c);
	}
	if (d)
		closedir(d);
	if (fmt == 'j')
		printf("]\n");
	return 0;
}
