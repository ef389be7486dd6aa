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
 * {"type":"exit"} event, one versioned document (OCI_EXIT_VERSION):
 *   {"version":1, "id":..., "reason":"exit"|"signal"|"timeout"|"cpu-time"|
 *    "output-limit"|"file-size"|"policy-violation"|
 *    "oom-kill"|"ancestor-oom"|"pids-limit"|"not-started"|
 *    "infrastructure-failure"|"unknown", "exitCode":N|null,
 *    "signal":"SIGKILL"|null, "status":N|null (run's exit status: the code,
 *    or 128+N), "oomKills":N, "pidsLimitHits":N, "error":"..." (not-started,
 *    infrastructure-failure only), "usage":{...: struct oci_usage}} */
#define OCI_EXIT_VERSION 1

/* The "usage" object: a figure nobody measured is null (has_x false). */
struct oci_usage {
	bool has_wall;
	uint64_t wall_ms;          /* the task's start (run: SYNC_START) to its reaping */
	bool has_cpu;
	const char *cpu_source;    /* "cgroup" or "rusage" (no cgroup: the reaped processes') */
	uint64_t cpu_user_us, cpu_system_us;
	bool has_memory_peak;
	uint64_t memory_peak_bytes;   /* v2 memory.peak, v1 memory.max_usage_in_bytes */
	bool has_pids_peak;
	uint64_t pids_peak;        /* pids.peak, where the kernel has it (else null) */
	bool has_throttled;
	uint64_t cpu_throttled_usec;  /* cpu.stat throttled_usec / v1 throttled_time */
	bool has_csw;
	uint64_t voluntary_csw, involuntary_csw;   /* rusage of the reaped processes */
	int cleanup;               /* -1: not tried (null: --keep, events), 0 failed, 1 done */
};

struct oci_exit {
	const char *reason;
	bool has_status;           /* the wait status is known */
	int exit_code;             /* -1: killed by a signal */
	int signal;                /* 0: exited */
	int status;                /* the code, or 128 + signal */
	uint64_t oom_kills;
	uint64_t pids_limit_hits;
	/* sbiso (issue 31 §5): the host knob that kept a sandbox from starting
	 * ("user namespaces are disabled: /proc/sys/user/max_user_namespaces
	 * is 0", runtime/sandbox/sandbox_host.h), or NULL: "hostBlocked" */
	const char *host_blocked;
	/* sbland (issue 31 §4): "landlockAbi": N when the config asked for
	 * Landlock (0: the kernel had none), absent otherwise */
	bool landlock_asked;
	int landlock_abi;
	/* sboutput: the task's output through `run` (runtime/sandbox/output.h),
	 * only with run.tinyrun.output-limit or .request-output-limit:
	 * "stdoutBytes", "stderrBytes" (what the task wrote), "stdoutTruncated",
	 * "stderrTruncated" (not all of it was passed on); reasons
	 * "output-limit" and "file-size" (SIGXFSZ) */
	bool has_output;
	uint64_t stdout_bytes, stderr_bytes;
	bool stdout_truncated, stderr_truncated;
	/* sbresult: the document's error text and usage */
	const char *error;         /* not-started / infrastructure-failure: why; or NULL */
	struct oci_usage usage;
};
int oci_exit_json(const char *id, const struct oci_exit *e, bool as_event, char **out, size_t *len);

#endif
