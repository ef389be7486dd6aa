/* run.tinyrun.rootfs=minimal: the sandbox profile's root, built by the
 * runtime rather than from config mounts (whose bundle-relative sources a
 * hostile image could point at host paths with a symlink):
 *   /                 a tmpfs (read-only once pivoted, root.readonly)
 *   /usr /bin /lib /lib64  the image's, each through a read-only overlay of its
 *                     own (minimal_overlay.c), nosuid, nodev; each
 *                     resolved as one component of the image (a usrmerge
 *                     symlink such as bin -> usr/bin is recreated as that
 *                     symlink, never followed on the host)
 *   /etc              a read-only tmpfs: passwd and group (root, nobody),
 *                     the image's ld.so.cache and alternatives (symlinks)
 *   <cwd> and /tmp    nodev,nosuid tmpfs, each of run.tinyrun.workspace-size
 *                     bytes (128 MiB) and .workspace-inodes inodes (65536):
 *                     the disk quota (a request's task: the first
 *                     container's, shared: the quota is the request's)
 *   /proc             proc with subset=pid,hidepid=invisible
 *   /sys              an empty read-only tmpfs
 *   /dev              a read-only tmpfs: null zero full random urandom (host
 *                     nodes bound), fd stdin stdout stderr links, shm
 * No cgroup filesystem, no /dev/pts, no /etc/resolv.conf or hosts. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <dirent.h>

#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"

static const char *const image_dirs[] = { "usr", "bin", "lib", "lib64" };
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom" };

/* The workspace's and /tmp's tmpfs options: the disk quota (size, nr_inodes) */
static const char *quota_data(char *buf, size_t len, const char *mode, const struct oci_output_limits *q)
{
	uint64_t size = q && q->workspace_size ? q->workspace_size : OCI_SANDBOX_WORKSPACE_SIZE;
	uint64_t inodes = q && q->workspace_inodes ? q->workspace_inodes : OCI_SANDBOX_WORKSPACE_INODES;

	snprintf(buf, len, "mode=%s,size=%llu,nr_inodes=%llu", mode, (unsigned long long)size,
		 (unsigned long long)inodes);
	return buf;
}

size_t rootfs_minimal_plan(const char *cwd, bool shared, const struct oci_output_limits *q,
			   struct minimal_step *s, size_t max)
{
	static char ws_data[96], tmp_data[96];
	const unsigned long safe = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct minimal_step all[16];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(image_dirs) / sizeof(image_dirs[0]); i++)
		all[n++] = (struct minimal_step){ image_dirs[i], MIN_IMAGE, MS_RDONLY | MS_NOSUID | MS_NODEV, NULL };
	all[n++] = (struct minimal_step){ "etc", MIN_ETC, MS_RDONLY | safe, "mode=755,size=16m" };
	all[n++] = (struct minimal_step){ cwd + 1, shared ? MIN_SHARED : MIN_TMPFS, MS_NOSUID | MS_NODEV,
					  quota_data(ws_data, sizeof(ws_data), "755", q) };
	all[n++] = (struct minimal_step){ "tmp", shared ? MIN_SHARED : MIN_TMPFS, MS_NOSUID | MS_NODEV,
					  quota_data(tmp_data, sizeof(tmp_data), "1777", q) };
	all[n++] = (struct minimal_step){ "proc", MIN_PROC, safe, "subset=pid,hidepid=invisible" };
	all[n++] = (struct minimal_step){ "sys", MIN_SYS, MS_RDONLY | safe, "mode=555,size=4k" };
	all[n++] = (struct minimal_step){ "dev", MIN_DEV, MS_RDONLY | MS_NOSUID | MS_NOEXEC, "mode=755,size=64k" };
	all[n++] = (struct minimal_step){ "dev/shm", MIN_TMPFS, safe, "mode=1777,size=64m" };
	for (size_t i = 0; i < n && i < max; i++)
		s[i] = all[i];
	return n;
}

/* ---- kernel steps ----------------------------------------------------- */

static int fail(struct error *err, int e, const char *what, const char *path)
{
	return error_sys(err, e, "run.tinyrun.rootfs=minimal: %s /%s", what, path);
}

/* A new filesystem, attached at root_fd/path (made here, no symlink on the
 * way). By /proc/self/fd/N, not with the directory as the cwd: the way back
 * to the bundle would need a search permission the process's fsuid (set
 * before the steps) may not have on a 0700 bundle. */
