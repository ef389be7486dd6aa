/* The parent <-> child sync protocol (runtime/container/sync.h) over a real
 * SOCK_SEQPACKET socketpair: every message type with its value, payload and
 * passed fd; the size limit; truncated and oversized messages refused
 * without leaking a passed fd; EOF. Then the fd messages: the child's
 * sync_send_fd, and the parent's shared answers to SYNC_PTY and
 * SYNC_SECCOMP_FD against unix sockets in a temp dir. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/config.h"
#include "oci/error.h"
#include "oci/util.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"
#include "unit.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;   /* the directory's own fd */
}

static void pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		exit(2);
	}
}

/* fd leads to the pipe whose write end is w */
static int same_pipe(int fd, int w)
{
	char c = 0;

	return write(w, "x", 1) == 1 && read(fd, &c, 1) == 1 && c == 'x';
}

/* Raw bytes (and an fd) on the socket, bypassing sync_send's checks. */
static void raw_send(int s, const void *buf, size_t len, int pass_fd)
{
	struct iovec iov = { (void *)buf, len };
	ssize_t r = util_send_fd(s, &iov, 1, pass_fd);

	if (r < 0) {
		fprintf(stderr, "sendmsg: %s\n", strerror((int)-r));
		exit(2);
	}
}

static void test_every_type(void)
{
	static char payload[SYNC_PAYLOAD_MAX];
	int sv[2], p[2];

	pair(sv);
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	for (int t = SYNC_NS_READY; t <= SYNC_SECCOMP_FD; t++) {
		struct sync_msg m;
		char text[32];
		int fd = -2, before;

		/* header, value, payload and an fd */
		snprintf(text, sizeof(text), "payload of %d", t);
		CHECK(sync_send(sv[1], t, -t * 1000, text, strlen(text), p[0]) == 0);
		CHECK(sync_recv(sv[0], &m, payload, sizeof(payload), &fd) == t);
		CHECK(m.type == (uint32_t)t && m.value == -t * 1000);
		CHECK_STR(payload, text);
		CHECK(fd >= 0 && fd != p[0] && same_pipe(fd, p[1]));
		CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
		if (fd >= 0)
			close(fd);

		/* header only: no payload, no fd */
		CHECK(sync_send(sv[1], t, t, NULL, 0, -1) == 0);
		memcpy(payload, "stale", 6);
		CHECK(sync_recv(sv[0], &m, payload, sizeof(payload), &fd) == t);
		CHECK(m.value == t && payload[0] == 0 && fd == -1);

		/* a receiver that wants neither payload nor fd: the fd is not leaked */
		before = open_fds();
		CHECK(sync_send(sv[1], t, 7, NULL, 0, p[0]) == 0);
		CHECK(sync_recv(sv[0], &m, NULL, 0, NULL) == t && m.value == 7);
		CHECK(open_fds() == before);
	}
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

static void test_size_limit(void)
{
	static char big[SYNC_PAYLOAD_MAX + 1], got[SYNC_PAYLOAD_MAX];
	struct sync_msg m;
	int sv[2], fd;

	pair(sv);
	/* the state JSON for hooks may be SYNC_PAYLOAD_MAX - 1 bytes: it fits with its NUL */
	memset(big, 'j', sizeof(big) - 1);
	if (setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &(int){ 4 * SYNC_PAYLOAD_MAX }, sizeof(int)) < 0)
		perror("SO_SNDBUF");
	CHECK(sync_send(sv[1], SYNC_HOOKS_DONE, 0, big, SYNC_PAYLOAD_MAX - 1, -1) == 0);
	CHECK(sync_recv(sv[0], &m, got, sizeof(got), &fd) == SYNC_HOOKS_DONE);
	CHECK(strlen(got) == SYNC_PAYLOAD_MAX - 1 && fd == -1);
	/* one byte more is refused by the sender, nothing is sent */
	CHECK(sync_send(sv[1], SYNC_HOOKS_DONE, 0, big, SYNC_PAYLOAD_MAX, -1) == -EMSGSIZE);
	CHECK(sync_send(sv[1], SYNC_CREATED, 0, NULL, 0, -1) == 0);
	CHECK(sync_recv(sv[0], &m, got, sizeof(got), &fd) == SYNC_CREATED);
	close(sv[0]);
	close(sv[1]);
}

