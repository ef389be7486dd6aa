/* subreaper CMD [ARGS...]: run CMD with a child subreaper above it; used by
 * the tests/ bats suites and by tests/conformance/run.sh alike.
 *
 * `tinyrun create` and `run --detach` leave the container's init orphaned;
 * the host's PID 1 reaps orphans only every second or two, so a container
 * that exits would stay a zombie. A forked reaper process becomes
 * PR_SET_CHILD_SUBREAPER, exports CONFORMANCE_SUBREAPER=<its pid> (so a
 * suite can tell it runs under one) and runs CMD; this program exits with
 * CMD's status (128+signal when killed) as soon as CMD ends, and the reaper
 * stays behind (stdio on /dev/null), reaping every orphaned descendant until
 * none is left, then exits.  SIGTERM and SIGHUP are forwarded to CMD;
 * SIGINT (a ^C reaches CMD by itself) is ignored, so the status stays CMD's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

static void stdio_to_devnull(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The reaper: runs the command, reports its pid then its status on
 * `report`, then reaps until it has no children left. */
static void reaper(int report, char **argv)
{
	pid_t cmd, pid;
	char self[32];
	int st;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("subreaper: prctl(PR_SET_CHILD_SUBREAPER)");
		_exit(125);
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	setenv("CONFORMANCE_SUBREAPER", self, 1);
	cmd = fork();
	if (cmd < 0) {
		perror("subreaper: fork");
		_exit(125);
	}
	if (cmd == 0) {
		close(report);
		execvp(argv[0], argv);
		fprintf(stderr, "subreaper: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "tr-subreaper", 0, 0, 0);
	if (write(report, &cmd, sizeof(cmd)) != sizeof(cmd))
		_exit(125);
	for (;;) {
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nothing left to reap */
		}
		if (pid == cmd) {
			unsigned char code = (unsigned char)status_code(st);

			if (write(report, &code, 1) != 1)
				_exit(125);
			close(report);
			stdio_to_devnull();
		}
	}
	_exit(0);
}

static volatile pid_t cmd_pid;
static volatile sig_atomic_t pending;

static void forward(int sig)
{
	if (cmd_pid > 0)
		kill(cmd_pid, sig);
	else
		pending = sig;
}

/* read exactly len bytes (EINTR: a forwarded signal) */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	int p[2];
	unsigned char code;
	pid_t cmd;

	if (argc < 2) {
		fprintf(stderr, "usage: subreaper CMD [ARGS...]\n");
		return 125;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("subreaper: pipe");
		return 125;
	}
	switch (fork()) {
	case -1:
		perror("subreaper: fork");
		return 125;
	case 0:
		close(p[0]);
		reaper(p[1], argv + 1);
	}
	close(p[1]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	if (read_full(p[0], &cmd, sizeof(cmd)) < 0) {
		fprintf(stderr, "subreaper: lost the command\n");
		return 125;
	}
	cmd_pid = cmd;
	if (pending)
		kill(cmd, pending);
	if (read_full(p[0], &code, 1) < 0) {
		fprintf(stderr, "subreaper: lost the command's status\n");
		return 125;
	}
	return code;
}
