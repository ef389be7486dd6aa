/* oci/sandbox/: run.tinyrun.landlock (annotations_landlock.c): the value into
 * struct oci_landlock (paths, access letters, scopes), and each refusal
 * naming the annotation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "tests/unit/unit.h"

/* a minimal valid config with the annotation value v (and NoNewPrivileges nnp) */
static int parse(const char *v, bool nnp, struct oci_config *cfg, struct error *err)
{
	char json[2048];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\", \"noNewPrivileges\": %s}, "
		 "\"root\": {\"path\": \"rootfs\"}, \"linux\": {\"namespaces\": [{\"type\": \"mount\"}]}, "
		 "\"annotations\": {\"run.tinyrun.landlock\": \"%s\"}}", nnp ? "true" : "false", v);
	return oci_config_parse("config.json", json, strlen(json), OCI_PARSE_ALL, cfg, err);
}

static void test_value(void)
{
	struct oci_config cfg;
	struct error err = { 0 };
	const struct oci_landlock *ll = &cfg.sandbox.landlock;

	CHECK(parse("rx:/usr,/bin;r:/etc;xwr:/tmp;scope:signal;w:/;scope:abstract-unix", true, &cfg, &err) == 0);
	CHECK(ll->set && ll->n_rules == 5);
	CHECK_STR(ll->rules[0].path, "/usr");
	CHECK(ll->rules[0].access == (OCI_LANDLOCK_READ | OCI_LANDLOCK_EXEC));
	CHECK_STR(ll->rules[1].path, "/bin");
	CHECK(ll->rules[1].access == (OCI_LANDLOCK_READ | OCI_LANDLOCK_EXEC));
	CHECK(ll->rules[2].access == OCI_LANDLOCK_READ);
	CHECK(ll->rules[3].access == (OCI_LANDLOCK_READ | OCI_LANDLOCK_WRITE | OCI_LANDLOCK_EXEC));
	CHECK_STR(ll->rules[4].path, "/");
	CHECK(ll->rules[4].access == OCI_LANDLOCK_WRITE);
	CHECK(ll->scope == (OCI_LANDLOCK_SCOPE_SIGNAL | OCI_LANDLOCK_SCOPE_ABSTRACT_UNIX));
	oci_config_free(&cfg);

	/* scopes alone: every file right handled, none granted */
	CHECK(parse("scope:signal", true, &cfg, &err) == 0);
	CHECK(ll->set && ll->n_rules == 0 && ll->scope == OCI_LANDLOCK_SCOPE_SIGNAL);
	oci_config_free(&cfg);
}

static void test_refused(void)
{
	static const char *const bad[] = { "", "r", ":/x", "q:/x", "rr:/x", "r:x", "r:/a/../b", "r:/a/./b", "r:/a/",
					   "r:/a//b", "r:/a,,/b", "r:/a,", "r:/a;", ";r:/a", "r:/a;;w:/b",
					   "scope:bogus", "scope:", "r w:/a", "R:/a", "rX:/a" };
	struct oci_config cfg;
	struct error err;
	char many[1024] = "r:/a";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = (struct error){ 0 };
		CHECK(parse(bad[i], true, &cfg, &err) == -EINVAL);
		CHECK(strstr(err.msg, "config.json: .annotations[\"run.tinyrun.landlock\"]: ") == err.msg);
	}
	for (int i = 0; i < 64; i++)
		strcat(many, ",/a");
	CHECK(parse(many, true, &cfg, &err) == -EINVAL && strstr(err.msg, "more than 64 paths"));
	CHECK(parse("rx:/", false, &cfg, &err) == -EINVAL && strstr(err.msg, "needs .process.noNewPrivileges: true"));
}

int main(void)
{
	test_value();
	test_refused();
	return unit_report("test_oci_landlock");
}
