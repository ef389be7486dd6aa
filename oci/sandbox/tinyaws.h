/* tinyaws jobs as OCI bundles (`tinyrun bundle tinyaws`, SPEC-NOTES
 * "tinyaws jobs"): the config.json of a converted job and the checks of the
 * root overlay it uses (oci/sandbox/config_tinyaws.c). */
#ifndef TINYRUN_OCI_TINYAWS_H
#define TINYRUN_OCI_TINYAWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/error.h"

/* create makes <bundle>/<value>/<id>/{upper,work} for the "/" overlay */
#define OCI_ANNOTATION_SCRATCH "run.tinyrun.scratch"

/* "/", "//", "/.", "/a/.." ...: a destination naming the root itself */
bool oci_dest_is_root(const char *dest);
/* May this character appear in a path given in overlay options? */
bool oci_overlay_path_char_ok(char ch);
/* The value of run.tinyrun.scratch: 0, or -1 with *why set. */
int oci_scratch_dir_check(const char *s, const char **why);

/* The choices of one conversion; the generator turns them into config.json.
 * A later transform (the sandbox profile) can take the same struct. */
struct oci_tinyaws_job {
	const char *bundle;        /* absolute path of the bundle (lowerdir=<bundle>/layer) */
	const char *image;         /* absolute path of the image directory */
	const char *command;       /* run as sh -c COMMAND in /app */
	const char *const *env;    /* K=V from --env */
	size_t n_env;
	bool overlay;              /* false: --no-overlay (root = the image, read-only) */
	bool limits;               /* false: --no-limits */
	bool namespaces;           /* false: --no-namespaces (only the mount namespace) */
	uint64_t memory_bytes;
	int64_t cpu_quota;         /* µs per cpu_period */
	uint64_t cpu_period;
	int64_t pids;
	const char *seccomp_json;  /* a linux.seccomp object, NULL: --no-seccomp */
	/* --no-overlay: the root is the bundle's rootfs/ skeleton (rootfs_tinyaws_skeleton)
	 * with these top-level entries of the image bound read-only; false: the image */
	bool image_bound;
	char *const *image_entries;
	size_t n_image_entries;
};

#define OCI_TINYAWS_LAYER   "layer"     /* <bundle>/layer/app: the copy of the app dir */
#define OCI_TINYAWS_SCRATCH "scratch"   /* <bundle>/scratch/<id>: upper and work */

/* config.json for the job (malloc'd), or NULL with err set (a profile that
 * is not JSON: "seccomp profile: ..."). */
char *oci_spec_tinyaws(const struct oci_tinyaws_job *j, struct error *err);

#endif
