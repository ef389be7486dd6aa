/* tinyrun: an OCI runtime. Global flags, then one command. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "cli.h"
#include "log.h"
#include "runtime/container/selfseal.h"

#define U_CREATE "create [options] ID\n" \
	"  -b, --bundle DIR         bundle directory (default: current directory)\n" \
	"      --pid-file FILE      write the container's pid to FILE\n" \
	"      --console-socket S   send the pty master to the unix socket S\n" \
	"      --no-pivot           use MS_MOVE + chroot instead of pivot_root\n" \
	"      --no-new-keyring     keep the caller's session keyring\n" \
	"      --preserve-fds N     pass N extra fds (3 .. 3+N-1) to the container\n" \
	"      --config FILE        the config file (default config.json, relative to the bundle)\n" \
	"With LISTEN_FDS=N set (systemd socket activation), fds 3..3+N-1 go first.\n"
#define U_RUN "run [options] ID | run [options] BUNDLE-PATH\n" \
	"  -b, --bundle DIR         bundle directory (default: current directory)\n" \
	"  -d, --detach             do not wait for the container\n" \
	"      --keep               keep the stopped container (and cgroup) until delete\n" \
	"      --id ID              container id when a bundle path is given\n" \
	"      --pid-file FILE      write the container's pid to FILE\n" \
	"      --console-socket S   send the pty master to the unix socket S\n" \
	"      --no-pivot, --no-new-keyring, --preserve-fds N, --config FILE   as for create\n" \
	"A lone argument holding '/' is a bundle path; the id is its base name.\n"

const struct command commands[] = {
	{ "create", cmd_create, "create a container, blocked before its process runs", U_CREATE },
	{ "start", cmd_start, "run the process of a created container", "start ID\n" },
	{ "state", cmd_state, "print the state of a container as JSON", "state ID\n" },
	{ "kill", cmd_kill, "send a signal to the container's process",
	  "kill [--all] ID [SIGNAL]\n  SIGNAL: name (KILL, SIGKILL) or number (0: check it runs); default TERM\n"
	  "  -a, --all   signal every process in the container\n" },
	{ "delete", cmd_delete, "remove a stopped container",
	  "delete [--force] ID\n  -f, --force   kill a running container first\n" },
	{ "run", cmd_run, "create and start a container", U_RUN },
	{ "exec", cmd_exec, "run a new process in a running container",
	  "exec [options] ID COMMAND [ARGS...] | exec -p process.json ID\n"
	  "  -p, --process FILE   process.json\n  -d, --detach\n"
	  "  -t, --tty            a terminal (config.json's process.terminal is not used)\n"
	  "      --console-socket S\n  -e, --env K=V\n  --cwd DIR\n"
	  "  -u, --user UID[:GID] (without GID the process's gid is kept)\n"
	  "  --additional-gids GID  added to the process's\n  --cap CAP\n  --no-new-privs\n"
	  "  --pid-file FILE\n  --preserve-fds N\n"
	  "  --ignore-paused      exec into a paused container (runs once resumed)\n"
	  "  --cgroup /           the container's cgroup (sub-cgroups: not supported)\n"
	  "Options go before ID. Exit status: the process's; 255 when exec fails.\n" },
	{ "ps", cmd_ps, "list the container's processes", "ps [-f table|json] ID [-- ps options]\n" },
	{ "pause", cmd_pause, "freeze every process of a container", "pause ID\n" },
	{ "resume", cmd_resume, "thaw a paused container", "resume ID\n" },
	{ "list", cmd_list, "list containers", "list [-q] [-f|--format table|json]\n" },
	{ "update", cmd_update, "change a running container's resources",
	  "update [options] ID\n  -r, --resources FILE (\"-\" for stdin)\n"
	  "  --memory --memory-reservation --memory-swap --cpu-shares --cpu-quota\n"
	  "  --cpu-period --cpuset-cpus --cpuset-mems --pids-limit --blkio-weight\n" },
	{ "events", cmd_events, "print container events and statistics",
	  "events [--stats] [--interval SECONDS] ID\n" },
	{ "spec", cmd_spec, "write a default config.json",
	  "spec [-b|--bundle DIR] [--rootless] [--seccomp default|strict]\n" },
	{ "features", cmd_features, "print the runtime's features as JSON", "features\n" },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fprintf(out,
		"tinyrun %s: an OCI container runtime\n\n"
		"usage: tinyrun [global options] COMMAND [options] [arguments]\n\n"
		"commands:\n", TINYRUN_VERSION);
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fprintf(out,
		"\ncommand options may also follow the container id, except for exec and ps\n"
		"\nglobal options:\n"
		"  --root DIR             state directory (default /run/tinyrun)\n"
		"  --log FILE             also write messages to FILE\n"
		"  --log-format text|json format of --log (json: {\"level\",\"msg\",\"time\"})\n"
		"  --debug                debug messages\n"
		"  --systemd-cgroup       linux.cgroupsPath is slice:prefix:name (a systemd\n"
		"                         scope, made over D-Bus, when systemd runs)\n"
		"  --cgroup-manager cgroupfs|systemd  crun's spelling of --systemd-cgroup\n"
		"  -v, --version          print the version\n"
		"  -h, --help             this help; COMMAND --help for a command\n");
}

static void version(void)
{
	printf("tinyrun version %s\nspec: 1.3.0\n", TINYRUN_VERSION);
}

/* Global flags come before the command; both -flag and --flag, with the value
 * separate or after '='. Returns the index of the command name or -1. */
