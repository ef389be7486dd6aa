/* The musl build's (LIBC=musl) syscall savings, wrapped in at the link like libc_text.c
 * (-Wl,--wrap=open,--wrap=fopen,--wrap=setgroups,--wrap=setresgid,--wrap=setresuid: musl's
 * own opendir and the static libraries too). Nothing under glibc.
 * - open, fopen: musl 1.2.3 follows each open(..., O_CLOEXEC) with fcntl(F_SETFD,
 *   FD_CLOEXEC) for kernels before 2.6.23, and fopen("...e") with two; openat does not
 *   (~20 syscalls a run). The same openat(AT_FDCWD, ...) glibc's open makes.
 * - setgroups, setresgid, setresuid: musl makes them __synccall (every thread changes its
 *   ids: three rt_sigprocmask around each). tinyrun has no threads, so the raw syscall is
 *   the same thing, as in glibc without threads. */
#include <features.h>
#ifndef __GLIBC__

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int __wrap_open(const char *path, int flags, ...);
FILE *__wrap_fopen(const char *restrict path, const char *restrict mode);
int __wrap_setgroups(size_t n, const gid_t *groups);
int __wrap_setresgid(gid_t r, gid_t e, gid_t s);
int __wrap_setresuid(uid_t r, uid_t e, uid_t s);

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return openat(AT_FDCWD, path, flags, mode);
}

/* musl's fopen: __fmodeflags, then open, then __fdopen (given the mode without its 'e',
 * whose only effect in fdopen is one more fcntl(F_SETFD)) */
FILE *__wrap_fopen(const char *restrict path, const char *restrict mode)
{
	char m[16];
	size_t i, j;
	int flags, fd;
	FILE *f;

	if (!strchr("rwa", *mode) || strlen(mode) >= sizeof(m)) {
		errno = EINVAL;
		return NULL;
	}
	flags = strchr(mode, '+') ? O_RDWR : *mode == 'r' ? O_RDONLY : O_WRONLY;
	if (strchr(mode, 'x'))
		flags |= O_EXCL;
	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	if (*mode != 'r')
		flags |= O_CREAT;
	if (*mode == 'w')
		flags |= O_TRUNC;
	if (*mode == 'a')
		flags |= O_APPEND;
	for (i = j = 0; mode[i]; i++)
		if (mode[i] != 'e')
			m[j++] = mode[i];
	m[j] = '\0';
	fd = openat(AT_FDCWD, path, flags, 0666);
	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, m))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

int __wrap_setgroups(size_t n, const gid_t *groups)
{
	return syscall(SYS_setgroups, n, groups);
}

int __wrap_setresgid(gid_t r, gid_t e, gid_t s)
{
	return syscall(SYS_setresgid, r, e, s);
}

int __wrap_setresuid(uid_t r, uid_t e, uid_t s)
{
	return syscall(SYS_setresuid, r, e, s);
}

#endif
