/* restore's mount points: before CRIU restores a container into its rootfs,
 * each mount's destination is made there when missing, as runc does
 * (prepareCriuRestoreMounts): CRIU mounts on them but does not make them,
 * and a fresh copy of the image lacks what `run` made. Resolved inside the
 * rootfs (resolve.c): a symlink of the image never leads out of it. Skipped,
 * as runc: cgroup mounts (their mount point comes with /sys or is saved)
 * and destinations below a tmpfs (CRIU restores the tmpfs and its contents).
 * A bind's source is bound there meanwhile (runc too), so that the mount
 * points of the mounts nested in it are made in that source, as at `run`. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/internal.h"

static bool has_type(const struct oci_mount *m, const char *t)
{
	return m->type && strcmp(m->type, t) == 0;
}

/* runc's isOnTmpfs: dest lies below (lexically) a tmpfs mount's destination */
static bool below_tmpfs(const struct oci_config *cfg, const char *dest)
{
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const char *t = cfg->mounts[i].destination;
		size_t n = strlen(t);

		while (n > 0 && t[n - 1] == '/')
			n--;
		if (has_type(&cfg->mounts[i], "tmpfs") && strncmp(dest, t, n) == 0 && dest[n] == '/')
			return true;
	}
	return false;
}

static void source_path(const struct oci_mount *m, const char *bundle, char path[PATH_MAX])
{
	if (m->source[0] == '/' || !bundle)
		snprintf(path, PATH_MAX, "%s", m->source);
	else
		snprintf(path, PATH_MAX, "%s/%s", bundle, m->source);
}

static bool is_bind(const struct oci_mount *m)
{
	return m->source && (m->is_bind || (m->flags & MS_BIND));
}

/* a bind of a file needs a file: the source's type */
static enum dest_kind kind_of(const struct oci_mount *m, const char *bundle)
{
	char path[PATH_MAX];
	struct stat st;

	if (!is_bind(m))
		return DEST_DIR;
	source_path(m, bundle, path);
	return stat(path, &st) == 0 ? rootfs_dest_kind_for(m, st.st_mode) : DEST_DIR;
}

/* The source (below the rootfs when it lies inside it, as mounts.c) bound
 * on dst; its fd, the mount once attached, kept in held for the undo. */
static int bind_source(int root_fd, const char *rootfs, const struct oci_mount *m, const char *bundle, int dst,
		       struct rootfs_restore_binds *held)
{
	unsigned clone = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE;
	char path[PATH_MAX], in[PATH_MAX];
	const char *rel;
	int *fds, tree;

	if (!(fds = realloc(held->fds, (held->n + 1) * sizeof(*fds))))
		return -ENOMEM;
	held->fds = fds;
	source_path(m, bundle, path);
	if ((rel = rootfs_host_path_inside(rootfs, NULL, path, in)))
		tree = rootfs_tree_in_root(root_fd, rel, clone);
	else
		tree = open_tree(AT_FDCWD, path, clone);
	if (tree < 0)
		return -errno;
	if (move_mount(tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		int e = errno;

		close(tree);
		return -e;
	}
	held->fds[held->n++] = tree;
	return 0;
}

void rootfs_restore_binds_undo(struct rootfs_restore_binds *held)
{
	char p[FD_PATH_MAX];

	/* the last first: one nested in another goes with it anyway */
	while (held->n > 0) {
		int fd = held->fds[--held->n];

		umount2(rootfs_fd_path(p, fd), MNT_DETACH);
		close(fd);
	}
	free(held->fds);
	held->fds = NULL;
}

static int make_one(int root_fd, const char *rootfs, const struct oci_mount *m, const char *bundle,
		    struct rootfs_restore_binds *held, struct error *err)
{
	int fd = rootfs_open_or_create(root_fd, m->destination, kind_of(m, bundle), rootfs_dest_is_guarded(m)), r = 0;

	if (fd < 0)
		return error_set(err, -fd, "restore: mount point %s in %s: %s", m->destination, rootfs, strerror(-fd));
	if (is_bind(m) && (r = bind_source(root_fd, rootfs, m, bundle, fd, held)) < 0)
		r = error_set(err, -r, "restore: bind %s on %s: %s", m->source, m->destination, strerror(-r));
	close(fd);
	return r;
}

int rootfs_restore_mountpoints(const struct oci_config *cfg, const char *rootfs, const char *bundle,
			       struct rootfs_restore_binds *held, struct error *err)
{
	int root_fd, r = 0;

	*held = (struct rootfs_restore_binds){ 0 };
	if ((root_fd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "restore: rootfs %s", rootfs);
	for (size_t i = 0; r == 0 && i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		if (has_type(m, "cgroup") || has_type(m, "cgroup2") || below_tmpfs(cfg, m->destination))
			continue;
		r = make_one(root_fd, rootfs, m, bundle, held, err);
	}
	close(root_fd);
	if (r < 0)
		rootfs_restore_binds_undo(held);
	return r;
}
