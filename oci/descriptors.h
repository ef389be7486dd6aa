/* descriptors.json of a checkpoint image, as runc writes it: a JSON array of
 * the targets of the init's fds 0, 1, 2 at dump time ("pipe:[1234]",
 * "/dev/null" ...). restore hands its own stdio to CRIU for the pipes. */
#ifndef TINYRUN_OCI_DESCRIPTORS_H
#define TINYRUN_OCI_DESCRIPTORS_H

#include <stddef.h>

#include "error.h"

#define OCI_DESCRIPTORS 3

/* *out malloc'd. 0 or -ENOMEM. */
int oci_descriptors_to_json(const char *const fds[OCI_DESCRIPTORS], char **out, size_t *len);
/* Each of the first OCI_DESCRIPTORS strings into out[i] (truncated to size);
 * "" for one missing. */
int oci_descriptors_parse(const char *json, char out[OCI_DESCRIPTORS][256], struct error *err);

#endif
