/* The minimal root's image directories, each through a read-only overlay of
 * its own (SPEC-NOTES "Between requests"): a bind would give every request
 * the image's very inodes, and a flock() or fcntl(F_SETLK, F_RDLCK) on a
 * read-only fd of /usr/bin/env is a lock every other request sees: a
 * covert channel. An overlay mount has its own inodes, so its own lock
 * state. No upper layer: the image itself and an empty detached tmpfs (an
 * overlay without upper needs two lower layers), both given by fd. */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"

static int fs_config(int fs, unsigned cmd, const char *key, const char *value, int aux)
{
	return syscall(SYS_fsconfig, fs, cmd, key, value, aux) < 0 ? -errno : 0;
}

/* A mounted, detached, read-only empty tmpfs: the second lower layer. */
static int empty_layer(void)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), m, r;

	if (fs < 0)
		return -errno;
	if ((r = fs_config(fs, FSCONFIG_SET_STRING, "size", "4k", 0)) < 0 ||
	    (r = fs_config(fs, FSCONFIG_SET_STRING, "mode", "555", 0)) < 0 ||
	    (r = fs_config(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) < 0) {
		close(fs);
		return r;
	}
	m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	r = m < 0 ? -errno : m;
	close(fs);
	return r;
}

/* The layers as one "lowerdir" string of /proc/self/fd paths: image, empty. */
static int set_layer_paths(int fs, int image_fd, int empty_fd)
{
	char a[FD_PATH_MAX], b[FD_PATH_MAX], both[2 * FD_PATH_MAX + 2];

	snprintf(both, sizeof(both), "%s:%s", rootfs_fd_path(a, image_fd), rootfs_fd_path(b, empty_fd));
	return fs_config(fs, FSCONFIG_SET_STRING, "lowerdir", both, 0);
}

/* An empty directory of the minimal root's own tmpfs (ROOT_FD), removed by
 * rootfs_image_overlay once the overlay exists: before 6.15 the overlay
 * clones each layer's mount, which works only for a mount of the caller's
 * namespace (6.1: "failed to clone lowerpath" for a detached tmpfs). */
#define EMPTY_DIR ".tinyrun-overlay-empty"
static int empty_dir(int root_fd)
{
	if (mkdirat(root_fd, EMPTY_DIR, 0555) < 0 && errno != EEXIST)
		return -errno;
	int fd = openat(root_fd, EMPTY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One try: a new overlay context, the image and an empty layer (WAY 0: both
 * by fd, lowerdir+, 6.13; 1: by path, the empty one a detached tmpfs; 2: by
 * path, the empty one a directory of ROOT_FD), the superblock made: the
 * context's fd, or -errno. */
static int overlay_try(int way, int image_fd, int root_fd)
{
	int fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC), empty = -1, r;

	if (fs < 0)
		return -errno;
	if (way == 0 && (r = fs_config(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, image_fd)) < 0)
		goto out;
	if ((r = empty = way == 2 ? empty_dir(root_fd) : empty_layer()) < 0)
		goto out;
	r = way == 0 ? fs_config(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, empty) : set_layer_paths(fs, image_fd, empty);
	if (r == 0)
		r = fs_config(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
out:
	if (empty >= 0)
		close(empty);
	if (r < 0) {
		close(fs);
		return r;
	}
	return fs;
}

int rootfs_image_overlay(int image_dir_fd, int root_fd)
{
	int fs = -EINVAL, r;

	/* EINVAL: no lowerdir+ (before 6.8) or no layer by fd (before 6.13);
	 * EOPNOTSUPP: an overlay on the legacy mount parser (before 6.5, Debian
	 * 12's 6.1), which takes strings only; EINVAL from the superblock: a
	 * detached layer it could not clone */
	for (int way = 0; way < 3 && (fs == -EINVAL || fs == -EOPNOTSUPP); way++)
		fs = overlay_try(way, image_dir_fd, root_fd);
	unlinkat(root_fd, EMPTY_DIR, AT_REMOVEDIR);   /* the overlay holds it if it was used */
	if (fs < 0)
		return fs;
	r = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (r < 0)
		r = -errno;
	close(fs);
	return r;
}
