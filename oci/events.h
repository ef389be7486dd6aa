/* `events` output: one JSON object per line, as runc prints them:
 *   {"type":"stats","id":"...","data":{...}}   {"type":"oom","id":"..."} */
#ifndef TINYRUN_OCI_EVENTS_H
#define TINYRUN_OCI_EVENTS_H

#include <stddef.h>

#include "stats.h"

/* *out malloc'd, no trailing newline. */
int oci_event_stats_json(const char *id, const struct cgroup_stats *st, char **out, size_t *len);
int oci_event_json(const char *type, const char *id, char **out, size_t *len);

#endif
