#include "runtime/linux/pidfd.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static int pidfd_connect(const char *path, const char *opt, struct error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return error_set(err, ENAMETOOLONG, "%s %s: path too long", opt, path);
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = error_sys(err, errno, "%s %s", opt, path);
		if (s >= 0)
			close(s);
		return r;
	}
	return s;
}

static int send_fd(int s, const char *tag, int fd)
{
	struct iovec iov = { (void *)tag, strlen(tag) };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	while (sendmsg(s, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int pidfd_send_to(const char *path, pid_t pid, const char *tag, struct error *err)
{
	int s, pidfd, r;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return error_sys(err, errno, "--pidfd-socket: pidfd_open %d", (int)pid);
	s = pidfd_connect(path, "--pidfd-socket", err);
	if (s < 0) {
		close(pidfd);
		return s;
	}
	r = send_fd(s, tag, pidfd);
	close(s);
	close(pidfd);
	return r < 0 ? error_sys(err, -r, "--pidfd-socket %s: send", path) : 0;
}
