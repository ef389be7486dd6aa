/* process: config.md "Process", "POSIX process", "Linux Process", "User". */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static int parse_console_size(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			      struct oci_process *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "consoleSize");
	uint16_t h, w;
	int r;

	if ((r = parse_get_obj(c, p, proc, "consoleSize", OPT, &v)) <= 0)
		return r;
	if ((r = parse_get_u16(c, kp, v, "height", REQ, &h)) < 0 ||
	    (r = parse_get_u16(c, kp, v, "width", REQ, &w)) < 0)
		return r;
	out->has_console_size = true;
	out->console_height = h;
	out->console_width = w;
	return 0;
}

static int parse_user(struct pctx *c, const struct jpath *p, const struct json_val *proc,
		      struct oci_process *out)
{
	const struct json_val *v, *gids;
	const struct jpath *kp = JKEY(p, "user"), *gp = JKEY(kp, "additionalGids");
	uint64_t id;
	int64_t umask;
	int r;

	/* Like runc, a missing user (or uid/gid) means 0. */
	if ((r = parse_get_obj(c, p, proc, "user", OPT, &v)) <= 0)
		return r;
	if ((r = parse_get_u64(c, kp, v, "uid", OPT, OCI_ID_MAX, &id)) < 0)
		return r;
	out->uid = (uint32_t)(r > 0 ? id : 0);
	if ((r = parse_get_u64(c, kp, v, "gid", OPT, OCI_ID_MAX, &id)) < 0)
		return r;
	out->gid = (uint32_t)(r > 0 ? id : 0);
	if ((r = parse_get_i64(c, kp, v, "umask", OPT, 0, 0777, &umask)) < 0)
		return r;
	if (r > 0) {
		out->has_umask = true;
		out->umask = (uint32_t)umask;
	}
	if ((r = parse_get_arr(c, kp, v, "additionalGids", OPT, &gids)) <= 0)
		return r;
	out->n_additional_gids = json_len(gids);
	out->additional_gids = parse_alloc(c, out->n_additional_gids, sizeof(uint32_t));
	if (!out->additional_gids)
		return -ENOMEM;
	for (size_t i = 0; i < out->n_additional_gids; i++) {
		uint64_t g;

		if (parse_val_u64(c, JIDX(gp, i), json_at(gids, i), OCI_ID_MAX, &g) < 0)
			return -EINVAL;
		out->additional_gids[i] = (uint32_t)g;
	}
	return 0;
}

/* More distinct unknown capability names than this is not a newer kernel's
 * list but garbage: an error (the list is searched and grown linearly). */
#define MAX_UNKNOWN_CAPS 64

/* config.md: a capability that cannot be mapped MUST be logged as a warning,
 * and the runtime SHOULD NOT fail: unknown names are kept for the runtime to
 * report, once each. */
static int note_unknown_cap(struct pctx *c, const struct jpath *p, struct oci_caps *k,
			    const char *name)
{
	char **grown;

	for (size_t i = 0; i < k->n_unknown; i++)
		if (!strcmp(k->unknown[i], name))
			return 0;
	if (k->n_unknown == MAX_UNKNOWN_CAPS)
		return parse_err(c, p, "more than %d unknown capabilities", MAX_UNKNOWN_CAPS);
	grown = parse_alloc(c, k->n_unknown + 1, sizeof(char *));
	if (!grown)
		return -ENOMEM;
	if (k->n_unknown)
		memcpy(grown, k->unknown, k->n_unknown * sizeof(char *));
	if (!(grown[k->n_unknown] = parse_strdup(c, name)))
		return -ENOMEM;
	k->unknown = grown;
	k->n_unknown++;
	return 0;
}

static int parse_cap_set(struct pctx *c, const struct jpath *p, const struct json_val *caps,
			 const char *key, struct oci_caps *k, bool *has, uint64_t *mask)
{
	const struct json_val *arr;
	const struct jpath *kp = JKEY(p, key);
	int r, cap;

	if ((r = parse_get_arr(c, p, caps, key, OPT, &arr)) <= 0)
		return r;
	*has = true;
	for (size_t i = 0; i < json_len(arr); i++) {
		const struct json_val *v = json_at(arr, i);

		if (parse_val_type(c, JIDX(kp, i), v, JSON_STRING) < 0)
			return -EINVAL;
		cap = oci_name_lookup(oci_capabilities, oci_n_capabilities, json_str(v));
		if (cap < 0) {
			if ((r = note_unknown_cap(c, JIDX(kp, i), k, json_str(v))) < 0)
				return r;
			continue;
		}
		*mask |= UINT64_C(1) << cap;
	}
	return 0;
}

