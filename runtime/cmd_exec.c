#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/container/bundle.h"
#include "cli.h"
#include "runtime/container/selfseal.h"
#include "log.h"
#include "runtime/container/exec.h"
#include "runtime/container/lifecycle.h"
#include "oci/tables.h"

struct exec_args {
	struct exec_opts o;
	const char *process_file, *cwd, *apparmor, *label;
	bool has_user, has_user_gid;
	uint32_t uid, gid;
	char *env[256];
	size_t n_env;
	uint32_t gids[256];
	size_t n_gids;
	uint32_t all_gids[512];
	uint64_t caps;
	bool tty, no_new_privs, ignore_paused;
	struct cgroup_sub subs[CGROUP_JOIN_MAX];
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

/* As runc (libcontainer/user): ids are 0-2147483647. 4294967295 is (uid_t)-1,
 * which setresuid/setresgid read as "leave unchanged": the process would
 * stay root. */
#define EXEC_ID_MAX 2147483647u

/* One id of -u/--user: digits only; 0 with *out set (saturated at
 * UINT64_MAX), -1 when not a number. */
static int parse_id(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* -u/--user UID[:GID], numbers only (as runc's exec); UID alone keeps the
 * process's gid. */
static int parse_user(const char *arg, struct exec_args *a)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	uint64_t uid, gid = 0;

	if (parse_id(arg, n, &uid) < 0 || (colon && parse_id(colon + 1, strlen(colon + 1), &gid) < 0))
		return cli_usage_error("exec", "--user: expected UID[:GID], got \"%s\"", arg), -1;
	if (uid > EXEC_ID_MAX)
		return cli_failf("exec --user: uid %" PRIu64 " out of range 0-%u", uid, EXEC_ID_MAX), -1;
	if (gid > EXEC_ID_MAX)
		return cli_failf("exec --user: gid %" PRIu64 " out of range 0-%u", gid, EXEC_ID_MAX), -1;
	a->uid = (uint32_t)uid;
	a->gid = (uint32_t)gid;
	a->has_user = true;
	a->has_user_gid = colon != NULL;
	return 0;
}

/* --cgroup [CTRL[,CTRL...]:]PATH, as runc's getSubCgroupPaths: one plain
 * path (every hierarchy) or controller-prefixed ones, each controller once. */
static int parse_cgroup(const char *arg, struct exec_args *a)
{
	const char *colon = strchr(arg, ':'), *path = colon ? colon + 1 : arg;
	struct cgroup_sub *s;

	if (a->o.n_subs == CGROUP_JOIN_MAX)
		return cli_usage_error("exec", "--cgroup: at most %d", CGROUP_JOIN_MAX), -1;
	if (colon == arg)
		return cli_usage_error("exec", "invalid --cgroup argument: %s (empty <controller> prefix)", arg), -1;
	for (size_t i = 0; i < a->o.n_subs; i++)
		if (!colon || !a->subs[i].ctrl)
			return cli_usage_error("exec", "invalid --cgroup argument: %s (missing <controller>: prefix)",
					       colon ? a->subs[i].path : arg), -1;
	if (colon) {
		/* each controller once over all the arguments */
		for (const char *c = arg; c < colon;) {
			size_t len = strcspn(c, ",:");

			if (!len)
				return cli_usage_error("exec", "invalid --cgroup argument: %s (empty <controller> prefix)",
						       arg), -1;
			for (size_t i = 0; i < a->o.n_subs; i++)
				for (const char *d = a->subs[i].ctrl; *d;) {
					size_t l2 = strcspn(d, ",");

					if (l2 == len && !strncmp(c, d, len))
						return cli_usage_error("exec", "invalid --cgroup argument(s): controller "
								       "%.*s specified multiple times", (int)len, c), -1;
					d += l2 + (d[l2] == ',');
				}
			c += len + (c[len] == ',');
		}
	}
	s = &a->subs[a->o.n_subs];
	s->path = cgroup_sub_clean(path);
	if (!s->path)
		/* crun's words, then runc's (its suite greps " .. is not a sub cgroup path") */
		return cli_usage_error("exec", "--cgroup %s: bad sub cgroup path: `..` components are not allowed: "
				       "%s is not a sub cgroup path", arg, path), -1;
	s->ctrl = colon ? strndup(arg, colon - arg) : NULL;
	a->o.subs = a->subs;
	a->o.n_subs++;
	return 0;
}

const struct cli_opt cmd_exec_opts[] = {
	{ "process", 'p', 'p', "FILE", "the process as a JSON file (config.json's process object)" },
	{ "detach", 'd', 'd', NULL, "return once the process runs, do not wait for it" },
	{ "tty", 't', 't', NULL, "a terminal for the process (config.json's process.terminal is not used)" },
	{ "console-socket", 0, 'S', "PATH", "with --tty: send the pty master to the unix socket PATH" },
	{ "env", 'e', 'e', "KEY=VALUE", "set an environment variable (replaces KEY of the config); repeatable" },
	{ "cwd", 0, 'C', "DIR", "the working directory, a path in the container" },
	{ "user", 'u', 'u', "UID[:GID]", "numeric ids; without GID the process's gid is kept" },
	{ "additional-gids", 'g', 'g', "GID", "a supplementary group, added to the process's; repeatable" },
	{ "cap", 'c', 'c', "CAP", "add a capability (CAP_NET_ADMIN) to the bounding, effective and permitted sets (and ambient, when the process has an inheritable set); repeatable" },
	{ "no-new-privs", 0, 'N', NULL, "set no_new_privs" },
	{ "process-label", 0, 'L', "LABEL", "the SELinux label of the process" },
	{ "apparmor", 0, 'A', "PROFILE", "the AppArmor profile of the process" },
	{ "pid-file", 0, 'P', "FILE", "write the process's pid (host pid namespace) to FILE" },
	{ "pidfd-socket", 0, 'D', "PATH", "send a pidfd of the process to the unix socket PATH (as runc)" },
	{ "preserve-fds", 0, 'F', "N", "pass N more fds (3 .. 3+N-1) to the process, 0-65536" },
	{ "ignore-paused", 0, 'I', NULL, "exec into a paused container (the process runs once resumed)" },
	{ "cgroup", 0, 'G', "[CTRL[,CTRL]:]PATH", "run in an existing sub-cgroup PATH of the container's (v1: of the controllers CTRL only); repeatable on v1" },
	{ 0 },
};

static int parse_args(int argc, char **argv, struct exec_args *a)
{
	int ch, cap;
	uint32_t v;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_exec_opts, true)) != -1) {
		switch (ch) {
		case 'S': a->o.console_socket = optarg; break;
		case 'C': a->cwd = optarg; break;
		case 'e':
			/* as process.env: NAME=VALUE with a name */
			if (!strchr(optarg, '=') || optarg[0] == '=' || a->n_env == 255)
				return cli_usage_error("exec", "--env: expected KEY=VALUE, got \"%s\"", optarg), -1;
			a->env[a->n_env++] = optarg;
			break;
		case 't': a->tty = true; break;
		case 'u':
			if (parse_user(optarg, a) < 0)
				return -1;
			break;
		case 'g':
			if (parse_uint(optarg, &v) < 0 || v > EXEC_ID_MAX || a->n_gids == 256)
				return cli_usage_error("exec", "--additional-gids: invalid gid \"%s\" (0-%u)",
						       optarg, EXEC_ID_MAX), -1;
			a->gids[a->n_gids++] = v;
			break;
		case 'p': a->process_file = optarg; break;
		case 'd': a->o.detach = true; break;
		case 'P': a->o.pid_file = optarg; break;
		case 'D': a->o.pidfd_socket = optarg; break;
		case 'N': a->no_new_privs = true; break;
		case 'c':
			cap = oci_name_lookup(oci_capabilities, oci_n_capabilities, optarg);
			/* as runc (and config.md for process.capabilities): warn, go on */
			if (cap < 0)
				log_warn("exec --cap: unknown capability \"%s\" ignored", optarg);
			else
				a->caps |= 1ULL << cap;
			break;
		case 'F':
			if (parse_uint(optarg, &v) < 0 || v > 65536)
				return cli_usage_error("exec", "--preserve-fds: invalid count \"%s\"", optarg), -1;
			a->o.preserve_fds = v;
			break;
		case 'I': a->ignore_paused = true; break;
		case 'G':
			if (parse_cgroup(optarg, a) < 0)
				return -1;
			break;
		case 'L': a->label = optarg; break;
		case 'A': a->apparmor = optarg; break;
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
	/* the command, or process.json's args: never the container's own */
	if (argc > 0 || !a->process_file) {
		p->args = argv;
		p->n_args = argc;
	}
	if (!p->n_args)   /* runc's words */
		return cli_failf("exec failed: process args cannot be empty"), -1;
	if (!(*env_out = merge_env(p, a, &p->n_env)))
		return cli_failf("exec: out of memory"), -1;
	p->env = *env_out;
	if (a->cwd)
		p->cwd = (char *)a->cwd;
	if (a->has_user) {
		p->uid = a->uid;
		if (a->has_user_gid)
			p->gid = a->gid;
	}
	if (a->n_gids) {
		/* appended to the process's additionalGids, as runc */
		size_t n = p->n_additional_gids < 256 ? p->n_additional_gids : 256;

		if (n)
			memcpy(a->all_gids, p->additional_gids, n * sizeof(uint32_t));
		memcpy(a->all_gids + n, a->gids, a->n_gids * sizeof(uint32_t));
		p->additional_gids = a->all_gids;
		p->n_additional_gids = n + a->n_gids;
	}
	if (a->caps) {
		/* CVE-2022-29162: never into the inheritable set */
		p->has_caps = true;
		p->caps.has_bounding = p->caps.has_effective = p->caps.has_permitted = true;
		p->caps.bounding |= a->caps;
		p->caps.effective |= a->caps;
		p->caps.permitted |= a->caps;
		/* as runc: into the ambient set too when the process has an
		 * inheritable set, which --cap never adds to (an ambient
		 * capability needs it there) */
		if (p->caps.has_inheritable) {
			p->caps.has_ambient = true;
			p->caps.ambient |= a->caps;
		}
	}
	/* as runc: without -p the process gets a terminal only from -t, whatever
	 * config.json says; with -p the file's terminal holds (or -t) */
	if (!a->process_file || a->tty)
		p->terminal = a->tty;
	if (a->no_new_privs)
		p->no_new_privileges = true;
	/* as runc: --apparmor / --process-label replace the process's labels */
	if (a->apparmor)
		p->apparmor_profile = (char *)a->apparmor;
	if (a->label)
		p->selinux_label = (char *)a->label;
	return 0;
}

static int load_config(struct container *c, struct oci_config *cfg, char **buf, struct error *err)
{
	size_t len;
	int r;

	if ((r = container_read_file(c, "config.json", buf, &len)) < 0)
		return error_sys(err, -r, "container \"%s\": saved config", c->id);
	/* the sealed re-exec before the parse when the text settles it (selfseal.h) */
	if ((r = selfseal_guard_text(*buf, len, err)) < 0 ||
	    (r = oci_config_parse_text("config.json", *buf, len, OCI_PARSE_ALL, cfg, err)) < 0)
		free(*buf);
	return r;
}

/* As runc: a failure of exec itself exits 255, so that it is told apart from
 * the status of the command (usage errors before any lookup stay 1). */
#define EXEC_FAILED 255

static int exec_fail(const struct error *err)
{
	cli_failf("exec failed: %s", err->msg);
	return EXEC_FAILED;
}

/* runc's wording ("cannot exec in a paused container") is what scripts match. */
static int check_status(struct container *c, bool ignore_paused, struct error *err)
{
	enum container_status s = container_status(c);

	if (s == STATUS_RUNNING || s == STATUS_CREATED || (s == STATUS_PAUSED && ignore_paused))
		return 0;
	if (s == STATUS_PAUSED)
		return error_set(err, EBUSY, "container \"%s\": cannot exec in a paused container "
				 "(use --ignore-paused to override)", c->id);
	return error_set(err, ESRCH, "container \"%s\": cannot exec in a %s container: container not running",
			 c->id, container_status_name(s));
}

/* exec --process FILE (or "-"): read and parsed in oci/. */
static int read_process_file(const struct exec_args *a, char **buf, struct oci_process *p, void **arena,
			     struct error *err)
{
	char name[4200];
	size_t len;

	snprintf(name, sizeof(name), "--process %s", a->process_file);
	if (oci_read_input(a->process_file, name, buf, &len, err) < 0 ||
	    oci_process_parse(a->process_file, *buf, len, p, arena, err) < 0) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

int cmd_exec(struct global_opts *g, int argc, char **argv)
{
	struct exec_args a = { 0 };
	struct container c;
	struct oci_config cfg;
	struct oci_process proc, pproc = { 0 };
	struct error err;
	char *buf = NULL, *pbuf = NULL, **env = NULL;
	void *parena = NULL;
	int i = parse_args(argc, argv, &a), r;

	if (i < 0)
		return 1;
	if (i >= argc)
		return cli_usage_error("exec", "expected a container id");
	if (a.tty && !a.o.console_socket && a.o.detach)
		return cli_usage_error("exec", "--tty with --detach needs --console-socket");
	/* the file is checked (a regular file, every field valid) before the
	 * container is looked at; an error is exec's own, 255 (runc: getProcess
	 * fails execProcess, "exec failed: ..."). Stdin is read once the runtime
	 * runs sealed (a re-exec would find it consumed). */
	if (a.process_file && strcmp(a.process_file, "-") && read_process_file(&a, &pbuf, &pproc, &parena, &err) < 0)
		return exec_fail(&err);
	if (container_load(g->root, argv[i], false, &c, &err) < 0) {
		r = exec_fail(&err);
		goto done;
	}
	if (check_status(&c, a.ignore_paused, &err) < 0 || load_config(&c, &cfg, &buf, &err) < 0 ||
	    selfseal_guard(&cfg, &err) < 0) {
		container_close(&c);
		r = exec_fail(&err);
		goto done;
	}
	if (a.process_file && !strcmp(a.process_file, "-") &&
	    read_process_file(&a, &pbuf, &pproc, &parena, &err) < 0) {
		container_close(&c);
		r = exec_fail(&err);
		goto done;
	}
	proc = a.process_file ? pproc : cfg.process;
	if (apply_args(&proc, &a, argv + i + 1, argc - i - 1, &env) < 0) {
		r = EXEC_FAILED;
		goto done;
	}
	if (proc.terminal && !a.o.console_socket && a.o.detach) {
		r = error_set(&err, EINVAL, "process.terminal with --detach needs --console-socket");
		goto fail;
	}
	{
		char cache[4200];
		a.o.seccomp_cache = cfg.linux_.has_seccomp ? seccomp_cache_dir(cache, sizeof(cache), g->users_runtime, log_debug_msg) : NULL;
		a.o.join_keyring = faccessat(c.dirfd, "no-new-keyring", F_OK, 0) < 0;
		log_debug("exec: %s in container %s (cwd %s, uid %u)", proc.args[0], c.id, proc.cwd ? proc.cwd : "/",
			  proc.uid);
		r = exec_process(&c, &cfg, &proc, &a.o, &err);
		/* the child names the field it failed on; here that came from --cwd */
		if (r < 0 && a.cwd && !strncmp(err.msg, "process.cwd ", 12)) {
			char msg[sizeof(err.msg)];

			snprintf(msg, sizeof(msg), "--cwd %s", err.msg + 12);
			snprintf(err.msg, sizeof(err.msg), "%s", msg);
		}
	}
	if (r < 0)
		goto fail;
	goto done;
fail:
	r = exec_fail(&err);
done:   /* main returns next: the config, the buffers and the fds go with the process */
	return r;
}
