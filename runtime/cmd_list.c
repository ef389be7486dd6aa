#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "runtime/log.h"
#include "runtime/container/lifecycle.h"

/* runc prints each state on one line: drop the whitespace outside strings. */
static void print_compact(const char *json, size_t len)
{
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char ch = json[i];

		if (in_str && ch == '\\' && i + 1 < len) {
			putchar(ch);
			ch = json[++i];
		} else if (ch == '"') {
			in_str = !in_str;
		} else if (!in_str && (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r')) {
			continue;
		}
		putchar(ch);
	}
}

/* The table: rows kept until every cell is known, then columns as wide as
 * their widest cell plus 3 (at least 12), as runc's tabwriter. */
#define LIST_COLS 6
struct table {
	char **cells;              /* LIST_COLS per row */
	size_t rows, cap;
};

static void table_add(struct table *t, const char *const *row)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **cells = realloc(t->cells, cap * LIST_COLS * sizeof(char *));
		if (!cells)
			return;
		t->cells = cells;
		t->cap = cap;
	}
	for (int i = 0; i < LIST_COLS; i++)
		t->cells[t->rows * LIST_COLS + i] = strdup(row[i]);
	t->rows++;
}

static void table_print(struct table *t)
{
	size_t w[LIST_COLS];

	for (int i = 0; i < LIST_COLS; i++) {
		w[i] = 12;
		for (size_t r = 0; r < t->rows; r++) {
			const char *s = t->cells[r * LIST_COLS + i];
			if (s && strlen(s) + 3 > w[i])
				w[i] = strlen(s) + 3;
		}
	}
	for (size_t r = 0; r < t->rows; r++) {
		for (int i = 0; i < LIST_COLS; i++) {
			const char *s = t->cells[r * LIST_COLS + i] ? t->cells[r * LIST_COLS + i] : "";
			if (i < LIST_COLS - 1)
				printf("%-*s", (int)w[i], s);
			else
				printf("%s\n", s);
			free(t->cells[r * LIST_COLS + i]);
		}
	}
	free(t->cells);
}

static void print_row(struct container *c, enum container_status s, int fmt, bool *first, struct table *t)
{
	char *json;
	size_t len;
	struct error err;

	/* state.json's owner is "" for root (runc's `state`); runc's list names the user */
	if (!c->st.owner || !*c->st.owner)
		c->st.owner = (char *)"root";
	if (fmt == 'q') {
		printf("%s\n", c->id);
	} else if (fmt == 'j') {
		if (container_state_json(c, container_status_name(s), &json, &len, &err) < 0)
			return;
		if (!*first)
			putchar(',');
		print_compact(json, len);
		free(json);
	} else {
		char pid[16];
		const char *row[LIST_COLS] = { c->id, pid, container_status_name(s), c->st.bundle ? c->st.bundle : "",
					       c->st.created ? c->st.created : "",
					       c->st.owner };

		snprintf(pid, sizeof(pid), "%d", s == STATUS_STOPPED ? 0 : (int)c->st.pid);
		table_add(t, row);
	}
	*first = false;
}

const struct cli_opt cmd_list_opts[] = {
	{ "quiet", 'q', 'q', NULL, "the ids only, one per line" },
	{ "format", 'f', 'f', "table|json", "a table (default) or a JSON array" },
	{ 0 },
};

int cmd_list(struct global_opts *g, int argc, char **argv)
{
	int ch, fmt = 't', n, rootfd;
	bool first = true, shared = false;
	struct error err;
	struct dirent **names = NULL;
	struct table table = { 0 };

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_list_opts, false)) != -1) {
		if (ch == 'q')
			fmt = 'q';
		else if (ch == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "table")))
			fmt = fmt == 'q' ? 'q' : optarg[0];
		else
			return cli_option_error("list", cmd_list_opts, ch, argv);
	}
	if (optind != argc)
		return cli_usage_error("list", "takes no arguments");
	/* --root opened and checked once, not once a container; a missing
	 * default root is no container yet, a missing --root given is an
	 * error (runc 1.2+) */
	if ((rootfd = container_root_open(g->root, &shared, &err)) < 0 && (err.code != ENOENT || g->root_given))
		return cli_fail(&err);
	if (fmt == 't')
		table_add(&table, (const char *const[LIST_COLS]){ "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER" });
	if (fmt == 'j')
		putchar('[');
	/* sorted by id, as runc (scandir in the C locale: byte order) */
	n = rootfd < 0 ? 0 : scandir(g->root, &names, NULL, alphasort);
	for (int k = 0; k < n; k++) {
		struct container c;

		if (names[k]->d_name[0] != '.') {
			int r = container_load_at(rootfd, shared, g->root, names[k]->d_name, &c, &err);

			if (r == 0 && c.has_state)
				print_row(&c, container_status(&c), fmt, &first, &table);
			else if (r < 0 && c.bad_state)   /* as runc's "load container ID: ..." */
				log_warn("%s", err.msg);
			container_close(&c);   /* a dir refused (a symlink, another's): skipped silently */
		}
		free(names[k]);
	}
	free(names);
	if (rootfd >= 0)
		close(rootfd);
	if (fmt == 't')
		table_print(&table);
	if (fmt == 'j')
		printf("]\n");
	return 0;
}