static int parse_caps(struct pctx *c, const struct jpath *p, const struct json_val *proc,
		      struct oci_process *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "capabilities");
	struct oci_caps *k = &out->caps;
	int r;

	if ((r = parse_get_obj(c, p, proc, "capabilities", OPT, &v)) <= 0)
		return r;
	out->has_caps = true;
	if ((r = parse_cap_set(c, kp, v, "bounding", k, &k->has_bounding, &k->bounding)) < 0 ||
	    (r = parse_cap_set(c, kp, v, "effective", k, &k->has_effective, &k->effective)) < 0 ||
	    (r = parse_cap_set(c, kp, v, "inheritable", k, &k->has_inheritable, &k->inheritable)) < 0 ||
	    (r = parse_cap_set(c, kp, v, "permitted", k, &k->has_permitted, &k->permitted)) < 0 ||
	    (r = parse_cap_set(c, kp, v, "ambient", k, &k->has_ambient, &k->ambient)) < 0)
		return r;
	return 0;
}

static int rlimit_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		      void *elem, void *ud)
{
	struct oci_rlimit *rl = elem;
	int r;

	(void)ud;
	if ((r = parse_get_name(c, p, v, "type", REQ, oci_rlimits, oci_n_rlimits, "rlimit",
			  &rl->resource)) < 0 ||
	    (r = parse_get_u64(c, p, v, "soft", REQ, UINT64_MAX, &rl->soft)) < 0 ||
	    (r = parse_get_u64(c, p, v, "hard", REQ, UINT64_MAX, &rl->hard)) < 0)
		return r;
	if (rl->soft > rl->hard)
		return parse_err(c, JKEY(p, "soft"), "%s soft limit %" PRIu64 " is greater than its hard limit %" PRIu64,
			    oci_name_of(oci_rlimits, oci_n_rlimits, rl->resource), rl->soft, rl->hard);
	return 0;
}

static int parse_rlimits(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			 struct oci_process *out)
{
	const struct jpath *kp = JKEY(p, "rlimits");
	int r;

	if ((r = parse_get_array_of(c, p, proc, "rlimits", sizeof(struct oci_rlimit), &out->rlimits,
			      &out->n_rlimits, rlimit_one, NULL)) <= 0)
		return r;
	for (size_t i = 1; i < out->n_rlimits; i++)
		for (size_t j = 0; j < i; j++)
			if (out->rlimits[i].resource == out->rlimits[j].resource)
				return parse_err(c, JKEY(JIDX(kp, i), "type"), "duplicate rlimit \"%s\"",
					    oci_name_of(oci_rlimits, oci_n_rlimits,
							out->rlimits[i].resource));
	return 0;
}

static int parse_name_flags(struct pctx *c, const struct jpath *p, const struct json_val *obj,
			    const char *key, const struct oci_name *t, size_t n, const char *what,
			    uint64_t *out)
{
	const struct json_val *arr;
	const struct jpath *kp = JKEY(p, key);
	int r, bit;

	if ((r = parse_get_arr(c, p, obj, key, OPT, &arr)) <= 0)
		return r;
	for (size_t i = 0; i < json_len(arr); i++) {
		if (parse_val_name(c, JIDX(kp, i), json_at(arr, i), t, n, what, &bit) < 0)
			return -EINVAL;
		*out |= (uint64_t)bit;
	}
	return 0;
}

/* Rules as runc applies them (nice range, which fields go with which policy). */
static int check_scheduler(struct pctx *c, const struct jpath *p, const struct oci_scheduler *s)
{
	if (s->nice < -20 || s->nice > 19)
		return parse_err(c, JKEY(p, "nice"), "%d is out of range (-20 to 19)", (int)s->nice);
	if (s->priority != 0 && s->policy != 1 /* FIFO */ && s->policy != 2 /* RR */)
		return parse_err(c, JKEY(p, "priority"), "only allowed with SCHED_FIFO or SCHED_RR");
	if (s->policy != 6 /* DEADLINE */ && (s->runtime || s->deadline || s->period))
		return parse_err(c, p, "runtime, deadline and period are only allowed with SCHED_DEADLINE");
	return 0;
}

