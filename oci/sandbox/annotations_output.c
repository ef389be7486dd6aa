/* The output and disk limits of a task (run.tinyrun.output-limit,
 * .request-output-limit, .workspace-size, .workspace-inodes) -> struct
 * oci_output_limits, validated against the rest of the config. Called from
 * oci_room_parse once the other run.tinyrun.* keys are read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oci/parse.h"
#include "oci/sandbox/room.h"

#define SIZE_MAX_BYTES OCI_LIMIT_BYTES_MAX
#define INODES_MAX OCI_LIMIT_INODES_MAX

int oci_size_parse(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end && !end[1]) {
		const char *units = "kmg", *u = strchr(units, *end | 0x20);

		if (!u || !*u)
			return -EINVAL;
		shift = 10 * (unsigned)(u - units + 1);
		end++;
	}
	if (*end || v < 1 || v > (max >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static const struct jpath *ann(const char *key, struct jpath *buf)
{
	static const struct jpath top = { NULL, "annotations", 0 };

	*buf = (struct jpath){ &top, key, 0 };
	return buf;
}

/* key's value into *out when it is one of ours; 1: taken, 0: not ours */
static int read_one(struct pctx *c, const char *k, const char *v, const char *key, uint64_t max,
		    const char *what, uint64_t *out)
{
	struct jpath p;

	if (strcmp(k, key) != 0)
		return 0;
	if (oci_size_parse(v, max, out) < 0)
		return parse_err(c, ann(k, &p), "expected %s from 1 to %llu (k, m, g: KiB, MiB, GiB), got \"%s\"", what,
				 (unsigned long long)max, v);
	return 1;
}

static int read_keys(struct pctx *c, const struct oci_config *cfg, struct oci_output_limits *l)
{
	for (size_t i = 0; i < cfg->n_annotations; i++) {
		const char *k = cfg->annotations[i].key, *v = cfg->annotations[i].value;
		int r;

		if ((r = read_one(c, k, v, OCI_ANNOTATION_OUTPUT_LIMIT, SIZE_MAX_BYTES, "bytes", &l->output)) ||
		    (r = read_one(c, k, v, OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT, SIZE_MAX_BYTES, "bytes",
				  &l->request_output)) ||
		    (r = read_one(c, k, v, OCI_ANNOTATION_WORKSPACE_SIZE, SIZE_MAX_BYTES, "bytes", &l->workspace_size)) ||
		    (r = read_one(c, k, v, OCI_ANNOTATION_WORKSPACE_INODES, INODES_MAX, "a count", &l->workspace_inodes)))
			if (r < 0)
				return r;
	}
	return 0;
}

int oci_output_parse(struct pctx *c, struct oci_config *cfg)
{
	struct oci_output_limits *l = &cfg->sandbox.limits;
	struct jpath p;
	int r;

	if ((r = read_keys(c, cfg, l)) < 0)
		return r;
	if ((l->output || l->request_output) && cfg->process.terminal)
		return parse_err(c, ann(l->output ? OCI_ANNOTATION_OUTPUT_LIMIT : OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT, &p),
				 "the runtime reads the task's stdout and stderr through pipes: .process.terminal must be false");
	if (l->request_output && !cfg->sandbox.request_key_file)
		return parse_err(c, ann(OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT, &p),
				 "needs a request (\"" OCI_ANNOTATION_REQUEST_KEY_FILE "\", with or without "
				 "\"run.tinyrun.sandbox.request\")");
	if ((l->workspace_size || l->workspace_inodes) && !cfg->sandbox.minimal_root)
		return parse_err(c, ann(l->workspace_size ? OCI_ANNOTATION_WORKSPACE_SIZE : OCI_ANNOTATION_WORKSPACE_INODES, &p),
				 "needs \"run.tinyrun.rootfs\": \"minimal\" (its workspace and /tmp)");
	return 0;
}
