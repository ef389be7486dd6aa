/* linux.maskedPaths and linux.readonlyPaths, done while the host's root is
 * still ours: a masked file gets the HOST's /dev/null bound on it (never the
 * image's, which could be a link to a procfs file: CVE-2025-31133 class); the
 * first masked directory gets an empty read-only tmpfs and the others a bind
 * of it (one superblock for all); read-only paths are bound on themselves
 * and made read-only recursively. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/internal.h"

static int mask_one(struct rootfs_ctx *c, const char *p, int *empty_dir)
{
	char src[FD_PATH_MAX], dst[FD_PATH_MAX];
	struct stat st;
	int fd, r = 0;

	fd = rootfs_open_in_root_flags(c->root_fd, p, O_PATH, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return error_sys(c->err, -fd, "maskedPaths: %s", p);
	if (fstat(fd, &st) < 0) {
		r = error_sys(c->err, errno, "maskedPaths: %s", p);
	} else if (!S_ISDIR(st.st_mode)) {
		if (mount("/dev/null", rootfs_fd_path(dst, fd), NULL, MS_BIND, NULL) < 0)
			r = error_sys(c->err, errno, "maskedPaths: %s", p);
	} else if (*empty_dir >= 0) {
		if (mount(rootfs_fd_path(src, *empty_dir), rootfs_fd_path(dst, fd), NULL, MS_BIND, NULL) < 0)
			r = error_sys(c->err, errno, "maskedPaths: %s", p);
	} else if (mount("tmpfs", rootfs_fd_path(dst, fd), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			 NULL) < 0) {
		r = error_sys(c->err, errno, "maskedPaths: %s", p);
	} else if ((*empty_dir = rootfs_open_in_root_flags(c->root_fd, p, O_PATH | O_DIRECTORY, false)) < 0) {
		r = error_sys(c->err, -*empty_dir, "maskedPaths: %s", p);
	}
	close(fd);
	return r;
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

static int readonly_one(struct rootfs_ctx *c, const char *p)
{
	const struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	char path[FD_PATH_MAX];
	int fd, top, r = 0;

	fd = rootfs_open_in_root_flags(c->root_fd, p, O_PATH, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return error_sys(c->err, -fd, "readonlyPaths: %s", p);
	rootfs_fd_path(path, fd);
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		r = -errno;
	close(fd);
	/* the fd names what is under the new bind: reopen to reach the bind */
	if (r == 0 && (top = rootfs_open_in_root_flags(c->root_fd, p, O_PATH, false)) < 0)
		r = top;
	else if (r == 0) {
		r = rootfs_setattr_fd(top, AT_RECURSIVE, &ro);
		close(top);
	}
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
