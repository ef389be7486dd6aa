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
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"

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

/* The layers by fd (6.13); older kernels: by their /proc/self/fd paths. */
static int set_layers(int fs, int image_fd, int empty_fd)
{
	char a[FD_PATH_MAX], b[FD_PATH_MAX], both[2 * FD_PATH_MAX + 2];
	int r = fs_config(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, image_fd);

	if (r == 0)
		return fs_config(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, empty_fd);
	if (r != -EINVAL)
		return r;
	snprintf(both, sizeof(both), "%s:%s", rootfs_fd_path(a, image_fd), rootfs_fd_path(b, empty_fd));
	return fs_config(fs, FSCONFIG_SET_STRING, "lowerdir", both, 0);
}

int rootfs_image_overlay(int image_dir_fd)
{
	int empty = empty_layer(), fs = -1, r;

	if (empty < 0)
		return empty;
	if ((fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC)) < 0) {
		r = -errno;
		goto out;
	}
	if ((r = set_layers(fs, image_dir_fd, empty)) < 0 ||
	    (r = fs_config(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) < 0)
		goto out;
	r = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (r < 0)
		r = -errno;
out:
	if (fs >= 0)
		close(fs);
	close(empty);
	return r;
}
