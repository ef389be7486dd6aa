/* The result file, checked first and written atomically (result_file.h). */
#include "runtime/container/result_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const struct result_file *f, struct error *err, int e, const char *why)
{
	return error_set(err, e, "--result: %s: %s", f->path, why ? why : strerror(e));
}

/* split PATH into its directory (opened) and last component */
static int open_dir(struct result_file *f, struct error *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(f->path, '/'), *base = slash ? slash + 1 : f->path;
	size_t dlen = slash ? (size_t)(slash - f->path) : 0;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return fail(f, err, EISDIR, "names a directory, not a file");
	if (strlen(base) >= sizeof(f->base) || dlen >= sizeof(dir))
		return fail(f, err, ENAMETOOLONG, NULL);
	snprintf(f->base, sizeof(f->base), "%s", base);
	snprintf(dir, sizeof(dir), "%.*s", (int)dlen, f->path);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (!dlen)
		snprintf(dir, sizeof(dir), "/");
	f->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0)
		return error_set(err, errno, "--result: %s: its directory %s: %s", f->path, dir, strerror(errno));
	return 0;
}

int result_file_open(const char *path, struct result_file *f, struct error *err)
{
	struct stat st;
	int r;

	*f = (struct result_file){ .path = path, .dirfd = -1, .tmpfd = -1 };
	if (!*path)
		return fail(f, err, EINVAL, "empty path");
	if ((r = open_dir(f, err)) < 0)
		return r;
	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		r = fail(f, err, EISDIR, NULL);
		goto bad;
	}
	f->tmpfd = openat(f->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (f->tmpfd >= 0)
		return 0;
	/* no O_TMPFILE on this filesystem: whether a new file could be made */
	if ((errno == EOPNOTSUPP || errno == EISDIR) && faccessat(f->dirfd, ".", W_OK | X_OK, AT_EACCESS) == 0)
		return 0;
	r = error_set(err, errno, "--result: %s: cannot write in its directory: %s", path, strerror(errno));
bad:
	result_file_close(f);
	return r;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ".BASE.<16 random hex digits>" */
static void temp_name(const struct result_file *f, char *buf, size_t size)
{
	unsigned long long rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd ^= (unsigned long long)getpid() << 32 ^ (unsigned long long)(uintptr_t)buf;
	snprintf(buf, size, ".%.200s.%016llx", f->base, rnd);
}

/* the data under a new, unpredictable name: the O_TMPFILE linked, or a file
 * made O_EXCL (it never follows nor reuses what is there) */
static int make_temp(struct result_file *f, const char *data, size_t len, char *name, size_t size)
{
	int r = -EEXIST, fd;

	for (int tries = 0; tries < 8 && r == -EEXIST; tries++) {
		temp_name(f, name, size);
		if (f->tmpfd >= 0 && linkat(f->tmpfd, "", f->dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (f->tmpfd >= 0 && errno == EEXIST)
			continue;
		fd = openat(f->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0) {
			r = -errno;
			continue;
		}
		r = write_all(fd, data, len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r < 0)
			unlinkat(f->dirfd, name, 0);
	}
	return r;
}

int result_file_commit(struct result_file *f, const char *data, size_t len, struct error *err)
{
	char name[300];
	int r = 0;

	if (f->dirfd < 0)
		return fail(f, err, EBADF, NULL);
	/* the unnamed file first: linkat (AT_EMPTY_PATH) may be refused, then it is dropped */
	if (f->tmpfd >= 0 && (r = write_all(f->tmpfd, data, len)) < 0)
		return fail(f, err, -r, NULL);
	if ((r = make_temp(f, data, len, name, sizeof(name))) < 0)
		return fail(f, err, -r, NULL);
	if (renameat(f->dirfd, name, f->dirfd, f->base) < 0) {
		r = fail(f, err, errno, NULL);
		unlinkat(f->dirfd, name, 0);
	}
	return r;
}

void result_file_close(struct result_file *f)
{
	if (f->tmpfd >= 0)
		close(f->tmpfd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	f->tmpfd = f->dirfd = -1;
}
