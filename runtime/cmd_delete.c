#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runtime/container/gc.h"
#include "runtime/container/lifecycle.h"
#include "runtime/log.h"

const struct cli_opt cmd_delete_opts[] = {
	{ "force", 'f', 'f', NULL, "kill a running container (SIGKILL) first; remove one whose state.json cannot be used, from its records" },
	{ "regex", 'r', 'r', NULL, "ID is an extended regular expression: delete every container whose id it matches (crun)" },
	{ 0 },
};

/* Its state.json cannot be used (cut short, too large: statedir.h), so its
 * status is unknown: only --force removes it, from the records create left
 * (gc's cleaners: the init by pid and start time, the cgroup, the dir). */
static int delete_unusable(struct container *c, bool force, struct error *err)
{
	int r = 0;

	if (force) {
		log_warn("%s: removing what its records name", err->msg);
		gc_clean_locked(c);
	} else {
		r = cli_failf("%s (delete --force removes it)", err->msg);
	}
	container_close(c);
	return r;
}

static int delete_one(const struct global_opts *g, const char *id, bool force)
{
	struct container c;
	struct error err;
	enum container_status s;

	if (container_load(g->root, id, true, &c, &err) < 0) {
		if (c.bad_state)
			return delete_unusable(&c, force, &err);
		/* runc: delete --force of a container that does not exist succeeds */
		return force && err.code == ENOENT ? 0 : cli_fail(&err);
	}
	s = container_status(&c);
	if ((s == STATUS_RUNNING || s == STATUS_PAUSED) && !force) {
		container_close(&c);
		return cli_failf("cannot delete container \"%s\": it is %s (use --force)", id,
				 container_status_name(s));
	}
	if (s == STATUS_CREATING && !force) {
		container_close(&c);
		/* we hold its lock, so its creator is gone: a create that died half-way */
		return cli_failf("cannot delete container \"%s\": its create did not finish (use --force, or tinyrun gc)",
				 id);
	}
	if (!c.has_state)   /* we hold its lock: its create died half-way */
		gc_clean_locked(&c);
	else
		lifecycle_destroy(&c, NULL, &err);
	container_close(&c);
	return 0;
}

/* crun's delete --regex: unanchored (REG_EXTENDED), over the ids under --root */
static int delete_matching(const struct global_opts *g, const char *expr, bool force)
{
	struct dirent **names = NULL;
	regex_t re;
	int n, r = 0;

	if (regcomp(&re, expr, REG_EXTENDED | REG_NOSUB) != 0)
		return cli_usage_error("delete", "--regex: invalid regular expression \"%s\"", expr);
	n = scandir(g->root, &names, NULL, alphasort);
	if (n < 0 && (errno != ENOENT || g->root_given))
		r = cli_failf("--root %s: %s", g->root, strerror(errno));
	for (int k = 0; k < n; k++) {
		if (names[k]->d_name[0] != '.' && regexec(&re, names[k]->d_name, 0, NULL, 0) == 0 &&
		    delete_one(g, names[k]->d_name, force) != 0)
			r = 1;
		free(names[k]);
	}
	free(names);
	regfree(&re);
	return r;
}

int cmd_delete(struct global_opts *g, int argc, char **argv)
{
	bool force = false, regex = false;
	int ch;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_delete_opts, false)) != -1) {
		if (ch == 'f')
			force = true;
		else if (ch == 'r')
			regex = true;
		else
			return cli_usage_error("delete", "unknown option %s", argv[optind - 1]);
	}
	if (argc - optind != 1)
		return cli_usage_error("delete", "expected exactly one container id");
	return regex ? delete_matching(g, argv[optind], force) : delete_one(g, argv[optind], force);
}
