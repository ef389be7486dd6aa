#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "oci/features.h"

int cmd_features(struct global_opts *g, int argc, char **argv)
{
	char *json;
	size_t len;

	(void)g;
	(void)argv;
	if (argc != 1)
		return cli_usage_error("features", "takes no arguments");
	if (oci_features_json(&json, &len) < 0)
		return cli_failf("features: out of memory");
	fwrite(json, 1, len, stdout);
	if (len && json[len - 1] != '\n')
		putchar('\n');
	free(json);
	return 0;
}
