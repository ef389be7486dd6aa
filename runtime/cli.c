#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

/* The command table and the option tables no command owns (declared in cli.h). */
const struct cli_opt cli_no_opts[] = { { 0 } };

/* For help, the man page and completion; main.c's parse_globals reads them. */
const struct cli_opt cli_global_opts[] = {
	{ "root", 0, 0, "DIR", "state directory (default /run/tinyrun; $XDG_RUNTIME_DIR/tinyrun for a user other than root; use a tmpfs)" },
	{ "log", 0, 0, "FILE", "write messages to FILE (text: time, level, message); errors also to stderr" },
	{ "log-format", 0, 0, "text|json", "format of messages on stderr and in --log (json: {\"level\",\"msg\",\"time\"})" },
	{ "debug", 0, 0, NULL, "a debug line per step (config, namespaces, cgroup, mounts, hooks, seccomp, exec)" },
	{ "systemd-cgroup", 0, 0, NULL, "linux.cgroupsPath is slice:prefix:name (a systemd scope, made over D-Bus: the system bus, or a rootless caller's own systemd over its session bus, cgroup v2 only; refused when systemd does not run)" },
	{ "cgroup-manager", 0, 0, "cgroupfs|systemd|disabled", "crun's spelling of --systemd-cgroup; disabled: no cgroup, linux.resources ignored (crun)" },
	{ "rootless", 0, 0, "true|false|auto", "true: a cgroup the caller may not make is skipped when linux.resources asks for nothing (runc); auto (default): true for a user other than root and for root in a user namespace (rootless podman)" },
	{ "version", 'v', 0, NULL, "the version, commit, library versions and built-in features" },
	{ "help", 'h', 0, NULL, "this help; tinyrun help COMMAND or COMMAND --help for a command" },
	{ 0 },
};

