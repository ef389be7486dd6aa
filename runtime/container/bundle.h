/* Loading a bundle's config.json for create/run. */
#ifndef TINYRUN_BUNDLE_H
#define TINYRUN_BUNDLE_H

#include <stddef.h>

#include "oci/config.h"
#include "oci/error.h"

struct bundle {
	char path[4096];        /* absolute */
	char config_path[4200];
	char *json;             /* the raw config.json (kept for the state dir copy) */
	size_t len;
	struct oci_config cfg;
};

/* config: the config file (NULL: "config.json"), relative to the bundle
 * unless absolute (crun's --config). */
int bundle_load(const char *dir, const char *config, struct bundle *b, struct error *err);
/* bundle_load in two steps, for a look at the text in between (selfseal_guard_text):
 * bundle_read fills path, config_path, json and len; bundle_parse the config (on
 * failure it frees json, as bundle_load). */
int bundle_read(const char *dir, const char *config, struct bundle *b, struct error *err);
int bundle_parse(struct bundle *b, struct error *err);
void bundle_free(struct bundle *b);

#endif