static void test_refused(void)
{
	char small[16], buf[64];
	struct sync_msg m, hdr = { .type = SYNC_ERROR, .value = 0 };
	int sv[2], p[2], fd, before;

	pair(sv);
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	before = open_fds();

	/* oversized for the receiver's buffer: refused, its fd closed */
	CHECK(sync_send(sv[1], SYNC_ERROR, 0, "a message longer than sixteen bytes", 35, p[0]) == 0);
	fd = 42;
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), &fd) == -EMSGSIZE);
	CHECK(fd == -1 && open_fds() == before);
	/* a payload where the receiver expects none (the 1-byte dummy) */
	CHECK(sync_send(sv[1], SYNC_START, 0, "xy", 2, -1) == 0);
	CHECK(sync_recv(sv[0], &m, NULL, 0, NULL) == -EMSGSIZE);
	/* exactly full: size - 1 bytes and the NUL */
	CHECK(sync_send(sv[1], SYNC_ERROR, 0, "fifteen bytes!!", 15, -1) == 0);
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), NULL) == SYNC_ERROR);
	CHECK_STR(small, "fifteen bytes!!");

	/* shorter than the header: refused, its fd closed */
	memcpy(buf, &hdr, sizeof(hdr));
	raw_send(sv[1], buf, sizeof(hdr) - 1, p[0]);
	fd = 42;
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), &fd) == -EPROTO);
	CHECK(fd == -1 && open_fds() == before);
	raw_send(sv[1], buf, 1, -1);
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), NULL) == -EPROTO);

	/* the stream goes on after a refused message */
	CHECK(sync_send(sv[1], SYNC_MAPS_DONE, 3, NULL, 0, -1) == 0);
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), NULL) == SYNC_MAPS_DONE && m.value == 3);

	/* the peer gone: EOF is 0, and sending to it fails without SIGPIPE */
	close(sv[1]);
	CHECK(sync_recv(sv[0], &m, small, sizeof(small), &fd) == 0 && fd == -1);
	pair(sv);
	close(sv[0]);
	CHECK(sync_send(sv[1], SYNC_START, 0, NULL, 0, -1) == -EPIPE);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 4) < 0) {
		perror(path);
		exit(2);
	}
	return s;
}

/* One connection's bytes (NUL-terminated) and the first fd passed on it. */
static size_t accept_all(int l, char *buf, size_t size, int *fd)
{
	int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	size_t have = 0;

	*fd = -1;
	if (s < 0)
		return 0;
	for (;;) {
		union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
		struct iovec iov = { buf + have, size - 1 - have };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b) };
		ssize_t n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_type == SCM_RIGHTS && *fd < 0)
				memcpy(fd, CMSG_DATA(c), sizeof(int));
		have += n;
	}
	buf[have] = 0;
	close(s);
	return have;
}

