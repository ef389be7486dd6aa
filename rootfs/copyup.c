/* tmpcopyup: copy what the image had at a tmpfs destination into the new
 * tmpfs (files, directories, links, nodes; modes, owners, times). getdents64
 * on a stack buffer: no allocation in the container child. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"

#define MAX_COPY_DEPTH 64

struct linux_dirent64 {
	ino64_t d_ino;
	off64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int copy_data(int in, int out, off_t size)
{
	while (size > 0) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)size, 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL))
			n = sendfile(out, in, NULL, (size_t)size);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		size -= n;
	}
	return 0;
}

static int copy_file(int from, int to, const char *name, const struct stat *st)
{
	struct stat now;
	int in, out, r;

	/* the image's: O_NONBLOCK, and regular still and the same inode the walk
	 * saw (a FIFO put in its place since the fstatat must not hold the child) */
	if ((in = openat(from, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(in, &now) < 0 || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino || now.st_dev != st->st_dev) {
		close(in);
		return -EACCES;
	}
	out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 07777);
	r = out < 0 ? -errno : copy_data(in, out, st->st_size);
	if (out >= 0)
		close(out);
	close(in);
	return r;
}

static int copy_entry(int from, int to, const char *name, int depth, unsigned flags)
{
	char target[PATH_MAX];
	struct stat st;
	int r = 0;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR: {
		int sub_from, sub_to;

		if (mkdirat(to, name, st.st_mode & 07777) < 0)
			return -errno;
		sub_from = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		sub_to = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = sub_from < 0 || sub_to < 0 ? -errno : rootfs_copy_tree_flags(sub_from, sub_to, depth + 1, flags);
		if (sub_from >= 0)
			close(sub_from);
		if (sub_to >= 0)
			close(sub_to);
		break;
	}
	case S_IFREG:
		r = copy_file(from, to, name, &st);
		break;
	case S_IFLNK: {
		ssize_t n = readlinkat(from, name, target, sizeof(target) - 1);

		if (n < 0)
			return -errno;
		target[n] = '\0';
		r = symlinkat(target, to, name) < 0 ? -errno : 0;
		break;
	}
	default:
		if ((flags & ROOTFS_COPY_AS_CALLER) && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			return -EPERM;   /* a device node is never the caller's to make */
		r = mknodat(to, name, st.st_mode, st.st_rdev) < 0 ? -errno : 0;
		break;
	}
	if (flags & ROOTFS_COPY_AS_CALLER)
		return r;        /* owned by whoever copies (fsuid), times of now */
	if (r == 0 && fchownat(to, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	if (r == 0) {
		struct timespec ts[2] = { st.st_atim, st.st_mtim };

		if (utimensat(to, name, ts, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
	}
	return r;
}

int rootfs_copy_tree(int from, int to, int depth)
{
	return rootfs_copy_tree_flags(from, to, depth, 0);
}

int rootfs_copy_tree_flags(int from, int to, int depth, unsigned flags)
{
	char buf[4096] __attribute__((aligned(8)));
	long n;

	if (depth > MAX_COPY_DEPTH)
		return -ELOOP;
	while ((n = syscall(SYS_getdents64, from, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			int r;

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			if ((r = copy_entry(from, to, d->d_name, depth, flags)) < 0)
				return r;
		}
	}
	return n < 0 ? -errno : 0;
}
