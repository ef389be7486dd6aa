/* One mounts[] entry: resolve (or create) the destination inside the rootfs,
 * then mount onto that fd. Binds are cloned with open_tree, get their
 * attributes while still detached, and are moved into place: a read-only
 * bind is never visible writable, and attributes the options do not name
 * (including the ones the kernel locks in a user namespace) are kept. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"
#include "oci/util.h"

int rootfs_setattr_fd(int fd, unsigned flags, const struct mount_attr *a)
{
	struct mount_attr attr = *a;

	if (attr_empty(a))
		return 0;
	return mount_setattr(fd, "", AT_EMPTY_PATH | flags, &attr, sizeof(attr)) < 0 ? -errno : 0;
}

static bool type_is(const struct oci_mount *m, const char *t)
{
	return m->type && strcmp(m->type, t) == 0;
}

bool rootfs_cwd_to(struct rootfs_ctx *c, int dirfd)
{
	if (c->cwd_fd == ROOTFS_NO_CWD || fchdir(dirfd) < 0)
		return false;
	c->cwd_away = c->cwd_fd >= 0;
	return true;
}

int rootfs_cwd_back(struct rootfs_ctx *c)
{
	if (!c->cwd_away)
		return 0;
	c->cwd_away = false;
	return fchdir(c->cwd_fd) < 0 ? -errno : 0;
}

int rootfs_mount_fs_on(struct rootfs_ctx *c, const char *src, int fd, const char *type, unsigned long flags,
		       const char *data)
{
	char path[FD_PATH_MAX];

	if (!rootfs_cwd_to(c, fd))
		return mount(src, rootfs_fd_path(path, fd), type, flags, data) < 0 ? -errno : 0;
	return mount(src, ".", type, flags, data) < 0 ? -errno : 0;
}

/* Filesystems whose source and data name no file: mounted through the cwd
 * (rootfs_mount_fs_on). Others (a device, overlay's dirs) may name files
 * relative to the cwd, the bundle: by /proc/self/fd/N. */
static bool fs_without_paths(const struct oci_mount *m)
{
	return type_is(m, "tmpfs") || type_is(m, "proc") || type_is(m, "sysfs") || type_is(m, "devpts") ||
	       type_is(m, "mqueue");
}

/* ---- the tmpfs just mounted: its direct children made in it ----
 * A tmpfs mounted by an entry is empty; while every later entry goes
 * directly below it ("/dev" then "/dev/pts", "/dev/shm", ...) nothing is
 * mounted over it nor over the way to it (a mount below it covers only its
 * own child), so its path still resolves to its root: a child is created
 * and opened there, one component, no symlink (RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), which is what resolving the whole path inside the
 * rootfs gives, without walking the path again and probing for the child
 * first. Anything else (a symlink there, an error) goes the whole way as
 * before. Only clean paths ("/a/b": no "." or "..", no "//",
 * rootfs_child_name), not below a shared rootfs propagation (mounts there
 * propagate), not under the symlink-refusing /proc and /sys
 * (rootfs_dest_is_guarded). */
static const char *fresh_name(const struct rootfs_ctx *c, const char *dest)
{
	return c->fresh_dest ? rootfs_child_name(c->fresh_dest, dest) : NULL;
}

static void fresh_drop(struct rootfs_ctx *c)
{
	if (c->fresh_fd >= 0)
		close(c->fresh_fd);
	c->fresh_fd = -1;
	c->fresh_dest = NULL;
}

/* dest's fd made in the fresh tmpfs (*created: it was not there), or
 * -EAGAIN: go the whole way. */
