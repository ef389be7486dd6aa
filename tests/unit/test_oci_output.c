/* oci/sandbox/annotations_output.c: the output and disk limits' annotations, their
 * sizes (oci_size_parse), and what spec --sandbox writes for them (its
 * options over the input's annotations; the profile's rlimits). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/config.h"
#include "oci/profiles.h"
#include "oci/spec.h"
#include "oci/sandbox/spec_sandbox.h"
#include "tests/unit/unit.h"

static void test_size(void)
{
	uint64_t v = 0;

	CHECK(oci_size_parse("1", 10, &v) == 0 && v == 1);
	CHECK(oci_size_parse("4k", 1 << 20, &v) == 0 && v == 4096);
	CHECK(oci_size_parse("3M", 1ull << 40, &v) == 0 && v == 3ull << 20);
	CHECK(oci_size_parse("2g", 1ull << 40, &v) == 0 && v == 2ull << 30);
	CHECK(oci_size_parse("1024k", 1 << 20, &v) == 0 && v == 1 << 20);
	CHECK(oci_size_parse("1025k", 1 << 20, &v) == -EINVAL);   /* past max */
	CHECK(oci_size_parse("0", 10, &v) == -EINVAL);
	CHECK(oci_size_parse("", 10, &v) == -EINVAL);
	CHECK(oci_size_parse("-1", 10, &v) == -EINVAL);
	CHECK(oci_size_parse("+1", 10, &v) == -EINVAL);
	CHECK(oci_size_parse(" 1", 10, &v) == -EINVAL);
	CHECK(oci_size_parse("1kb", 1 << 20, &v) == -EINVAL);
	CHECK(oci_size_parse("1t", 1ull << 50, &v) == -EINVAL);
	CHECK(oci_size_parse("99999999999999999999", 1ull << 50, &v) == -EINVAL);
	CHECK(oci_size_parse("17179869184g", 1ull << 50, &v) == -EINVAL);   /* would overflow the shift */
	CHECK(oci_size_parse(NULL, 10, &v) == -EINVAL);
}

/* the sandbox profile with these spec options, parsed back */
static int parse_with(const struct oci_sandbox_output_opts *out, const char *in, struct oci_config *cfg,
		      struct error *err)
{
	struct oci_sandbox_opts o = { .out = *out, .request_key_file = OCI_SANDBOX_KEY_FILE };
	char errbuf[256], *json = oci_spec_sandbox_with(in, oci_seccomp_profile("default"), &o, errbuf, sizeof(errbuf));
	int r;

	if (!json)
		return -EINVAL;
	r = oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, cfg, err);
	free(json);
	return r;
}

static void test_parse(void)
{
	const char *in = "{\"annotations\": {\"run.tinyrun.output-limit\": \"5\", \"run.tinyrun.workspace-inodes\": \"9\"}}";
	struct oci_sandbox_output_opts out = { .output_limit = "1k", .request_output_limit = "2m",
					       .workspace_size = "4096" };
	struct oci_config cfg;
	struct error err;

	CHECK(parse_with(&out, in, &cfg, &err) == 0);
	/* the options replace the input's; the input's others stay */
	CHECK(cfg.sandbox.limits.output == 1024 && cfg.sandbox.limits.request_output == 2 << 20);
	CHECK(cfg.sandbox.limits.workspace_size == 4096 && cfg.sandbox.limits.workspace_inodes == 9);
	oci_config_free(&cfg);
	out = (struct oci_sandbox_output_opts){ 0 };
	CHECK(parse_with(&out, "{}", &cfg, &err) == 0);
	CHECK(!cfg.sandbox.limits.output && !cfg.sandbox.limits.workspace_size && !cfg.sandbox.limits.workspace_inodes);
	/* a judge's rlimits, soft = hard (and a fifth, RLIMIT_CPU, from the default
	 * run.tinyrun.cpu-time: annotations_limits.c) */
	CHECK(cfg.process.n_rlimits == 5 && cfg.process.rlimits[4].resource == RLIMIT_CPU);
	CHECK(cfg.process.rlimits[0].resource == RLIMIT_CORE && cfg.process.rlimits[0].hard == 0);
	CHECK(cfg.process.rlimits[1].resource == RLIMIT_NOFILE && cfg.process.rlimits[1].soft == 256 &&
	      cfg.process.rlimits[1].hard == 256);
	CHECK(cfg.process.rlimits[2].resource == RLIMIT_STACK && cfg.process.rlimits[2].soft == 8 << 20);
	CHECK(cfg.process.rlimits[3].resource == RLIMIT_FSIZE && cfg.process.rlimits[3].soft == 64 << 20);
	oci_config_free(&cfg);
	/* bad values name their annotation */
	out = (struct oci_sandbox_output_opts){ .workspace_inodes = "0" };
	CHECK(parse_with(&out, "{}", &cfg, &err) < 0);
	CHECK(strstr(err.msg, ".annotations[\"run.tinyrun.workspace-inodes\"]: expected a count from 1 to") != NULL);
}

int main(void)
{
	test_size();
	test_parse();
	return unit_report("test_oci_output");
}
