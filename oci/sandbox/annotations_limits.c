/* The time limits of a task, as annotations that work in any bundle:
 *   run.tinyrun.wall-time         seconds from the task's start
 *   run.tinyrun.cpu-time          seconds of CPU of all its processes together
 *   run.tinyrun.request-deadline  seconds from the creation of a request's
 *                                 first container, for all its tasks
 * -> struct oci_limits (config.h). run.tinyrun.cpu-time also sets
 * RLIMIT_CPU (soft: the limit rounded up to a second, hard: one more), so
 * one process hits SIGXCPU first and SIGKILL a second later; the cgroup's
 * usage (runtime/sandbox/limits.c, tinyrun-init) catches a task spread
 * over many processes. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/parse.h"

int oci_limits_seconds(const char *s, int64_t *ms)
{
	int64_t v = 0;
	int scale = 100;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (*s - '0')) > OCI_LIMIT_SECONDS_MAX)
			return -EINVAL;
	v *= 1000;
	if (*s == '.') {
		if (*++s < '0' || *s > '9')
			return -EINVAL;
		for (; *s >= '0' && *s <= '9' && scale; s++, scale /= 10)
			v += (*s - '0') * scale;
	}
	if (*s || v == 0 || v > (int64_t)OCI_LIMIT_SECONDS_MAX * 1000)
		return -EINVAL;
	*ms = v;
	return 0;
}

static const struct jpath *ann(const char *key, struct jpath *buf)
{
	static const struct jpath top = { NULL, "annotations", 0 };

	*buf = (struct jpath){ &top, key, 0 };
	return buf;
}

/* RLIMIT_CPU for run.tinyrun.cpu-time, unless the config has a lower one */
static int set_rlimit_cpu(struct pctx *c, struct oci_process *p, int64_t cpu_ms)
{
	uint64_t soft = (uint64_t)(cpu_ms + 999) / 1000;
	struct oci_rlimit *rl;

	for (size_t i = 0; i < p->n_rlimits; i++)
		if (p->rlimits[i].resource == RLIMIT_CPU) {
			if (p->rlimits[i].soft > soft)
				p->rlimits[i] = (struct oci_rlimit){ RLIMIT_CPU, soft, soft + 1 };
			return 0;
		}
	if (!(rl = parse_alloc(c, p->n_rlimits + 1, sizeof(*rl))))
		return -ENOMEM;
	if (p->n_rlimits)
		memcpy(rl, p->rlimits, p->n_rlimits * sizeof(*rl));
	rl[p->n_rlimits++] = (struct oci_rlimit){ RLIMIT_CPU, soft, soft + 1 };
	p->rlimits = rl;
	return 0;
}

int oci_limits_parse(struct pctx *c, struct oci_config *cfg)
{
	struct oci_limits *l = &cfg->sandbox.time;
	struct jpath p;

	for (size_t i = 0; i < cfg->n_annotations; i++) {
		const char *k = cfg->annotations[i].key, *v = cfg->annotations[i].value;
		int64_t *out = !strcmp(k, OCI_ANNOTATION_WALL_TIME) ? &l->wall_ms :
			       !strcmp(k, OCI_ANNOTATION_CPU_TIME) ? &l->cpu_ms :
			       !strcmp(k, OCI_ANNOTATION_REQUEST_DEADLINE) ? &l->request_deadline_ms : NULL;

		if (out && oci_limits_seconds(v, out) < 0)
			return parse_err(c, ann(k, &p), "expected seconds, 0.001 to %d (at most 3 decimals), got \"%.64s\"",
					 OCI_LIMIT_SECONDS_MAX, v);
	}
	if (l->request_deadline_ms && cfg->sandbox.request)
		return parse_err(c, ann(OCI_ANNOTATION_REQUEST_DEADLINE, &p),
				 "a task of a request has its request's deadline: set it on the request's first container");
	if (l->cpu_ms && cfg->has_process)
		return set_rlimit_cpu(c, &cfg->process, l->cpu_ms);
	return 0;
}
