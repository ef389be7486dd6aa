/* The key of a sandbox request (run.tinyrun.sandbox.request-key-file,
 * SPEC-NOTES "Sandbox"): a file of the bundle, never copied anywhere. The
 * request's creator records only a salted SHA-256 of it in its state dir
 * (`request-key`, 0600: "sha256 SALT HASH\n" in hex); each task of the
 * request presents the same file in its own bundle, hashed with that salt
 * and compared in constant time. A container without the record takes no
 * tasks. */
#ifndef TINYRUN_REQUEST_KEY_H
#define TINYRUN_REQUEST_KEY_H

#include <stdint.h>

#include "oci/error.h"
#include "oci/sha256.h"
#include "runtime/container/statedir.h"

#define REQUEST_KEY_RECORD "request-key"
#define REQUEST_KEY_SALT 16

struct request_key {
	uint8_t salt[REQUEST_KEY_SALT];
	uint8_t hash[OCI_SHA256_LEN];
};

/* The bundle's `file` (beneath the bundle, no symlink, a regular file of
 * OCI_SANDBOX_KEY_MIN..OCI_SANDBOX_KEY_MAX bytes) hashed with a new salt. */
int container_request_key_new(const char *bundle, const char *file, struct request_key *k, struct error *err);
/* Write k as the record of c's state dir (c->dirfd open). */
int container_request_key_record(struct container *c, const struct request_key *k, struct error *err);
/* Is the bundle's `file` the key recorded in the state dir of `request`
 * (loaded)? 0; -EACCES when it is not, -ENOENT when the request has no key
 * (takes no tasks); err says which. */
int container_request_key_check(const char *bundle, const char *file, const struct container *request,
				struct error *err);

#endif
