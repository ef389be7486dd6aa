/* linux.devices with a user namespace: the container's root may not mknod,
 * so the runtime (root on the host) makes each node, with its type, numbers,
 * fileMode and owner (the config's ids mapped to the host's), in a detached
 * tmpfs before the child is cloned, and hands the child a clone of each
 * (open_tree) to move onto its place (devices.c). Without this the child
 * could only bind the host's own node at the same path: none for a node the
 * host lacks, and the host's mode and owner instead of the config's (crun
 * does the same). A FIFO needs no privilege: the child makes it itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rootfs/internal.h"

static uint32_t to_host(const struct oci_idmap *m, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
			return m[i].host_id + (id - m[i].container_id);
	return id;   /* unmapped: the container sees the overflow id, as for any such file */
}

static int detached_tmpfs(void)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), mnt = -1;

	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0700", 0) == 0 &&
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID);
	if (mnt < 0)
		mnt = -errno;
	close(fs);
	return mnt;
}

static int make_one(int dir, size_t i, const struct oci_device *d, const struct oci_linux *l)
{
	char name[32];
	mode_t type = d->type == 'b' ? S_IFBLK : S_IFCHR;
	mode_t perm = d->has_file_mode ? (d->file_mode & 07777) : 0666;
	uid_t uid = to_host(l->uid_mappings, l->n_uid_mappings, d->has_uid ? d->uid : 0);
	gid_t gid = to_host(l->gid_mappings, l->n_gid_mappings, d->has_gid ? d->gid : 0);

	snprintf(name, sizeof(name), "%zu", i);
	if (mknodat(dir, name, type | perm, makedev((unsigned)d->major, (unsigned)d->minor)) < 0 ||
	    fchmodat(dir, name, perm, 0) < 0 ||       /* past the umask */
	    fchownat(dir, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* fds[i]: a clone of node i (-1 for a FIFO); the index of a failure in *bad. */
static int clone_all(int dir, const struct oci_linux *l, int *fds, size_t *bad)
{
	char name[32];

	for (size_t i = 0; i < l->n_devices; i++) {
		if (l->devices[i].type == 'p')
			continue;
		snprintf(name, sizeof(name), "%zu", i);
		if ((fds[i] = open_tree(dir, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0) {
			*bad = i;
			return -errno;
		}
	}
	return 0;
}

/* Kernels before detached mounts could be cloned (open_tree: EINVAL on a
 * mount outside the caller's namespace; Debian 12's 6.1 among them): the
 * tmpfs is attached first, in a throwaway private copy of our mount
 * namespace, as crun does (there in its state dir), and the clones made
 * there. The runtime comes back to its namespace, root and cwd; the copy
 * goes with its last user, the clones live on. Only there, as the copy
 * costs a walk of every host mount. */
static int clone_all_attached(int dir, const struct oci_linux *l, int *fds, size_t *bad)
{
	struct rootfs_mntns_home home;
	int r, back;

	if ((r = rootfs_mntns_leave(&home, -1)) < 0)
		return r;
	if (move_mount(dir, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		r = -errno;
	else
		r = clone_all(dir, l, fds, bad);
	/* not reached short of a broken kernel: the create fails */
	return (back = rootfs_mntns_return(&home)) < 0 ? back : r;
}

static void close_clones(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

static int make_and_clone(int dir, const struct oci_linux *l, int *fds, struct error *err)
{
	size_t bad = 0;
	int r = 0;

	for (size_t i = 0; i < l->n_devices && r == 0; i++)
		if (l->devices[i].type != 'p' && (r = make_one(dir, i, &l->devices[i], l)) < 0)
			bad = i;
	if (r == -EPERM)
		return 1;     /* no mknod here: the caller's fallback */
	if (r == 0 && (r = clone_all(dir, l, fds, &bad)) == -EINVAL) {
		close_clones(fds, l->n_devices);
		r = clone_all_attached(dir, l, fds, &bad);
	}
	if (r < 0)
		return error_sys(err, -r, "device %s", l->devices[bad].path);
	return 0;
}

int rootfs_dev_nodes_open(const struct oci_config *cfg, bool userns, int **out, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	int *fds, dir, r;
	bool any = false;

	*out = NULL;
	for (size_t i = 0; i < l->n_devices; i++)
		any |= l->devices[i].type != 'p';
	if (!userns || !any || geteuid() != 0)
		return 0;   /* no user namespace: mknod in the child; rootless: the host's nodes */
	/* EPERM, for the tmpfs or a mknod: root of a user's own user namespace
	 * (rootless podman), where only the initial one may make devices; the
	 * child binds the host's nodes, as for a user (devices.c) */
	if ((dir = detached_tmpfs()) == -EPERM)
		return 0;
	if (dir < 0)
		return error_sys(err, -dir, "linux.devices: a tmpfs for the device nodes");
	if (!(fds = malloc(l->n_devices * sizeof(int)))) {
		close(dir);
		return error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < l->n_devices; i++)
		fds[i] = -1;
	r = make_and_clone(dir, l, fds, err);
	close(dir);    /* the clones keep the tmpfs */
	if (r != 0) {
		rootfs_dev_nodes_close(fds, l->n_devices);
		return r < 0 ? r : 0;
	}
	*out = fds;
	return 0;
}

void rootfs_dev_nodes_close(int *fds, size_t n_devices)
{
	if (!fds)
		return;
	for (size_t i = 0; i < n_devices; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}
