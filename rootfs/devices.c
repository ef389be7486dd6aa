/* /dev: the default nodes, linux.devices, the standard links, the console.
 * Nodes are made with mknodat (or, in a user namespace, an empty file with
 * the host's node bound on it) relative to a /dev fd resolved inside the
 * rootfs; nothing here follows a link the image put in /dev. */
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rootfs/internal.h"

struct dev_node {
	const char *path;         /* absolute, in the container */
	mode_t mode;              /* S_IFCHR | 0666 ... */
	dev_t rdev;
	uid_t uid;
	gid_t gid;
	bool strict;              /* linux.devices: a different file already there is an error */
	int fd;                   /* the runtime's node (user namespace), or -1 */
};

static const struct { const char *name; unsigned major, minor; } default_devs[] = {
	{ "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 },
	{ "random", 1, 8 }, { "urandom", 1, 9 }, { "tty", 5, 0 },
};

static const struct { const char *name, *target; } dev_links[] = {
	{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
};

/* Make `name` in dir an empty regular file to bind onto, replacing a link
 * or anything else that is not a file or directory. Returns an O_PATH fd. */
static int make_mountpoint_file(int dir, const char *name)
{
	struct stat st;
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			break;
		}
		if (errno != EEXIST)
			return -errno;
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))
			break;
		if (unlinkat(dir, name, 0) < 0)
			return -errno;
	}
	fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int bind_host_node(int dir, const char *name, const char *host)
{
	int fd = make_mountpoint_file(dir, name), r;

	if (fd < 0)
		return fd;
	r = rootfs_clone_onto(AT_FDCWD, host, 0, NULL, fd);
	close(fd);
	return r;
}

