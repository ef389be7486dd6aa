#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/callerenv.h"
#include "runtime/container/bundle.h"
#include "cli.h"
#include "runtime/sandbox/output.h"
#include "runtime/container/selfseal.h"
#include "runtime/container/lifecycle.h"
#include "runtime/container/notify.h"
#include "log.h"

#define CREATE_OPTS \
	{ "bundle", 'b', 'b', "DIR", "the bundle directory (default: the current directory)" }, \
	{ "pid-file", 0, 'p', "FILE", "write the container process's pid (host pid namespace) to FILE" }, \
	{ "console-socket", 0, 'c', "PATH", "with process.terminal: send the pty master to the unix socket PATH" }, \
	{ "pidfd-socket", 0, 'D', "PATH", "send a pidfd of the container's init to the unix socket PATH (as runc)" }, \
	{ "no-pivot", 0, 'P', NULL, "MS_MOVE + chroot instead of pivot_root (a rootfs on a ramfs)" }, \
	{ "no-new-keyring", 0, 'K', NULL, "keep the caller's session keyring instead of a new one" }, \
	{ "preserve-fds", 0, 'f', "N", "pass N more fds (3 .. 3+N-1) to the container, 0-65536" }, \
	{ "no-subreaper", 0, 'S', NULL, "accepted for runc compatibility; tinyrun never becomes a subreaper" }, \
	{ "config", 0, 'F', "FILE", "the config file, relative to the bundle (default: config.json)" }

const struct cli_opt cmd_create_opts[] = { CREATE_OPTS, { 0 } };
const struct cli_opt cmd_run_opts[] = {
	CREATE_OPTS,
	{ "detach", 'd', 'd', NULL, "return once the container runs, do not wait for it" },
	{ "keep", 0, 'k', NULL, "keep the stopped container (and its cgroup) until delete" },
	{ "id", 0, 'i', "ID", "the container id when a bundle path is given" },
	{ "tinyaws", 0, 'T', "IMAGE", "a tinyaws job: IMAGE converted to a temporary bundle (bundle tinyaws), run in the "
	  "foreground, deleted; ID, then -- CMD [ARGS...] if any, last; not with --bundle, --config, --id, --detach, --keep" },
	TINYAWS_CONVERT_OPTS("with --tinyaws: "),
	{ "result", 0, 'R', "FILE", "write why the process ended (exit, signal, policy-violation, oom-kill, "
	  "ancestor-oom, pids-limit, not-started, infrastructure-failure) and its usage to FILE as JSON; "
	  "FILE's directory must exist and be writable (checked first), FILE is replaced atomically" },
	{ 0 },
};

static const char *opt_name(const struct cli_opt *opts, int ch)
{
	for (; opts->name; opts++)
		if (opts->val == ch)
			return opts->name;
	return "?";
}

int cmd_create_parse(const char *cmd, int argc, char **argv, struct create_opts *o, struct run_flags *rf)
{
	int ch, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, rf ? cmd_run_opts : cmd_create_opts, false)) != -1) {
		switch (ch) {
		case 'b': o->bundle = optarg; break;
		case 'p': o->pid_file = optarg; break;
		case 'c': o->console_socket = optarg; break;
		case 'D': o->pidfd_socket = optarg; break;
		case 'P': o->no_pivot = true; break;
		case 'K': o->no_new_keyring = true; break;
		case 'f': {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 65536) {
				cli_usage_error(cmd, "--preserve-fds: expected a count, got \"%s\"", optarg);
				return -1;
			}
			o->preserve_fds = n;
			break;
		}
		case 'd':
		case 'i':
		case 'k':
			if (ch == 'd')
				rf->detach = true;
			else if (ch == 'k')
				rf->keep = true;
			else
				rf->id = optarg;
			break;
		case 'T': rf->tinyaws = optarg; break;
		case 'R': rf->result = optarg; break;
		case 'F': o->config_file = optarg; break;
		case 'S': break;
		default:
			if (rf && rf->conv && (r = cmd_bundle_opt(cmd, ch, rf->conv)) != 0) {
				if (r < 0)
					return -1;
				if (!rf->conv_opt)
					rf->conv_opt = opt_name(cmd_run_opts, ch);
				break;
			}
			cli_usage_error(cmd, "unknown or incomplete option %s", argv[optind - 1]);
			return -1;
		}
	}
	return optind;
}

void cmd_create_socket_activation(struct create_opts *o, struct oci_config *cfg)
{
	const char *fds = callerenv_get("LISTEN_FDS"), *pid = callerenv_get("LISTEN_PID");
	struct oci_process *p = &cfg->process;
	char *vars[2], *end;
	long n;

	if (!fds || !*fds || (pid && *pid && strtol(pid, NULL, 10) != (long)getpid()))
		return;
	n = strtol(fds, &end, 10);
	if (*end || n <= 0 || n > 65536)
		return;
	if (asprintf(&vars[0], "LISTEN_FDS=%ld", n) < 0 || !(vars[1] = strdup("LISTEN_PID=1")) ||
	    oci_process_env_append(p, vars, 2) < 0)
		return;
	o->preserve_fds += n;
}

int cmd_create_notify(const struct global_opts *g, struct create_opts *o, struct oci_config *cfg,
		      struct error *err)
{
	if (!notify_host())
		return 0;
	o->notify = true;
	return notify_plan(cfg, g->root, o->id, err);
}

int cmd_create(struct global_opts *g, int argc, char **argv)
{
	struct create_opts o = { 0 };
	struct bundle b;
	struct container c;
	struct created cr;
	struct error err;
	int i = cmd_create_parse("create", argc, argv, &o, NULL), r;

	if (i < 0)
		return 1;
	if (argc - i != 1)
		return cli_usage_error("create", "expected exactly one container id");
	o.id = argv[i];
	if (container_id_check(o.id, &err) < 0)
		return cli_fail(&err);
	/* the sealed re-exec before the parse when the text settles it (selfseal.h) */
	if (bundle_read(o.bundle ? o.bundle : ".", o.config_file, &b, &err) < 0)
		return cli_fail(&err);
	if (selfseal_guard_text(b.json, b.len, &err) < 0 || bundle_parse(&b, &err) < 0) {
		free(b.json);
		return cli_fail(&err);
	}
	if (selfseal_guard(&b.cfg, &err) < 0) {
		bundle_free(&b);
		return cli_fail(&err);
	}
	o.bundle = b.path;
	o.config_path = b.config_path;
	cmd_create_socket_activation(&o, &b.cfg);
	r = output_refuse_detached(&b.cfg, &err);   /* runtime/sandbox/output.h: only `run` in the foreground */
	if (r == 0)
		r = cmd_create_notify(g, &o, &b.cfg, &err);
	if (r == 0)
		r = container_create(g, &o, &b.cfg, b.json, b.len, &c, &cr, &err);
	bundle_free(&b);
	if (r < 0)
		return cli_fail(&err);
	if (cr.pidfd >= 0)
		close(cr.pidfd);
	cgroup_close(&cr.cg);
	container_close(&c);
	return 0;
}