static void test_send_fd(void)
{
	struct error err = { 0 };
	struct sync_msg m;
	int sv[2], p[2], got, before;

	pair(sv);
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	before = open_fds();
	/* the child's copy goes over and is closed */
	CHECK(sync_send_fd(sv[1], SYNC_PTY, dup(p[0]), "terminal: send the pty", &err) == 0);
	CHECK(open_fds() == before);
	CHECK(sync_recv(sv[0], &m, NULL, 0, &got) == SYNC_PTY && got >= 0 && same_pipe(got, p[1]));
	if (got >= 0)
		close(got);
	/* the parent gone: an error naming the step, the fd closed anyway */
	close(sv[0]);
	before = open_fds();
	CHECK(sync_send_fd(sv[1], SYNC_SECCOMP_FD, dup(p[0]), "seccomp: send the notify fd", &err) == -EPIPE);
	CHECK(strstr(err.msg, "seccomp: send the notify fd") != NULL);
	CHECK(open_fds() == before);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void test_answer_pty(const char *dir)
{
	struct error err = { 0 };
	char path[256], buf[256];
	int p[2], l, got, master = -1, before;

	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	/* no --console-socket: the caller keeps the master */
	CHECK(sync_answer_pty(NULL, p[0], &master, &err) == 0 && master == p[0]);

	/* --console-socket: the master goes there (runc's payload), ours is closed */
	snprintf(path, sizeof(path), "%s/console.sock", dir);
	l = listen_at(path);
	before = open_fds();
	master = -1;
	CHECK(sync_answer_pty(path, dup(p[0]), &master, &err) == 0 && master == -1);
	CHECK(open_fds() == before);
	/* runc's SendRawFd(socket, pty.Name(), fd): the name's bytes, nothing
	 * before them (no sync header), no NUL after */
	CHECK(accept_all(l, buf, sizeof(buf), &got) == strlen("/dev/pts/ptmx"));
	CHECK_STR(buf, "/dev/pts/ptmx");
	CHECK(got >= 0 && same_pipe(got, p[1]));
	if (got >= 0)
		close(got);
	/* nobody listening: an error naming the socket, the master closed anyway */
	snprintf(path, sizeof(path), "%s/nobody.sock", dir);
	before = open_fds();
	CHECK(sync_answer_pty(path, dup(p[0]), &master, &err) < 0 && strstr(err.msg, "--console-socket"));
	CHECK(open_fds() == before);
	close(l);
	close(p[0]);
	close(p[1]);
}

static void test_answer_seccomp_fd(const char *dir)
{
	static char buf[SYNC_PAYLOAD_MAX];
	struct container c = { .id = "c1" };
	struct oci_seccomp s = { 0 };
	struct error err = { 0 };
	char path[256];
	int p[2], l, got, before;

	c.st = (struct container_state){ .oci_version = "1.2.0", .id = "c1", .pid = 1234, .bundle = "/b",
					 .rootfs = "/b/rootfs", .created = "2026-01-01T00:00:00.000000000Z", .owner = "" };
	snprintf(path, sizeof(path), "%s/listener.sock", dir);
	s.listener_path = path;
	s.listener_metadata = "meta-data";
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(2);
	l = listen_at(path);
	before = open_fds();
	CHECK(sync_answer_seccomp_fd(&c, &s, "running", 4321, dup(p[0]), &err) == 0);
	CHECK(open_fds() == before);
	CHECK(accept_all(l, buf, sizeof(buf), &got) > 0);
	CHECK(strstr(buf, "seccompFd") && strstr(buf, "4321") && strstr(buf, "meta-data"));
	CHECK(strstr(buf, "\"running\"") && strstr(buf, "\"c1\"") && strstr(buf, "1234"));
	CHECK(got >= 0 && same_pipe(got, p[1]));
	if (got >= 0)
		close(got);

	/* the message without its fd */
	CHECK(sync_answer_seccomp_fd(&c, &s, "creating", 4321, -1, &err) == -EPROTO);
	/* listener gone: an error, the fd closed anyway */
	close(l);
	unlink(path);
	before = open_fds();
	CHECK(sync_answer_seccomp_fd(&c, &s, "creating", 4321, dup(p[0]), &err) < 0);
	CHECK(open_fds() == before);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	char dir[] = "/tmp/test_container_sync.XXXXXX";

	test_every_type();
	test_size_limit();
	test_refused();
	test_send_fd();
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_answer_pty(dir);
	test_answer_seccomp_fd(dir);
	unlink(strcat(strcpy((char[300]){ 0 }, dir), "/console.sock"));
	rmdir(dir);
	return unit_report("test_container_sync");
}
