/* restore's mount points: before CRIU restores a container into its rootfs,
 * each mount's destination is made there when missing, as runc does
 * (prepareCriuRestoreMounts): CRIU mounts on them but does not make them,
 * and a fresh copy of the image lacks what `run` made. Resolved inside the
 * rootfs (resolve.c): a symlink of the image never leads out of it. Skipped,
 * as runc: cgroup mounts (their mount point comes with /sys or is saved)
 * and destinations below a tmpfs (CRIU restores the tmpfs and its contents). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/internal.h"

static bool has_type(const struct oci_mount *m, const char *t)
{
	return m->type && strcmp(m->type, t) == 0;
}

/* runc's isOnTmpfs: dest lies below (lexically) a tmpfs mount's destination */
static bool below_tmpfs(const struct oci_config *cfg, const char *dest)
{
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const char *t = cfg->mounts[i].destination;
		size_t n = strlen(t);

		while (n > 0 && t[n - 1] == '/')
			n--;
		if (has_type(&cfg->mounts[i], "tmpfs") && strncmp(dest, t, n) == 0 && dest[n] == '/')
			return true;
	}
	return false;
}

/* a bind of a file needs a file: the source's type (relative: to bundle) */
static enum dest_kind kind_of(const struct oci_mount *m, const char *bundle)
{
	char path[PATH_MAX];
	struct stat st;

	if (!m->source || !(m->is_bind || (m->flags & MS_BIND)))
		return DEST_DIR;
	if (m->source[0] == '/' || !bundle)
		snprintf(path, sizeof(path), "%s", m->source);
	else
		snprintf(path, sizeof(path), "%s/%s", bundle, m->source);
	return stat(path, &st) == 0 ? rootfs_dest_kind_for(m, st.st_mode) : DEST_DIR;
}

int rootfs_restore_mountpoints(const struct oci_config *cfg, const char *rootfs, const char *bundle,
			       struct error *err)
{
	int root_fd, fd;

	if ((root_fd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "restore: rootfs %s", rootfs);
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		if (has_type(m, "cgroup") || has_type(m, "cgroup2") || below_tmpfs(cfg, m->destination))
			continue;
		fd = rootfs_open_or_create(root_fd, m->destination, kind_of(m, bundle), rootfs_dest_is_guarded(m));
		if (fd < 0) {
			close(root_fd);
			return error_set(err, -fd, "restore: mount point %s in %s: %s", m->destination, rootfs,
					 strerror(-fd));
		}
		close(fd);
	}
	close(root_fd);
	return 0;
}
