/* In the child, right before execve: install the prepared program. No
 * allocation and no libseccomp here, only seccomp(2). */
#include "seccomp.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

int seccomp_prog_load(const struct seccomp_prog *prog, struct error *err)
{
	struct sock_fprog fprog = { .len = prog->len, .filter = prog->filter };
	unsigned int flags = prog->flags;
	long r;

	if (prog->notify)
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
	if (r < 0) {
		int e = errno;
		if (e == EACCES)
			return error_sys(err, e, "seccomp: loading the filter needs noNewPrivileges or CAP_SYS_ADMIN");
		return error_sys(err, e, "seccomp: loading the filter");
	}
	/* TSYNC without TSYNC_ESRCH: a positive value is the thread that could not be synced */
	if (!prog->notify && r > 0)
		return error_set(err, EBUSY, "seccomp: SECCOMP_FILTER_FLAG_TSYNC: thread %ld could not be synchronised", r);
	return prog->notify ? (int)r : 0;
}
