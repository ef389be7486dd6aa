/* The musl build's (LIBC=musl) syscall savings, wrapped in at the link like libc_text.c
 * (-Wl,--wrap=open,--wrap=setgroups,--wrap=setresgid,--wrap=setresuid: musl's
 * own opendir and the static libraries too). Nothing under glibc.
 * - open: musl 1.2.3 follows each open(..., O_CLOEXEC) with fcntl(F_SETFD, FD_CLOEXEC)
 *   for kernels before 2.6.23; openat does not (~20 syscalls a run). The same
 *   openat(AT_FDCWD, ...) glibc's open makes. (fopen, which adds two, is on no start
 *   path: two cold error paths.)
 * - setgroups, setresgid, setresuid: musl makes them __synccall (every thread changes its
 *   ids: three rt_sigprocmask around each). tinyrun has no threads, so the raw syscall is
 *   the same thing, as in glibc without threads. */
#include <features.h>
#ifndef __GLIBC__

#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

int __wrap_open(const char *path, int flags, ...);
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
