#include "runtime/linux/hostcaps_criu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/callerenv.h"

#define VERSION_TIMEOUT_MS 5000

int hostcaps_criu_find(char *path, size_t size)
{
	const char *p = callerenv_get("PATH");

	if (!p || !*p)
		p = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");

		if (n && (size_t)snprintf(path, size, "%.*s/criu", (int)n, p) < size && access(path, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

/* What the child wrote to fd until EOF or the timeout. */
static size_t read_until(int fd, char *buf, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && poll(&p, 1, VERSION_TIMEOUT_MS) > 0 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return len;
}

int hostcaps_criu_version(const char *path, char *out, size_t size)
{
	char *const argv[] = { (char *)path, "--version", NULL };
	posix_spawn_file_actions_t fa;
	char buf[512];
	const char *v;
	int pipefd[2], r;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	r = posix_spawn(&pid, path, &fa, NULL, argv, callerenv_list());
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r != 0) {
		close(pipefd[0]);
		return -r;
	}
	read_until(pipefd[0], buf, sizeof(buf));
	close(pipefd[0]);
	kill(pid, SIGKILL);   /* gone already, or past the timeout */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (!(v = strstr(buf, "Version: ")))
		return -EINVAL;
	v += 9;
	snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
	return 0;
}
