/* The cgroup mount. On a cgroup2 host: a new cgroup2 mount (namespaced when
 * the container has a cgroup namespace). On v1/hybrid hosts, like runc: a
 * tmpfs with one directory per v1 hierarchy of /proc/self/cgroup, each either
 * a new cgroup mount (cgroup namespace) or a bind of the container's own
 * cgroup directory, plus "cpu -> cpu,cpuacct" style links (a hybrid host's
 * cgroup2 is left out, as runc and crun do: a systemd in the container that
 * finds /sys/fs/cgroup/unified runs in hybrid mode and makes its cgroups
 * there, below its path in /proc/self/cgroup, which a bind of the
 * container's own directory or a read-only mount does not have: "Failed to
 * allocate manager object"; without it, it runs in legacy mode on the
 * name=systemd hierarchy podman binds in for it); then one recursive
 * mount_setattr applies the flags. With a user namespace but no cgroup
 * namespace the mount is always read-only (CVE-2023-25809: the host's
 * hierarchies under the container's root); otherwise the options decide,
 * as runc (a cgroup mount without "ro": docker --privileged, nested
 * runtimes making sub-cgroups of their own cgroup). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "rootfs/internal.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

static int fail(struct rootfs_ctx *c, const char *dest, int r, const char *what)
{
	return error_sys(c->err, -r, "mount cgroup on %s: %s", dest, what);
}

static int move_detached(int src, int dst)
{
	return move_mount(src, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0 ? -errno : 0;
}

/* Bind `host` (recursively) onto dst with attributes `a`. */
static int bind_host(const char *host, int dst, const struct mount_attr *a)
{
	int src = open_tree(AT_FDCWD, host, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	int r;

	if (src < 0)
		return -errno;
	r = rootfs_setattr_fd(src, AT_RECURSIVE, a);
	if (r == 0)
		r = move_detached(src, dst);
	close(src);
	return r;
}

/* A new cgroup2 mount through fsopen/fsmount: mount(2) refuses (EBUSY) to
 * stack the same filesystem and root on a mount point that already has it
 * (a second cgroup mount on /sys/fs/cgroup, e.g. rw over the default ro). */
/* The mount's data ("nsdelegate,memory_recursiveprot"), one fsconfig a key. */
static int config_data(int fs, const char *data)
{
	char buf[1024], *save = NULL;

	if (!data || !*data)
		return 0;
	if (strlen(data) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, data);
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char *v = strchr(k, '=');

		if (v)
			*v++ = '\0';
		if ((v ? fsconfig(fs, FSCONFIG_SET_STRING, k, v, 0) : fsconfig(fs, FSCONFIG_SET_FLAG, k, NULL, 0)) < 0)
			return -errno;
	}
	return 0;
}

static int mount_v2_detached(unsigned long flags, const char *data, int dst)
{
	struct mount_attr a = { 0 };
	int fs, mnt, r;

	if ((fs = fsopen("cgroup2", FSOPEN_CLOEXEC)) < 0)
		return -errno;
	if ((r = config_data(fs, data)) < 0) {
		close(fs);
		return r;
	}
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "cgroup2", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		r = -errno;
		close(fs);
		return r;
	}
	rootfs_ms_to_attr(flags & MS_PERMOUNT, 0, &a);
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, a.attr_set);
	r = mnt < 0 ? -errno : move_detached(mnt, dst);
	if (mnt >= 0)
		close(mnt);
	close(fs);
	return r;
}

static int mount_v2(struct rootfs_ctx *c, const struct oci_mount *m, unsigned long flags, int dst)
{
	struct mount_attr a = { 0 };
	int r;

	/* the data as given (nsdelegate ...; an unknown option is the kernel's EINVAL, as runc) */
	if ((r = rootfs_mount_fs_on(c, "cgroup2", dst, "cgroup2", flags, m->data)) == 0)
		return 0;
	if (r == -EBUSY && (r = mount_v2_detached(flags, m->data, dst)) == 0)
		return 0;
	if (r != -EPERM)
		return fail(c, m->destination, r, "mount cgroup2");
	/* a user namespace without a cgroup namespace: the host's tree, as runc */
	rootfs_ms_to_attr(flags & MS_PERMOUNT, 0, &a);
	if ((r = bind_host(CGROUP_ROOT, dst, &a)) < 0)
		return fail(c, m->destination, r, "bind " CGROUP_ROOT);
	return 0;
}

static int read_self_cgroup(struct rootfs_ctx *c, char *buf, size_t size)
{
	int fd = c->o->proc_fd >= 0 ? openat(c->o->proc_fd, "self/cgroup", O_RDONLY | O_CLOEXEC)
				    : open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[total] = '\0';
	return 0;
}

/* One line of /proc/self/cgroup -> a directory in the tmpfs (the cwd when
 * in_tmp: a directory made there is the target by its name). */
