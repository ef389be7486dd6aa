/* Idmapped bind mounts (mounts[].uidMappings/gidMappings, "idmap", "ridmap").
 * Runs in the runtime, in the host's user namespace, before the container
 * child is cloned: mount_setattr(MOUNT_ATTR_IDMAP) on a host filesystem needs
 * CAP_SYS_ADMIN where that filesystem was mounted. The result is a detached
 * tree per entry; the child only moves it into place (rootfs_opts.mount_fds,
 * hostfds.c). Relative sources are relative to dirfd, the bundle.
 * A source inside the rootfs names what earlier entries mounted there: that
 * tree is cloned by the child when its turn comes and mapped here on its
 * request (rootfs_idmap_apply), as runc's mount-source thread does. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rootfs/internal.h"

bool rootfs_wants_idmap(const struct oci_mount *m)
{
	return m->idmap || m->ridmap || m->n_uid_mappings || m->n_gid_mappings;
}

static int write_map(pid_t pid, const char *file, const struct oci_idmap *m, size_t n)
{
	char path[64], buf[4096];
	size_t len = 0;
	int fd, r = 0;

	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + len, sizeof(buf) - len, "%u %u %u\n",
				 m[i].container_id, m[i].host_id, m[i].size);

		if (w < 0 || (size_t)w >= sizeof(buf) - len)
			return -E2BIG;
		len += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, buf, len) != (ssize_t)len)
		r = -errno;
	close(fd);
	return r;
}

/* A user namespace holding the mapping: a child born in it waits on a pipe
 * while we write its maps and keep a reference to the namespace. */
static int userns_with(const struct oci_idmap *u, size_t nu, const struct oci_idmap *g, size_t ng)
{
	char path[64];
	int p[2], fd = -1, r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		char c;

		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	r = pid < 0 ? -errno : 0;
	close(p[0]);
	if (r == 0 && (r = write_map(pid, "uid_map", u, nu)) == 0 && (r = write_map(pid, "gid_map", g, ng)) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			r = -errno;
	}
	close(p[1]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return r < 0 ? r : fd;
}

/* The user namespace holding the entry's mapping, in *userns (entries with
 * the same mappings share one; *userns_of remembers whose it is). */
static int userns_for(const struct oci_config *cfg, const struct oci_mount *m, int *userns,
		      const struct oci_mount **userns_of, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	const struct oci_idmap *u = m->n_uid_mappings ? m->uid_mappings : l->uid_mappings;
	const struct oci_idmap *g = m->n_gid_mappings ? m->gid_mappings : l->gid_mappings;
	size_t nu = m->n_uid_mappings ? m->n_uid_mappings : l->n_uid_mappings;
	size_t ng = m->n_gid_mappings ? m->n_gid_mappings : l->n_gid_mappings;

	if (!(m->is_bind || (m->flags & MS_BIND)) || !m->source)
		return error_set(err, EINVAL, "mount on %s: idmapped mounts need a bind mount with a source",
				 m->destination);
	if ((!nu || !ng) && !m->n_uid_mappings && !m->n_gid_mappings && l->ns[OCI_NS_USER].path) {
		/* the container joins a user namespace: its mappings are that one's */
		if (*userns >= 0)
			close(*userns);
		*userns_of = NULL;
		if ((*userns = open(l->ns[OCI_NS_USER].path, O_RDONLY | O_CLOEXEC)) < 0)
			return error_sys(err, errno, "mount on %s: idmap: user namespace %s", m->destination,
					 l->ns[OCI_NS_USER].path);
	} else if (!nu || !ng) {
		return error_set(err, EINVAL, "mount on %s: idmap needs uidMappings and gidMappings "
				 "(of the mount or of linux)", m->destination);
	} else if (*userns < 0 || !*userns_of || (*userns_of)->uid_mappings != m->uid_mappings ||
		   (*userns_of)->gid_mappings != m->gid_mappings) {
		if (*userns >= 0)
			close(*userns);
		if ((*userns = userns_with(u, nu, g, ng)) < 0)
			return error_sys(err, -*userns, "mount on %s: user namespace for the idmap", m->destination);
		*userns_of = m;
	}
	return 0;
}

/* MOUNT_ATTR_IDMAP on a detached tree; only ridmap maps the submounts too:
 * mappings without either option are idmap's (runc; an rbind still binds
 * the submounts, unmapped). */
static int idmap_set(const struct oci_mount *m, int tree, int userns, struct error *err)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)userns };
	int e;

	if (mount_setattr(tree, "", AT_EMPTY_PATH | (m->ridmap ? AT_RECURSIVE : 0), &a, sizeof(a)) == 0)
		return 0;
	e = errno;
	if (e == EINVAL || e == EOPNOTSUPP)
		return error_set(err, e, "mount %s on %s: the filesystem of %s cannot be idmapped",
				 m->source, m->destination, m->source);
	return error_sys(err, e, "mount %s on %s: idmap", m->source, m->destination);
}

