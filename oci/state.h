/* state.json: what tinyrun keeps per container under --root, and the spec's
 * state object (ociVersion, id, status, pid, bundle, annotations) printed by
 * `state` and given to hooks on stdin. */
#ifndef TINYRUN_OCI_STATE_H
#define TINYRUN_OCI_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "error.h"

struct container_state {
	char *oci_version;        /* config's ociVersion */
	char *id;
	pid_t pid;                /* container init on the host, 0 when none */
	uint64_t pid_start_time;  /* field 22 of /proc/<pid>/stat: detects pid reuse */
	char *bundle;             /* absolute */
	char *rootfs;             /* absolute */
	char *created;            /* RFC 3339 with nanoseconds, UTC */
	char *owner;              /* "" for root, as runc */
	char *cgroup_path;        /* the container's cgroup (relative to the hierarchy root), or NULL */
	int systemd_cgroup;       /* the cgroup's manager (runtime's enum cgroup_manager): 0 cgroupfs,
	                           * 1 systemd, 2 the user's systemd ("systemd_user" in state.json) */
	struct oci_kv *annotations;
	size_t n_annotations;
	void *arena;              /* owns the strings when parsed */
};

/* Serialize for the state dir (extra fields included) or, with spec_only,
 * the spec's state object plus runc's extras (rootfs, created, owner) as
 * `state` prints it. *out is malloc'd, NUL-terminated. */
int oci_state_to_json(const struct container_state *st, const char *status,
		      bool pretty, char **out, size_t *len, struct error *err);

/* Parse what oci_state_to_json wrote. */
int oci_state_parse(const char *name, const char *json, size_t len,
		    struct container_state *st, struct error *err);
void oci_state_free(struct container_state *st);

/* Generic small JSON output used by `list --format json`, `ps -f json`,
 * `--log-format json` and `events`: a string escaped for JSON, appended to buf.
 * Returns the new length or -1 when it does not fit. */
/* (The appended text includes the surrounding double quotes; buf stays
 * NUL-terminated; escaping is Go's, as runc prints: <, >, & as \u003c ...,
 * invalid UTF-8 as \ufffd.) */
int oci_json_escape(char *buf, size_t size, size_t len, const char *s);

#endif
