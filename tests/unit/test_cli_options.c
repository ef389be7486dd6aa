/* Option parsing of the command layer: the per-command option tables
 * (runtime/cli.c, runtime/cmd_*.c) that drive the parsers, --help, the man
 * page and completion, cli_getopt over them, and create/run's parser. */
#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "runtime/cli.h"
#include "runtime/container/create.h"
#include "unit.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_tables(void)
{
	int n = 0;

	for (const struct command *c = cli_commands; c->name; c++, n++) {
		CHECK(cli_find_command(c->name) == c);
		CHECK(c->summary && *c->summary && c->synopsis && c->opts);
		CHECK(c->run || !strcmp(c->name, "help"));
		for (const struct cli_opt *o = c->opts; o->name; o++) {
			CHECK(o->help && *o->help && o->val != 0 && o->val != '?');
			for (const struct cli_opt *q = o + 1; q->name; q++) {
				/* a name, a short letter, a value: each once per command */
				if (!strcmp(o->name, q->name) || (o->shrt && o->shrt == q->shrt) || o->val == q->val)
					fprintf(stderr, "%s: --%s and --%s clash\n", c->name, o->name, q->name);
				CHECK(strcmp(o->name, q->name) && (!o->shrt || o->shrt != q->shrt) && o->val != q->val);
			}
		}
	}
	CHECK(n == 21);   /* + gc, check, checkpoint, restore */
	CHECK(cli_find_command("nope") == NULL);
	CHECK(cli_find_command("create")->opts == cmd_create_opts);
	CHECK(cli_find_command("run")->opts == cmd_run_opts);
	/* run takes every create option, then its own */
	for (size_t i = 0; cmd_create_opts[i].name; i++)
		CHECK(!strcmp(cmd_create_opts[i].name, cmd_run_opts[i].name) && cmd_create_opts[i].val == cmd_run_opts[i].val);
	/* --no-subreaper is in create's table, so in its help too */
	bool found = false;
	for (const struct cli_opt *o = cmd_create_opts; o->name; o++)
		found |= !strcmp(o->name, "no-subreaper");
	CHECK(found);
	for (const struct cli_opt *o = cli_global_opts; o->name; o++)
		CHECK(o->help && *o->help);
}

static void test_getopt(void)
{
	char *a1[] = { "create", "--bundle", "/b", "-pid-file=/p", "-b", "/c", "--no-pivot", "id", NULL };
	char *a2[] = { "exec", "-t", "id", "sh", "-t", NULL };
	char *a3[] = { "create", "--bogus", NULL };
	char *a4[] = { "create", "--bundle", NULL };
	int ch;

	optind = 0;
	opterr = 0;
	CHECK(cli_getopt(ARGC(a1), a1, cmd_create_opts, false) == 'b' && !strcmp(optarg, "/b"));
	CHECK(cli_getopt(ARGC(a1), a1, cmd_create_opts, false) == 'p' && !strcmp(optarg, "/p"));   /* -long=value */
	CHECK(cli_getopt(ARGC(a1), a1, cmd_create_opts, false) == 'b' && !strcmp(optarg, "/c"));
	CHECK(cli_getopt(ARGC(a1), a1, cmd_create_opts, false) == 'P');
	CHECK(cli_getopt(ARGC(a1), a1, cmd_create_opts, false) == -1 && !strcmp(a1[optind], "id"));

	/* exec stops at the first argument: the command's own -t stays */
	optind = 0;
	CHECK(cli_getopt(ARGC(a2), a2, cmd_exec_opts, true) == 't');
	CHECK(cli_getopt(ARGC(a2), a2, cmd_exec_opts, true) == -1 && optind == 2);

	optind = 0;
	CHECK(cli_getopt(ARGC(a3), a3, cmd_create_opts, false) == '?');
	optind = 0;
	ch = cli_getopt(ARGC(a4), a4, cmd_create_opts, false);
	CHECK(ch == '?' || ch == ':');
}

static int parse(char **argv, int argc, struct create_opts *o, struct run_flags *rf)
{
	memset(o, 0, sizeof(*o));
	if (rf)
		memset(rf, 0, sizeof(*rf));
	optind = 0;
	return cmd_create_parse(argv[0], argc, argv, o, rf);
}

static void test_create_parse(void)
{
	struct create_opts o;
	struct run_flags rf;
	char *all[] = { "create", "--bundle", "b", "--pid-file", "p", "--console-socket", "s", "--no-pivot",
			"--no-new-keyring", "--preserve-fds", "3", "--no-subreaper", "--config", "c.json", "id", NULL };
	char *after[] = { "create", "id", "-b", "x", NULL };
	char *fds_max[] = { "create", "--preserve-fds", "65536", "id", NULL };
	char *bad[][4] = { { "create", "--preserve-fds", "x", NULL }, { "create", "--preserve-fds", "-1", NULL },
			   { "create", "--preserve-fds", "65537", NULL }, { "create", "--preserve-fds", "3x", NULL },
			   { "create", "--detach", "id", NULL }, { "create", "--bundle", NULL, NULL } };
	char *run[] = { "run", "-d", "--keep", "--id", "c1", "-b", "bb", "./bundle", NULL };
	int i;

	i = parse(all, ARGC(all), &o, NULL);
	CHECK(i == 14 && !strcmp(all[i], "id"));
	CHECK_STR(o.bundle, "b");
	CHECK_STR(o.pid_file, "p");
	CHECK_STR(o.console_socket, "s");
	CHECK_STR(o.config_file, "c.json");
	CHECK(o.no_pivot && o.no_new_keyring && o.preserve_fds == 3);

	/* options after the id, as runc */
	i = parse(after, ARGC(after), &o, NULL);
	CHECK(i == 3 && !strcmp(after[i], "id"));
	CHECK_STR(o.bundle, "x");

	i = parse(fds_max, ARGC(fds_max), &o, NULL);
	CHECK(i == 3 && o.preserve_fds == 65536);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int argc = 0;

		while (bad[k][argc])
			argc++;
		CHECK(parse(bad[k], argc, &o, NULL) == -1);
	}

	i = parse(run, ARGC(run), &o, &rf);
	CHECK(i == 7 && !strcmp(run[i], "./bundle"));
	CHECK(rf.detach && rf.keep);
	CHECK_STR(rf.id, "c1");
	CHECK_STR(o.bundle, "bb");
}

static void test_wants_help(void)
{
	const struct command *exec = cli_find_command("exec"), *create = cli_find_command("create");
	char *h1[] = { "create", "id", "--help", NULL };
	char *h2[] = { "create", "--", "--help", NULL };
	char *h3[] = { "exec", "id", "ls", "-h", NULL };
	char *h4[] = { "exec", "-h", NULL };
	FILE *saved = stdout;

	stdout = fopen("/dev/null", "w");   /* the help text itself */
	CHECK(cli_wants_help(create, ARGC(h1), h1));
	CHECK(!cli_wants_help(create, ARGC(h2), h2));
	CHECK(!cli_wants_help(exec, ARGC(h3), h3));   /* the program's -h */
	CHECK(cli_wants_help(exec, ARGC(h4), h4));
	fclose(stdout);
	stdout = saved;
}

int main(void)
{
	test_tables();
	test_getopt();
	test_create_parse();
	test_wants_help();
	return unit_report("test_cli_options");
}
