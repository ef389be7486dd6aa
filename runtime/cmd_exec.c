#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "bundle.h"
#include "cli.h"
#include "exec.h"
#include "lifecycle.h"
#include "oci/tables.h"

struct exec_args {
	struct exec_opts o;
	const char *process_file, *cwd, *user;
	char *env[256];
	size_t n_env;
	uint32_t gids[256];
	size_t n_gids;
	uint64_t caps;
	bool tty, no_new_privs;
};

static int parse_uint(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct exec_args *a)
{
	static const struct option opts[] = {
		{ "console-socket", required_argument, NULL, 'S' }, { "cwd", required_argument, NULL, 'C' },
		{ "env", required_argument, NULL, 'e' }, { "tty", no_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' }, { "additional-gids", required_argument, NULL, 'g' },
		{ "process", required_argument, NULL, 'p' }, { "detach", no_argument, NULL, 'd' },
		{ "pid-file", required_argument, NULL, 'P' }, { "process-label", required_argument, NULL, 'L' },
		{ "apparmor", required_argument, NULL, 'A' }, { "no-new-privs", no_argument, NULL, 'N' },
		{ "cap", required_argument, NULL, 'c' }, { "preserve-fds", required_argument, NULL, 'F' },
		{ "cgroup", required_argument, NULL, 'G' }, { "ignore-paused", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, cap;
	uint32_t v;

	opterr = 0;
	while ((ch = getopt_long_only(argc, argv, "+e:tu:g:p:dc:", opts, NULL)) != -1) {
		switch (ch) {
		case 'S': a->o.console_socket = optarg; break;
		case 'C': a->cwd = optarg; break;
		case 'e':
			if (!strchr(optarg, '=') || a->n_env == 255)
				return cli_usage_error("exec", "--env: expected KEY=VALUE, got \"%s\"", optarg), -1;
			a->env[a->n_env++] = optarg;
			break;
		case 't': a->tty = true; break;
		case 'u': a->user = optarg; break;
		case 'g':
			if (parse_uint(optarg, &v) < 0 || a->n_gids == 256)
				return cli_usage_error("exec", "--additional-gids: invalid gid \"%s\"", optarg), -1;
			a->gids[a->n_gids++] = v;
			break;
		case 'p': a->process_file = optarg; break;
		case 'd': a->o.detach = true; break;
		case 'P': a->o.pid_file = optarg; break;
		case 'N': a->no_new_privs = true; break;
		case 'c':
			cap = oci_name_lookup(oci_capabilities, oci_n_capabilities, optarg);
			if (cap < 0)
				return cli_usage_error("exec", "--cap: unknown capability \"%s\"", optarg), -1;
			a->caps |= 1ULL << cap;
			break;
		case 'F':
			if (parse_uint(optarg, &v) < 0 || v > 65536)
				return cli_usage_error("exec", "--preserve-fds: invalid count \"%s\"", optarg), -1;
			a->o.preserve_fds = v;
			break;
		case 'L': case 'A': case 'G': case 'I': break;
		default:
			return cli_usage_error("exec", "unknown or incomplete option %s", argv[optind - 1]), -1;
		}
	}
	return optind;
}

/* --env KEY=V replaces KEY from the config, or is added. */
static char **merge_env(const struct oci_process *base, struct exec_args *a, size_t *n)
{
	char **env = calloc(base->n_env + a->n_env + 1, sizeof(char *));
	size_t k = 0;

	if (!env)
		return NULL;
	for (size_t i = 0; i < base->n_env; i++) {
		size_t kl = strcspn(base->env[i], "=");
		bool overridden = false;
		for (size_t j = 0; j < a->n_env; j++)
			if (!strncmp(a->env[j], base->env[i], kl) && a->env[j][kl] == '=')
				overridden = true;
		if (!overridden)
			env[k++] = base->env[i];
	}
	for (size_t j = 0; j < a->n_env; j++)
		env[k++] = a->env[j];
	*n = k;
	return env;
}

static int apply_args(struct oci_process *p, struct exec_args *a, char **argv, int argc, char ***env_out)
{
	if (argc > 0) {
		p->args = argv;
		p->n_args = argc;
	}
	if (!p->n_args)
		return cli_usage_error("exec", "no command given"), -1;
	if (!(*env_out = merge_env(p, a, &p->n_env)))
		return cli_failf("exec: out of memory"), -1;
	p->env = *env_out;
	if (a->cwd)
		p->cwd = (char *)a->cwd;
	if (a->user) {
		char *colon = strchr(a->user, ':');
		if (colon)
			*colon = 0;
		if (parse_uint(a->user, &p->uid) < 0 || (colon && parse_uint(colon + 1, &p->gid) < 0))
			return cli_usage_error("exec", "--user: expected UID[:GID]"), -1;
		if (!colon)
			p->gid = 0;
	}
	if (a->n_gids) {
		p->additional_gids = a->gids;
		p->n_additional_gids = a->n_gids;
	}
	if (a->caps) {
		/* CVE-2022-29162: never into the inheritable or ambient sets */
		p->has_caps = true;
		p->caps.has_bounding = p->caps.has_effective = p->caps.has_permitted = true;
		p->caps.bounding |= a->caps;
		p->caps.effective |= a->caps;
		p->caps.permitted |= a->caps;
	}
	if (a->tty)
		p->terminal = true;
	if (a->no_new_privs)
		p->no_new_privileges = true;
	return 0;
}

static int load_config(struct container *c, struct oci_config *cfg, char **buf, struct error *err)
{
	char path[4200];
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/config.json", c->dir);
	if ((r = read_whole_file(path, buf, &len)) < 0)
		return error_sys(err, -r, "container \"%s\": saved config", c->id);
	if ((r = oci_config_parse("config.json", *buf, len, OCI_PARSE_ALL, cfg, err)) < 0)
		free(*buf);
	return r;
}

int cmd_exec(struct global_opts *g, int argc, char **argv)
{
	struct exec_args a = { 0 };
	struct container c;
	struct oci_config cfg;
	struct oci_process proc;
	struct error err;
	enum container_status s;
	char *buf = NULL, *pbuf = NULL, **env = NULL;
	void *parena = NULL;
	int i = parse_args(argc, argv, &a), r;

	if (i < 0)
		return 1;
	if (i >= argc)
		return cli_usage_error("exec", "expected a container id");
	if (container_load(g->root, argv[i], false, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (s != STATUS_RUNNING && s != STATUS_CREATED) {
		container_close(&c);
		return cli_failf("cannot exec in container \"%s\": it is %s", argv[i], container_status_name(s));
	}
	if (load_config(&c, &cfg, &buf, &err) < 0) {
		container_close(&c);
		return cli_fail(&err);
	}
	proc = cfg.process;
	if (a.process_file) {
		size_t len;
		r = read_whole_file(a.process_file, &pbuf, &len);
		if (r < 0)
			r = error_sys(&err, -r, "--process %s", a.process_file);
		else
			r = oci_process_parse(a.process_file, pbuf, len, &proc, &parena, &err);
		if (r < 0)
			goto fail;
	}
	if (a.tty && !a.o.console_socket && a.o.detach) {
		r = error_set(&err, EINVAL, "--tty with --detach needs --console-socket");
		goto fail;
	}
	if (apply_args(&proc, &a, argv + i + 1, argc - i - 1, &env) < 0) {
		r = 1;
		goto done;
	}
	if (proc.terminal && !a.o.console_socket && a.o.detach) {
		r = error_set(&err, EINVAL, "process.terminal with --detach needs --console-socket");
		goto fail;
	}
	{
		char cache[4200];
		snprintf(cache, sizeof(cache), "%s/.seccomp-cache", g->root);
		a.o.seccomp_cache = cache;
		a.o.join_keyring = faccessat(c.dirfd, "no-new-keyring", F_OK, 0) < 0;
		r = exec_process(&c, &cfg, &proc, &a.o, &err);
	}
	if (r < 0)
		goto fail;
	goto done;
fail:
	r = cli_fail(&err);
done:
	free(env);
	free(pbuf);
	if (parena)
		oci_arena_free(parena);
	oci_config_free(&cfg);
	free(buf);
	container_close(&c);
	return r;
}
