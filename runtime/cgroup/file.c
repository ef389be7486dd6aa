/* Small file helpers for cgroupfs: one write() per value, dir walks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

static void (*write_observer)(int dirfd, const char *file, const char *val, size_t len);

void cg_set_write_observer(void (*fn)(int dirfd, const char *file, const char *val, size_t len))
{
	write_observer = fn;
}

ssize_t cg_file_write(int dirfd, const char *file, int fd, const char *val, size_t len)
{
	if (write_observer)
		write_observer(dirfd, file, val, len);
	return write(fd, val, len);
}

int cg_write(int dirfd, const char *file, const char *val, struct error *err)
{
	size_t len = strlen(val);
	int fd, e;
	ssize_t n;

	fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return error_sys(err, e, "%s", file);
	}
	n = cg_file_write(dirfd, file, fd, val, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len)
		return error_sys(err, n < 0 ? e : EIO, "%s: write \"%s\"", file, val);
	return 0;
}

int cg_write_lines(int dirfd, const char *file, const char *val, struct error *err)
{
	const char *nl = strchr(val, '\n');
	size_t len;
	int fd, e = 0;

	if (!nl || !nl[1])
		return cg_write(dirfd, file, val, err);
	fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return error_sys(err, errno, "%s", file);
	for (const char *line = val; *line && !e; line += len) {
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		ssize_t n = *line == '\n' ? (ssize_t)len : cg_file_write(dirfd, file, fd, line, len);   /* an empty line: none */

		if (n != (ssize_t)len)
			e = error_sys(err, n < 0 ? errno : EIO, "%s: write \"%.*s\"", file, (int)len, line);
	}
	close(fd);
	return e;
}

int cg_writef(int dirfd, const char *file, struct error *err, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cg_write(dirfd, file, buf, err);
}

ssize_t cg_read(int dirfd, const char *file, char *buf, size_t size)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!strncmp(s, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	return 0;
}

int cg_read_u64(int dirfd, const char *file, uint64_t *v)
{
	char buf[64];
	ssize_t n = cg_read(dirfd, file, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return parse_u64(buf, v);
}

int cg_kv_lookup(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return parse_u64(p + klen + 1, v);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

bool cg_word_in(const char *list, const char *w)
{
	size_t len = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
		p += len;
	}
	return false;
}

int cg_mkdir_p(int rootfd, const char *rel, int *first_new, struct error *err)
{
	char buf[4096];
	size_t len = strlen(rel);
	int i;

	*first_new = -1;
	if (len >= sizeof(buf))
		return error_set(err, ENAMETOOLONG, "%s: path too long", rel);
	memcpy(buf, rel, len + 1);
	/* Fast path: only the leaf is missing (the parent exists already). */
	if (mkdirat(rootfd, buf, 0755) == 0) {
		char *slash = strrchr(buf, '/');
		*first_new = slash ? (int)(slash - buf) + 1 : 0;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return error_sys(err, errno, "mkdir %s", rel);
	for (i = 0; i <= (int)len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdirat(rootfd, buf, 0755) == 0) {
			if (*first_new < 0) {
				char *slash = strrchr(buf, '/');
				*first_new = slash ? (int)(slash - buf) + 1 : 0;
			}
		} else if (errno != EEXIST) {
			int e = errno;
			if (*first_new >= 0)
				cg_rmdir_created(rootfd, rel, *first_new);
			*first_new = -1;
			return error_sys(err, e, "mkdir %s", buf);
		}
		if (i < (int)len)
			buf[i] = '/';
	}
	return 0;
}

void cg_rmdir_created(int rootfd, const char *rel, int first_new)
{
	char buf[4096];
	char *slash;

	if (first_new < 0 || strlen(rel) >= sizeof(buf))
		return;
	snprintf(buf, sizeof(buf), "%s", rel);
	for (;;) {
		if (unlinkat(rootfd, buf, AT_REMOVEDIR) < 0 && errno != ENOENT)
			return;
		slash = strrchr(buf, '/');
		if (!slash || slash - buf < first_new)
			return;
		*slash = '\0';
	}
}

static int rmdir_children(int dirfd)
{
	DIR *d;
	struct dirent *de;
	int fd, r = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return errno == ENOENT ? 0 : -errno;
	}
	while ((de = readdir(d))) {
		int sub;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub >= 0) {
			int rr = rmdir_children(sub);
			close(sub);
			if (rr < 0 && !r)
				r = rr;
		}
		if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT && !r)
			r = -errno;
	}
	closedir(d);
	return r;
}

int cg_rmdir_tree(int rootfd, const char *rel)
{
	int fd, r;

	if (unlinkat(rootfd, rel, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (errno != EBUSY && errno != ENOTEMPTY)
		return -errno;
	/* Sub-cgroups the container made (nested runtimes, systemd inside). */
	fd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = rmdir_children(fd);
	close(fd);
	if (unlinkat(rootfd, rel, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	return r < 0 ? r : -errno;
}

static int push_pid(pid_t p, pid_t **pids, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		pid_t *np = realloc(*pids, nc * sizeof(*np));
		if (!np)
			return -ENOMEM;
		*pids = np;
		*cap = nc;
	}
	(*pids)[(*n)++] = p;
	return 0;
}

int cg_read_pids(int dirfd, bool recursive, pid_t **pids, size_t *n, size_t *cap)
{
	char *text, *p, *end;
	DIR *d;
	struct dirent *de;
	int r, fd;

	if ((r = util_read_at(dirfd, "cgroup.procs", 0, 0, 0, &text, NULL)) < 0)
		return r;
	for (p = text; *p; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > 0 && (r = push_pid((pid_t)v, pids, n, cap)) < 0)
			break;
		while (*end == '\n')
			end++;
	}
	free(text);
	if (r < 0 || !recursive)
		return r;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		int sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;  /* removed meanwhile */
		r = cg_read_pids(sub, true, pids, n, cap);
		if (r == -ENOENT)
			r = 0;
		close(sub);
	}
	closedir(d);
	return r;
}

unsigned cg_backoff(unsigned step)
{
	unsigned ms = step < 5 ? 1u << step : 32;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000L };

	nanosleep(&ts, NULL);
	return ms;
}