static int mount_new(int root_fd, const char *type, const struct minimal_step *st, struct error *err)
{
	char where[FD_PATH_MAX];
	int fd;

	if (mkdirat(root_fd, st->path, 0755) < 0 && errno != EEXIST)
		return fail(err, errno, "mkdir", st->path);
	if ((fd = rootfs_open_in_root_flags(root_fd, st->path, O_PATH | O_DIRECTORY, true)) < 0)
		return fail(err, -fd, "open", st->path);
	int r = mount(type, rootfs_fd_path(where, fd), type, st->ms_flags & ~(st->kind == MIN_DEV || st->kind == MIN_ETC ? MS_RDONLY : 0), st->data);
	int e = errno;

	close(fd);
	return r < 0 ? fail(err, e, "mount", st->path) : 0;
}

static int attach(int tree, int root_fd, const char *path, bool is_file, struct error *err)
{
	int r;

	if (is_file) {
		int f = openat(root_fd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (f < 0)
			return fail(err, errno, "create", path);
		close(f);
	} else if (mkdirat(root_fd, path, 0755) < 0 && errno != EEXIST) {
		return fail(err, errno, "mkdir", path);
	}
	r = move_mount(tree, "", root_fd, path, MOVE_MOUNT_F_EMPTY_PATH);
	return r < 0 ? fail(err, errno, "attach", path) : 0;
}

/* One of the image's top directories: bound read-only, or its symlink copied. */
static int image_dir(int image_fd, int root_fd, const char *name, struct error *err)
{
	char target[4096];
	struct stat sb;
	ssize_t n;
	int fd, tree, r;

	if (fstatat(image_fd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : fail(err, errno, "image", name);
	if (S_ISLNK(sb.st_mode)) {
		if ((n = readlinkat(image_fd, name, target, sizeof(target) - 1)) < 0)
			return fail(err, errno, "image symlink", name);
		target[n] = '\0';
		return symlinkat(target, root_fd, name) < 0 ? fail(err, errno, "symlink", name) : 0;
	}
	if (!S_ISDIR(sb.st_mode))
		return error_set(err, ENOTDIR, "run.tinyrun.rootfs=minimal: the image's /%s is not a directory", name);
	if ((fd = rootfs_open_in_root_flags(image_fd, name, O_PATH | O_DIRECTORY, true)) < 0)
		return fail(err, -fd, "image", name);
	tree = rootfs_image_overlay(fd, root_fd);   /* its own inodes: no lock shared with another request */
	close(fd);
	if (tree < 0)
		return fail(err, -tree, "a read-only overlay of the image's", name);
	r = attach(tree, root_fd, name, false, err);
	close(tree);
	return r;
}

static int write_file(int dir, const char *name, const void *buf, size_t len)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = len ? write(fd, buf, len) : 0;
	close(fd);
	return w == (ssize_t)len ? 0 : -EIO;
}

/* The image's etc/ld.so.cache, a regular file of at most 16 MiB, if any. */
static int copy_ld_cache(int image_fd, int etc, struct error *err)
{
	int fd = rootfs_open_in_root_flags(image_fd, "/etc/ld.so.cache", O_RDONLY | O_NONBLOCK, true);
	struct stat sb;
	char *buf;
	ssize_t n;
	int r;

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > (16 << 20) || !(buf = malloc(sb.st_size + 1))) {
		close(fd);
		return 0;
	}
	n = read(fd, buf, sb.st_size);
	close(fd);
	r = n >= 0 ? write_file(etc, "ld.so.cache", buf, n) : 0;
	free(buf);
	return r < 0 ? fail(err, -r, "write", "etc/ld.so.cache") : 0;
}

/* etc/alternatives: its symlinks, nothing else */
static int copy_alternatives(int image_fd, int etc, struct error *err)
{
	int fd = rootfs_open_in_root_flags(image_fd, "/etc/alternatives", O_RDONLY | O_DIRECTORY, true);
	char target[4096];
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return 0;
	if (mkdirat(etc, "alternatives", 0755) < 0 || !(d = fdopendir(fd))) {
		close(fd);
		return fail(err, errno, "mkdir", "etc/alternatives");
	}
	while ((e = readdir(d))) {
		int alt = openat(etc, "alternatives", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		ssize_t n = e->d_type == DT_LNK ? readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1) : -1;

		if (alt >= 0 && n >= 0) {
			target[n] = '\0';
			symlinkat(target, alt, e->d_name);
		}
		if (alt >= 0)
			close(alt);
	}
	closedir(d);
	return 0;
}

static int make_etc(int image_fd, int root_fd, const struct minimal_step *st, uid_t uid, gid_t gid,
		    struct error *err)
{
	char passwd[256], group[256];
	int etc, r, n1, n2;
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	if ((r = mount_new(root_fd, "tmpfs", st, err)) < 0)
		return r;
	if ((etc = rootfs_open_in_root_flags(root_fd, "/etc", O_RDONLY | O_DIRECTORY, true)) < 0)
		return fail(err, -etc, "open", "etc");
	n1 = snprintf(passwd, sizeof(passwd), "root:x:0:0:root:/root:/sbin/nologin\n%s:x:%u:%u:%s:/workspace:/sbin/nologin\n",
		      uid == 65534 ? "nobody" : "sandbox", (unsigned)uid, (unsigned)gid, "sandbox");
	n2 = snprintf(group, sizeof(group), "root:x:0:\n%s:x:%u:\n", gid == 65534 ? "nogroup" : "sandbox", (unsigned)gid);
	if ((r = write_file(etc, "passwd", passwd, n1)) < 0 || (r = write_file(etc, "group", group, n2)) < 0)
		r = fail(err, -r, "write", "etc/passwd");
	else if ((r = copy_ld_cache(image_fd, etc, err)) == 0 && (r = copy_alternatives(image_fd, etc, err)) == 0 &&
		 (r = rootfs_setattr_fd(etc, 0, &ro)) < 0)
		r = fail(err, -r, "read-only", "etc");
	close(etc);
	return r;
}

static int make_dev(int root_fd, const struct minimal_step *st, struct error *err)
{
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	};
	char host[32];
	int dev, r = 0;

	if ((r = mount_new(root_fd, "tmpfs", st, err)) < 0)
		return r;
	if ((dev = rootfs_open_in_root_flags(root_fd, "/dev", O_PATH | O_DIRECTORY, true)) < 0)
		return fail(err, -dev, "open", "dev");
	for (size_t i = 0; r == 0 && i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		int tree;

		snprintf(host, sizeof(host), "/dev/%s", dev_nodes[i]);
		if ((tree = open_tree(AT_FDCWD, host, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0) {
			r = fail(err, errno, "bind the host's", host + 1);
			break;
		}
		struct mount_attr a = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC };

		if ((r = rootfs_setattr_fd(tree, AT_EMPTY_PATH, &a)) < 0)
			r = fail(err, -r, "nosuid,noexec", host + 1);
		else
			r = attach(tree, dev, dev_nodes[i], true, err);
		close(tree);
	}
	for (size_t i = 0; r == 0 && i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			r = fail(err, errno, "symlink /dev", links[i][0]);
	if (r == 0 && mkdirat(dev, "shm", 0755) < 0)
		r = fail(err, errno, "mkdir", "dev/shm");
	close(dev);
	return r;
}

/* /dev read-only once dev/shm is on it */
static int seal_dev(int root_fd, struct error *err)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int dev = rootfs_open_in_root_flags(root_fd, "/dev", O_PATH | O_DIRECTORY, true), r;

	if (dev < 0)
		return fail(err, -dev, "open", "dev");
	r = rootfs_setattr_fd(dev, 0, &ro);
	close(dev);
	return r < 0 ? fail(err, -r, "read-only", "dev") : 0;
}

/* The request's /<path>: a tmpfs mount of its root, cloned from its mount ns. */
static int clone_shared(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct statx stx;
	struct statfs fs;
	char abs[4200];
	int fd, tree;

	snprintf(abs, sizeof(abs), "/%s", path);
	if ((fd = syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof(how))) < 0)
		return -errno;
	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) < 0 || !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ||
	    fstatfs(fd, &fs) < 0 || fs.f_type != TMPFS_MAGIC) {
		close(fd);
		return -EXDEV;   /* not the workspace the runtime mounted */
	}
	tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	close(fd);
	return tree < 0 ? -errno : tree;
}

