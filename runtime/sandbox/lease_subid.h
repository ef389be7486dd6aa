/* The host's subordinate id ranges (/etc/subuid, /etc/subgid), which a uid
 * lease skips: they belong to a user's rootless containers (Debian gives the
 * first user added 100000-165535, the lease's default range). */
#ifndef TINYRUN_LEASE_SUBID_H
#define TINYRUN_LEASE_SUBID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/error.h"

#define SUBID_FILE_MAX (1 << 20)   /* a larger file is refused */

struct subid_range {
	uint64_t first, last;          /* inclusive */
};

struct subid_ranges {
	struct subid_range *r;
	size_t n, cap;
};

/* Append the ranges of one file ("name:start:count" lines; blank, comment
 * and malformed lines skipped) to *out. Opened O_NOFOLLOW, a regular file of
 * at most SUBID_FILE_MAX bytes; a missing file adds nothing. Pure but the
 * read: subid_parse does the text. */
int subid_read(const char *path, struct subid_ranges *out, struct error *err);
int subid_parse(const char *text, struct subid_ranges *out);
void subid_free(struct subid_ranges *s);

/* Is id in one of the ranges? Then *skip_to is the first id after it. */
bool subid_contains(const struct subid_ranges *s, uint64_t id, uint64_t *skip_to);

#endif
