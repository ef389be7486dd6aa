/* tinyrun: an OCI runtime. Global flags, then one command. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <seccomp.h>

#include "build/gen/version.h"

#include "oci/callerenv.h"

#include "runtime/cgroup/cgroup.h"
#include "cli.h"
#include "log.h"
#include "runtime/container/selfseal.h"
#include "runtime/linux/procfs.h"

static void usage(FILE *out)
{
	fprintf(out,
		"tinyrun %s: an OCI container runtime\n\n"
		"usage: tinyrun [global options] COMMAND [options] [arguments]\n\n"
		"commands:\n", TINYRUN_VERSION);
	for (const struct command *c = cli_commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fprintf(out,
		"\ncommand options may also follow the container id, except for exec and ps\n"
		"\nglobal options:\n");
	cli_print_globals(out);
	fprintf(out, "\nexit status: 0, 1 on an error; exec's 255 when exec itself fails; a foreground\n"
		"run's or exec's: the process's (128+N when killed by signal N)\n");
}

static void version(void)
{
	const struct scmp_version *sv = seccomp_version();

	printf("tinyrun version %s\ncommit: %s\nspec: 1.3.0\n", TINYRUN_VERSION, TINYRUN_COMMIT);
	printf("libseccomp: %u.%u.%u\n", sv ? sv->major : 0, sv ? sv->minor : 0, sv ? sv->micro : 0);
	/* as crun's line; --systemd-cgroup asks systemd over D-Bus (runtime/cgroup/dbus_conn.c);
	 * last, the libc it was built with (make LIBC=) */
#ifdef __GLIBC__
	const char *libc = "GLIBC";
#else
	const char *libc = "MUSL";
#endif
	printf("+SECCOMP +SELINUX +APPARMOR +CAP +EBPF +SYSTEMD +YAJL +%s\n", libc);
}

/* Global flags come before the command; both -flag and --flag, with the value
 * separate or after '='. Returns the index of the command name or -1. */
static int parse_globals(int argc, char **argv, struct global_opts *g, const char **log_format)
{
	const char *cgroup_manager = NULL, *rootless = NULL;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i] + (argv[i][1] == '-' ? 2 : 1);
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const char **valp = NULL;

		if (len == 0)
			return i + 1 < argc ? i + 1 : -1;
		if (!strncmp(a, "root", len) && len == 4) {
			valp = &g->root;
			g->root_given = true;
		}
		else if (!strncmp(a, "log", len) && len == 3)
			valp = &g->log_path;
		else if (!strncmp(a, "log-format", len) && len == 10)
			valp = log_format;
		else if (!strncmp(a, "criu", len) && len == 4)
			valp = &(const char *){ NULL };
		else if (!strncmp(a, "rootless", len) && len == 8)
			valp = &rootless;
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
			g->no_cgroup = !strcmp(cgroup_manager, "disabled");
			if (!strcmp(cgroup_manager, "systemd"))
				g->systemd_cgroup = true;
			else if (!strcmp(cgroup_manager, "cgroupfs") || g->no_cgroup)
				g->systemd_cgroup = false;
			else {
				fprintf(stderr, "tinyrun: --cgroup-manager: expected cgroupfs, systemd or disabled, got \"%s\"\n",
					cgroup_manager);
				exit(1);
			}
			cgroup_manager = NULL;
		}
		if (rootless) {
			g->rootless = !strcmp(rootless, "true") ? 1 : !strcmp(rootless, "false") ? 0 : -1;
			if (g->rootless < 0 && strcmp(rootless, "auto")) {
				fprintf(stderr, "tinyrun: --rootless: expected true, false or auto, got \"%s\"\n", rootless);
				exit(1);
			}
			rootless = NULL;
		}
	}
	return i < argc ? i : -1;
}

/* Whether a caller with euid 0 is a user's rootless root, as runc decides
 * it: root in a user namespace of its own (rootless podman calls the runtime
 * so) whose USER is not root (a real root's `unshare -U` keeps USER=root). */
static bool users_root(void)
{
	const char *user = callerenv_get("USER");

	return !(user && !strcmp(user, "root")) && procfs_in_userns();
}

/* The default --root, as runc's and crun's: a caller other than root, or a
 * user's root in a user namespace (users_root), with XDG_RUNTIME_DIR set
 * keeps its state in $XDG_RUNTIME_DIR/tinyrun, made 0700 with the sticky bit
 * (XDG: not pruned) before any command runs; else /run/tinyrun (without
 * XDG_RUNTIME_DIR too, as runc). 0, or 1 printed. */
static int default_root(struct global_opts *g)
{
	static char path[4096];
	const char *xdg = callerenv_get("XDG_RUNTIME_DIR");
	int fd;

	g->users_runtime = geteuid() != 0 || (xdg && *xdg && users_root());
	if (g->root_given || !xdg || !*xdg || !g->users_runtime)
		return 0;
	if (snprintf(path, sizeof(path), "%s/tinyrun", xdg) >= (int)sizeof(path)) {
		fprintf(stderr, "tinyrun: XDG_RUNTIME_DIR %s: path too long\n", xdg);
		return 1;
	}
	g->root = path;
	if ((mkdir(path, 0700) < 0 && errno != EEXIST) ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		fprintf(stderr, "tinyrun: %s: %s (the default --root of a user: XDG_RUNTIME_DIR must be a directory of the caller's)\n",
			path, strerror(errno));
		return 1;
	}
	if (fchmod(fd, S_ISVTX | 0700) < 0) {
		fprintf(stderr, "tinyrun: %s: chmod: %s (the default --root of a user: check XDG_RUNTIME_DIR's owner)\n",
			path, strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct global_opts g = { .root = "/run/tinyrun", .rootless = -1 };
	const char *log_format = "text";
	extern char **environ;
	int ci;

	/* before anything else: the environment we were given, kept private
	 * (oci/callerenv.h): every lookup of ours reads that copy from here on */
	if (callerenv_capture(environ) < 0) {
		fprintf(stderr, "tinyrun: out of memory\n");
		return 1;
	}
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
	cgroup_set_warn(log_warn_msg);
	if (!strcmp(argv[ci], "help")) {
		if (argc - ci < 2) {
			usage(stdout);
			return 0;
		}
		return cli_help(argc - ci, argv + ci);
	}
	for (const struct command *c = cli_commands; c->name; c++) {
		if (strcmp(c->name, argv[ci]) || !c->run)
			continue;
		if (cli_wants_help(c, argc - ci, argv + ci))
			return 0;
		if (default_root(&g))
			return 1;
		optind = 1;
		return c->run(&g, argc - ci, argv + ci);
	}
	log_error("unknown command \"%s\" (see tinyrun --help)", argv[ci]);
	return 1;
}
