/* rootfs_prepare: from "child in a new mount namespace" to "every mount and
 * device in place under <rootfs>", nothing visible to the host. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"

/* runc's rootfsParentMountPrivate: with shared propagation asked for, the
 * mount holding the rootfs must be private, or our bind of the rootfs would
 * show up in the host's namespace (and pivot_root would refuse it). */
static int parent_mount_private(const char *rootfs, struct error *err)
{
	char path[PATH_MAX];
	size_t n = strlen(rootfs);

	if (n >= sizeof(path))
		return error_set(err, ENAMETOOLONG, "root.path: too long");
	memcpy(path, rootfs, n + 1);
	for (;;) {
		char *slash;

		if (mount(NULL, path, NULL, MS_PRIVATE, NULL) == 0)
			return 0;
		if (errno != EINVAL || strcmp(path, "/") == 0)
			return error_sys(err, errno, "make the mount of %s private", path);
		slash = strrchr(path, '/');
		slash[slash == path ? 1 : 0] = '\0';
	}
}

/* linux.rootfsPropagation, default rslave like runc: host mounts still
 * reach the container, nothing the container mounts reaches the host.
 * A non-recursive mode changes "/" alone, so its submounts are made slaves
 * first; but shared keeps them peers of the host's, as runc does (an
 * rshared volume then propagates both ways, as with rshared).
 * (r)unbindable is (r)private here: the rootfs must still be bound below
 * "/" (EINVAL from an unbindable mount); the new "/" gets it after the
 * switch (pivot.c), which is what the process sees. */
