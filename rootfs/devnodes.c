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
	int fd;

	snprintf(name, sizeof(name), "%zu", i);
	if (mknodat(dir, name, type | perm, makedev((unsigned)d->major, (unsigned)d->minor)) < 0 ||
	    fchmodat(dir, name, perm, 0) < 0 ||       /* past the umask */
	    fchownat(dir, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	fd = open_tree(dir, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int rootfs_dev_nodes_open(const struct oci_config *cfg, bool userns, int **out, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	int *fds, dir;
	bool any = false;

	*out = NULL;
	for (size_t i = 0; i < l->n_devices; i++)
		any |= l->devices[i].type != 'p';
	if (!userns || !any || geteuid() != 0)
		return 0;   /* no user namespace: mknod in the child; rootless: the host's nodes */
	if ((dir = detached_tmpfs()) < 0)
		return error_sys(err, -dir, "linux.devices: a tmpfs for the device nodes");
	if (!(fds = malloc(l->n_devices * sizeof(int)))) {
		close(dir);
		return error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < l->n_devices; i++)
		fds[i] = -1;
	for (size_t i = 0; i < l->n_devices; i++) {
		int r = l->devices[i].type == 'p' ? -1 : make_one(dir, i, &l->devices[i], l);

		if (l->devices[i].type != 'p' && r < 0) {
			rootfs_dev_nodes_close(fds, l->n_devices);
			close(dir);
			return error_sys(err, -r, "device %s", l->devices[i].path);
		}
		fds[i] = r;
	}
	close(dir);    /* the clones keep the tmpfs */
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
