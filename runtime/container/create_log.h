/* What create says about a config before it acts on it (create.c). */
#ifndef TINYRUN_CREATE_LOG_H
#define TINYRUN_CREATE_LOG_H

#include "runtime/container/create.h"

/* --debug: the set-up the child will do, one line per step, in its order. */
void create_log_plan(const struct oci_config *cfg, const struct create_opts *o, const char *rootfs);
/* Warnings for what a config asks that is ignored or deprecated (unknown capabilities,
 * device access letters other than r, w, m, relative mount destinations), as runc. */
void create_log_ignored(const struct oci_config *cfg);

#endif