/* What the kernel's __checkparam_dl refuses with a bare EINVAL, named here
 * before anything is made, in crun's words: runtime <= deadline <= period
 * (0: the deadline), each at least 1024 ns and below 2^63 (sched(7)). */
static int check_deadline(struct pctx *c, const struct jpath *p, const struct oci_scheduler *s,
			  bool has_runtime, bool has_deadline)
{
	static const char pre[] = "sched_setattr: `SCHED_DEADLINE`";
	const uint64_t min = 1024, max = (1ULL << 63) - 1;
	const struct { const char *name; uint64_t v; } f[] = {
		{ "runtime", s->runtime }, { "deadline", s->deadline }, { "period", s->period },
	};

	if (!has_runtime)
		return parse_err(c, p, "%s requires `runtime`", pre);
	if (!has_deadline)
		return parse_err(c, p, "%s requires `deadline`", pre);
	if (!s->runtime)
		return parse_err(c, JKEY(p, "runtime"), "%s runtime must be greater than 0", pre);
	if (!s->deadline)
		return parse_err(c, JKEY(p, "deadline"), "%s deadline must be greater than 0", pre);
	if (s->runtime > s->deadline)
		return parse_err(c, JKEY(p, "runtime"), "%s runtime (%llu) must be <= deadline (%llu)", pre,
				 (unsigned long long)s->runtime, (unsigned long long)s->deadline);
	if (s->period && s->deadline > s->period)
		return parse_err(c, JKEY(p, "deadline"), "%s deadline (%llu) must be <= period (%llu)", pre,
				 (unsigned long long)s->deadline, (unsigned long long)s->period);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if ((f[i].v || i < 2) && (f[i].v < min || f[i].v > max))
			return parse_err(c, JKEY(p, f[i].name), "%s %s (%llu) must be between %llu and %llu", pre,
					 f[i].name, (unsigned long long)f[i].v, (unsigned long long)min,
					 (unsigned long long)max);
	return 0;
}

static int parse_scheduler(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			   struct oci_process *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "scheduler");
	struct oci_scheduler *s = &out->scheduler;
	bool has_runtime, has_deadline;
	int r;

	if ((r = parse_get_obj(c, p, proc, "scheduler", OPT, &v)) <= 0)
		return r;
	out->has_scheduler = true;
	if ((r = parse_get_name(c, kp, v, "policy", REQ, oci_sched_policies, oci_n_sched_policies,
			  "scheduler policy", &s->policy)) < 0 ||
	    (r = parse_get_i32(c, kp, v, "nice", OPT, &s->nice)) < 0 ||
	    (r = parse_get_i32(c, kp, v, "priority", OPT, &s->priority)) < 0 ||
	    (r = parse_name_flags(c, kp, v, "flags", oci_sched_flags, oci_n_sched_flags,
				  "scheduler flag", &s->flags)) < 0 ||
	    (r = parse_get_u64(c, kp, v, "runtime", OPT, UINT64_MAX, &s->runtime)) < 0)
		return r;
	has_runtime = r > 0;
	if ((r = parse_get_u64(c, kp, v, "deadline", OPT, UINT64_MAX, &s->deadline)) < 0)
		return r;
	has_deadline = r > 0;
	if ((r = parse_get_u64(c, kp, v, "period", OPT, UINT64_MAX, &s->period)) < 0 ||
	    (r = check_scheduler(c, kp, s)) < 0)
		return r;
	return s->policy == 6 /* DEADLINE */ ? check_deadline(c, kp, s, has_runtime, has_deadline) : 0;
}

enum { IOPRIO_IDLE = 3 };   /* oci_ioprio_classes' IOPRIO_CLASS_IDLE */

static int parse_io_priority(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			     struct oci_process *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "ioPriority");
	int64_t prio = 0;
	int r;

	if ((r = parse_get_obj(c, p, proc, "ioPriority", OPT, &v)) <= 0)
		return r;
	if ((r = parse_get_name(c, kp, v, "class", REQ, oci_ioprio_classes, oci_n_ioprio_classes,
			  "I/O priority class", &out->io_priority_class)) < 0)
		return r;
	/* the idle class has no levels: its priority may be left out (runc's
	 * suite does); the others need one, as the spec says */
	if ((r = parse_get_i64(c, kp, v, "priority", out->io_priority_class == IOPRIO_IDLE ? OPT : REQ, 0, 7,
			       &prio)) < 0)
		return r;
	out->has_io_priority = true;
	out->io_priority = (int)prio;
	return 0;
}

