/* connect-hold SOCKET: a listener whose accept queue is full (backlog 0 and
 * one connection of its own), so a client's connect to SOCKET blocks: for a
 * test that needs the runtime held at a known point (--pidfd-socket: after
 * the init's clone, before it may exec). The socket is made under a
 * temporary name and renamed once full. On SIGUSR1 it accepts its own
 * connection, then one client's, reads that to its end (the client's send
 * succeeds) and exits 0. Exit 1 on any failure, with the reason on stderr. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)], buf[256];
	int s, self, conn, sig;
	sigset_t usr1;

	alarm(60);   /* never a hang */
	if (argc != 2 || strlen(argv[1]) + 5 >= sizeof(sa.sun_path))
		return fprintf(stderr, "usage: connect-hold SOCKET\n"), 2;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	strcpy(sa.sun_path, tmp);
	unlink(tmp);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	self = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || self < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 0) < 0)
		return die("listen");
	if (connect(self, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return die("connect");
	if (rename(tmp, argv[1]) < 0)
		return die("rename");
	if (sigwait(&usr1, &sig) != 0)
		return die("sigwait");
	if (accept(s, NULL, NULL) < 0 || (conn = accept(s, NULL, NULL)) < 0)
		return die("accept");
	while (read(conn, buf, sizeof(buf)) > 0)
		;
	return 0;
}
