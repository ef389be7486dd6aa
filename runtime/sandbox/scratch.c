/* runtime/sandbox/scratch.h: per-container upper/work of a "/" overlay. */
#include "runtime/sandbox/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/sandbox/tinyaws.h"

#define RECORD "scratch"
#define MAX_DEPTH 64    /* deeper subtrees are moved up to the top and removed from there */

static int open_nofollow_path(const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/* mkdir (existing is fine) and open one component, refusing a symlink */
static int step(int dir, const char *name, mode_t mode)
{
	int fd;

	if (mkdirat(dir, name, mode) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* <bundle>/<scratch>: every component made or opened without following links */
static int open_scratch_parent(const char *bundle, const char *scratch)
{
	char comp[257];
	int dir = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		return -errno;
	for (const char *p = scratch; *p;) {
		size_t n = strcspn(p, "/");
		int next;

		snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
		next = step(dir, comp, 0700);
		close(dir);
		if (next < 0)
			return next;
		dir = next;
		p += n + (p[n] == '/');
	}
	return dir;
}

static int write_record(int statedir_fd, const char *path)
{
	int fd = openat(statedir_fd, RECORD, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t n = strlen(path);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, path, n) != (ssize_t)n)
		r = -EIO;
	close(fd);
	return r;
}

int scratch_create(int statedir_fd, const struct oci_config *cfg, const char *bundle, const char *id,
		   char *data, size_t size, struct error *err)
{
	const char *base = cfg->mounts[0].data;
	char path[4096];
	int parent, dir = -1, r;

	for (const char *p = bundle; *p; p++)
		if (!oci_overlay_path_char_ok(*p) && *p != '=')
			return error_set(err, EINVAL, "bundle %s: a path the overlay options of %s cannot hold",
					 bundle, OCI_ANNOTATION_SCRATCH);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", bundle, cfg->tinyrun_scratch, id) >= sizeof(path) ||
	    (size_t)snprintf(data, size, "%s,upperdir=%s/upper,workdir=%s/work", base, path, path) >= size)
		return error_set(err, ENAMETOOLONG, "%s: scratch path too long", OCI_ANNOTATION_SCRATCH);
	if ((parent = open_scratch_parent(bundle, cfg->tinyrun_scratch)) < 0)
		return error_sys(err, -parent, "%s: %s/%s", OCI_ANNOTATION_SCRATCH, bundle, cfg->tinyrun_scratch);
	/* recorded first: a crash from here on leaves something gc can find */
	if ((r = write_record(statedir_fd, path)) < 0) {
		close(parent);
		return error_sys(err, -r, "record the scratch in the state dir");
	}
	if (mkdirat(parent, id, 0700) < 0) {
		r = error_sys(err, errno, "%s: make %s", OCI_ANNOTATION_SCRATCH, path);
		unlinkat(statedir_fd, RECORD, 0);   /* not ours to remove if it existed */
		close(parent);
		return r;
	}
	if ((dir = openat(parent, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    mkdirat(dir, "upper", 0755) < 0 || mkdirat(dir, "work", 0700) < 0) {
		r = error_sys(err, errno, "%s: make %s", OCI_ANNOTATION_SCRATCH, path);
		if (dir >= 0)
			close(dir);
		close(parent);
		scratch_remove(statedir_fd, &(struct error){ 0 });
		return r;
	}
	close(dir);
	close(parent);
	return 0;
}

static int remove_tree(int dir, int top, int depth, unsigned *moved);

static int remove_entry(int dir, const char *name, int top, int depth, unsigned *moved)
{
	char up[32];
	int sub, r;

	if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	if (depth >= MAX_DEPTH) {   /* carry on from the top: fds and stack stay bounded */
		snprintf(up, sizeof(up), ".deep-%u", (*moved)++);
		return renameat(dir, name, top, up) < 0 ? -errno : 0;
	}
	if ((sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	r = remove_tree(sub, top, depth + 1, moved);
	close(sub);
	if (r == 0 && unlinkat(dir, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

static int remove_tree(int dir, int top, int depth, unsigned *moved)
{
	int again = 1, r = 0;

	while (again && r == 0) {   /* entries moved to the top while we read it: read again */
		int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *d = fd < 0 ? NULL : fdopendir(fd);
		struct dirent *e;

		if (!d) {
			if (fd >= 0)
				close(fd);
			return -errno;
		}
		again = 0;
		while (r == 0 && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			r = remove_entry(dir, e->d_name, top, depth, moved);
			again = 1;
		}
		closedir(d);
	}
	return r;
}

int scratch_remove(int statedir_fd, struct error *err)
{
	char path[4097], *slash;
	unsigned moved = 0;
	int fd, parent, dir, r;
	ssize_t n;

	if ((fd = openat(statedir_fd, RECORD, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : error_sys(err, errno, "read the scratch record");
	n = read(fd, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0 || path[0] != '/')
		return error_set(err, EINVAL, "the scratch record is not a path");
	path[n] = '\0';
	slash = strrchr(path, '/');
	*slash = '\0';
	parent = open_nofollow_path(path[0] ? path : "/", O_RDONLY | O_DIRECTORY);
	if (parent == -ENOENT)
		goto done;   /* the bundle is gone, and the scratch with it */
	if (parent < 0)
		return error_sys(err, -parent, "scratch %s", path);
	dir = openat(parent, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 && errno != ENOENT) {
		r = error_sys(err, errno, "scratch %s/%s", path, slash + 1);
		close(parent);
		return r;
	}
	r = dir < 0 ? 0 : remove_tree(dir, dir, 0, &moved);
	if (dir >= 0)
		close(dir);
	if (r == 0 && unlinkat(parent, slash + 1, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	close(parent);
	if (r < 0)
		return error_sys(err, -r, "remove the scratch %s/%s", path, slash + 1);
done:
	unlinkat(statedir_fd, RECORD, 0);
	return 0;
}
