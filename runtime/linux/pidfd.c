#include "runtime/linux/pidfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/linux/fdsend.h"
#include "runtime/linux/procfs.h"

int pidfd_send_to(const char *path, pid_t pid, const char *tag, struct error *err)
{
	int pidfd, r;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return error_sys(err, errno, "--pidfd-socket: pidfd_open %d", (int)pid);
	r = fdsend_to(path, "--pidfd-socket", tag, pidfd, err);
	close(pidfd);
	return r;
}

int pidfd_ns_open(int pidfd, pid_t pid, const char *name, unsigned long ioc)
{
	char rel[64];
	int fd = ioctl(pidfd, ioc, 0), proc;

	if (fd >= 0 || (errno != ENOTTY && errno != EINVAL))
		return fd >= 0 ? fd : -errno;
	if ((proc = procfs_dir("/proc")) < 0)
		return proc;
	snprintf(rel, sizeof(rel), "%d/ns/%s", (int)pid, name);
	fd = openat(proc, rel, O_RDONLY | O_CLOEXEC);
	close(proc);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}
