#include "runtime/linux/procfs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool is_procfs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

int procfs_dir(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0)
		return -errno;
	if (!is_procfs(fd)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int procfs_openat(int dir, const char *rel, int flags)
{
	/* openat2 takes no other flag with O_PATH */
	struct open_how how = { .flags = (unsigned)flags | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY),
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS };
	int own = -1, fd, e;

	if (dir < 0 && (dir = own = procfs_dir("/proc")) < 0)
		return dir;
	fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
	e = errno;
	if (own >= 0)
		close(own);
	if (fd < 0)
		return -e;
	/* same mount as a verified procfs dir, but keep the proof local */
	if (!is_procfs(fd)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int procfs_write(int dir, const char *rel, const void *buf, size_t len)
{
	int fd = procfs_openat(dir, rel, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

ssize_t procfs_read(int dir, const char *rel, char *buf, size_t size)
{
	int fd = procfs_openat(dir, rel, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

pid_t procfs_ns_pid(pid_t pid)
{
	char rel[32], buf[2048], *line, *end, *last;

	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	if (procfs_read(-1, rel, buf, sizeof(buf)) <= 0 || !(line = strstr(buf, "\nNSpid:")))
		return pid;
	line += strlen("\nNSpid:");
	if ((end = strchr(line, '\n')))
		*end = 0;
	last = strrchr(line, '\t');
	return last ? (pid_t)atoi(last + 1) : pid;
}

int procfs_root_of(pid_t pid)
{
	char rel[32];
	int proc = procfs_dir("/proc"), fd;

	if (proc < 0)
		return proc;
	snprintf(rel, sizeof(rel), "%d/root", (int)pid);
	fd = openat(proc, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
	close(proc);
	return fd < 0 ? -errno : fd;
}

bool procfs_in_userns(void)
{
	static int cached = -1;
	char buf[256], *nl;
	unsigned long inner, outer, count;
	ssize_t n;

	if (cached < 0) {
		/* the initial namespace's map: the one line "0 0 4294967295" */
		n = procfs_read(-1, "self/uid_map", buf, sizeof(buf));
		nl = n > 0 ? strchr(buf, '\n') : NULL;
		cached = !(nl && !nl[1] && sscanf(buf, "%lu %lu %lu", &inner, &outer, &count) == 3 &&
			   inner == 0 && outer == 0 && count == 4294967295UL);
	}
	return cached;
}

bool procfs_setgroups_denied(void)
{
	char buf[16];

	return procfs_read(-1, "self/setgroups", buf, sizeof(buf)) > 0 && !strncmp(buf, "deny", 4);
}
