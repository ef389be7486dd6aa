/* `events` output: one JSON object per line, as runc prints them:
 *   {"type":"stats","id":"...","data":{...}}   {"type":"oom","id":"..."} */
#ifndef TINYRUN_OCI_EVENTS_H
#define TINYRUN_OCI_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* *out malloc'd, no trailing newline. */
int oci_event_stats_json(const char *id, const struct cgroup_stats *st, char **out, size_t *len);
int oci_event_json(const char *type, const char *id, char **out, size_t *len);

/* Why a container's process ended (runtime/container/result.h decides):
 * `run --result FILE` writes it as one object, `events` as the data of an
 * {"type":"exit"} event:
 *   {"id":..., "reason":"exit"|"signal"|"timeout"|"cpu-time"|"policy-violation"|"oom-kill"|
 *    "pids-limit"|"unknown", "exitCode":N|null, "signal":"SIGKILL"|null,
 *    "status":N (run's exit status: the code, or 128+N), "oomKills":N,
 *    "pidsLimitHits":N} */
struct oci_exit {
	const char *reason;
	bool has_status;           /* the wait status is known */
	int exit_code;             /* -1: killed by a signal */
	int signal;                /* 0: exited */
	int status;                /* the code, or 128 + signal */
	uint64_t oom_kills;
	uint64_t pids_limit_hits;
};
int oci_exit_json(const char *id, const struct oci_exit *e, bool as_event, char **out, size_t *len);

#endif
