#include "runtime/linux/pidfd.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/linux/fdsend.h"

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
