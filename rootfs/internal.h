/* rootfs/ internals shared by its files; nothing outside rootfs/ includes this. */
#ifndef TINYRUN_ROOTFS_INTERNAL_H
#define TINYRUN_ROOTFS_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/types.h>

#include "rootfs/rootfs.h"

/* One setup run: the config, the options, the rootfs (top mount) and the error. */
/* src_fds[i] of a relative source inside the rootfs that could not be opened there */
#define ROOTFS_SRC_FAILED(e) (-1 - (e))
#define ROOTFS_SRC_ERRNO(v)  (-1 - (v))

struct rootfs_ctx {
	const struct oci_config *cfg;
	const struct rootfs_opts *o;
	int root_fd;              /* O_PATH of <rootfs>, the bind made by rootfs_prepare */
	int *src_fds;             /* [n_mounts]: O_PATH of each relative bind source, opened
	                           * against the bundle before any mount; -1 = by path;
	                           * ROOTFS_SRC_FAILED(errno): inside the rootfs, not
	                           * openable there: the entry fails, never by path */
	struct error *err;
	/* where rootfs_cwd_back puts the cwd back: the caller's (rootfs_prepare),
	 * -1 nowhere (rootfs_pivot: the switch sets it next), -2 never leave it:
	 * mount by /proc/self/fd/N */
	int cwd_fd;
	bool cwd_away;            /* left cwd_fd for a mount target, not back yet */
	/* the destination of the last tmpfs mounted by a mounts[] entry while
	 * every later entry went directly below it (NULL: none), and its root
	 * once opened (-1): mounts.c creates those in it (fresh_child) */
	const char *fresh_dest;
	int fresh_fd;
};
#define ROOTFS_NO_CWD (-2)

/* "/proc/self/fd/N": how mount(2) reaches an fd we resolved safely. */
#define FD_PATH_MAX 32
const char *rootfs_fd_path(char buf[FD_PATH_MAX], int fd);

/* A new filesystem whose source and data name no file (tmpfs, proc, ...,
 * or absolute paths only) mounted onto the directory fd: with fd as the cwd
 * and "." as the target, not /proc/self/fd/N (the same mount point: both
 * name the fd's own path; the kernel walks procfs for the second). Where
 * fd cannot be the cwd: by its /proc path. 0 or -errno. mounts.c
 * The cwd stays there (cwd_away) until rootfs_cwd_back: rootfs_mount_entry
 * goes back before an entry whose source or data may be a relative path,
 * rootfs_prepare after the entries. */
int rootfs_mount_fs_on(struct rootfs_ctx *c, const char *src, int fd, const char *type, unsigned long flags,
		       const char *data);
/* the cwd to dirfd (true) for relative mount targets in it */
bool rootfs_cwd_to(struct rootfs_ctx *c, int dirfd);
/* back to cwd_fd if away: 0 or -errno */
int rootfs_cwd_back(struct rootfs_ctx *c);

/* ---- plan.c: what to ask the kernel for one mounts[] entry (pure) ---- */

struct mount_plan {
	bool bind;                /* open_tree(OPEN_TREE_CLONE) + move_mount */
	bool recursive;           /* rbind: clone the whole tree */
	bool remount;             /* "remount": change the mount already there */
	bool defer_ro;            /* tmpfs ro: mount rw, set ro once mounts below exist */
	bool exact;               /* a bind with flags: its top mount gets exactly them */
	unsigned long ms_flags;   /* mount(2) flags for a new filesystem or remount */
	struct mount_attr top;    /* mount_setattr on the mount itself */
	struct mount_attr rec;    /* mount_setattr with AT_RECURSIVE */
};

enum dest_kind { DEST_DIR, DEST_FILE };

/* Per-mount MS_* flags that mount_setattr can express. */
#define MS_PERMOUNT (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | \
		     MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME | MS_NOSYMFOLLOW)
#define MS_PROPAGATION (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)

void rootfs_mount_plan_make(const struct oci_mount *m, struct mount_plan *p);
/* A bind's flags in a user namespace, where the kernel locks what the source
 * mount has (ro, nosuid, nodev, noexec when set; atime always): p->top made
 * again for a source whose per-mount flags are src_ms (rootfs_statvfs_ms).
 * 0; ROOTFS_LOCKED_CLEAR when the entry clears a locked flag, or
 * ROOTFS_LOCKED_ATIME when it asks for another atime setting: *bad says which. */
enum { ROOTFS_LOCKED_CLEAR = 1, ROOTFS_LOCKED_ATIME = 2 };
int rootfs_bind_plan_locked(const struct oci_mount *m, unsigned long src_ms, struct mount_plan *p,
			    unsigned long *bad);
/* statvfs f_flag -> MS_* per-mount flags (MS_STRICTATIME for neither noatime
 * nor relatime, which is what strictatime is) */
unsigned long rootfs_statvfs_ms(unsigned long f_flag);
/* MS_* per-mount flags as mount(8) spells them, comma-joined, into buf */
const char *rootfs_ms_names(unsigned long ms, char *buf, size_t size);
/* MS_* per-mount flags set/cleared -> mount_attr (atime handled as the enum it is). */
void rootfs_ms_to_attr(unsigned long set, unsigned long clr, struct mount_attr *a);
/* Apply a mount_attr's set/clear to MS_* flags of a new mount (no children,
 * so recursive and plain attributes are the same thing there). */
