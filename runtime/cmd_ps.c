#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cli.h"
#include "runtime/container/lifecycle.h"

/* ps -f json: the pids, as runc prints them. Otherwise run ps(1) with the given
 * options (default -ef) and keep the header plus the container's lines. */
static int print_ps(pid_t *pids, size_t n, int argc, char **argv)
{
	char *args[64] = { "ps" };
	int fds[2], i = 1, pidcol = -1, status;
	char line[4096];
	FILE *f;
	pid_t child;

	for (int k = 0; k < argc && i < 62; k++)
		args[i++] = argv[k];
	if (argc == 0)
		args[i++] = "-ef";
	if (pipe(fds) < 0 || (child = fork()) < 0)
		return cli_failf("ps: cannot run ps");
	if (child == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp("ps", args);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	for (int lineno = 0; f && fgets(line, sizeof(line), f); lineno++) {
		char copy[4096], *tok, *save;
		int col = 0;

		strcpy(copy, line);
		for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save), col++) {
			if (lineno == 0 && !strcmp(tok, "PID"))
				pidcol = col;
			if (lineno > 0 && col == pidcol) {
				pid_t p = atoi(tok);
				for (size_t k = 0; k < n; k++)
					if (pids[k] == p)
						fputs(line, stdout);
				break;
			}
		}
		if (lineno == 0)
			fputs(line, stdout);
	}
	if (f)
		fclose(f);
	waitpid(child, &status, 0);
	return pidcol < 0 ? cli_failf("ps: no PID column in the output of ps") : 0;
}

const struct cli_opt cmd_ps_opts[] = {
	{ "format", 'f', 'f', "table|json", "ps(1)'s table (default) or a JSON array of host pids" },
	{ 0 },
};

int cmd_ps(struct global_opts *g, int argc, char **argv)
{
	bool json = false;
	struct container c;
	struct cgroup cg;
	struct error err;
	pid_t *pids = NULL;
	size_t n = 0;
	bool stopped;
	int ch, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_ps_opts, true)) != -1) {
		if (ch == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "table")))
			json = !strcmp(optarg, "json");
		else
			return cli_option_error("ps", cmd_ps_opts, ch, argv);
	}
	if (optind >= argc)
		return cli_usage_error("ps", "expected a container id");
	if (container_load(g->root, argv[optind], false, &c, &err) < 0)
		return cli_fail(&err);
	stopped = container_status(&c) == STATUS_STOPPED;
	/* as runc: a stopped container has no processes (its cgroup may be gone) */
	if (!c.st.cgroup_path)
		r = stopped ? 0 : error_set(&err, ENOENT, "container \"%s\" has no cgroup", c.id);
	else if ((r = cgroup_open(c.st.cgroup_path, c.st.systemd_cgroup, &cg, &err)) == 0) {
		r = cgroup_pids(&cg, &pids, &n, &err);
		cgroup_close(&cg);
	} else if (r == -ENOENT && stopped) {
		r = 0;
	}
	container_close(&c);
	if (r < 0)
		return cli_fail(&err);
	if (json) {
		printf("[");
		for (size_t k = 0; k < n; k++)
			printf("%s%d", k ? "," : "", (int)pids[k]);
		printf("]\n");
	} else {
		int skip = optind + 1 < argc && !strcmp(argv[optind + 1], "--") ? 2 : 1;
		r = print_ps(pids, n, argc - optind - skip, argv + optind + skip);
	}
	free(pids);
	return r;
}
