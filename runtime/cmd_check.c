/* tinyrun check: what the host's kernel gives tinyrun and what it does
 * without each missing facility (runtime/linux/hostcaps.c); exit 1 when a
 * facility it cannot run without is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

#include "cli.h"
#include "oci/hostreport.h"
#include "runtime/linux/hostcaps.h"

const struct cli_opt cmd_check_opts[] = {
	{ "format", 'f', 'f', "table|json", "a table for a person (default) or JSON" },
	{ 0 },
};

static void print_row(const struct oci_host_row *w)
{
	printf("%-30s %-6s %-9s %-8s %s\n", w->facility, w->since ? w->since : "-", oci_host_need_name(w->need),
	       oci_host_status_name(w->status), w->found);
	if (w->without && w->status == OCI_HOST_MISSING)
		printf("%-30s without it: %s\n", "", w->without);
}

/* "not ok: required but missing: a, b" or "ok: ..." */
static void print_verdict(const struct oci_host_report *r)
{
	const char *sep = "";

	if (!oci_host_report_fails(r)) {
		printf("\nok: everything tinyrun requires is there\n");
		return;
	}
	printf("\nnot ok: required but missing: ");
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].need == OCI_HOST_REQUIRED && r->rows[i].status == OCI_HOST_MISSING) {
			printf("%s%s", sep, r->rows[i].facility);
			sep = "; ";
		}
	printf(" (tinyrun needs Linux %s or later)\n", OCI_HOST_MIN_KERNEL);
}

static void print_table(const struct oci_host_report *r)
{
	printf("kernel %s (tinyrun needs Linux %s or later)\n\n", r->kernel, OCI_HOST_MIN_KERNEL);
	printf("%-30s %-6s %-9s %-8s %s\n", "FACILITY", "SINCE", "NEED", "STATUS", "FOUND");
	for (size_t i = 0; i < r->n; i++)
		print_row(&r->rows[i]);
	print_verdict(r);
}

static int print_json(const struct oci_host_report *r)
{
	char *json;
	size_t len;

	if (oci_host_report_json(r, &json, &len) < 0)
		return cli_failf("check: out of memory");
	fwrite(json, 1, len, stdout);
	putchar('\n');
	free(json);
	return 0;
}

int cmd_check(struct global_opts *g, int argc, char **argv)
{
	struct oci_host_report r;
	int ch, fmt = 't';

	(void)g;
	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_check_opts, false)) != -1) {
		if (ch == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "table")))
			fmt = optarg[0];
		else
			return cli_option_error("check", cmd_check_opts, ch, argv);
	}
	if (optind != argc)
		return cli_usage_error("check", "takes no arguments");
	hostcaps_probe(&r);
	if (fmt == 'j') {
		if (print_json(&r))
			return 1;
	} else {
		print_table(&r);
	}
	fflush(stdout);
	return oci_host_report_fails(&r) ? 1 : 0;
}
