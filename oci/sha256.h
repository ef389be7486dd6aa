/* SHA-256 (FIPS 180-4), self-contained: the hash of a sandbox request's key
 * (runtime/sandbox/sandbox.c) is all it is for. */
#ifndef TINYRUN_OCI_SHA256_H
#define TINYRUN_OCI_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OCI_SHA256_LEN 32

struct oci_sha256 {
	uint32_t h[8];
	uint64_t len;              /* bytes hashed so far */
	uint8_t buf[64];
	size_t n;                  /* bytes waiting in buf */
};

void oci_sha256_init(struct oci_sha256 *s);
void oci_sha256_update(struct oci_sha256 *s, const void *data, size_t len);
void oci_sha256_final(struct oci_sha256 *s, uint8_t out[OCI_SHA256_LEN]);
/* Equal, in a time that depends on len only (secrets' hashes). */
bool oci_equal_const_time(const uint8_t *a, const uint8_t *b, size_t len);

#endif
