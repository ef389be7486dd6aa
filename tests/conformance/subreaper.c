/* subreaper CMD ARGS...: run CMD as a child subreaper (PR_SET_CHILD_SUBREAPER)
 * and reap every orphan re-parented to us (detached containers), since the
 * host's PID 1 reaps slowly.  Exits with CMD's status.  Exports
 * CONFORMANCE_SUBREAPER=<pid> so the suite can tell it runs under one. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: subreaper CMD [ARGS...]\n");
		return 125;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("subreaper: prctl");
		return 125;
	}
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", getpid());
	setenv("CONFORMANCE_SUBREAPER", pid, 1);
	child = fork();
	if (child < 0) {
		perror("subreaper: fork");
		return 125;
	}
	if (child == 0) {
		execvp(argv[1], argv + 1);
		perror("subreaper: exec");
		_exit(127);
	}
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	signal(SIGINT, SIG_IGN);
	for (;;) {
		int st;
		pid_t p = wait(&st);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return 125;
		if (p == child)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
}
