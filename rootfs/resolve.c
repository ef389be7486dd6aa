/* Paths inside the rootfs, never leaving it: openat2(RESOLVE_IN_ROOT), or a
 * component walk with the same semantics where the kernel lacks openat2. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"
#include "oci/util.h"

#define MAX_DEPTH 128
#define MAX_LINKS 40
#define OPENAT2_RETRIES 32

static int walk(int root_fd, const char *path, int flags, mode_t mode, bool no_links);
static int open_or_create_walk(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks, bool *created);

const char *rootfs_fd_path(char buf[FD_PATH_MAX], int fd)
{
	snprintf(buf, FD_PATH_MAX, "/proc/self/fd/%d", fd);
	return buf;
}

static int open_in(int root_fd, const char *path, int flags, mode_t mode, unsigned long long resolve)
{
	static bool no_openat2;
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve,
	};
	int fd;

	if (!no_openat2) {
		/* EAGAIN: a rename or a mount anywhere on the machine raced a walk
		 * through ".." (a busy host: other containers starting); the kernel
		 * asks to retry. Past the retries the component walk decides. */
		for (int tries = 0; tries < OPENAT2_RETRIES; tries++) {
			fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
			if (fd >= 0)
				return fd;
			if (errno != EAGAIN)
				break;
		}
		if (errno != ENOSYS && errno != EAGAIN)
			return -errno;
		if (errno == ENOSYS)
			no_openat2 = true;
	}
	return walk(root_fd, path, flags, mode, resolve & RESOLVE_NO_SYMLINKS);
}

int rootfs_open_in_root(int root_fd, const char *path, int flags, mode_t mode)
{
	return open_in(root_fd, path, flags, mode, 0);
}

int rootfs_open_in_root_flags(int root_fd, const char *path, int flags, bool no_symlinks)
{
	return open_in(root_fd, path, flags, 0, no_symlinks ? RESOLVE_NO_SYMLINKS : 0);
}

const char *rootfs_host_path_inside(const char *rootfs, const char *base, const char *path, char buf[PATH_MAX])
{
	char joined[2 * PATH_MAX + 2], clean[2 * PATH_MAX + 4];
	const char *in;

	if (!path || strlen(path) > PATH_MAX || (path[0] != '/' && (!base || strlen(base) > PATH_MAX)))
		return NULL;
	if (path[0] != '/') {
		snprintf(joined, sizeof(joined), "%s/%s", base, path);
		path = joined;
	}
	if (!util_path_may_be_in(rootfs, path))
		return NULL;
	util_path_clean(path, clean);
	if (!(in = util_path_in_root(rootfs, clean)) || strlen(in) >= PATH_MAX)
		return NULL;
	memcpy(buf, in, strlen(in) + 1);
	return buf;
}

int rootfs_tree_in_root(int root_fd, const char *rel, unsigned clone)
{
	int fd = rootfs_open_in_root(root_fd, rel, O_PATH, 0), tree, e;

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	tree = open_tree(fd, "", clone | AT_EMPTY_PATH);
	e = errno;
	close(fd);
	errno = e;
	return tree;
}

/* Splice a symlink target in front of what is left to walk. */
static int splice_link(char *rest, size_t restsz, const char *target, const char *after)
{
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s/%s", target, after);

	if (n < 0 || (size_t)n >= sizeof(tmp) || (size_t)n >= restsz)
		return -ENAMETOOLONG;
	memcpy(rest, tmp, (size_t)n + 1);
	return 0;
}

static void pop_to(int *stack, int *depth, int to)
{
	while (*depth > to)
		close(stack[(*depth)--]);
}

/* The fallback: one component at a time, O_NOFOLLOW; symlinks are read and
 * resolved with "/" meaning root_fd; ".." never goes above root_fd. */