static int mount_hierarchy(struct rootfs_ctx *c, int tmp, bool in_tmp, char *ctrls, const char *cgpath,
			   unsigned long flags)
{
	char host[PATH_MAX], path[FD_PATH_MAX + 256], data[64];
	const char *name = ctrls, *opts = ctrls;
	struct statfs sfs;
	int dst, r = 0;

	if (!*ctrls)              /* "0::/path": the v2 tree of a hybrid host (see above) */
		return 0;
	if (strncmp(ctrls, "name=", 5) == 0) {
		name = ctrls + 5;
		snprintf(data, sizeof(data), "none,%s", ctrls);
		opts = data;
	}
	if (snprintf(host, sizeof(host), CGROUP_ROOT "/%s", name) >= (int)sizeof(host))
		return -ENAMETOOLONG;
	if (!(c->o->cgroup_v1_mounted && c->o->cgroup_v1_mounted(name)) &&
	    (statfs(host, &sfs) < 0 || sfs.f_type != CGROUP_SUPER_MAGIC))
		return 0;         /* not mounted on the host in the usual place: skip */
	/* a dir we just made in our own new tmpfs (the container has not run):
	 * its name (in the cwd, or under the tmpfs's fd) is the target, no fd
	 * of its own; one
	 * that was there already is opened without following a symlink */
	dst = -1;
	if (mkdirat(tmp, name, 0755) == 0) {
		if ((in_tmp ? snprintf(path, sizeof(path), "%s", name)
			    : snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", tmp, name)) >= (int)sizeof(path))
			return -ENAMETOOLONG;
	} else if (errno != EEXIST) {
		return -errno;
	} else if ((dst = openat(tmp, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		return -errno;
	} else {
		rootfs_fd_path(path, dst);
	}
	if (c->o->new_cgroupns) {
		if (mount("cgroup", path, "cgroup", flags & ~MS_RDONLY, opts) < 0)
			r = -errno;
	} else {
		if (strlen(host) + strlen(cgpath) >= sizeof(host))
			r = -ENAMETOOLONG;
		else if (strcat(host, cgpath), mount(host, path, NULL, MS_BIND | MS_REC, NULL) < 0)
			r = -errno;
	}
	if (dst >= 0)
		close(dst);
	/* "cpu,cpuacct" is also reachable as cpu and cpuacct */
	for (char *p = ctrls; r == 0 && opts == ctrls && strchr(ctrls, ','); ) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (symlinkat(name, tmp, p) < 0 && errno != EEXIST)
			r = -errno;
		if (comma)
			*comma = ',';
		if (!comma)
			break;
		p = comma + 1;
	}
	return r;
}

static int mount_v1(struct rootfs_ctx *c, const struct oci_mount *m, unsigned long flags, int dst)
{
	char buf[8192];
	struct mount_attr a = { 0 };
	int tmp, r;
	bool in_tmp;

	if ((r = read_self_cgroup(c, buf, sizeof(buf))) < 0)
		return fail(c, m->destination, r, "read /proc/self/cgroup");
	if ((r = rootfs_mount_fs_on(c, "tmpfs", dst, "tmpfs", flags & ~MS_RDONLY, "mode=755")) < 0)
		return fail(c, m->destination, r, "mount tmpfs");
	tmp = rootfs_open_in_root_flags(c->root_fd, m->destination, O_PATH | O_DIRECTORY, false);
	if (tmp < 0)
		return fail(c, m->destination, tmp, "reopen");
	/* the hierarchies' directories by name, not /proc/self/fd/N/name (the
	 * sources are absolute host paths; the cwd goes back when needed,
	 * rootfs_mount_fs_on) */
	in_tmp = rootfs_cwd_to(c, tmp);
	for (char *line = buf, *next; *line; line = next) {
		char *ctrls, *cgpath;

		next = strchr(line, '\n');
		next = next ? (*next = '\0', next + 1) : line + strlen(line);
		if (!(ctrls = strchr(line, ':')) || !(cgpath = strchr(++ctrls, ':')))
			continue;
		*cgpath++ = '\0';
		/* the child may not have joined yet: the runtime knows the path
		 * (a hierarchy it did not make the cgroup in: the one we are in) */
		r = -ENOENT;
		if (c->o->cgroup_path && !c->o->new_cgroupns)
			r = mount_hierarchy(c, tmp, in_tmp, ctrls, c->o->cgroup_path, flags);
		if (r == -ENOENT)
			r = mount_hierarchy(c, tmp, in_tmp, ctrls, cgpath, flags);
		if (r < 0) {
			close(tmp);
			return fail(c, m->destination, r, ctrls);
		}
	}
	rootfs_ms_to_attr(flags & MS_PERMOUNT, 0, &a);
	r = rootfs_setattr_fd(tmp, AT_RECURSIVE, &a);
	close(tmp);
	return r < 0 ? fail(c, m->destination, r, "mount_setattr") : 0;
}

int rootfs_mount_cgroup(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p, int dst)
{
	unsigned long flags = p->ms_flags;
	struct statfs sfs;

	if (!c->o->new_cgroupns && c->o->userns)
		flags |= MS_RDONLY;
	if (statfs(CGROUP_ROOT, &sfs) < 0)
		return fail(c, m->destination, -errno, "statfs " CGROUP_ROOT);
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		return mount_v2(c, m, flags, dst);
	return mount_v1(c, m, flags, dst);
}