static int get_cpu_list(struct pctx *c, const struct jpath *p, const struct json_val *obj,
			const char *key, char **out)
{
	int r = parse_get_str(c, p, obj, key, OPT, out);

	if (r > 0 && !parse_cpu_list_valid(*out))
		return parse_err(c, JKEY(p, key), "invalid CPU list \"%s\"", *out);
	return r;
}

static int parse_affinity(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			  struct oci_process *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "execCPUAffinity");
	int r;

	if ((r = parse_get_obj(c, p, proc, "execCPUAffinity", OPT, &v)) <= 0)
		return r;
	if ((r = get_cpu_list(c, kp, v, "initial", &out->exec_cpu_affinity_initial)) < 0 ||
	    (r = get_cpu_list(c, kp, v, "final", &out->exec_cpu_affinity_final)) < 0)
		return r;
	return 0;
}

static int parse_command(struct pctx *c, const struct jpath *p, const struct json_val *proc,
			 struct oci_process *out)
{
	int r;

	if ((r = parse_get_strv(c, p, proc, "args", REQ, &out->args, &out->n_args)) < 0)
		return r;
	if (out->n_args == 0)
		return parse_err(c, JKEY(p, "args"), "must not be empty");
	if ((r = parse_get_strv(c, p, proc, "env", OPT, &out->env, &out->n_env)) < 0)
		return r;
	/* as runc: NAME=VALUE, NAME not empty ("FOO" or "=x" would reach execve
	 * as entries getenv cannot find or misreads) */
	for (size_t i = 0; i < out->n_env; i++) {
		const char *eq = strchr(out->env[i], '=');

		if (!eq)
			return parse_err(c, JIDX(JKEY(p, "env"), i), "\"%s\" is not NAME=VALUE (no '=')",
				    out->env[i]);
		if (eq == out->env[i])
			return parse_err(c, JIDX(JKEY(p, "env"), i), "\"%s\": empty variable name", out->env[i]);
	}
	if (!out->env && !(out->env = parse_alloc(c, 1, sizeof(char *))))   /* ready for execve */
		return -ENOMEM;
	if ((r = parse_get_str(c, p, proc, "cwd", REQ, &out->cwd)) < 0)
		return r;
	if (out->cwd[0] != '/')
		return parse_err(c, JKEY(p, "cwd"), "must be an absolute path, got \"%s\"", out->cwd);
	return 0;
}

int parse_process(struct pctx *c, const struct jpath *p, const struct json_val *v,
		  struct oci_process *out)
{
	int64_t oom;
	int r;

	if ((r = parse_get_bool(c, p, v, "terminal", &out->terminal)) < 0 ||
	    (r = parse_console_size(c, p, v, out)) < 0 ||
	    (r = parse_user(c, p, v, out)) < 0 ||
	    (r = parse_command(c, p, v, out)) < 0 ||
	    (r = parse_caps(c, p, v, out)) < 0 ||
	    (r = parse_rlimits(c, p, v, out)) < 0 ||
	    (r = parse_get_bool(c, p, v, "noNewPrivileges", &out->no_new_privileges)) < 0 ||
	    (r = parse_get_str(c, p, v, "apparmorProfile", OPT, &out->apparmor_profile)) < 0 ||
	    (r = parse_get_str(c, p, v, "selinuxLabel", OPT, &out->selinux_label)) < 0)
		return r;
	if ((r = parse_get_i64(c, p, v, "oomScoreAdj", OPT, -1000, 1000, &oom)) < 0)
		return r;
	if (r > 0) {
		out->has_oom_score_adj = true;
		out->oom_score_adj = (int)oom;
	}
	if ((r = parse_scheduler(c, p, v, out)) < 0 ||
	    (r = parse_io_priority(c, p, v, out)) < 0 ||
	    (r = parse_affinity(c, p, v, out)) < 0)
		return r;
	return 0;
}

int oci_process_env_append(struct oci_process *p, char **vars, size_t n)
{
	char **env = calloc(p->n_env + n + 1, sizeof(*env));

	if (!env)
		return -ENOMEM;
	memcpy(env, p->env, p->n_env * sizeof(*env));
	memcpy(env + p->n_env, vars, n * sizeof(*env));
	p->env = env;
	p->n_env += n;
	return 0;
}
