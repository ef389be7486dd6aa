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
	bool (*runtime_userns)(void); /* asked only when a device's mknod fails with EPERM:
	                           * whether the runtime runs in a user namespace other
	                           * than the initial one (rootless podman), where only
	                           * binding the host's node can work (NULL: no) */
	bool new_netns;           /* the container has its own network namespace */
	bool joined_netns;        /* ... joined by path (maybe not owned by its user ns) */
	bool new_cgroupns;        /* the container has its own cgroup namespace */
	const char *cgroup_path;  /* the container's cgroup, for v1 cgroup binds before
	                           * the child joins it (NULL: from /proc/self/cgroup) */
	/* v1: is /sys/fs/cgroup/NAME a hierarchy, by the runtime's probe before
	 * clone (NULL, or false: a statfs of it decides) */
	bool (*cgroup_v1_mounted)(const char *name);
	bool new_pidns;
	int proc_fd;              /* host procfs root fd verified by runtime (O_PATH|O_DIRECTORY), or -1 */
	bool selinux;             /* SELinux is enabled: linux.mountLabel applies */
	const int *mount_fds;     /* from rootfs_mount_fds_open, or NULL */
	const int *dev_fds;       /* from rootfs_dev_nodes_open, or NULL */
	const char *root_data;    /* data for a "/" mounts[0] (cfg->root_mount) instead of its own */
	int request_mnt_fd;       /* run.tinyrun.sandbox.request: the request's mount ns
	                           * (its /workspace and /tmp are shared), or -1 */
	/* an idmapped entry whose source is inside the rootfs (left out of
	 * mount_fds, rootfs_idmap_deferred): its tree, cloned here when its
	 * turn comes, is handed to the runtime to map (rootfs_idmap_apply);
	 * 0 when mapped. NULL: such an entry is an error. */
	int (*idmap_request)(void *ud, size_t i, int tree, struct error *err);
	void *idmap_ud;
};

int rootfs_prepare(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err);
int rootfs_bind_console(const struct rootfs_opts *o, int pty_slave_fd, struct error *err);
int rootfs_pivot(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err);
/* After the pivot: fds 0-2 that are the null device are reopened as the
 * container's /dev/null (runc: so that CRIU can dump them). devnull.c */
int rootfs_reopen_dev_null(struct error *err);

/* Mount trees made by the runtime BEFORE cloning the child, with the host's
 * credentials: idmapped mounts (mounts[].uidMappings/gidMappings, idmap,
 * ridmap: the kernel wants CAP_SYS_ADMIN where the source filesystem is
 * mounted) and, when `userns`, a clone of every bind source, used by the
 * child where the container's root cannot reach the source path. Relative
 * sources are relative to `bundle`. *fds is NULL when nothing is needed;
 * pass it as rootfs_opts.mount_fds (rootfs_prepare closes the child's
 * copies) and close the parent's with rootfs_mount_fds_close once the child
 * is past rootfs_prepare (or on failure). */
int rootfs_mount_fds_open(const struct oci_config *cfg, const char *bundle, const char *rootfs, bool userns,
			  int **fds, struct error *err);
void rootfs_mount_fds_close(int *fds, size_t n_mounts);
/* Parent, once the child's mount namespace exists (root: an O_PATH fd of
 * its root, /proc/<child>/root): each bind source in fds[n, 2n) (O_PATH, the
 * host's) replaced by the same path opened below that root, naming the
 * child's copy of the mount, whose flags the kernel locked for its user
 * namespace; -1 where that fails (the child's bind by path reports it).
 * Send each to the child (it clones the tree from it). */
void rootfs_bind_sources_reopen(int *fds, size_t n_mounts, int root);
/* With a user namespace, as root: linux.devices' nodes made by the runtime
 * BEFORE cloning the child, one clone (fd) per entry, -1 for FIFOs (the
 * child's mknod needs no privilege); *fds NULL when not needed, or when
 * this root may not make devices (EPERM: root of a user's own user
 * namespace; the child binds the host's nodes then). Pass as
 * rootfs_opts.dev_fds; close with rootfs_dev_nodes_close. */
int rootfs_dev_nodes_open(const struct oci_config *cfg, bool userns, int **fds, struct error *err);
void rootfs_dev_nodes_close(int *fds, size_t n_devices);
/* An idmapped mounts[] entry whose source lies (lexically) inside the
 * rootfs: it names what earlier entries mount there, so its tree is made
 * by the child at its turn and mapped by the runtime (runc does the same). */
bool rootfs_idmap_deferred(const struct oci_mount *m, const char *rootfs);
/* The runtime's half: MOUNT_ATTR_IDMAP with mounts[i]'s mapping on `tree`. */
int rootfs_idmap_apply(const struct oci_config *cfg, size_t i, int tree, struct error *err);

/* restore (restore_points.c): each mount's destination made in `rootfs` when
 * missing, resolved inside it, before CRIU restores there (runc's
 * prepareCriuRestoreMounts: not cgroup mounts, not below a tmpfs); a bind's
 * relative source against `bundle` (a file's mount point is a file), bound
 * there until rootfs_restore_binds_undo (mount points nested in it are then
 * made in its source). On failure nothing is left bound. */
struct rootfs_restore_binds {
	int *fds;
	size_t n;
};
int rootfs_restore_mountpoints(const struct oci_config *cfg, const char *rootfs, const char *bundle,
			       struct rootfs_restore_binds *held, struct error *err);
void rootfs_restore_binds_undo(struct rootfs_restore_binds *held);

/* Open `path` (absolute, in the container's view) below `root_fd` without ever
 * leaving it: openat2(RESOLVE_IN_ROOT), or a component walk where the kernel
 * lacks openat2. Returns an fd or a negative errno. */
int rootfs_open_in_root(int root_fd, const char *path, int flags, mode_t mode);

/* Detach, in the caller's mount namespace, every whole proc and sysfs that a
 * path reaches outside `rootfs` (NULL: all of them), or cover it with an
 * empty tmpfs where it cannot be (--no-pivot's guard; `check`'s probe). */
int rootfs_hide_pseudo_fs(const char *rootfs, struct error *err);

#endif
