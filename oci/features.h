#ifndef TINYRUN_OCI_FEATURES_H
#define TINYRUN_OCI_FEATURES_H

#include <stddef.h>

/* The runtime-spec features.json for this build (features.md), pretty
 * printed, from the same tables the code uses. *out is malloc'd. */
int oci_features_json(char **out, size_t *len);

#endif
