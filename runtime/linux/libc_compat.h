/* What glibc 2.36 declares and musl 1.2.3 does not, for the musl build (LIBC=musl): the new
 * mount API (struct mount_attr, MOUNT_ATTR_*, open_tree, move_mount, fsopen, fsconfig,
 * fsmount, mount_setattr), statx, renameat2, scandirat, getdents64 over a plain buffer, and
 * glibc's O_ACCMODE (musl's also has O_PATH's bit). Included first by every file of that
 * build (-include); nothing under glibc. */
#ifndef TINYRUN_LIBC_COMPAT_H
#define TINYRUN_LIBC_COMPAT_H

#include <features.h>
#ifndef __GLIBC__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/stat.h>

/* glibc: the access mode bits only; musl's O_ACCMODE includes O_SEARCH (== O_PATH) */
#undef O_ACCMODE
#define O_ACCMODE (O_RDONLY | O_WRONLY | O_RDWR)

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static inline int open_tree(int dfd, const char *path, unsigned int flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int move_mount(int from_dfd, const char *from, int to_dfd, const char *to, unsigned int flags)
{
	return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}

static inline int fsopen(const char *fsname, unsigned int flags)
{
	return (int)syscall(SYS_fsopen, fsname, flags);
}

static inline int fsconfig(int fd, unsigned int cmd, const char *key, const void *value, int aux)
{
	return (int)syscall(SYS_fsconfig, fd, cmd, key, value, aux);
}

static inline int fsmount(int fd, unsigned int flags, unsigned int attr_flags)
{
	return (int)syscall(SYS_fsmount, fd, flags, attr_flags);
}

static inline int mount_setattr(int dfd, const char *path, unsigned int flags, struct mount_attr *attr, size_t size)
{
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, size);
}

static inline int statx(int dfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	return (int)syscall(SYS_statx, dfd, path, flags, mask, buf);
}

static inline int renameat2(int olddfd, const char *old, int newdfd, const char *new, unsigned int flags)
{
	return (int)syscall(SYS_renameat2, olddfd, old, newdfd, new, flags);
}

/* musl's getdents64 is getdents(int, struct dirent *, size_t); glibc's takes a void * */
#undef getdents64
#define getdents64 tinyrun_getdents64
static inline ssize_t tinyrun_getdents64(int fd, void *buf, size_t size)
{
	return syscall(SYS_getdents64, fd, buf, size);
}

/* glibc's scandirat: scandir(3) of `path` under `dfd` */
static inline int scandirat(int dfd, const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
			    int (*cmp)(const struct dirent **, const struct dirent **))
{
	int fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), saved;
	struct dirent **v = NULL, **nv, *e;
	size_t n = 0, cap = 0;
	DIR *d;

	if (fd < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	for (;;) {
		errno = 0;
		if (!(e = readdir(d)))
			break;
		if (filter && !filter(e))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(nv = realloc(v, cap * sizeof(*v))))
				goto fail;
			v = nv;
		}
		if (!(v[n] = malloc(e->d_reclen)))
			goto fail;
		memcpy(v[n++], e, e->d_reclen);
	}
	if (errno)
		goto fail;
	closedir(d);
	if (cmp && n)
		qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))cmp);
	*list = v;
	return (int)n;
fail:
	saved = errno ? errno : ENOMEM;
	while (n)
		free(v[--n]);
	free(v);
	closedir(d);
	errno = saved;
	return -1;
}

#endif /* !__GLIBC__ */
#endif
