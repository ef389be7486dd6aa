/* oci/sandbox/: the sandbox annotations (annotations_sandbox.c) and the profile
 * `spec --sandbox` writes (spec_sandbox.c): it parses back into the typed
 * fields, keeps the input's args/env/root/annotations, and every refusal
 * names its annotation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "oci/profiles.h"
#include "oci/spec.h"
#include "oci/sandbox/spec_sandbox.h"
#include "tests/unit/unit.h"

static char *sandbox_of(const char *in)
{
	char errbuf[256];

	return oci_spec_sandbox(in, oci_seccomp_profile("default"), errbuf, sizeof(errbuf));
}

static void test_profile(void)
{
	char *def = oci_spec_default(false, 0, 0), *json = sandbox_of(def);
	struct oci_config cfg;
	struct error err = { 0 };

	CHECK(json != NULL);
	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.sandbox.userns_auto && cfg.sandbox.minimal_root && !cfg.sandbox.request);
	CHECK(cfg.sandbox.range_first == 100000 && cfg.sandbox.range_last == 165535);
	CHECK(cfg.process.uid == 65534 && cfg.process.gid == 65534 && !cfg.process.terminal);
	CHECK(cfg.process.no_new_privileges && cfg.process.caps.bounding == 0 && cfg.process.caps.effective == 0);
	CHECK_STR(cfg.process.cwd, "/workspace");
	CHECK(cfg.n_mounts == 0 && cfg.root_readonly && cfg.linux_.n_uid_mappings == 0);
	for (int t = 0; t < OCI_NS_TYPES; t++)
		CHECK(cfg.linux_.ns[t].present == (t != OCI_NS_TIME));
	CHECK(cfg.linux_.has_seccomp && cfg.linux_.seccomp.default_errno_ret == 38);
	CHECK(cfg.linux_.resources.has_pids && cfg.linux_.resources.pids_limit == 128);
	CHECK(cfg.linux_.resources.memory.limit == cfg.linux_.resources.memory.swap);
	/* env: the default spec's PATH kept, TERM dropped (no terminal), HOME added */
	CHECK(cfg.process.n_env == 2);
	CHECK_STR(cfg.process.env[1], "HOME=/workspace");
	oci_config_free(&cfg);
	free(json);
	free(def);

	/* a transform: the input's args, env, root path and annotations survive */
	json = sandbox_of("{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"python3\", \"-c\", \"1\"], "
			  "\"env\": [\"PATH=/opt/bin\", \"A=b\"]}, \"root\": {\"path\": \"/images/x\"}, "
			  "\"annotations\": {\"k\": \"v\", \"run.tinyrun.rootfs\": \"other\"}}");
	CHECK(json != NULL);
	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.process.n_args == 3);
	CHECK_STR(cfg.process.args[0], "python3");
	CHECK(cfg.process.n_env == 3);
	CHECK_STR(cfg.process.env[0], "PATH=/opt/bin");
	CHECK_STR(cfg.root_path, "/images/x");
	CHECK(cfg.n_annotations == 6 && cfg.sandbox.minimal_root);   /* + wall-time, cpu-time */
	oci_config_free(&cfg);
	free(json);
	CHECK(sandbox_of("{") == NULL);
}

static void refused(const char *edit_key, const char *edit_val, const char *want)
{
	char *def = oci_spec_default(false, 0, 0), *json = sandbox_of(def), buf[65536];
	struct oci_config cfg;
	struct error err = { 0 };
	char *ann = strstr(json, "\"annotations\": {");

	/* insert one annotation first: the last of a repeated key wins */
	CHECK(ann != NULL);
	ann += strlen("\"annotations\": {");
	snprintf(buf, sizeof(buf), "%.*s\"%s\": \"%s\", %s", (int)(ann - json), json, edit_key, edit_val, ann);
	if (oci_config_parse("config.json", buf, strlen(buf), OCI_PARSE_ALL, &cfg, &err) == 0) {
		CHECK(!"accepted");
		oci_config_free(&cfg);
	} else if (!strstr(err.msg, want)) {
		fprintf(stderr, "got: %s\n", err.msg);
		CHECK(!"message");
	} else {
		CHECK(1);
	}
	free(json);
	free(def);
}

