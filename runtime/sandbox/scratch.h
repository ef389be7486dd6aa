/* The per-container scratch of a bundle with run.tinyrun.scratch (tinyaws
 * jobs, oci/sandbox/tinyaws.h): <bundle>/<scratch>/<id>/{upper,work}, the upper and
 * work dirs of its "/" overlay. Its absolute path is recorded in the state
 * dir (file "scratch") before the directory is made, so `delete`, a failed
 * create and `gc` after a crash find it. */
#ifndef TINYRUN_SCRATCH_H
#define TINYRUN_SCRATCH_H

#include <stddef.h>

#include "oci/config.h"
#include "oci/error.h"

/* Make the scratch of container `id` for cfg (cfg->tinyrun_scratch set) in
 * bundle (absolute, resolved) and record it in statedir_fd; write the "/"
 * overlay's mount data (its options plus upperdir=,workdir=) into data.
 * Every component below the bundle is made or opened O_NOFOLLOW (a symlink
 * is refused); the id's directory must not exist. On failure nothing is
 * left (an existing directory is never removed). */
int scratch_create(int statedir_fd, const struct oci_config *cfg, const char *bundle, const char *id,
		   char *data, size_t size, struct error *err);
/* Remove the scratch recorded in a state dir (no record: nothing to do) and
 * the record. The path is opened with no symlink followed anywhere; the tree
 * is removed through fds, never following a link the container made, at any
 * depth. 0 or -errno. For delete and `tinyrun gc`. */
int scratch_remove(int statedir_fd, struct error *err);

#endif
