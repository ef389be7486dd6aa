#include "runtime/criu/swrk.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/callerenv.h"

#define CRIU_MSG_MAX (64 * 1024)

/* The child: the socket at fd 3, the inherited fds at 4.., then exec. */
static __attribute__((noreturn)) void exec_criu(const char *path, int sock, const int *fds, size_t n)
{
	char *const argv[] = { (char *)path, "swrk", "3", NULL };
	int base = 4 + (int)n, moved[64];

	/* copies above every target first, so no dup2 overwrites a source */
	sock = fcntl(sock, F_DUPFD_CLOEXEC, base);
	for (size_t i = 0; i < n; i++)
		moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, base);
	if (sock < 0 || dup2(sock, 3) < 0)
		_exit(127);
	for (size_t i = 0; i < n; i++)
		if (moved[i] < 0 || dup2(moved[i], 4 + (int)i) < 0)
			_exit(127);
	execve(path, argv, callerenv_list());
	_exit(127);
}

int criu_swrk_start(struct criu_swrk *s, const char *path, const int *fds, size_t n, struct error *err)
{
	int sv[2];

	s->pid = -1;
	s->sock = -1;
	if (n > 64)
		return error_set(err, E2BIG, "criu: too many fds to pass");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return error_sys(err, errno, "criu: socketpair");
	s->pid = fork();
	if (s->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return error_sys(err, errno, "criu: fork");
	}
	if (s->pid == 0) {
		sigset_t none;

		close(sv[0]);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);   /* a foreground restore blocks the signals it forwards */
		sigprocmask(SIG_SETMASK, &none, NULL);
		exec_criu(path, sv[1], fds, n);
	}
	close(sv[1]);   /* criu gone: our read sees EOF, never a hang */
	s->sock = sv[0];
	return 0;
}

static int send_req(struct criu_swrk *s, enum criu_req_type type, const struct criu_opts *o, bool notify_success,
		    struct error *err)
{
	struct util_buf b = { 0 };
	int r = criu_req_encode(type, o, notify_success, &b);

	if (r == 0 && send(s->sock, b.p, b.len, MSG_NOSIGNAL) != (ssize_t)b.len)
		r = error_sys(err, errno, "criu: sending the request");
	else if (r < 0)
		r = error_set(err, ENOMEM, "out of memory");
	free(b.p);
	return r;
}

/* One answer; *fd the fd passed with it (SCM_RIGHTS), or -1. */
static int recv_resp(struct criu_swrk *s, struct criu_resp *resp, int *fd, struct error *err)
{
	static char buf[CRIU_MSG_MAX];
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(s->sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return error_sys(err, errno, "criu: reading its answer");
	if (n == 0)
		return error_set(err, EPIPE, "criu exited without an answer");
	if (mh.msg_flags & MSG_TRUNC)
		return error_set(err, EMSGSIZE, "criu: an answer longer than %d bytes", CRIU_MSG_MAX);
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS && *fd < 0)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	if (criu_resp_decode(buf, (size_t)n, resp) < 0) {
		if (*fd >= 0)
			close(*fd);
		return error_set(err, EBADMSG, "criu: an answer that is not a criu_resp");
	}
	return 0;
}

static int failed(const struct criu_resp *resp, struct error *err)
{
	if (resp->errmsg[0])   /* CRIU's ends with a newline */
		return error_set(err, EIO, "criu failed: %.*s", (int)strcspn(resp->errmsg, "\n"), resp->errmsg);
	if (resp->cr_errno)
		return error_set(err, EIO, "criu failed: type %d errno %d (%s)", resp->type, resp->cr_errno,
				 strerror(resp->cr_errno));
	return error_set(err, EIO, "criu failed: type %d", resp->type);
}

int criu_swrk_call(struct criu_swrk *s, enum criu_req_type type, const struct criu_opts *o,
		   criu_notify_fn notify, void *arg, struct criu_resp *resp, struct error *err)
{
	int r, fd;

	if ((r = send_req(s, type, o, false, err)) < 0)
		return r;
	for (;;) {
		if ((r = recv_resp(s, resp, &fd, err)) < 0)
			return r;
		if (!resp->success) {
			if (fd >= 0)
				close(fd);
			return failed(resp, err);
		}
		if (resp->type != CRIU_REQ_NOTIFY)
			break;
		r = notify ? notify(arg, resp, fd, err) : 0;
		if (!notify && fd >= 0)
			close(fd);
		if (r < 0)
			return r;
		if ((r = send_req(s, CRIU_REQ_NOTIFY, NULL, true, err)) < 0)
			return r;
	}
	if (resp->type != type)
		return error_set(err, EBADMSG, "criu: an answer of type %d to a request of type %d", resp->type, type);
	return 0;
}

void criu_swrk_end(struct criu_swrk *s)
{
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	if (s->pid > 0)
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	s->pid = -1;
}
