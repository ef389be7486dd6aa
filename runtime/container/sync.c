#include "runtime/container/sync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "oci/error.h"
#include "oci/util.h"
#include "runtime/container/statedir.h"
#include "runtime/linux/terminal.h"
#include "seccomp/seccomp.h"

int sync_fork_handoff(int sync_fd, unsigned long long clone_flags, const char *what, struct error *err)
{
	struct clone_args ca = { .flags = clone_flags };
	int gate[2], e;
	pid_t pid;
	char c;

	if (pipe2(gate, O_CLOEXEC) < 0)
		return error_sys(err, errno, "pipe");
	pid = clone_flags ? syscall(SYS_clone3, &ca, sizeof(ca)) : fork();
	if (pid < 0) {
		e = errno;
		close(gate[0]);
		close(gate[1]);
		return error_sys(err, e, "%s", what);
	}
	if (pid > 0) {
		sync_send(sync_fd, SYNC_PID, pid, NULL, 0, -1);
		_exit(0);
	}
	close(gate[1]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	close(gate[0]);
	return 0;
}

int sync_send(int fd, enum sync_type type, int value, const void *payload, size_t len, int pass_fd)
{
	struct sync_msg m = { .type = type, .value = value };
	struct iovec iov[2] = { { &m, sizeof(m) }, { (void *)payload, len } };
	ssize_t r;

	if (payload && len >= SYNC_PAYLOAD_MAX)
		return -EMSGSIZE;
	r = util_send_fd(fd, iov, payload ? 2 : 1, pass_fd);
	return r < 0 ? (int)r : 0;
}

int sync_recv(int fd, struct sync_msg *msg, char *payload, size_t size, int *recv_fd)
{
	char dummy[1];
	struct iovec iov[2] = { { msg, sizeof(*msg) }, { payload ? payload : dummy, payload ? size - 1 : sizeof(dummy) } };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	int got = -1;

	if (recv_fd)
		*recv_fd = -1;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (n == 0 || (size_t)n < sizeof(*msg) || (mh.msg_flags & MSG_TRUNC)) {
		if (got >= 0)
			close(got);
		return n == 0 ? 0 : (size_t)n < sizeof(*msg) ? -EPROTO : -EMSGSIZE;
	}
	if (payload)
		payload[n - sizeof(*msg)] = 0;
	if (recv_fd)
		*recv_fd = got;
	else if (got >= 0)
		close(got);
	return msg->type;
}

int sync_send_fd(int sync_fd, enum sync_type type, int fd, const char *what, struct error *err)
{
	int r = sync_send(sync_fd, type, 0, NULL, 0, fd);

	close(fd);
	return r < 0 ? error_sys(err, -r, "%s", what) : 0;
}

int sync_answer_pty(const char *console_socket, int fd, int *pty_master, struct error *err)
{
	int r;

	if (!console_socket) {
		*pty_master = fd;
		return 0;
	}
	r = terminal_send(console_socket, fd, err);
	close(fd);
	return r;
}

int sync_answer_seccomp_fd(const struct container *c, const struct oci_seccomp *s, const char *status, pid_t pid,
			   int fd, struct error *err)
{
	char *json;
	size_t len;
	int r;

	if (fd < 0)
		return error_set(err, EPROTO, "seccomp: no notify fd from the container");
	r = oci_state_to_json(&c->st, status, true, &json, &len, err);
	if (r == 0) {
		r = seccomp_send_listener(s->listener_path, s->listener_metadata, json, pid, fd, err);
		free(json);
	}
	close(fd);
	return r;
}