/* Into the request's mount namespace and back, with its workspace and /tmp. */
static int request_trees(int mnt_fd, const struct minimal_step *s, size_t n, int *trees, struct error *err)
{
	struct rootfs_mntns_home home;
	int r = rootfs_mntns_leave(&home, mnt_fd), back;

	if (r < 0)
		return error_sys(err, -r, "run.tinyrun.sandbox.request: enter the request's mount namespace");
	for (size_t i = 0; i < n; i++)
		if (s[i].kind == MIN_SHARED && (trees[i] = clone_shared(s[i].path)) < 0) {
			r = error_sys(err, -trees[i], "run.tinyrun.sandbox.request: the request's /%s", s[i].path);
			break;
		}
	if ((back = rootfs_mntns_return(&home)) < 0)
		r = error_sys(err, -back, "run.tinyrun.sandbox.request: back to our mount namespace");
	return r;
}

static int do_step(int image_fd, int root_fd, const struct oci_config *cfg, const struct minimal_step *st,
		   int tree, struct error *err)
{
	switch (st->kind) {
	case MIN_IMAGE:
		return image_dir(image_fd, root_fd, st->path, err);
	case MIN_ETC:
		return make_etc(image_fd, root_fd, st, cfg->process.uid, cfg->process.gid, err);
	case MIN_TMPFS:
	case MIN_SYS:
		return mount_new(root_fd, "tmpfs", st, err);
	case MIN_PROC:
		return mount_new(root_fd, "proc", st, err);
	case MIN_DEV:
		return make_dev(root_fd, st, err);
	case MIN_SHARED:
		return attach(tree, root_fd, st->path, false, err);
	}
	return -EINVAL;
}

