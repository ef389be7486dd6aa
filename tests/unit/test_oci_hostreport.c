/* oci/hostreport.h: the verdict (only a required facility that is missing
 * fails) and the JSON of `tinyrun check --format json`. */
#include <stdlib.h>
#include <string.h>

#include "oci/hostreport.h"
#include "unit.h"

static void add(struct oci_host_report *r, const char *name, enum oci_host_need need, enum oci_host_status st,
		const char *without)
{
	r->rows[r->n] = (struct oci_host_row){ .facility = name, .since = "5.3", .need = need, .status = st,
					       .without = without };
	strcpy(r->rows[r->n].found, "seen \"x\"");
	r->n++;
}

static void test_verdict(void)
{
	struct oci_host_report r = { .kernel = "6.1.0" };

	add(&r, "clone3", OCI_HOST_REQUIRED, OCI_HOST_PRESENT, NULL);
	add(&r, "fsopen", OCI_HOST_FALLBACK, OCI_HOST_MISSING, "a copy");
	add(&r, "idmap", OCI_HOST_OPTIONAL, OCI_HOST_MISSING, "refused");
	add(&r, "idmap2", OCI_HOST_REQUIRED, OCI_HOST_UNKNOWN, NULL);
	add(&r, "criu", OCI_HOST_NOTE, OCI_HOST_MISSING, "unused");
	CHECK(!oci_host_report_fails(&r));
	add(&r, "close_range", OCI_HOST_REQUIRED, OCI_HOST_MISSING, "none");
	CHECK(oci_host_report_fails(&r));
	CHECK_STR(oci_host_need_name(OCI_HOST_FALLBACK), "fallback");
	CHECK_STR(oci_host_status_name(OCI_HOST_MISSING), "missing");
}

static void test_json(void)
{
	struct oci_host_report r = { .kernel = "6.1.0" };
	char *json;
	size_t len;

	add(&r, "fsopen", OCI_HOST_FALLBACK, OCI_HOST_MISSING, "a copy");
	add(&r, "clone3", OCI_HOST_REQUIRED, OCI_HOST_PRESENT, NULL);
	CHECK(oci_host_report_json(&r, &json, &len) == 0);
	CHECK(strlen(json) == len);
	CHECK(strstr(json, "\"kernel\": \"6.1.0\"") != NULL);
	CHECK(strstr(json, "\"minimumKernel\": \"" OCI_HOST_MIN_KERNEL "\"") != NULL);
	CHECK(strstr(json, "\"ok\": true") != NULL);
	CHECK(strstr(json, "\"facility\": \"fsopen\"") != NULL);
	CHECK(strstr(json, "\"need\": \"fallback\"") != NULL);
	CHECK(strstr(json, "\"found\": \"seen \\\"x\\\"\"") != NULL);   /* escaped */
	CHECK(strstr(json, "\"without\": null") != NULL);               /* clone3's */
	free(json);
}

int main(void)
{
	test_verdict();
	test_json();
	return unit_report("test_oci_hostreport");
}