static int set_propagation(const struct oci_config *cfg, const char *rootfs, struct error *err)
{
	unsigned long prop = rootfs_propagation_ms(cfg->linux_.rootfs_propagation);

	if (prop & MS_UNBINDABLE)
		prop = MS_PRIVATE | (prop & MS_REC);

	if (!(prop & (MS_REC | MS_SHARED)) && mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return error_sys(err, errno, "make / rslave");
	if (prop && mount(NULL, "/", NULL, prop, NULL) < 0)
		return error_sys(err, errno, "linux.rootfsPropagation");
	if (prop & MS_SHARED)
		return parent_mount_private(rootfs, err);
	return 0;
}

/* Relative bind sources name files of the bundle (our cwd) as they are
 * before any mounts[] entry is made, as runc resolves them against the
 * bundle first: opened here (O_PATH), so an earlier entry mounted over a
 * path inside the bundle (the rootfs) cannot change what a later source
 * names. One inside the rootfs ("rootfs/data") is the image's, resolved
 * below the rootfs (rootfs_host_path_inside). Where one outside cannot be
 * opened (missing, unreachable, out of fds) the entry binds by path as
 * before and reports its own error; one inside that cannot be opened there
 * is never bound by its host path (that would follow the image's links out
 * of the rootfs): its entry fails with this open's error
 * (ROOTFS_SRC_FAILED). */
static int open_relative(const struct rootfs_opts *o, const char *cwd, const char *source, int *root_fd)
{
	char in[PATH_MAX];
	const char *rel = cwd ? rootfs_host_path_inside(o->rootfs, cwd, source, in) : NULL;

	if (!rel)
		return open(source, O_PATH | O_CLOEXEC);
	if (*root_fd < 0 && (*root_fd = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	return rootfs_open_in_root(*root_fd, rel, O_PATH, 0);
}

/* -1 (bind by path when the entry is mounted), or for a source inside the
 * rootfs ROOTFS_SRC_FAILED(e): the entry fails with e. */
static int relative_failed(const struct rootfs_opts *o, const char *cwd, const char *source, int e)
{
	char in[PATH_MAX];

	if (!cwd || !rootfs_host_path_inside(o->rootfs, cwd, source, in))
		return -1;
	return ROOTFS_SRC_FAILED(e > 0 ? e : EIO);
}

static int *open_relative_sources(const struct oci_config *cfg, const struct rootfs_opts *o)
{
	char cwd[PATH_MAX];
	bool has_cwd = false, cwd_asked = false;
	struct rlimit rl;
	size_t budget = 512;
	int *fds = NULL, root_fd = -1;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		budget = rl.rlim_cur > 128 ? (size_t)(rl.rlim_cur - 64) / 2 : 0;  /* the rest for the mounts */
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];

		if (!(m->is_bind || (m->flags & MS_BIND)) || (m->flags & MS_REMOUNT) || !m->source ||
		    m->source[0] == '/' || rootfs_wants_idmap(m) || !budget)
			continue;
		if (!fds) {
			if (!(fds = malloc(cfg->n_mounts * sizeof(int))))
				return NULL;
			for (size_t j = 0; j < cfg->n_mounts; j++)
				fds[j] = -1;
		}
		if (!cwd_asked) {
			cwd_asked = true;
			has_cwd = !rootfs_room_builds_root(cfg) && getcwd(cwd, sizeof(cwd));
		}
		if ((fds[i] = open_relative(o, has_cwd ? cwd : NULL, m->source, &root_fd)) >= 0)
			budget--;
		else
			fds[i] = relative_failed(o, has_cwd ? cwd : NULL, m->source, errno);
	}
	if (root_fd >= 0)
		close(root_fd);
	return fds;
}

/* mounts[0] onto "/" (oci/sandbox/config_tinyaws.c: an overlay): mounted over the
 * rootfs' self-bind, in our own mount namespace, then the root fd reopened
 * so that every later entry and pivot_root use the overlay. */
static int mount_root_entry(struct rootfs_ctx *c)
{
	const struct oci_mount *m = &c->cfg->mounts[0];
	const char *data = c->o->root_data ? c->o->root_data : m->data;
	struct mount_plan p;
	int fd;

	rootfs_mount_plan_make(m, &p);
	if (mount(m->source ? m->source : m->type, c->o->rootfs, m->type, p.ms_flags, data) < 0)
		return error_sys(c->err, errno, "mounts[0]: mount %s onto / (%s)", m->type, data ? data : "");
	if ((fd = open(c->o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(c->err, errno, "open the rootfs %s", c->o->rootfs);
	close(c->root_fd);
	c->root_fd = fd;
	return 0;
}

int rootfs_prepare(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err)
{
	struct rootfs_ctx c = { .cfg = cfg, .o = o, .root_fd = -1, .err = err, .fresh_fd = -1 };
	mode_t old_umask = umask(0);   /* device and directory modes exactly as asked */
	int r;

	c.src_fds = open_relative_sources(cfg, o);
	/* mounts go through the cwd (rootfs_mount_fs_on), which must come back
	 * here (the bundle: relative sources and data): only if it can */
	c.cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* without a user namespace the child is the host's root (CAP_DAC_OVERRIDE:
	 * search permission never fails it), so only a user namespace's child
	 * tries the way back first */
	if (c.cwd_fd >= 0 && o->userns && fchdir(c.cwd_fd) < 0) {
		close(c.cwd_fd);
		c.cwd_fd = -1;
	}
	if (c.cwd_fd < 0)
		c.cwd_fd = ROOTFS_NO_CWD;
	if ((r = set_propagation(cfg, o->rootfs, err)) < 0)
		goto out;
	if (rootfs_room_builds_root(cfg)) {
		/* the room's root is built, not bound (rootfs/sandbox/minimal.c) */
		if ((r = rootfs_minimal_build(&c)) < 0)
			goto out;
	} else if (mount(o->rootfs, o->rootfs, NULL, MS_BIND | MS_REC, NULL) < 0) {
		/* a mount of its own, so that pivot_root can move it */
		r = error_sys(err, errno, "bind the rootfs %s", o->rootfs);
		goto out;
	} else if ((c.root_fd = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = error_sys(err, errno, "open the rootfs %s", o->rootfs);
		goto out;
	}
	if (cfg->root_mount && (r = mount_root_entry(&c)) < 0)
		goto out;
	for (size_t i = cfg->root_mount ? 1 : 0; i < cfg->n_mounts; i++)
		if ((r = rootfs_mount_entry(&c, i)) < 0)
			goto out;
	if ((r = rootfs_cwd_back(&c)) < 0) {
		r = error_sys(err, -r, "chdir back to the bundle");
		goto out;
	}
	if ((!rootfs_room_builds_root(cfg) && (r = rootfs_setup_dev(&c)) < 0) || (r = rootfs_mount_deferred_ro(&c)) < 0)
		goto out;
out:
	rootfs_cwd_back(&c);
	if (c.fresh_fd >= 0)
		close(c.fresh_fd);
	if (c.cwd_fd >= 0)
		close(c.cwd_fd);
	if (c.root_fd >= 0)
		close(c.root_fd);
	for (size_t i = 0; c.src_fds && i < cfg->n_mounts; i++)
		if (c.src_fds[i] >= 0)
			close(c.src_fds[i]);
	free(c.src_fds);
	/* the runtime's trees: moved into place or unused, not needed past here */
	for (size_t i = 0; o->mount_fds && i < 2 * cfg->n_mounts; i++)
		if (o->mount_fds[i] >= 0)
			close(o->mount_fds[i]);
	umask(old_umask);
	return r;
}
