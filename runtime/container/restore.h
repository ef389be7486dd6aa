/* restore: a container made from a checkpoint image by CRIU (restore.c). */
#ifndef TINYRUN_RESTORE_H
#define TINYRUN_RESTORE_H

#include <sys/types.h>

#include "runtime/container/bundle.h"
#include "runtime/container/cr.h"

/* Restore the images of o->image_path as container `id` of bundle b: on
 * success it runs (*pid, our child), its state is saved and c stays open;
 * on failure nothing is left (no state dir, cgroup, mount or process). */
int container_restore(const struct global_opts *g, const struct cr_opts *o, const char *id, struct bundle *b,
		      struct container *c, pid_t *pid, struct error *err);

#endif