static int walk(int root_fd, const char *path, int flags, mode_t mode, bool no_links)
{
	char rest[PATH_MAX], target[PATH_MAX];
	int stack[MAX_DEPTH + 1], depth = 0, links = 0, r = 0;
	bool nofollow = flags & O_NOFOLLOW;
	char *p;

	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	strcpy(rest, path);
	stack[0] = root_fd;
	p = rest;
	for (;;) {
		char *comp, *next;
		bool last;
		struct stat st;
		int fd;

		while (*p == '/')
			p++;
		if (!*p) {
			/* path was "/" (or ended in "." or ".."): open the directory itself */
			fd = openat(stack[depth], ".", (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC);
			r = fd < 0 ? -errno : fd;
			break;
		}
		comp = p;
		next = strchr(p, '/');
		if (next)
			*next++ = '\0';
		else
			next = p + strlen(p);
		while (*next == '/')
			next++;
		last = *next == '\0';
		p = next;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			pop_to(stack, &depth, depth ? depth - 1 : 0);
			continue;
		}
		fd = openat(stack[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT && last && (flags & O_CREAT)) {
				fd = openat(stack[depth], comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
				r = fd < 0 ? -errno : fd;
			} else {
				r = -errno;
			}
			break;
		}
		if (fstat(fd, &st) < 0) {
			r = -errno;
			close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode) && no_links) {
			close(fd);
			r = -ELOOP;
			break;
		}
		if (S_ISLNK(st.st_mode) && !(last && nofollow)) {
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);

			close(fd);
			if (n < 0 || ++links > MAX_LINKS) {
				r = n < 0 ? -errno : -ELOOP;
				break;
			}
			target[n] = '\0';
			if ((r = splice_link(rest, sizeof(rest), target, p)) < 0)
				break;
			p = rest;
			if (target[0] == '/')
				pop_to(stack, &depth, 0);
			continue;
		}
		if (last) {
			if ((flags & O_ACCMODE) == O_RDONLY && (flags & O_PATH) && !(flags & O_DIRECTORY)) {
				r = fd;
			} else {
				close(fd);
				fd = openat(stack[depth], comp, (flags & ~O_CREAT) | O_NOFOLLOW | O_CLOEXEC);
				r = fd < 0 ? -errno : fd;
			}
			break;
		}
		if (!S_ISDIR(st.st_mode) || depth == MAX_DEPTH) {
			close(fd);
			r = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
			break;
		}
		stack[++depth] = fd;
	}
	pop_to(stack, &depth, 0);
	return r;
}

int rootfs_walk_in_root(int root_fd, const char *path, int flags, mode_t mode)
{
	return walk(root_fd, path, flags, mode, false);
}

/* Create `name` in dir_fd as a directory or an empty file. */
static int create_at(int dir_fd, const char *name, enum dest_kind kind)
{
	int fd;

	if (kind == DEST_DIR)
		return mkdirat(dir_fd, name, 0755) < 0 && errno != EEXIST ? -errno : 0;
	fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 0;
}

/* runc's securejoin for a destination whose links lead nowhere yet: the
 * path, resolved component by component inside the root (".." stops at
 * "/", an absolute link target starts again at the root, a relative one at
 * the link's directory), the part that does not exist kept as written.
 * The result names no symlink: rootfs_open_or_create makes what is missing. */
