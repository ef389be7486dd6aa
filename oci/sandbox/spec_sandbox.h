#ifndef TINYRUN_OCI_SPEC_SANDBOX_H
#define TINYRUN_OCI_SPEC_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* The sandbox profile (oci/sandbox/spec_sandbox.c) as a transform of a generated
 * config: keeps its ociVersion, process.args, process.env (plus a default
 * PATH and HOME=/workspace), root.path and annotations; the rest is the
 * profile, with `seccomp_json` (oci_seccomp_profile()) as linux.seccomp.
 * Returns malloc'd text, or NULL with errbuf filled. */
#define OCI_SANDBOX_ID 65534                  /* the process's uid and gid inside */
#define OCI_SANDBOX_WORKSPACE "/workspace"
#define OCI_SANDBOX_MEMORY (512LL << 20)      /* bytes; swap off */
#define OCI_SANDBOX_PIDS 128
#define OCI_SANDBOX_NOFILE 256                /* the profile's rlimits, soft = hard */
#define OCI_SANDBOX_STACK (8LL << 20)
#define OCI_SANDBOX_FSIZE (64LL << 20)
char *oci_spec_sandbox(const char *config_json, const char *seccomp_json, char *errbuf, size_t errlen);
/* What a caller of the profile may choose (bundle tinyaws --sandbox); 0 or
 * NULL keeps the profile's value. Limits are never off. */
struct oci_sandbox_opts {
	const char *workspace;     /* "/name": the cwd and the workspace tmpfs */
	const char *seed;          /* run.tinyrun.workspace.seed: the bundle's dir copied into it */
	int64_t memory;            /* bytes (swap off) */
	int64_t cpu_quota, cpu_period;
	int64_t pids;
	const char *request;       /* run.tinyrun.sandbox.request: a task of this request */
	const char *request_key_file; /* run.tinyrun.sandbox.request-key-file: the key's file
	                            * (the creator's, or the task's copy of it) */
	struct oci_sandbox_output_opts {   /* the output and disk limits, as given (checked by
	                                    * the caller: oci_size_parse); NULL: the input's */
		const char *output_limit;          /* run.tinyrun.output-limit */
		const char *request_output_limit;  /* run.tinyrun.request-output-limit */
		const char *workspace_size;        /* run.tinyrun.workspace-size */
		const char *workspace_inodes;      /* run.tinyrun.workspace-inodes */
	} out;
	/* the time limits, seconds (oci_limits_seconds checked them); NULL: the
	 * defaults OCI_SANDBOX_WALL_TIME / _CPU_TIME, no request deadline */
	const char *wall_time, *cpu_time, *request_deadline;
};
#define OCI_SANDBOX_KEY_FILE "request.key"   /* `spec --sandbox --request-key`'s file */
char *oci_spec_sandbox_with(const char *config_json, const char *seccomp_json,
			    const struct oci_sandbox_opts *o, char *errbuf, size_t errlen);

#endif