/* run.tinyrun.workspace.seed: the bundle's directory, opened as the runtime
 * before any mount (beneath the bundle, no symlink on the way). */
static int seed_open(const char *seed, struct error *err)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, seed, &how, sizeof(how));

	if (fd < 0)
		return error_sys(err, errno, "run.tinyrun.workspace.seed: open %s in the bundle", seed);
	return fd;
}

/* The seed copied into the new workspace as the process's id (fsuid): its
 * files are the process's to change, and it reads only what that id may. */
static int seed_copy(int seed_fd, int root_fd, const char *cwd, struct error *err)
{
	int ws = rootfs_open_in_root_flags(root_fd, cwd + 1, O_RDONLY | O_DIRECTORY, true), r;

	if (ws < 0)
		return fail(err, -ws, "open", cwd + 1);
	r = rootfs_copy_tree_flags(seed_fd, ws, 0, ROOTFS_COPY_AS_CALLER);
	close(ws);
	return r < 0 ? error_sys(err, -r, "run.tinyrun.workspace.seed: copy into %s", cwd) : 0;
}

static int minimal_root_fd = -1;

int rootfs_minimal_root_fd(void)
{
	return minimal_root_fd;
}

int rootfs_minimal_build(struct rootfs_ctx *c)
{
	uid_t uid = c->cfg->process.uid;
	gid_t gid = c->cfg->process.gid;
	char data[96];
	struct minimal_step s[16];
	int trees[16], image_fd, seed_fd = -1, r = 0;
	size_t n = rootfs_minimal_plan(c->cfg->process.cwd, c->o->request_mnt_fd >= 0, &c->cfg->sandbox.limits, s, 16);

	for (size_t i = 0; i < n; i++)
		trees[i] = -1;
	if (c->o->request_mnt_fd >= 0 && (r = request_trees(c->o->request_mnt_fd, s, n, trees, c->err)) < 0)
		goto out;
	if (c->cfg->sandbox.workspace_seed && (seed_fd = seed_open(c->cfg->sandbox.workspace_seed, c->err)) < 0) {
		r = seed_fd;
		goto out;
	}
	/* the image, before the tmpfs root hides it */
	if ((image_fd = open(c->o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = error_sys(c->err, errno, "open the rootfs %s", c->o->rootfs);
		goto out;
	}
	snprintf(data, sizeof(data), "mode=755,size=1m,uid=%u,gid=%u", (unsigned)uid, (unsigned)gid);
	if (mount("tmpfs", c->o->rootfs, "tmpfs", MS_NOSUID | MS_NODEV, data) < 0 ||
	    (c->root_fd = open(c->o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (minimal_root_fd = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		r = error_sys(c->err, errno, "run.tinyrun.rootfs=minimal: the tmpfs root on %s", c->o->rootfs);
		close(image_fd);
		goto out;
	}
	/* the host paths are open: the root's files are the process's id's
	 * (the runtime's own id is not mapped in the user namespace) */
	setfsgid(gid);
	setfsuid(uid);
	if ((uid_t)setfsuid(-1) != uid || (gid_t)setfsgid(-1) != gid) {
		r = error_set(c->err, EPERM, "run.tinyrun.rootfs=minimal: setfsuid(%u)", (unsigned)uid);
		close(image_fd);
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++)
		r = do_step(image_fd, c->root_fd, c->cfg, &s[i], trees[i], c->err);
	close(image_fd);
	if (r == 0 && seed_fd >= 0)
		r = seed_copy(seed_fd, c->root_fd, c->cfg->process.cwd, c->err);
	if (r == 0)
		r = seal_dev(c->root_fd, c->err);
out:
	if (seed_fd >= 0)
		close(seed_fd);
	for (size_t i = 0; i < n; i++)
		if (trees[i] >= 0)
			close(trees[i]);
	return r;
}