static int fresh_child(struct rootfs_ctx *c, const char *dest, enum dest_kind kind, bool *created)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *name = fresh_name(c, dest);
	int fd;

	if (!name)
		return -EAGAIN;
	if (c->fresh_fd < 0 &&
	    (c->fresh_fd = rootfs_open_in_root_flags(c->root_fd, c->fresh_dest, O_PATH | O_DIRECTORY, false)) < 0) {
		fresh_drop(c);
		return -EAGAIN;
	}
	if (kind == DEST_DIR) {
		*created = mkdirat(c->fresh_fd, name, 0755) == 0;
		if (!*created && errno != EEXIST)
			return -EAGAIN;
	} else {
		fd = openat(c->fresh_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -EAGAIN;
		if ((*created = fd >= 0))
			close(fd);
	}
	fd = (int)syscall(SYS_openat2, c->fresh_fd, name, &how, sizeof(how));
	return fd < 0 ? -EAGAIN : fd;
}

/* Before entry m: the fresh tmpfs stays fresh only for its direct children. */
static void fresh_before(struct rootfs_ctx *c, const struct oci_mount *m)
{
	if (c->fresh_dest && !fresh_name(c, m->destination))
		fresh_drop(c);
}

/* After entry m (mounted): is it a fresh tmpfs to make children in? One
 * that is itself a child of the fresh one ("/dev/shm") leaves it be: its
 * siblings come next more often than its own children. */
static void fresh_after(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p)
{
	if (c->fresh_dest || p->bind || p->remount || !type_is(m, "tmpfs") || m->tmpcopyup || p->top.propagation ||
	    (rootfs_propagation_ms(c->cfg->linux_.rootfs_propagation) & MS_SHARED) ||
	    !rootfs_path_clean(m->destination))
		return;
	c->fresh_dest = m->destination;
}

int rootfs_fresh_dev(struct rootfs_ctx *c)
{
	int fd;

	if (!c->fresh_dest || strcmp(c->fresh_dest, "/dev") != 0)
		return -EAGAIN;
	if ((fd = c->fresh_fd) < 0)
		fd = rootfs_open_in_root_flags(c->root_fd, "/dev", O_PATH, false);
	c->fresh_fd = -1;
	c->fresh_dest = NULL;
	return fd;
}

static int fail(struct rootfs_ctx *c, const struct oci_mount *m, int r, const char *what)
{
	return error_sys(c->err, -r, "mount %s on %s: %s", m->type ? m->type : "bind",
			 m->destination, what);
}

/* CVE-2019-19921 / CVE-2023-27561 class: proc and sysfs go on a plain
 * directory of the image (resolved without symlinks), never on top of a
 * mount that is not itself proc or sysfs (a volume or tmpfs put there). */
static int check_guarded(struct rootfs_ctx *c, const struct oci_mount *m, int fd)
{
	struct statx stx;
	struct statfs sfs;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &stx) < 0)
		return fail(c, m, -errno, "statx");
	if ((type_is(m, "proc") || type_is(m, "sysfs")) && !S_ISDIR(stx.stx_mode))
		return error_set(c->err, ENOTDIR,
				 "mount %s on %s: destination is not a directory (filesystem \"%s\" must be mounted on ordinary directory)",
				 m->type, m->destination, m->type);
	if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		if (fstatfs(fd, &sfs) < 0)
			return fail(c, m, -errno, "statfs");
		if (sfs.f_type != PROC_SUPER_MAGIC && sfs.f_type != SYSFS_MAGIC)
			return error_set(c->err, EPERM,
					 "mount %s on %s: destination is already a mount (of another filesystem)",
					 m->type ? m->type : "bind", m->destination);
	}
	return 0;
}

static int dest_open(struct rootfs_ctx *c, const struct oci_mount *m, enum dest_kind kind, bool create,
		     bool *created)
{
	bool guarded = rootfs_dest_is_guarded(m), made = false;
	int fd = -EAGAIN, r;

	if (create && !guarded)
		fd = fresh_child(c, m->destination, kind, &made);
	if (fd == -EAGAIN)   /* not below a fresh tmpfs: the whole way */
		fd = create ? rootfs_open_or_make(c->root_fd, m->destination, kind, guarded, &made)
			    : rootfs_open_in_root_flags(c->root_fd, m->destination, O_PATH, guarded);
	if (fd < 0) {
		if (fd == -ELOOP && guarded)
			return error_set(c->err, ELOOP,
					 "mount %s on %s: destination contains a symlink (filesystem \"%s\" must be mounted on ordinary directory)",
					 m->type ? m->type : "bind", m->destination, m->type ? m->type : "bind");
		return fail(c, m, fd, "destination");
	}
	if (guarded && (r = check_guarded(c, m, fd)) < 0) {
		close(fd);
		return r;
	}
	if (created)
		*created = made;
	return fd;
}

