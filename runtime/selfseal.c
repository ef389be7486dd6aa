#include "selfseal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static int sealed_copy(int exe, struct error *err)
{
	struct stat st;
	off_t off = 0;
	int fd;

	if (fstat(exe, &st) < 0)
		return error_sys(err, errno, "runtime binary: stat /proc/self/exe");
	fd = memfd_create("tinyrun", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return error_sys(err, errno, "runtime binary: memfd_create");
	while (off < st.st_size) {
		ssize_t n = sendfile(fd, exe, &off, st.st_size - off);

		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			return error_sys(err, e, "runtime binary: copy into a sealed memfd");
		}
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		int e = errno;
		close(fd);
		return error_sys(err, e, "runtime binary: seal the memfd copy");
	}
	return fd;
}

int selfseal_reexec(char **argv, struct error *err)
{
	extern char **environ;
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), fd, seals;

	if (exe < 0)
		return error_sys(err, errno, "runtime binary: open /proc/self/exe");
	seals = fcntl(exe, F_GET_SEALS);
	if (seals >= 0 && (seals & SEALS) == SEALS) {
		close(exe);
		return 0;
	}
	fd = sealed_copy(exe, err);
	close(exe);
	if (fd < 0)
		return fd;
	/* an ELF is mapped before close-on-exec fds close: MFD_CLOEXEC is fine */
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	close(fd);
	return error_sys(err, errno, "runtime binary: exec the sealed copy");
}
