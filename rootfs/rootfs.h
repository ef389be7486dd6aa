/* Everything between "child in its new mount namespace" and "pivot_root done".
 * Runs in the container's child process, after the uid/gid maps are written
 * and the namespaces are entered; before capabilities are dropped.
 *
 * Order used by runtime/:
 *   rootfs_prepare()        make / private/slave, bind the rootfs, mounts[] in
 *                           order, default /dev, linux.devices
 *   (runtime opens the pty in <rootfs>/dev/pts when process.terminal)
 *   rootfs_bind_console()   bind the pty slave onto <rootfs>/dev/console
 *   (runtime runs createContainer hooks here)
 *   rootfs_pivot()          pivot_root (or MS_MOVE+chroot with no_pivot),
 *                           masked/readonly paths, root.readonly, propagation
 */
#ifndef TINYRUN_ROOTFS_H
#define TINYRUN_ROOTFS_H

#include <stdbool.h>

#include "oci/config.h"
#include "oci/error.h"

struct rootfs_opts {
	const char *rootfs;       /* absolute, symlinks resolved */
	bool no_pivot;            /* --no-pivot */
	bool userns;              /* a user namespace is in use: bind device nodes, no mknod */
	bool new_netns;           /* the container has its own network namespace */
	bool new_cgroupns;        /* the container has its own cgroup namespace */
	bool new_pidns;
	int proc_fd;              /* host procfs root fd verified by runtime (O_PATH|O_DIRECTORY), or -1 */
	bool selinux;             /* SELinux is enabled: linux.mountLabel applies */
	const int *mount_fds;     /* per mounts[] entry: a tree from rootfs_idmap_prepare, or -1;
				   * NULL when no entry is idmapped */
};

int rootfs_prepare(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err);
int rootfs_bind_console(const struct rootfs_opts *o, int pty_slave_fd, struct error *err);
int rootfs_pivot(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err);

/* Idmapped mounts (mounts[].uidMappings/gidMappings, idmap, ridmap). Call in
 * the runtime BEFORE cloning the child, in the host's user namespace (the
 * kernel wants CAP_SYS_ADMIN where the source filesystem is mounted).
 * fds has cfg->n_mounts slots; each gets a detached idmapped tree or -1.
 * Pass fds as rootfs_opts.mount_fds; close them in the parent after the
 * child has done rootfs_prepare (or on failure). */
bool rootfs_needs_idmap(const struct oci_config *cfg);
int rootfs_idmap_prepare(const struct oci_config *cfg, int *fds, struct error *err);
void rootfs_idmap_close(int *fds, size_t n);

/* Open `path` (absolute, in the container's view) below `root_fd` without ever
 * leaving it: openat2(RESOLVE_IN_ROOT), or a component walk where the kernel
 * lacks openat2. Returns an fd or a negative errno. */
int rootfs_open_in_root(int root_fd, const char *path, int flags, mode_t mode);

#endif
