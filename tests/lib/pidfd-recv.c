/* pidfd-recv SOCKET [SIGNAL]: the receiving end of --pidfd-socket, as a
 * manager would be. Listens on SOCKET (made under a temporary name and
 * renamed once listening, so a client never sees a socket that refuses),
 * accepts one connection, receives one message with one SCM_RIGHTS fd and
 * prints "TAG PID", PID being what the kernel says the fd refers to
 * (/proc/self/fdinfo's Pid: line, present only for a pidfd). With SIGNAL
 * (a number) it then signals through the fd (pidfd_send_signal) and prints
 * "signalled". Exit 1 on any failure, with the reason on stderr. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

static long fdinfo_pid(int fd)
{
	char path[64], line[256];
	long pid = -2;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "r")))
		return -2;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Pid:", 4))
			pid = strtol(line + 4, NULL, 10);
	fclose(f);
	return pid;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tag[256] = "", tmp[sizeof(sa.sun_path)];
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct iovec iov = { tag, sizeof(tag) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int s, conn, fd = -1;
	ssize_t n;
	long pid;

	alarm(30);   /* never a hang: no sender within 30 s is a failure */
	if (argc < 2 || strlen(argv[1]) + 5 >= sizeof(sa.sun_path))
		return fprintf(stderr, "usage: pidfd-recv SOCKET [SIGNAL]\n"), 2;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	strcpy(sa.sun_path, tmp);
	unlink(tmp);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 1) < 0)
		return die("listen");
	if (rename(tmp, argv[1]) < 0)
		return die("rename");
	conn = accept(s, NULL, NULL);
	if (conn < 0)
		return die("accept");
	n = recvmsg(conn, &mh, 0);
	if (n < 0)
		return die("recvmsg");
	tag[n] = 0;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd < 0)
		return fprintf(stderr, "no fd received (message \"%s\")\n", tag), 1;
	pid = fdinfo_pid(fd);
	if (pid == -2)
		return fprintf(stderr, "fd %d is not a pidfd\n", fd), 1;
	printf("%s %ld\n", tag, pid);
	fflush(stdout);
	if (argc > 2) {
		if (syscall(SYS_pidfd_send_signal, fd, atoi(argv[2]), NULL, 0) < 0)
			return die("pidfd_send_signal");
		printf("signalled\n");
	}
	return 0;
}
