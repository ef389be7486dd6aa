/* The parser's calls into the sandbox room (oci/sandbox/): the only header
 * of the room the core of oci/ includes for it. Each reads or answers
 * nothing when the config has none of the room's keys. */
#ifndef TINYRUN_OCI_ROOM_H
#define TINYRUN_OCI_ROOM_H

#include <stdbool.h>

#include "oci/config.h"
#include "oci/parse.h"

/* config_tinyaws.c: a mounts[] entry onto "/" and run.tinyrun.scratch */
int parse_root_mount(struct pctx *c, struct oci_config *cfg);
/* annotations_sandbox.c: the run.tinyrun.* annotations, before parse_validate */
int oci_room_parse(struct pctx *c, struct oci_config *cfg);
/* run.tinyrun.landlock into cfg->sandbox.landlock (annotations_landlock.c). */
int oci_landlock_parse(struct pctx *c, struct oci_config *cfg);
/* annotations_output.c: the output and disk limits (struct oci_output_limits) */
int oci_output_parse(struct pctx *c, struct oci_config *cfg);

/* run.tinyrun.userns=auto: the runtime leases the id, so a new user
 * namespace needs no mappings in the config (runtime/sandbox/lease.h) */
static inline bool oci_room_userns_leased(const struct oci_config *cfg)
{
	return cfg->sandbox.userns_auto;
}

#endif
