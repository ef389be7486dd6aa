/* pause: the pod sandbox's process for tests/cri.bats (what Kubernetes'
 * pause image does): hold the pod's namespaces, reap children, exit 0 on
 * SIGINT/SIGTERM. Built static, the only file of the test's pause image. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig)
{
	(void)sig;
	_exit(0);
}

static void on_child(int sig)
{
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(void)
{
	struct sigaction stop = { .sa_handler = on_stop };
	struct sigaction child = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP | SA_RESTART };

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGCHLD, &child, NULL);
	for (;;)
		pause();
	return 0;
}
