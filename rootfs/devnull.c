/* runc's reOpenDevNull: stdio that is the host's /dev/null (a detached
 * container's usual stdio) becomes the container's own /dev/null, a file of
 * a mount in the container: CRIU can then dump it (a file on a mount of the
 * host's namespace cannot be checkpointed). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rootfs/rootfs.h"

static bool is_null(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && major(sb->st_rdev) == 1 && minor(sb->st_rdev) == 3;
}

int rootfs_reopen_dev_null(struct error *err)
{
	struct stat sb;

	for (int i = 0; i < 3; i++) {
		int flags, fd;

		/* the fstat first: the flags only of what is the null device */
		if (fstat(i, &sb) < 0 || !is_null(&sb) || (flags = fcntl(i, F_GETFL)) < 0)
			continue;
		/* never follows a link nor blocks on a FIFO put there; must be 1:3 */
		fd = open("/dev/null", (flags & O_ACCMODE) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? 0 : error_sys(err, errno, "reopen /dev/null as fd %d", i);
		if (fstat(fd, &sb) < 0 || !is_null(&sb) || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
		    dup2(fd, i) < 0) {
			close(fd);
			return error_set(err, EINVAL, "reopen /dev/null as fd %d: not the null device", i);
		}
		close(fd);
	}
	return 0;
}
