/* linux.maskedPaths and linux.readonlyPaths, done while the host's root is
 * still ours: a masked file gets the HOST's /dev/null bound on it (never the
 * image's, which could be a link to a procfs file: CVE-2025-31133 class); the
 * first masked directory gets an empty read-only tmpfs and the others a bind
 * of it (one superblock for all); read-only paths are bound on themselves
 * and made read-only recursively. Binds are open_tree clones moved onto
 * the fd: the same mounts as mount(MS_BIND) makes, no /proc/self/fd walk. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/internal.h"

int rootfs_clone_onto(int from_dir, const char *from, unsigned flags, const struct mount_attr *attr, int dst)
{
	int t = open_tree(from_dir, from, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | flags), r;

	if (t < 0)
		return -errno;
	if ((r = attr ? rootfs_setattr_fd(t, AT_RECURSIVE, attr) : 0) == 0 &&
	    move_mount(t, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = -errno;
	close(t);
	return r;
}

static int mask_one(struct rootfs_ctx *c, const char *p, int *empty_dir)
{
	struct stat st;
	int fd, r = 0;

	fd = rootfs_open_in_root_flags(c->root_fd, p, O_PATH, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return error_sys(c->err, -fd, "maskedPaths: %s", p);
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISDIR(st.st_mode))
		r = rootfs_clone_onto(AT_FDCWD, "/dev/null", 0, NULL, fd);
	else if (*empty_dir >= 0)
		r = rootfs_clone_onto(*empty_dir, "", AT_EMPTY_PATH, NULL, fd);
	else if ((r = rootfs_mount_fs_on(c, "tmpfs", fd, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
					 NULL)) == 0 &&
		 (*empty_dir = rootfs_open_in_root_flags(c->root_fd, p, O_PATH | O_DIRECTORY, false)) < 0)
		r = *empty_dir;
	close(fd);
	return r < 0 ? error_sys(c->err, -r, "maskedPaths: %s", p) : 0;
}

int rootfs_mask_paths(struct rootfs_ctx *c)
{
	const struct oci_linux *l = &c->cfg->linux_;
	int empty_dir = -1, r = 0;

	for (size_t i = 0; r == 0 && i < l->n_masked_paths; i++)
		r = mask_one(c, l->masked_paths[i], &empty_dir);
	if (empty_dir >= 0)
		close(empty_dir);
	return r;
}

/* A recursive clone of the path, read-only while still detached, moved
 * onto it: one resolution, never a writable moment. */
static int readonly_one(struct rootfs_ctx *c, const char *p)
{
	const struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int fd, r;

	fd = rootfs_open_in_root_flags(c->root_fd, p, O_PATH, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return error_sys(c->err, -fd, "readonlyPaths: %s", p);
	r = rootfs_clone_onto(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro, fd);
	close(fd);
	return r < 0 ? error_sys(c->err, -r, "readonlyPaths: %s", p) : 0;
}

int rootfs_readonly_paths(struct rootfs_ctx *c)
{
	const struct oci_linux *l = &c->cfg->linux_;
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->n_readonly_paths; i++)
		r = readonly_one(c, l->readonly_paths[i]);
	return r;
}