/* The source as the host shows it; one inside the rootfs (given relative to
 * the bundle: deferred ones are absolute) below the rootfs, never through a
 * symlink of the image to the host (rootfs_host_path_inside). */
static int source_tree(const struct oci_mount *m, int dirfd, const char *rootfs, const char *base)
{
	unsigned clone = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | ((m->flags & MS_REC) ? AT_RECURSIVE : 0);
	char in[PATH_MAX];
	const char *rel = rootfs ? rootfs_host_path_inside(rootfs, base, m->source, in) : NULL;
	int root, tree, e;

	if (!rel)
		return open_tree(dirfd, m->source, clone);
	if ((root = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	tree = rootfs_tree_in_root(root, rel, clone);
	e = errno;
	close(root);
	errno = e;
	return tree;
}

static int idmap_tree(const struct oci_config *cfg, const struct oci_mount *m, int dirfd, const char *rootfs,
		      const char *base, int *userns, const struct oci_mount **userns_of, struct error *err)
{
	int tree, r;

	if ((r = userns_for(cfg, m, userns, userns_of, err)) < 0)
		return r;
	if ((tree = source_tree(m, dirfd, rootfs, base)) < 0)
		return error_sys(err, errno, "mount %s on %s", m->source, m->destination);
	if ((r = idmap_set(m, tree, *userns, err)) < 0) {
		close(tree);
		return r;
	}
	return tree;
}

bool rootfs_idmap_deferred(const struct oci_mount *m, const char *rootfs)
{
	char in[PATH_MAX];

	return rootfs_wants_idmap(m) && m->source && m->source[0] == '/' &&
	       rootfs_host_path_inside(rootfs, NULL, m->source, in);
}

int rootfs_idmap_apply(const struct oci_config *cfg, size_t i, int tree, struct error *err)
{
	const struct oci_mount *userns_of = NULL;
	int userns = -1, r;

	if (i >= cfg->n_mounts || !rootfs_wants_idmap(&cfg->mounts[i]))
		return error_set(err, EPROTO, "internal: idmap request for mounts[%zu]", i);
	if ((r = userns_for(cfg, &cfg->mounts[i], &userns, &userns_of, err)) == 0)
		r = idmap_set(&cfg->mounts[i], tree, userns, err);
	if (userns >= 0)
		close(userns);
	return r;
}

int rootfs_idmap_trees_open(const struct oci_config *cfg, int dirfd, const char *rootfs, const char *base,
			    int *fds, struct error *err)
{
	const struct oci_mount *userns_of = NULL;
	int userns = -1, r = 0;

	for (size_t i = 0; i < cfg->n_mounts; i++)
		fds[i] = -1;
	for (size_t i = 0; r == 0 && i < cfg->n_mounts; i++) {
		if (!rootfs_wants_idmap(&cfg->mounts[i]) || (rootfs && rootfs_idmap_deferred(&cfg->mounts[i], rootfs)))
			continue;
		if ((r = idmap_tree(cfg, &cfg->mounts[i], dirfd, rootfs, base, &userns, &userns_of, err)) >= 0)
			fds[i] = r, r = 0;
	}
	if (userns >= 0)
		close(userns);
	return r;
}
