/* Mount trees the runtime makes before cloning the child, with the host's
 * credentials (rootfs_mount_fds_open):
 *   - idmapped binds (idmap.c): the child must use these;
 *   - with a user namespace, each bind source the container's root cannot
 *     reach (a 0700 host directory on the way, as kubelet and podman
 *     volumes have; unreachable() checks the mode bits), opened O_PATH. The
 *     child still binds by path first, so the kernel locks the flags the
 *     host mount has (ro, nosuid, nodev, noexec, atime) as it does for any
 *     mount copied into a user namespace. Only where the path is refused
 *     (EACCES/EPERM) it clones the source from an fd the runtime gives it
 *     once its mount namespace exists (rootfs_bind_sources_reopen): the
 *     same path opened through the child's root, so naming the child's
 *     locked copy of the mount (runc does its open_tree in the container's
 *     mount namespace for the same reason). A clone the runtime made here,
 *     in its own namespace, would have nothing locked: the container's root
 *     could remount a read-only host volume writable.
 * Layout: 2 * n_mounts ints, [0, n) idmapped trees, [n, 2n) bind sources,
 * -1 where there is none. They stay within half of RLIMIT_NOFILE; past
 * that, entries bind by path only. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"

static bool clonable_bind(const struct oci_mount *m)
{
	return (m->is_bind || (m->flags & MS_BIND)) && !(m->flags & MS_REMOUNT) && m->source;
}

static bool id_mapped(const struct oci_idmap *m, size_t n, uint32_t host)
{
	for (size_t i = 0; i < n; i++)
		if (host >= m[i].host_id && host - m[i].host_id < m[i].size)
			return true;
	return false;
}

static int64_t host_of_root(const struct oci_idmap *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].container_id == 0 && m[i].size)
			return m[i].host_id;
	return -1;
}

/* Can the container's root (root of its user namespace, no supplementary
 * groups counted) search this directory? It bypasses permissions on inodes
 * whose owner and group are both mapped; otherwise the mode bits decide. */
static bool searchable(const struct oci_linux *l, const struct stat *st)
{
	if (id_mapped(l->uid_mappings, l->n_uid_mappings, st->st_uid) &&
	    id_mapped(l->gid_mappings, l->n_gid_mappings, st->st_gid))
		return true;
	if (st->st_uid == host_of_root(l->uid_mappings, l->n_uid_mappings))
		return st->st_mode & S_IXUSR;
	if (st->st_gid == host_of_root(l->gid_mappings, l->n_gid_mappings))
		return st->st_mode & S_IXGRP;
	return st->st_mode & S_IXOTH;
}

/* Does the path to this source (its directories, not the source itself)
 * refuse the container's root? Only then is a host-side clone worth its
 * cost (an unused detached tree costs an RCU grace period to destroy). A
 * wrong "no" is harmless: the child's bind by path fails as before. */
static bool unreachable(const struct oci_linux *l, int dirfd, const char *source)
{
	char path[PATH_MAX], fdp[FD_PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, source, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return false;   /* missing: the child reports it */
	n = readlink(rootfs_fd_path(fdp, fd), path, sizeof(path) - 1);
	close(fd);
	if (n <= 0 || path[0] != '/')
		return true;
	path[n] = '\0';
	/* each parent directory, from the source's up to "/" */
	for (;;) {
		char *slash = strrchr(path, '/');

		slash[slash == path ? 1 : 0] = '\0';
		if (stat(path, &st) < 0 || !searchable(l, &st))
			return true;
		if (slash == path)
			return false;
	}
}

static size_t fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 512;
	return rl.rlim_cur > 128 ? (size_t)(rl.rlim_cur - 64) / 2 : 0;
}

/* A source that cannot be opened here (missing yet) gets no fd: the child's
 * path-based bind reports the error as usual. */
static void bind_clones_open(const struct oci_config *cfg, int dirfd, const char *rootfs, const char *base,
			     int *fds)
{
	size_t budget = fd_budget();
	char in[PATH_MAX];

	for (size_t i = 0; i < cfg->n_mounts && budget; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		/* a source inside the rootfs is the child's to resolve, below it */
		if (!clonable_bind(m) || (rootfs && rootfs_host_path_inside(rootfs, base, m->source, in)) ||
		    !unreachable(&cfg->linux_, dirfd, m->source))
			continue;
		fds[i] = openat(dirfd, m->source, O_PATH | O_CLOEXEC);
		if (fds[i] >= 0)
			budget--;
		else if (errno == EMFILE)
			break;
	}
}

static bool wants_fds(const struct oci_config *cfg, bool userns)
{
	for (size_t i = 0; i < cfg->n_mounts; i++)
		if (rootfs_wants_idmap(&cfg->mounts[i]) || (userns && clonable_bind(&cfg->mounts[i])))
			return true;
	return false;
}

int rootfs_mount_fds_open(const struct oci_config *cfg, const char *bundle, const char *rootfs, bool userns,
			  int **out, struct error *err)
{
	size_t n = cfg->n_mounts;
	char base[PATH_MAX], fdp[FD_PATH_MAX];
	int *fds, dirfd, r;
	ssize_t len;

	*out = NULL;
	if (!wants_fds(cfg, userns))
		return 0;
	if (!(fds = malloc(2 * n * sizeof(int))))
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < 2 * n; i++)
		fds[i] = -1;
	/* relative sources are relative to the bundle */
	if ((dirfd = open(bundle ? bundle : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		dirfd = AT_FDCWD;
	/* the bundle's real path, for sources inside the rootfs given relative */
	len = dirfd >= 0 ? readlink(rootfs_fd_path(fdp, dirfd), base, sizeof(base) - 1) : -1;
	if (len > 0)
		base[len] = '\0';
	/* with a user namespace every idmapped tree is the child's clone, mapped
	 * by the runtime (SYNC_IDMAP): one made here would have no flag locked */
	r = userns ? 0 : rootfs_idmap_trees_open(cfg, dirfd, rootfs, len > 0 ? base : NULL, fds, err);
	if (r == 0 && userns)
		bind_clones_open(cfg, dirfd, rootfs, len > 0 ? base : NULL, fds + n);
	if (dirfd >= 0)
		close(dirfd);
	if (r < 0) {
		rootfs_mount_fds_close(fds, n);
		return r;
	}
	*out = fds;
	return 0;
}

void rootfs_bind_sources_reopen(int *fds, size_t n_mounts, int root)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS };
	char path[PATH_MAX], fdp[FD_PATH_MAX];
	ssize_t len;

	for (size_t i = n_mounts; i < 2 * n_mounts; i++) {
		if (fds[i] < 0)
			continue;
		/* the source's real path (no links left) on the host ... */
		len = readlink(rootfs_fd_path(fdp, fds[i]), path, sizeof(path) - 1);
		close(fds[i]);
		fds[i] = -1;
		if (len <= 0 || path[0] != '/')
			continue;
		path[len] = '\0';
		/* ... is the same path below the child's root, in its mounts */
		fds[i] = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	}
}

void rootfs_mount_fds_close(int *fds, size_t n_mounts)
{
	if (!fds)
		return;
	for (size_t i = 0; i < 2 * n_mounts; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}