/* The source's path below the rootfs when it lies inside it, else NULL. A
 * relative one is the bundle's (the cwd here: rootfs_mount_entry puts it
 * back before a bind), one that was not opened before the entries (no fd
 * budget left, open_relative_sources): still never by its host path. */
static const char *source_inside(const struct rootfs_ctx *c, const char *source, char in[PATH_MAX])
{
	char cwd[PATH_MAX];

	if (source[0] != '/')
		return getcwd(cwd, sizeof(cwd)) ? rootfs_host_path_inside(c->o->rootfs, cwd, source, in) : NULL;
	return rootfs_host_path_inside(c->o->rootfs, NULL, source, in);
}

/* The source tree to attach: an idmapped tree made by the runtime; else a
 * clone of the path, as the container's root (the kernel then locks the
 * flags of host mounts): below the rootfs when the path lies inside it (the
 * image's symlinks stay inside, rootfs_host_path_inside); where a path
 * elsewhere is refused, the runtime's clone made with the host's
 * credentials (hostfds.c). Ours to move and close. */
static int bind_source(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p, int idmapped,
		       int host_clone, int early)
{
	unsigned clone = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (p->recursive ? AT_RECURSIVE : 0);
	char in[PATH_MAX];
	const char *rel;
	int src;

	if (idmapped >= 0)
		return dup(idmapped);
	if (early < -1) {
		/* a relative source inside the rootfs that could not be opened
		 * there (open_relative_sources): never by its host path */
		errno = ROOTFS_SRC_ERRNO(early);
		return -1;
	}
	if (early >= 0)
		src = open_tree(early, "", clone | AT_EMPTY_PATH);
	else if (!rootfs_room_builds_root(c->cfg) && (rel = source_inside(c, m->source, in)))
		return rootfs_tree_in_root(c->root_fd, rel, clone);   /* as the rootfs is now */
	else
		src = open_tree(AT_FDCWD, m->source, clone);
	/* the runtime's fd of the source in our mount namespace (hostfds.c): a
	 * clone of our copy of the mount, locked as the path's would be */
	if (src < 0 && (errno == EACCES || errno == EPERM) && host_clone >= 0)
		return open_tree(host_clone, "", clone | AT_EMPTY_PATH);
	return src;
}

/* In a user namespace the kernel locks the flags the source mount has (every
 * tree here is a clone of the child's own copy: hostfds.c), and a
 * mount_setattr that would change one fails. runc 1.2+ then keeps the
 * source's locked flags instead, and fails only where the entry clears one
 * or asks for another atime setting: decided here from the source's flags
 * before the call, with an error that names them. */
static int bind_flags_locked(struct rootfs_ctx *c, const struct oci_mount *m, int src, struct mount_plan *q)
{
	struct statvfs sv;
	unsigned long bad;
	char names[128];
	int why;

	if (fstatvfs(src, &sv) < 0)
		return fail(c, m, -errno, "statvfs of the source");
	why = rootfs_bind_plan_locked(m, rootfs_statvfs_ms(sv.f_flag), q, &bad);
	if (why == ROOTFS_LOCKED_CLEAR)
		return error_sys(c->err, EPERM, "mount bind on %s: cannot clear %s: the source's mount has them "
				 "locked in a user namespace", m->destination, rootfs_ms_names(bad, names, sizeof(names)));
	if (why)
		return error_sys(c->err, EPERM, "mount bind on %s: cannot change the atime setting: the source's "
				 "mount has %s, locked in a user namespace", m->destination,
				 rootfs_ms_names(bad, names, sizeof(names)));
	return 0;
}

