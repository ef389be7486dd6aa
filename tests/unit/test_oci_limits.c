/* oci/sandbox/: the time limits (annotations_limits.c): the seconds they take,
 * RLIMIT_CPU from run.tinyrun.cpu-time, the refusals naming the annotation,
 * and what `spec --sandbox` writes. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/config.h"
#include "oci/profiles.h"
#include "oci/spec.h"
#include "oci/sandbox/spec_sandbox.h"
#include "runtime/init/init_args.h"
#include "tests/unit/unit.h"

static void test_seconds(void)
{
	static const struct { const char *s; int64_t ms; } good[] = {
		{ "1", 1000 }, { "0.001", 1 }, { "2.5", 2500 }, { "1.250", 1250 }, { "10.05", 10050 },
		{ "2592000", 2592000000LL }, { "007", 7000 },
	};
	static const char *const bad[] = { "", "0", "0.000", "-1", "+1", " 1", "1 ", "1.", ".5", "1.2345", "1e3",
					   "abc", "1s", "2592000.001", "2592001", "99999999999999999999999" };
	int64_t ms;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(oci_limits_seconds(good[i].s, &ms) == 0 && ms == good[i].ms);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(oci_limits_seconds(bad[i], &ms) < 0);
}

static int parse(const char *annotations, const char *rlimits, struct oci_config *cfg, struct error *err)
{
	char json[2048];

	snprintf(json, sizeof(json), "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\", "
		 "\"user\": {\"uid\": 0, \"gid\": 0}, \"rlimits\": [%s]}, \"root\": {\"path\": \"rootfs\"}, "
		 "\"annotations\": {%s}}", rlimits, annotations);
	return oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, cfg, err);
}

static const struct oci_rlimit *rlimit_cpu(const struct oci_config *cfg)
{
	for (size_t i = 0; i < cfg->process.n_rlimits; i++)
		if (cfg->process.rlimits[i].resource == RLIMIT_CPU)
			return &cfg->process.rlimits[i];
	return NULL;
}

static void test_annotations(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	const struct oci_rlimit *rl;

	CHECK(parse("\"run.tinyrun.wall-time\": \"2.5\", \"run.tinyrun.cpu-time\": \"1.2\", "
		    "\"run.tinyrun.request-deadline\": \"60\"",
		    "{\"type\": \"RLIMIT_NOFILE\", \"soft\": 8, \"hard\": 8}", &cfg, &err) == 0);
	CHECK(cfg.sandbox.time.wall_ms == 2500 && cfg.sandbox.time.cpu_ms == 1200);
	CHECK(cfg.sandbox.time.request_deadline_ms == 60000);
	/* RLIMIT_CPU added: soft rounded up to a second, hard one more */
	CHECK(cfg.process.n_rlimits == 2 && (rl = rlimit_cpu(&cfg)) && rl->soft == 2 && rl->hard == 3);
	oci_config_free(&cfg);
	/* a higher RLIMIT_CPU of the config is lowered, a lower one kept */
	CHECK(parse("\"run.tinyrun.cpu-time\": \"3\"", "{\"type\": \"RLIMIT_CPU\", \"soft\": 100, \"hard\": 200}", &cfg,
		    &err) == 0);
	CHECK(cfg.process.n_rlimits == 1 && (rl = rlimit_cpu(&cfg)) && rl->soft == 3 && rl->hard == 4);
	oci_config_free(&cfg);
	CHECK(parse("\"run.tinyrun.cpu-time\": \"3\"", "{\"type\": \"RLIMIT_CPU\", \"soft\": 1, \"hard\": 1}", &cfg,
		    &err) == 0);
	CHECK(cfg.process.n_rlimits == 1 && (rl = rlimit_cpu(&cfg)) && rl->soft == 1 && rl->hard == 1);
	oci_config_free(&cfg);
	/* none: nothing set */
	CHECK(parse("\"k\": \"v\"", "", &cfg, &err) == 0);
	CHECK(!cfg.sandbox.time.wall_ms && !cfg.sandbox.time.cpu_ms && !rlimit_cpu(&cfg));
	oci_config_free(&cfg);

	CHECK(parse("\"run.tinyrun.wall-time\": \"0\"", "", &cfg, &err) < 0);
	CHECK_STR(err.msg, "config.json: .annotations[\"run.tinyrun.wall-time\"]: expected seconds, 0.001 to 2592000 "
		  "(at most 3 decimals), got \"0\"");
	CHECK(parse("\"run.tinyrun.cpu-time\": \"-1\"", "", &cfg, &err) < 0);
	CHECK(strstr(err.msg, ".annotations[\"run.tinyrun.cpu-time\"]: expected seconds") != NULL);
}

static void test_spec(void)
{
	struct oci_sandbox_opts o = { .wall_time = "10", .cpu_time = "5", .request_deadline = "30" };
	char *def = oci_spec_default(false, 0, 0), errbuf[256], *json;
	struct oci_config cfg;
	struct error err = { 0 };

	/* the defaults */
	json = oci_spec_sandbox(def, oci_seccomp_profile("default"), errbuf, sizeof(errbuf));
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.sandbox.time.wall_ms == 900000 && cfg.sandbox.time.cpu_ms == 900000);
	CHECK(cfg.sandbox.time.request_deadline_ms == 0);
	oci_config_free(&cfg);
	free(json);
	/* the flags' values, over an input's own */
	json = oci_spec_sandbox_with("{\"annotations\": {\"run.tinyrun.wall-time\": \"1\"}}",
				     oci_seccomp_profile("default"), &o, errbuf, sizeof(errbuf));
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.sandbox.time.wall_ms == 10000 && cfg.sandbox.time.cpu_ms == 5000);
	CHECK(cfg.sandbox.time.request_deadline_ms == 30000);
	oci_config_free(&cfg);
	free(json);
	/* a task has its request's deadline */
	o.request = "job-1";
	o.request_key_file = OCI_SANDBOX_KEY_FILE;
	json = oci_spec_sandbox_with("{}", oci_seccomp_profile("default"), &o, errbuf, sizeof(errbuf));
	CHECK(json && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) < 0);
	CHECK(strstr(err.msg, ".annotations[\"run.tinyrun.request-deadline\"]: a task of a request") != NULL);
	free(json);
	free(def);
}

/* the one parser of the usage files, the init's and run's */
static void test_usage_files(void)
{
	static const char v2[] = "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n"
				 "core_sched.force_idle_usec 0\nnr_periods 0\n";
	static const char v2_late[] = "x_usage_usec 9\nnr_periods 0\nusage_usec 42\n";

	CHECK(init_cpu_usage_ns(v2, sizeof(v2) - 1, INIT_CPU_V2_STAT) == 1500000000LL);
	CHECK(init_cpu_usage_ns(v2_late, sizeof(v2_late) - 1, INIT_CPU_V2_STAT) == 42000);
	CHECK(init_cpu_usage_ns("nr_periods 0\n", 13, INIT_CPU_V2_STAT) == -1);
	CHECK(init_cpu_usage_ns("504555173\n", 10, INIT_CPU_V1_USAGE) == 504555173LL);
	CHECK(init_cpu_usage_ns("\n", 1, INIT_CPU_V1_USAGE) == -1);
	CHECK(init_cpu_usage_ns("12", 2, 0) == -1);
}

int main(void)
{
	test_seconds();
	test_usage_files();
	test_annotations();
	test_spec();
	return unit_report("test_oci_limits");
}
