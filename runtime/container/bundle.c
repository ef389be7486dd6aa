#include "runtime/container/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bundle_read(const char *dir, const char *config, struct bundle *b, struct error *err)
{
	char name[sizeof(b->path) + 64];

	memset(b, 0, sizeof(*b));
	if (!realpath(dir, b->path))
		return error_sys(err, errno, "bundle %s", dir);
	if (!config)
		config = "config.json";
	if ((size_t)snprintf(b->config_path, sizeof(b->config_path), "%s%s%s", config[0] == '/' ? "" : b->path,
			     config[0] == '/' ? "" : "/", config) >= sizeof(b->config_path))
		return error_set(err, ENAMETOOLONG, "--config %s: path too long", config);
	/* "bundle DIR: config.json: not a regular file (a FIFO)" */
	snprintf(name, sizeof(name), "bundle %s: %s", b->path, config);
	return oci_read_file(b->config_path, name, &b->json, &b->len, err);
}

int bundle_parse(struct bundle *b, struct error *err)
{
	int r = oci_config_parse_text("config.json", b->json, b->len, OCI_PARSE_ALL, &b->cfg, err);

	if (r < 0) {
		free(b->json);
		b->json = NULL;
	}
	return r;
}

int bundle_load(const char *dir, const char *config, struct bundle *b, struct error *err)
{
	int r = bundle_read(dir, config, b, err);

	return r < 0 ? r : bundle_parse(b, err);
}

void bundle_free(struct bundle *b)
{
	if (b->json) {
		oci_config_free(&b->cfg);
		free(b->json);
		b->json = NULL;
	}
}