static int secure_join(int root_fd, const char *path, char *out, size_t size)
{
	char rest[PATH_MAX], target[PATH_MAX];
	size_t len = 0;
	int links = 0;
	bool missing = false;

	if (strlen(path) >= sizeof(rest) || size < 2)
		return -ENAMETOOLONG;
	strcpy(rest, path);
	out[0] = '\0';
	for (char *p = rest; *p;) {
		char *comp = p + strspn(p, "/"), *end;
		size_t cl;
		struct stat st;
		int fd;

		if (!*comp)
			break;
		end = comp + strcspn(comp, "/");
		cl = (size_t)(end - comp);
		p = *end ? end + 1 : end;
		if (cl == 1 && comp[0] == '.')
			continue;
		if (cl == 2 && comp[0] == '.' && comp[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + cl >= size)
			return -ENAMETOOLONG;
		out[len] = '/';
		memcpy(out + len + 1, comp, cl);
		out[len + 1 + cl] = '\0';
		if (missing) {
			len += 1 + cl;
			continue;
		}
		fd = open_in(root_fd, out, O_PATH | O_NOFOLLOW, 0, RESOLVE_NO_SYMLINKS);
		if (fd == -ENOENT) {
			missing = true;
			len += 1 + cl;
			continue;
		}
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode)) {
			close(fd);
			len += 1 + cl;
			continue;
		}
		ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
		close(fd);
		if (n < 0)
			return -errno;
		if (++links > MAX_LINKS)
			return -ELOOP;
		target[n] = '\0';
		out[len] = '\0';                 /* the link's directory */
		if (target[0] == '/')
			len = 0, out[0] = '\0';
		{
			char tmp[PATH_MAX];
			int w = snprintf(tmp, sizeof(tmp), "%s/%s", target, p);

			if (w < 0 || (size_t)w >= sizeof(tmp))
				return -ENAMETOOLONG;
			strcpy(rest, tmp);
			p = rest;
		}
	}
	if (len == 0)
		strcpy(out, "/");
	return 0;
}

int rootfs_open_or_make(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks, bool *created)
{
	char joined[PATH_MAX];
	int fd = open_or_create_walk(root_fd, path, kind, no_symlinks, created);

	/* a link that leads nowhere (yet): made where it points, inside the root */
	if (fd != -ENOENT || no_symlinks || secure_join(root_fd, path, joined, sizeof(joined)) < 0)
		return fd;
	fd = open_or_create_walk(root_fd, joined, kind, true, created);
	*created = true;      /* the path as written led nowhere */
	return fd;
}

int rootfs_open_or_create(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks)
{
	bool created;

	return rootfs_open_or_make(root_fd, path, kind, no_symlinks, &created);
}

static int open_or_create_walk(int root_fd, const char *path, enum dest_kind kind, bool no_symlinks, bool *created)
{
	unsigned long long res = no_symlinks ? RESOLVE_NO_SYMLINKS : 0;
	char buf[PATH_MAX];
	size_t len, cut;
	int fd, r;

	*created = false;
	fd = open_in(root_fd, path, O_PATH, 0, res);
	if (fd != -ENOENT)
		return fd;
	*created = true;
	len = strlen(path);
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	/* find the deepest ancestor that exists */
	cut = len;
	for (;;) {
		while (cut > 0 && buf[cut - 1] != '/')
			cut--;
		while (cut > 1 && buf[cut - 1] == '/')
			cut--;
		if (cut == 0)
			return -ENOENT;
		buf[cut] = '\0';
		fd = open_in(root_fd, cut == 1 ? "/" : buf, O_PATH | O_DIRECTORY, 0, res);
		if (fd != -ENOENT)
			break;
		if (cut == 1)
			return -ENOENT;
	}
	if (fd < 0)
		return fd;
	/* create the missing components one by one, never following a link */
	memcpy(buf, path, len);
	buf[len] = '\0';
	for (char *comp = buf + cut; *comp;) {
		char *end;
		bool last;
		int nfd;

		while (*comp == '/')
			comp++;
		if (!*comp)
			break;
		end = strchr(comp, '/');
		if (end)
			*end = '\0';
		last = !end || !end[1 + strspn(end + 1, "/")];
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			close(fd);
			return -ENOENT;
		}
		if ((r = create_at(fd, comp, last ? kind : DEST_DIR)) < 0) {
			close(fd);
			return r;
		}
		nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last && kind == DEST_FILE ? 0 : O_DIRECTORY));
		r = -errno;
		close(fd);
		if (nfd >= 0 && last && kind == DEST_FILE) {
			struct stat st;

			if (fstat(nfd, &st) < 0 || S_ISLNK(st.st_mode)) {
				close(nfd);
				return -ENOENT;      /* a dangling link, not a file to mount on */
			}
		}
		if (nfd < 0)
			return r == -ELOOP || r == -ENOTDIR ? -ENOENT : r;  /* a dangling link */
		fd = nfd;
		if (!end)
			break;
		comp = end + 1;
	}
	return fd;
}
