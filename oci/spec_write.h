/* Pieces every generated config.json shares (oci/spec.c, spec_tinyaws.c,
 * spec_sandbox.c): the JSON writer's small helpers and runc's default
 * masked and read-only paths. */
#ifndef TINYRUN_OCI_SPEC_WRITE_H
#define TINYRUN_OCI_SPEC_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

extern const char *const oci_spec_masked_paths[];    /* NULL-terminated */
extern const char *const oci_spec_readonly_paths[];  /* NULL-terminated */

void oci_spec_key_str(struct json_writer *w, const char *k, const char *v);
/* k: [v...] from a NULL-terminated list */
void oci_spec_key_strv(struct json_writer *w, const char *k, const char *const *v);
void oci_spec_key_int(struct json_writer *w, const char *k, int64_t v);
/* opens "process": {"terminal": terminal, "user": {"uid": uid, "gid": gid}, and
 * leaves the process object open for the caller's other keys */
void oci_spec_process_head(struct json_writer *w, bool terminal, int64_t uid, int64_t gid);
/* "devices": [{"allow": false, "access": "rwm"}] inside linux.resources */
void oci_spec_deny_devices(struct json_writer *w);
/* "capabilities": {bounding, effective, permitted} = caps (runc spec's three sets) */
void oci_spec_caps(struct json_writer *w, const char *const *caps);
/* "maskedPaths" and "readonlyPaths" inside linux, runc's defaults */
void oci_spec_default_paths(struct json_writer *w);

#endif