unsigned long rootfs_attr_apply_ms(const struct mount_attr *a, unsigned long flags);
/* Make a set/clear pair of MOUNT_ATTR_* valid for mount_setattr (atime enum). */
void rootfs_attr_fix_atime(struct mount_attr *a);
/* enum oci_propagation -> MS_* (with MS_REC for the r* forms), 0 for none. */
unsigned long rootfs_mount_propagation_ms(enum oci_propagation p);
unsigned long rootfs_propagation_ms(enum oci_rootfs_propagation_mode p);
static inline bool attr_empty(const struct mount_attr *a)
{
	return !a->attr_set && !a->attr_clr && !a->propagation && !a->userns_fd;
}
/* A bind of a non-directory needs a file as its mountpoint. */
enum dest_kind rootfs_dest_kind_for(const struct oci_mount *m, mode_t src_mode);
/* true for /proc and /sys destinations and proc/sysfs mounts: refuse symlinks
 * anywhere in the path and a destination that already is a mount. */
bool rootfs_dest_is_guarded(const struct oci_mount *m);
bool rootfs_is_bind_of_dev(const struct oci_mount *m);
/* "/a/b": absolute, no "." or ".." component, no "//", no trailing "/" */
bool rootfs_path_clean(const char *p);
/* dest is parent + "/" + name, both clean: name, else NULL */
const char *rootfs_child_name(const char *parent, const char *dest);
/* "a/b/../c" style compare: are these the same absolute container path? */
bool rootfs_path_equal(const char *a, const char *b);

/* ---- resolve.c ---- */
/* Open `path` below root_fd, creating it (with parents, dirs 0755) as `kind`
 * when missing. Returns an O_PATH fd or -errno. */
int rootfs_open_or_create(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks);
/* ... and *created: whether it was missing (false: it was there, as it is) */
int rootfs_open_or_make(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks, bool *created);
int rootfs_walk_in_root(int root_fd, const char *path, int flags, mode_t mode);
/* A host path (relative ones against `base`, NULL: none) that lies
 * lexically inside the rootfs (its real path, as rootfs_opts.rootfs is):
 * its part inside ("/b/rootfs/x" -> "/x") in
 * buf, else NULL. Bind sources there are the image's and are resolved below
 * the rootfs: a symlink of a hostile image cannot point them at the host. */
const char *rootfs_host_path_inside(const char *rootfs, const char *base, const char *path, char buf[PATH_MAX]);
/* open_tree(clone flags) of `rel` resolved below root_fd; -1 with errno. */
int rootfs_tree_in_root(int root_fd, const char *rel, unsigned clone);
/* rootfs_open_in_root, optionally refusing any symlink on the way (-ELOOP). */
int rootfs_open_in_root_flags(int root_fd, const char *path, int flags, bool no_symlinks);

/* ---- idmap.c ---- */
bool rootfs_wants_idmap(const struct oci_mount *m);
/* fds[i] = an idmapped detached tree for each mounts[i] that asks for one,
 * else -1 (also for the entries rootfs_idmap_deferred, when rootfs is
 * given); relative sources against dirfd, whose path is base (or NULL) */
int rootfs_idmap_trees_open(const struct oci_config *cfg, int dirfd, const char *rootfs, const char *base,
			    int *fds, struct error *err);

/* ---- mounts.c ---- */
int rootfs_mount_entry(struct rootfs_ctx *c, size_t i);
int rootfs_mount_deferred_ro(struct rootfs_ctx *c);
int rootfs_setattr_fd(int fd, unsigned flags, const struct mount_attr *a);
/* A bind of from_dir/from onto the fd dst: an open_tree clone (FLAGS:
 * AT_EMPTY_PATH, AT_RECURSIVE), ATTR set on the detached tree when given
 * (never visible without it), moved there. The mount mount(MS_BIND) makes,
 * without a walk through /proc/self/fd/N for either end. 0 or -errno. paths.c */
int rootfs_clone_onto(int from_dir, const char *from, unsigned flags, const struct mount_attr *attr, int dst);

/* mntns.c: into the mount namespace `to` (-1: a private copy of ours) and
 * back with our namespace, root and cwd. leave: 0 or -errno, still home on
 * failure; return: 0 or -errno. */
struct rootfs_mntns_home {
	int ns, root, cwd;
};
int rootfs_mntns_leave(struct rootfs_mntns_home *h, int to);
int rootfs_mntns_return(struct rootfs_mntns_home *h);
/* /dev's fd when the last entries were a tmpfs there and its children (the
 * cache handed over), else negative: resolve it */
int rootfs_fresh_dev(struct rootfs_ctx *c);

/* ---- cgroupfs.c ---- */
int rootfs_mount_cgroup(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p, int dest_fd);

/* ---- copyup.c ---- */
int rootfs_copy_tree(int from_dir, int to_dir, int depth);
/* ROOTFS_COPY_AS_CALLER: files owned by the copier's fsuid/fsgid (no chown,
 * no times), device nodes refused (EPERM): a tree seeded for a process. */
#define ROOTFS_COPY_AS_CALLER 1u
int rootfs_copy_tree_flags(int from_dir, int to_dir, int depth, unsigned flags);

/* ---- devices.c ---- */
int rootfs_setup_dev(struct rootfs_ctx *c);

/* ---- rootfs/sandbox/: the built root (run.tinyrun.rootfs=minimal): rootfs/sandbox/room.h ---- */

/* ---- paths.c ---- */
int rootfs_mask_paths(struct rootfs_ctx *c);
int rootfs_readonly_paths(struct rootfs_ctx *c);

#endif