const struct command cli_commands[] = {
	{ "create", cmd_create, "create a container, blocked before its process runs", "create [options] ID", cmd_create_opts,
	  "With LISTEN_FDS=N set (systemd socket activation), fds 3..3+N-1 go first. With\n"
	  "NOTIFY_SOCKET set (sd_notify), the process gets NOTIFY_SOCKET=<that path>/notify." },
	{ "start", cmd_start, "run the process of a created container", "start ID", cli_no_opts,
	  "With NOTIFY_SOCKET set, returns once the container sent READY=1 (relayed there with\n"
	  "MAINPID=<its pid>) or exited." },
	{ "state", cmd_state, "print the state of a container as JSON", "state ID", cli_no_opts, NULL },
	{ "kill", cmd_kill, "send a signal to the container's process", "kill [options] ID [SIGNAL]", cmd_kill_opts,
	  "SIGNAL: a name (KILL, SIGKILL), a number, or 0 to check that it runs; default TERM." },
	{ "delete", cmd_delete, "remove a stopped container", "delete [options] ID", cmd_delete_opts, NULL },
	{ "run", cmd_run, "create and start a container", "run [options] ID\nrun [options] BUNDLE-PATH\n"
	  "run [options] --tinyaws IMAGE [bundle tinyaws options] ID [-- CMD [ARGS...]]", cmd_run_opts,
	  "A lone argument naming a directory with a '/' (./, b/) is a bundle path (without --bundle); the id is the\n"
	  "directory's name (made unique when taken, printed with --detach). In the foreground the exit\n"
	  "status is the container's (128+N when killed by signal N)." },
	{ "exec", cmd_exec, "run a new process in a running container",
	  "exec [options] ID COMMAND [ARGS...]\nexec [options] -p process.json ID", cmd_exec_opts,
	  "Options go before ID. Exit status: the process's; 255 when exec itself fails." },
	{ "ps", cmd_ps, "list the container's processes", "ps [options] ID [-- ps options]", cmd_ps_opts, NULL },
	{ "pause", cmd_pause, "freeze every process of a container", "pause ID", cli_no_opts, NULL },
	{ "resume", cmd_resume, "thaw a paused container", "resume ID", cli_no_opts, NULL },
	{ "list", cmd_list, "list containers", "list [options]", cmd_list_opts,
	  "A --root given that does not exist is an error; the default root not made yet lists nothing." },
	{ "update", cmd_update, "change a running container's resources", "update [options] ID", cmd_update_opts, NULL },
	{ "events", cmd_events, "print container events and statistics as JSON lines", "events [options] ID",
	  cmd_events_opts, NULL },
	{ "gc", cmd_gc, "remove what crashed creates left behind", "gc [ID]", cli_no_opts,
	  "Removes every half-made container (no state.json, its creating tinyrun gone: pid and start\n"
	  "time): its leftover process, its cgroups in every hierarchy, its state dir; prints their ids.\n"
	  "Never touches a created, running or stopped container, nor a create in progress." },
	{ "spec", cmd_spec, "write a default config.json", "spec [options]", cmd_spec_opts, NULL },
	{ "bundle", cmd_bundle, "convert a tinyaws job (image dir + app dir) into a bundle",
	  "bundle tinyaws IMAGE -o BUNDLE [options] [-- CMD [ARGS...]]", cmd_bundle_opts,
	  "IMAGE: a root filesystem directory, or an image id under $TINYAWS_IMAGES_DIR (default\n"
	  "/var/lib/tinyaws/images). The command: CMD, else start: of APP/tinyaws.build, else\n"
	  "sh start.sh (both the app dir's own regular files, never links); run by sh -c in /app.\n"
	  "TINYAWS_SANDBOX=0 turns every layer off. Then:\n"
	  "tinyrun run -b BUNDLE ID (one bundle runs as many containers at once)." },
	{ "features", cmd_features, "print the runtime's features as JSON", "features", cli_no_opts, NULL },
	{ "check", cmd_check, "report the kernel facilities tinyrun uses and its fallbacks", "check [options]",
	  cmd_check_opts,
	  "One row a facility: since which kernel, required / fallback / optional, present or\n"
	  "missing, what was found, and for a missing one what tinyrun does without it. Exit\n"
	  "status 1 when a required one is missing (tinyrun needs Linux 5.12 or later), else 0." },
	{ "checkpoint", cmd_checkpoint, "checkpoint a running container with CRIU", "checkpoint [options] ID",
	  cmd_checkpoint_opts,
	  "Needs criu 3.14 or later on PATH. Without --leave-running or --pre-dump the container is\n"
	  "deleted once dumped (as runc). org.criu.config: a CRIU config file (default\n"
	  "/etc/criu/runc.conf; \"\" none)." },
	{ "restore", cmd_restore, "restore a container from a checkpoint with CRIU", "restore [options] ID",
	  cmd_restore_opts,
	  "A new container ID of the bundle, its cgroup with the config's limits, its process\n"
	  "restored by criu (3.14 or later, on PATH). In the foreground the exit status is the\n"
	  "container's, and the container is deleted when it ends." },
	{ "help", NULL, "show the help of a command", "help [COMMAND]", cli_no_opts, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

int cli_fail(const struct error *err)
{
	log_error("%s", err->msg);
	return 1;
}

int cli_failf(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	return 1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s: %s (see tinyrun %s --help)", cmd, msg, cmd);
	return 1;
}

int cli_getopt(int argc, char **argv, const struct cli_opt *opts, bool stop_at_arg)
{
	struct option lo[64];
	char so[130];
	size_t n = 0, k = 0;

	if (stop_at_arg)
		so[k++] = '+';
	for (const struct cli_opt *o = opts; o->name && n < 63; o++, n++) {
		lo[n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
		if (o->shrt && k < sizeof(so) - 3) {
			so[k++] = o->shrt;
			if (o->arg)
				so[k++] = ':';
		}
	}
	lo[n] = (struct option){ 0 };
	so[k] = 0;
	return getopt_long_only(argc, argv, so, lo, NULL);
}

int cli_option_error(const char *cmd, const struct cli_opt *opts, int ch, char **argv)
{
	for (const struct cli_opt *o = opts; ch != '?' && o->name; o++)
		if (o->val == ch && o->arg && optarg)
			return cli_usage_error(cmd, "--%s: invalid value \"%s\" (expected %s)", o->name, optarg, o->arg);
	return cli_usage_error(cmd, "unknown or incomplete option %s", argv[optind - 1]);
}

const struct command *cli_find_command(const char *name)
{
	for (const struct command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "-b, --bundle DIR" */
static void opt_spelling(const struct cli_opt *o, char *buf, size_t size)
{
	snprintf(buf, size, "%s%c%s--%s%s%s", o->shrt ? "-" : "    ", o->shrt ? o->shrt : ' ',
		 o->shrt ? ", " : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	if (!o->shrt)
		memmove(buf, buf + 1, strlen(buf));
}

static void print_opts(FILE *out, const struct cli_opt *opts)
{
	char sp[80];

	for (const struct cli_opt *o = opts; o && o->name; o++) {
		opt_spelling(o, sp, sizeof(sp));
		if (strlen(sp) <= 26)
			fprintf(out, "  %-26s %s\n", sp, o->help);
		else
			fprintf(out, "  %s\n  %-26s %s\n", sp, "", o->help);
	}
}

void cli_print_globals(FILE *out)
{
	print_opts(out, cli_global_opts);
}

void cli_print_help(const struct command *cmd)
{
	const char *s = cmd->synopsis;

	printf("tinyrun %s: %s\n\nusage:\n", cmd->name, cmd->summary);
	while (*s) {
		size_t n = strcspn(s, "\n");
		printf("  tinyrun [global options] %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
	if (cmd->opts && cmd->opts->name) {
		printf("\noptions:\n");
		print_opts(stdout, cmd->opts);
	}
	if (cmd->notes)
		printf("\n%s\n", cmd->notes);
}

/* roff: backslashes and leading dots or quotes made literal */
static void roff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
		if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
			fputs("\\&", out);
	}
}

static void roff_opts(FILE *out, const struct cli_opt *opts)
{
	for (const struct cli_opt *o = opts; o && o->name; o++) {
		fputs(".TP\n", out);
		if (o->shrt)
			fprintf(out, "\\fB\\-%c\\fR, ", o->shrt);
		fputs("\\fB\\-\\-", out);
		roff(out, o->name);
		fputs("\\fR", out);
		if (o->arg) {
			fputs(" \\fI", out);
			roff(out, o->arg);
			fputs("\\fR", out);
		}
		fputs("\n", out);
		roff(out, o->help);
		fputs("\n", out);
	}
}

/* The GLOBAL OPTIONS and COMMANDS sections of tinyrun(8) (the Makefile puts
 * them into contrib/man/tinyrun.8.in). */
static void print_man(FILE *out)
{
	fputs(".SH GLOBAL OPTIONS\n", out);
	roff_opts(out, cli_global_opts);
	fputs(".SH COMMANDS\n", out);
	for (const struct command *c = cli_commands; c->name; c++) {
		const char *s = c->synopsis;

		fputs(".SS ", out);
		roff(out, c->name);
		fputs("\n", out);
		while (*s) {
			size_t n = strcspn(s, "\n");
			char line[512];

			snprintf(line, sizeof(line), "%.*s", (int)n, s);
			fputs(".PP\n\\fBtinyrun\\fR ", out);
			roff(out, line);
			fputs("\n", out);
			s += n + (s[n] == '\n');
		}
		fputs(".PP\n", out);
		roff(out, c->summary);
		fputs(".\n", out);
		if (c->notes) {
			fputs(".PP\n", out);
			roff(out, c->notes);
			fputs("\n", out);
		}
		roff_opts(out, c->opts);
	}
}

int cli_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		printf("tinyrun help COMMAND: the help of COMMAND (as COMMAND --help)\n");
		return 0;
	}
	if (!strcmp(argv[1], "--man")) {
		print_man(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--commands")) {   /* for completion */
		for (c = cli_commands; c->name; c++)
			printf("%s\n", c->name);
		return 0;
	}
	if (!strcmp(argv[1], "--options")) {    /* for completion: OPTION [VALUE-PLACEHOLDER] */
		const struct cli_opt *o = argc > 2 && strcmp(argv[2], "--global") ? NULL : cli_global_opts;

		if (!o) {
			if (!(c = cli_find_command(argv[2])))
				return cli_failf("help: unknown command \"%s\" (see tinyrun --help)", argv[2]);
			o = c->opts;
		}
		for (; o && o->name; o++) {
			if (o->shrt)
				printf("-%c%s%s\n", o->shrt, o->arg ? " " : "", o->arg ? o->arg : "");
			printf("--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		}
		return 0;
	}
	if (!(c = cli_find_command(argv[1])))
		return cli_failf("help: unknown command \"%s\" (see tinyrun --help)", argv[1]);
	cli_print_help(c);
	return 0;
}

bool cli_wants_help(const struct command *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "-help")) {
			/* exec ID cmd -h: -h belongs to the command after the id */
			if (!strcmp(cmd->name, "exec") && i > 2 && argv[i - 1][0] != '-')
				return false;
			cli_print_help(cmd);
			return true;
		}
	}
	return false;
}
