#ifndef TINYRUN_OCI_FEATURES_H
#define TINYRUN_OCI_FEATURES_H

#include <stddef.h>

/* The runtime-spec features.json for this build (features.md), pretty
 * printed, from the same tables the code uses. *out is malloc'd. */
/* (Four-space indent and a final newline, as `runc features` prints it;
 * returns 0 or -ENOMEM.) */
int oci_features_json(char **out, size_t *len);

#endif