static int parse_globals(int argc, char **argv, struct global_opts *g, const char **log_format)
{
	const char *cgroup_manager = NULL;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i] + (argv[i][1] == '-' ? 2 : 1);
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const char **valp = NULL;

		if (len == 0)
			return i + 1 < argc ? i + 1 : -1;
		if (!strncmp(a, "root", len) && len == 4)
			valp = &g->root;
		else if (!strncmp(a, "log", len) && len == 3)
			valp = &g->log_path;
		else if (!strncmp(a, "log-format", len) && len == 10)
			valp = log_format;
		else if (!strncmp(a, "criu", len) && len == 4)
			valp = &(const char *){ NULL };
		else if (!strncmp(a, "rootless", len) && len == 8)
			valp = &(const char *){ NULL };
		else if (!strncmp(a, "debug", len) && len == 5)
			g->debug = true;
		else if (!strncmp(a, "systemd-cgroup", len) && len == 14)
			g->systemd_cgroup = true;
		else if (!strncmp(a, "cgroup-manager", len) && len == 14)
			valp = &cgroup_manager;
		else if ((!strncmp(a, "version", len) && len == 7) || !strcmp(argv[i], "-v")) {
			version();
			exit(0);
		} else if ((!strncmp(a, "help", len) && len == 4) || !strcmp(argv[i], "-h")) {
			usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "tinyrun: unknown global option %s (see tinyrun --help)\n", argv[i]);
			exit(1);
		}
		if (valp) {
			if (eq)
				*valp = eq + 1;
			else if (i + 1 < argc)
				*valp = argv[++i];
			else {
				fprintf(stderr, "tinyrun: option %s needs a value\n", argv[i]);
				exit(1);
			}
		}
		/* crun's spelling of --systemd-cgroup */
		if (cgroup_manager) {
			if (!strcmp(cgroup_manager, "systemd"))
				g->systemd_cgroup = true;
			else if (!strcmp(cgroup_manager, "cgroupfs"))
				g->systemd_cgroup = false;
			else {
				fprintf(stderr, "tinyrun: --cgroup-manager: expected cgroupfs or systemd, got \"%s\"\n",
					cgroup_manager);
				exit(1);
			}
			cgroup_manager = NULL;
		}
	}
	return i < argc ? i : -1;
}

int main(int argc, char **argv)
{
	struct global_opts g = { .root = "/run/tinyrun" };
	const char *log_format = "text";
	int ci;

	selfseal_init(argv);
	if ((ci = parse_globals(argc, argv, &g, &log_format)) < 0) {
		usage(stderr);
		return 1;
	}
	if (strcmp(log_format, "text") && strcmp(log_format, "json")) {
		fprintf(stderr, "tinyrun: --log-format: expected text or json, got \"%s\"\n", log_format);
		return 1;
	}
	g.json_log = !strcmp(log_format, "json");
	if (log_init(g.log_path, g.json_log ? LOG_JSON : LOG_TEXT, g.debug) < 0) {
		fprintf(stderr, "tinyrun: --log %s: cannot open\n", g.log_path);
		return 1;
	}
	cgroup_set_debug(log_debug_msg);
	if (!strcmp(argv[ci], "help")) {
		usage(stdout);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(c->name, argv[ci]))
			continue;
		if (cli_wants_help(c, argc - ci, argv + ci))
			return 0;
		optind = 1;
		return c->run(&g, argc - ci, argv + ci);
	}
	log_error("unknown command \"%s\" (see tinyrun --help)", argv[ci]);
	return 1;
}