static int bind_entry(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p,
		      int idmapped, int host_clone, int early)
{
	struct mount_plan q = *p;
	struct stat st;
	int src, dst, r = 0;

	if (p->remount) {
		/* "bind,remount": change the attributes of what is there */
		if ((dst = dest_open(c, m, DEST_DIR, false, NULL)) < 0)
			return dst;
		src = dst;
	} else {
		if (!m->source)
			return error_set(c->err, EINVAL, "mount bind on %s: no source", m->destination);
		if ((src = bind_source(c, m, p, idmapped, host_clone, early)) < 0)
			return error_sys(c->err, errno, "mount bind %s on %s", m->source, m->destination);
		if (fstat(src, &st) < 0) {
			r = fail(c, m, -errno, "stat source");
			close(src);
			return r;
		}
		if ((dst = dest_open(c, m, rootfs_dest_kind_for(m, st.st_mode), true, NULL)) < 0) {
			close(src);
			return dst;
		}
	}
	if (c->o->userns && p->exact)
		r = bind_flags_locked(c, m, src, &q);
	/* the top mount's flags first, then the r* options over the tree (runc's order) */
	if (r < 0)
		;
	else if ((r = rootfs_setattr_fd(src, 0, &q.top)) < 0 || (r = rootfs_setattr_fd(src, AT_RECURSIVE, &q.rec)) < 0)
		r = fail(c, m, r, "mount_setattr");
	else if (!p->remount &&
		 move_mount(src, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = fail(c, m, -errno, "move_mount");
	if (src != dst)
		close(src);
	close(dst);
	return r;
}

/* A cloned tree (src, closed here) onto dst with the entry's per-mount flags. */
static int tree_onto(struct rootfs_ctx *c, const struct oci_mount *m, int src, unsigned setattr_flags,
		     unsigned long flags, int dst)
{
	struct mount_attr a = { 0 };
	int r;

	rootfs_ms_to_attr(flags & MS_PERMOUNT, 0, &a);
	if ((r = rootfs_setattr_fd(src, setattr_flags, &a)) < 0)
		r = fail(c, m, r, "mount_setattr");
	else if (move_mount(src, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = fail(c, m, -errno, "move_mount");
	close(src);
	return r;
}

/* Without a network namespace of our own, sysfs shows the host's devices:
 * always read-only (runc does the same); where a new sysfs cannot be mounted
 * (user namespace), the host's /sys is bound recursively, read-only. The
 * same where a network namespace joined by path belongs to another user
 * namespace than the container's (sysfs needs CAP_SYS_ADMIN over the netns's
 * owner: EPERM), as crun does (sysfs_userns_fallback). */
static int sysfs_host_bind(struct rootfs_ctx *c, const struct oci_mount *m, int dst, unsigned long flags)
{
	int src = open_tree(AT_FDCWD, "/sys", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (src < 0)
		return fail(c, m, -errno, "bind /sys");
	return tree_onto(c, m, src, AT_RECURSIVE, flags, dst);
}

static bool is_mount_root(int fd)
{
	struct statx stx;

	return statx(fd, "", AT_EMPTY_PATH, 0, &stx) == 0 && (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* mount(2) refuses a filesystem on the root of a mount of its own superblock
 * (EBUSY): a second mqueue on /dev/mqueue (one superblock an ipc namespace),
 * sysfs on sysfs (one a network namespace); only those keyed ones, and only
 * on a mount's root, are taken for that. That mount is the same thing: it
 * goes on top again with this entry's flags, as move_mount allows (crun). */
static int same_fs_again(struct rootfs_ctx *c, const struct oci_mount *m, int dst, unsigned long flags)
{
	int src = open_tree(dst, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

	if (src < 0)
		return fail(c, m, -errno, "mount");
	return tree_onto(c, m, src, 0, flags, dst);
}

/* linux.mountLabel: with SELinux, new filesystems get context="label" (as
 * runc does for the filesystems that take it); without, the data as given. */
static const char *fs_data(struct rootfs_ctx *c, const struct oci_mount *m, char *buf, size_t size)
{
	const char *label = c->cfg->linux_.mount_label;

	if (!label || !*label || !c->o->selinux || type_is(m, "proc") || type_is(m, "sysfs") ||
	    type_is(m, "mqueue"))
		return m->data;
	if ((size_t)snprintf(buf, size, "%s%scontext=\"%s\"", m->data ? m->data : "", m->data ? "," : "",
			     label) >= size)
		return m->data;
	return buf;
}

/* The root of a new tmpfs, as runc: on a directory the image already had it
 * takes that directory's mode (a mode= added to the data, so the mount
 * table says it too: tmpfs_data) and with tmpcopyup its owner too; on a
 * directory the runtime made it keeps the kernel's 1777. mode=/uid=/gid=
 * in the data win (runc 1.1 chmods over mode= too). */
static const char *tmpfs_data(const struct oci_mount *m, const char *data, const struct stat *under,
			      char *buf, size_t size)
{
	if (util_data_has(m->data, "mode="))
		return data;
	snprintf(buf, size, "%s%smode=%o", data ? data : "", data && *data ? "," : "",
		 (unsigned)(under->st_mode & 07777));
	return buf;
}

static int tmpfs_root(const struct oci_mount *m, int top, const struct stat *under)
{
	if (m->tmpcopyup && !util_data_has(m->data, "uid=") && !util_data_has(m->data, "gid=") &&
	    fchown(top, under->st_uid, under->st_gid) < 0)
		return -errno;
	return 0;
}

static int new_fs_entry(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p)
{
	char data[4096], with_mode[4096 + 16];
	const char *d;
	unsigned long flags = p->ms_flags;
	char path[FD_PATH_MAX];
	int dst, under = -1, top = -1, r = 0;
	bool host_sysfs = false, existed = false, created = true;
	struct stat under_st;

	if ((dst = dest_open(c, m, DEST_DIR, !p->remount, &created)) < 0)
		return dst;
	/* a tmpfs on a directory the image had (not one made just now) */
	if (type_is(m, "tmpfs") && !p->remount && !created)
		existed = fstat(dst, &under_st) == 0 && S_ISDIR(under_st.st_mode);
	if (type_is(m, "cgroup") || type_is(m, "cgroup2")) {
		r = rootfs_mount_cgroup(c, m, p, dst);
		close(dst);
		return r;
	}
	if (type_is(m, "sysfs") && !c->o->new_netns)
		flags |= MS_RDONLY;
	if (m->tmpcopyup && (under = openat(dst, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = fail(c, m, -errno, "tmpcopyup: open");
		goto out;
	}
	d = fs_data(c, m, data, sizeof(data));
	if (existed)
		d = tmpfs_data(m, d, &under_st, with_mode, sizeof(with_mode));
	if (fs_without_paths(m))
		r = rootfs_mount_fs_on(c, m->source ? m->source : m->type, dst, m->type, flags, d);
	else
		r = mount(m->source ? m->source : m->type, rootfs_fd_path(path, dst), m->type, flags, d) < 0 ? -errno : 0;
	if (r < 0) {
		if (r == -EPERM && type_is(m, "sysfs") && (!c->o->new_netns || (c->o->joined_netns && c->o->userns))) {
			host_sysfs = true;
			r = sysfs_host_bind(c, m, dst, flags | MS_RDONLY);
		} else if (r == -EBUSY && !(flags & MS_REMOUNT) && (type_is(m, "mqueue") || type_is(m, "sysfs")) &&
			   is_mount_root(dst)) {
			r = same_fs_again(c, m, dst, flags);
		} else {
			r = fail(c, m, r, "mount");
		}
		if (r < 0)
			goto out;
	}
	/* the root of the new mount itself: its copy, its owner (tmpfs_root:
	 * tmpcopyup only; the mode came with the data), its propagation */
	if (!m->tmpcopyup && !p->top.propagation)
		goto out;
	top = rootfs_open_in_root_flags(c->root_fd, m->destination, O_RDONLY | O_DIRECTORY, false);
	if (top < 0) {
		r = fail(c, m, top, "reopen");
		goto out;
	}
	if (existed && (r = tmpfs_root(m, top, &under_st)) < 0)
		r = fail(c, m, r, "mode of the tmpfs root");
	else if (m->tmpcopyup && !host_sysfs && (r = rootfs_copy_tree(under, top, 0)) < 0)
		r = fail(c, m, r, "tmpcopyup");
	else if ((r = rootfs_setattr_fd(top, 0, &p->top)) < 0)
		r = fail(c, m, r, "propagation");
out:
	if (under >= 0)
		close(under);
	if (top >= 0)
		close(top);
	close(dst);
	return r;
}

/* An idmapped entry the runtime left to us (rootfs_idmap_deferred): the
 * source cloned as this namespace shows it now, mapped by the runtime. */
static int idmap_entry_here(struct rootfs_ctx *c, const struct oci_mount *m, const struct mount_plan *p, size_t i)
{
	int tree, r;

	if (!m->source)
		return error_set(c->err, EINVAL, "mount bind on %s: no source", m->destination);
	if (!c->o->idmap_request)
		return error_set(c->err, EINVAL, "mount %s on %s: idmap: no idmapped tree", m->source, m->destination);
	if ((tree = bind_source(c, m, p, -1, c->o->mount_fds ? c->o->mount_fds[c->cfg->n_mounts + i] : -1, -1)) < 0)
		return error_sys(c->err, errno, "mount bind %s on %s", m->source, m->destination);
	if ((r = c->o->idmap_request(c->o->idmap_ud, i, tree, c->err)) == 0)
		r = bind_entry(c, m, p, tree, -1, -1);
	close(tree);
	return r;
}

int rootfs_mount_entry(struct rootfs_ctx *c, size_t i)
{
	const struct oci_mount *m = &c->cfg->mounts[i];
	const int *fds = c->o->mount_fds;
	struct mount_plan p;
	int r;

	rootfs_mount_plan_make(m, &p);
	fresh_before(c, m);
	/* only a path-free filesystem is mounted with the cwd elsewhere */
	if (!(!p.bind && (fs_without_paths(m) || type_is(m, "cgroup") || type_is(m, "cgroup2"))) &&
	    (r = rootfs_cwd_back(c)) < 0)
		return error_sys(c->err, -r, "chdir back to the bundle");
	if (!p.bind)
		r = new_fs_entry(c, m, &p);
	else if (!p.remount && rootfs_wants_idmap(m) && (!fds || fds[i] < 0))
		r = idmap_entry_here(c, m, &p, i);
	else
		r = bind_entry(c, m, &p, fds ? fds[i] : -1, fds ? fds[c->cfg->n_mounts + i] : -1,
			       c->src_fds ? c->src_fds[i] : -1);
	if (r == 0)
		fresh_after(c, m, &p);
	return r;
}

/* tmpfs (and /dev) asked read-only became read-only only now, after the
 * mounts and device nodes below them were made (runc does the same). */
int rootfs_mount_deferred_ro(struct rootfs_ctx *c)
{
	const struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	for (size_t i = 0; i < c->cfg->n_mounts; i++) {
		const struct oci_mount *m = &c->cfg->mounts[i];
		struct mount_plan p;
		int fd, r;

		rootfs_mount_plan_make(m, &p);
		if (!p.defer_ro)
			continue;
		fd = rootfs_open_in_root_flags(c->root_fd, m->destination, O_PATH, false);
		if (fd < 0)
			return fail(c, m, fd, "reopen");
		r = rootfs_setattr_fd(fd, 0, &ro);
		close(fd);
		if (r < 0)
			return fail(c, m, r, "read-only");
	}
	return 0;
}
