/* rootfs' calls into the sandbox room (rootfs/sandbox/): the root the room
 * builds instead of binding the bundle's (run.tinyrun.rootfs=minimal,
 * minimal.c; minimal_overlay.c). The core of rootfs/ includes only this
 * header of the room; with the annotation absent rootfs_room_builds_root
 * is false and nothing here is called. */
#ifndef TINYRUN_ROOTFS_ROOM_H
#define TINYRUN_ROOTFS_ROOM_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/config.h"
#include "rootfs/internal.h"

/* run.tinyrun.rootfs=minimal: the room builds "/" (no bind of the bundle's
 * root, no /dev of the config, no host path resolved inside the rootfs) */
static inline bool rootfs_room_builds_root(const struct oci_config *cfg)
{
	return cfg->sandbox.minimal_root;
}

enum minimal_kind {
	MIN_IMAGE,                /* the image's top directory, bound read-only (or its symlink) */
	MIN_ETC,                  /* tmpfs with passwd, group, ld.so.cache, alternatives; then ro */
	MIN_TMPFS,                /* a new tmpfs */
	MIN_SHARED,               /* the request's mount of the same path */
	MIN_PROC, MIN_SYS, MIN_DEV,
};
struct minimal_step {
	const char *path;         /* below the root, no leading '/' */
	enum minimal_kind kind;
	unsigned long ms_flags;   /* of the mount (MS_RDONLY applied once filled for etc, dev) */
	const char *data;         /* filesystem options */
};
/* The steps, in order, for a workspace at `cwd` ("/workspace"); `shared`: a
 * task of a request (workspace and /tmp are the request's); q: their size
 * and inodes (0 or NULL: the defaults). Pure. Returns the count (fills at
 * most max). */
size_t rootfs_minimal_plan(const char *cwd, bool shared, const struct oci_output_limits *q,
			   struct minimal_step *s, size_t max);
/* Build the root on c->o->rootfs, set c->root_fd to it. */
int rootfs_minimal_build(struct rootfs_ctx *c);
/* The built root (O_PATH), for rootfs_pivot: by then the host path to it may
 * be out of the process's reach. -1 before rootfs_minimal_build. */
int rootfs_minimal_root_fd(void);
/* minimal_overlay.c: a detached read-only (nosuid, nodev) overlay mount of
 * the image directory image_dir_fd, with inodes of its own: its fd, or
 * -errno. */
int rootfs_image_overlay(int image_dir_fd, int root_fd);   /* root_fd: the minimal root, for
                                                            * an empty layer on old kernels */

#endif
