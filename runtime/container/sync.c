#include "runtime/container/sync.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

int sync_send(int fd, enum sync_type type, int value, const void *payload, size_t len, int pass_fd)
{
	struct sync_msg m = { .type = type, .value = value };
	struct iovec iov[2] = { { &m, sizeof(m) }, { (void *)payload, len } };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = payload ? 2 : 1 };

	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	while (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int sync_recv(int fd, struct sync_msg *msg, char *payload, size_t size, int *recv_fd)
{
	char dummy[1];
	struct iovec iov[2] = { { msg, sizeof(*msg) }, { payload ? payload : dummy, payload ? size - 1 : sizeof(dummy) } };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	if (recv_fd)
		*recv_fd = -1;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if ((size_t)n < sizeof(*msg))
		return -EPROTO;
	if (payload)
		payload[n - sizeof(*msg)] = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(int));
			if (recv_fd)
				*recv_fd = got;
		}
	}
	return msg->type;
}