static void test_refusals(void)
{
	uint32_t a, b;

	refused("run.tinyrun.userns.range", "5-1", ".annotations[\"run.tinyrun.userns.range\"]: expected FIRST-LAST");
	refused("run.tinyrun.userns.range", "0-10", "expected FIRST-LAST");
	refused("run.tinyrun.userns.range", "1-2147483648", "expected FIRST-LAST");
	refused("run.tinyrun.sandbox.request", "../x", ".annotations[\"run.tinyrun.sandbox.request\"]: not a container id");
	refused("run.tinyrun.workspace.seed", "../app", ".annotations[\"run.tinyrun.workspace.seed\"]: expected a directory of the bundle");
	refused("run.tinyrun.workspace.seed", "/etc", "expected a directory of the bundle");
	refused("run.tinyrun.workspace.seed", "layer/../../x", "expected a directory of the bundle");
	refused("run.tinyrun.workspace.seed", "layer//app", "expected a directory of the bundle");
	refused("run.tinyrun.workspace.seed", "layer/./app", "expected a directory of the bundle");
	refused("run.tinyrun.workspace.seed", "", "expected a directory of the bundle");
	/* a task of a request presents the request's key */
	refused("run.tinyrun.sandbox.request", "job-1",
		".annotations[\"run.tinyrun.sandbox.request\"]: needs \"run.tinyrun.sandbox.request-key-file\"");
	refused("run.tinyrun.sandbox.request-key-file", "../request.key",
		".annotations[\"run.tinyrun.sandbox.request-key-file\"]: expected a file of the bundle");
	refused("run.tinyrun.sandbox.request-key-file", "/etc/shadow", "expected a file of the bundle");
	refused("run.tinyrun.sandbox.request-key-file", "", "expected a file of the bundle");
	CHECK(oci_sandbox_range_parse("10-20", &a, &b) == 0 && a == 10 && b == 20);
	CHECK(oci_sandbox_range_parse("7-7", &a, &b) == 0 && a == 7 && b == 7);
	CHECK(oci_sandbox_range_parse("10-", &a, &b) == -EINVAL);
	CHECK(oci_sandbox_range_parse("-10", &a, &b) == -EINVAL);
	CHECK(oci_sandbox_range_parse("1-2x", &a, &b) == -EINVAL);
}

/* bundle tinyaws --sandbox: the caller's workspace, seed and limits */
static void test_with(void)
{
	char *def = oci_spec_default(false, 0, 0), errbuf[256], *json;
	struct oci_sandbox_opts o = { .workspace = "/app", .seed = "layer/app", .memory = 128 << 20,
				      .cpu_quota = 25000, .cpu_period = 100000 };
	struct oci_config cfg;
	struct error err;

	json = oci_spec_sandbox_with(def, oci_seccomp_profile("default"), &o, errbuf, sizeof(errbuf));
	CHECK(json != NULL);
	CHECK(oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK_STR(cfg.process.cwd, "/app");
	CHECK_STR(cfg.sandbox.workspace_seed, "layer/app");
	CHECK(cfg.linux_.resources.memory.limit == 128 << 20 && cfg.linux_.resources.memory.swap == 128 << 20);
	CHECK(cfg.linux_.resources.cpu.quota == 25000 && cfg.linux_.resources.pids_limit == 128);
	oci_config_free(&cfg);
	free(json);
	free(def);
}

/* spec --sandbox --request-key / --request ID: the caller's annotations
 * replace whatever request the input named */
static void test_request(void)
{
	const char *in = "{\"annotations\": {\"run.tinyrun.sandbox.request\": \"stale\", \"keep\": \"me\"}}";
	struct oci_sandbox_opts creator = { .request_key_file = OCI_SANDBOX_KEY_FILE },
				task = { .request = "job-1", .request_key_file = OCI_SANDBOX_KEY_FILE };
	char errbuf[256], *json;
	struct oci_config cfg;
	struct error err;

	json = oci_spec_sandbox_with(in, oci_seccomp_profile("default"), &task, errbuf, sizeof(errbuf));
	CHECK(json != NULL && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK_STR(cfg.sandbox.request, "job-1");
	CHECK_STR(cfg.sandbox.request_key_file, "request.key");
	CHECK(cfg.n_annotations == 8);   /* keep, userns, rootfs, init, request, its key, wall-time, cpu-time */
	oci_config_free(&cfg);
	free(json);
	json = oci_spec_sandbox_with(in, oci_seccomp_profile("default"), &creator, errbuf, sizeof(errbuf));
	CHECK(json != NULL && oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, &cfg, &err) == 0);
	CHECK(cfg.sandbox.request == NULL);
	CHECK_STR(cfg.sandbox.request_key_file, "request.key");
	oci_config_free(&cfg);
	free(json);
}

int main(void)
{
	test_profile();
	test_refusals();
	test_with();
	test_request();
	return unit_report("test_oci_sandbox");
}