/* The runtime's node (devnodes.c) moved onto an empty file at name. */
static int move_node(int dir, const char *name, int node)
{
	int fd = make_mountpoint_file(dir, name), r = 0;

	if (fd < 0)
		return fd;
	if (move_mount(node, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int mknod_node(int dir, const char *name, const struct dev_node *d)
{
	struct stat st;

	if (mknodat(dir, name, d->mode, d->rdev) < 0) {
		if (errno != EEXIST)
			return -errno;
		/* keep an identical node; replace anything else the image had there */
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if ((st.st_mode & S_IFMT) != (d->mode & S_IFMT) || st.st_rdev != d->rdev) {
			/* config-linux.md: a file at the path that does not match MUST be an error */
			if (d->strict)
				return -EEXIST;
			if (unlinkat(dir, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0 ||
			    mknodat(dir, name, d->mode, d->rdev) < 0)
				return -errno;
		} else if ((st.st_mode & 07777) != (d->mode & 07777) &&
			   fchmodat(dir, name, d->mode & 07777, 0) < 0) {
			return -errno;
		}
	}
	if ((d->uid || d->gid) && fchownat(dir, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* Split "/dev/x/y" into a dir fd (created inside the rootfs) and "y". */
static int open_parent(struct rootfs_ctx *c, const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || !slash[1])
		return -EINVAL;
	n = (size_t)(slash - path);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n ? n : 1] = '\0';
	if (!n)
		dir[0] = '/';
	*base = slash + 1;
	return rootfs_open_or_create(c->root_fd, dir, DEST_DIR, false);
}

static int make_node(struct rootfs_ctx *c, int devfd, const struct dev_node *d)
{
	const char *name;
	int dir = devfd, r;

	if (strncmp(d->path, "/dev/", 5) == 0 && !strchr(d->path + 5, '/'))
		name = d->path + 5;
	else if ((dir = open_parent(c, d->path, &name)) < 0)
		return error_sys(c->err, -dir, "device %s", d->path);
	if (d->fd >= 0)
		r = move_node(dir, name, d->fd);
	else if (c->o->userns && !S_ISFIFO(d->mode))
		r = bind_host_node(dir, name, d->path);
	else if ((r = mknod_node(dir, name, d)) == -EPERM && !S_ISFIFO(d->mode) &&
		 c->o->runtime_userns && c->o->runtime_userns())
		/* only the initial user namespace may mknod a device: root of
		 * a user's own one (rootless podman) binds the host's, as runc */
		r = bind_host_node(dir, name, d->path);
	if (dir != devfd)
		close(dir);
	if (r == -EEXIST)
		return error_set(c->err, EEXIST, "linux.devices: %s exists and is not the requested device", d->path);
	return r < 0 ? error_sys(c->err, -r, "device %s", d->path) : 0;
}

static bool in_config(const struct oci_linux *l, const char *path)
{
	for (size_t i = 0; i < l->n_devices; i++)
		if (rootfs_path_equal(l->devices[i].path, path))
			return true;
	return false;
}

static mode_t dev_type(char t)
{
	switch (t) {
	case 'b': return S_IFBLK;
	case 'p': return S_IFIFO;
	default: return S_IFCHR;  /* 'c', 'u' */
	}
}

static int dev_links_make(struct rootfs_ctx *c, int devfd)
{
	for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].target, devfd, dev_links[i].name) < 0 && errno != EEXIST)
			return error_sys(c->err, errno, "symlink /dev/%s", dev_links[i].name);
	if (access("/proc/kcore", F_OK) == 0 &&
	    symlinkat("/proc/kcore", devfd, "core") < 0 && errno != EEXIST)
		return error_sys(c->err, errno, "symlink /dev/core");
	/* /dev/ptmx always points at the container's devpts */
	if (!in_config(&c->cfg->linux_, "/dev/ptmx") && symlinkat("pts/ptmx", devfd, "ptmx") < 0) {
		/* what the image (or a mounts[] entry) had there is replaced */
		if (errno != EEXIST)
			return error_sys(c->err, errno, "symlink /dev/ptmx");
		if (unlinkat(devfd, "ptmx", 0) < 0 && errno != ENOENT)
			return error_sys(c->err, errno, "remove /dev/ptmx");
		if (symlinkat("pts/ptmx", devfd, "ptmx") < 0)
			return error_sys(c->err, errno, "symlink /dev/ptmx");
	}
	/* no /dev/shm unless a mount puts one there, as runc: podman --ipc=none
	 * means no shared memory at all */
	return 0;
}

int rootfs_setup_dev(struct rootfs_ctx *c)
{
	const struct oci_linux *l = &c->cfg->linux_;
	char path[16];
	int devfd, r = 0;

	for (size_t i = 0; i < c->cfg->n_mounts; i++)
		if (rootfs_is_bind_of_dev(&c->cfg->mounts[i]))
			return 0;     /* the host's /dev (or the user's): leave it as it is */
	if ((devfd = rootfs_fresh_dev(c)) < 0)
		devfd = rootfs_open_or_create(c->root_fd, "/dev", DEST_DIR, false);
	if (devfd < 0)
		return error_sys(c->err, -devfd, "/dev");
	for (size_t i = 0; r == 0 && i < sizeof(default_devs) / sizeof(default_devs[0]); i++) {
		struct dev_node d = {
			.path = path, .mode = S_IFCHR | 0666,
			.rdev = makedev(default_devs[i].major, default_devs[i].minor), .fd = -1,
		};

		memcpy(path, "/dev/", 5);
		strcpy(path + 5, default_devs[i].name);
		if (!in_config(l, path))
			r = make_node(c, devfd, &d);
	}
	for (size_t i = 0; r == 0 && i < l->n_devices; i++) {
		const struct oci_device *o = &l->devices[i];
		struct dev_node d = {
			.path = o->path,
			.mode = dev_type(o->type) | (o->has_file_mode ? (o->file_mode & 07777) : 0666),
			.rdev = o->type == 'p' ? 0 : makedev((unsigned)o->major, (unsigned)o->minor),
			.uid = o->has_uid ? o->uid : 0,
			.gid = o->has_gid ? o->gid : 0,
			.strict = true,
			.fd = c->o->dev_fds ? c->o->dev_fds[i] : -1,
		};

		r = make_node(c, devfd, &d);
		if (d.fd >= 0)
			close(d.fd);
	}
	if (r == 0)
		r = dev_links_make(c, devfd);
	/* the console's mount point, while /dev is still writable (a read-only
	 * /dev becomes read-only at the end of rootfs_prepare; the terminal is
	 * bound on it later, rootfs_bind_console) */
	if (r == 0 && c->cfg->has_process && c->cfg->process.terminal) {
		int fd = make_mountpoint_file(devfd, "console");

		if (fd < 0)
			r = error_sys(c->err, -fd, "console: /dev/console");
		else
			close(fd);
	}
	close(devfd);
	return r;
}

int rootfs_bind_console(const struct rootfs_opts *o, int pty_slave_fd, struct error *err)
{
	int root, devfd, fd, r = 0;

	if ((root = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "console: %s", o->rootfs);
	devfd = rootfs_open_or_create(root, "/dev", DEST_DIR, false);
	close(root);
	if (devfd < 0)
		return error_sys(err, -devfd, "console: /dev");
	fd = make_mountpoint_file(devfd, "console");
	close(devfd);
	if (fd < 0)
		return error_sys(err, -fd, "console: /dev/console");
	if ((r = rootfs_clone_onto(pty_slave_fd, "", AT_EMPTY_PATH, NULL, fd)) < 0)
		r = error_sys(err, -r, "console: bind the terminal on /dev/console");
	close(fd);
	return r;
}
