/* floor: the kernel floor of a container start, for `make bench` -- what a
 * runtime cannot avoid, with no runtime: clone into new mount, pid, uts, ipc,
 * net and cgroup namespaces, make the mounts private, bind the rootfs onto
 * itself, pivot_root into it, detach the old root, mount /proc, exec.
 * No cgroup, no config parsing beyond finding root.path, no seccomp, no
 * capabilities dropped, no state: it is the lower bound the runtimes' ratios
 * are taken against, not a runtime.
 *
 *   floor [--root DIR] run --bundle BUNDLE ID
 *
 * takes the same command line the bench driver gives a runtime's `run`
 * (--root and ID are ignored), reads root.path from BUNDLE/config.json
 * (absolute, as the bench writes it), runs /bin/true in it (what every
 * bench container runs) and exits with its status. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

/* root.path of BUNDLE/config.json: the string after the first "path" key
 * that follows "root" (the bench's configs have no escapes in it). */
static void root_path(const char *bundle, char *out, size_t size)
{
	char file[PATH_MAX], buf[1 << 16], *p, *q;
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/config.json", bundle);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		die(file);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die("read config.json");
	buf[n] = '\0';
	if (!(p = strstr(buf, "\"root\"")) || !(p = strstr(p, "\"path\"")) ||
	    !(p = strchr(p + 6, '"')) || !(q = strchr(++p, '"')) || (size_t)(q - p) >= size) {
		errno = EINVAL;
		die("config.json: root.path");
	}
	memcpy(out, p, q - p);
	out[q - p] = '\0';
}

static int child(const char *rootfs)
{
	char *argv[] = { "/bin/true", NULL };

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("make / private");
	if (mount(rootfs, rootfs, NULL, MS_BIND | MS_REC, NULL) < 0)
		die("bind the rootfs");
	if (chdir(rootfs) < 0)
		die("chdir");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		die("pivot_root");
	if (umount2(".", MNT_DETACH) < 0)
		die("detach the old root");
	if (chdir("/") < 0)
		die("chdir /");
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("mount /proc");
	execv(argv[0], argv);
	die("exec /bin/true");
	return 125;
}

int main(int argc, char **argv)
{
	const char *bundle = ".";
	char rootfs[PATH_MAX];
	int st;
	pid_t pid;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--bundle") && i + 1 < argc)
			bundle = argv[++i];
		else if (!strcmp(argv[i], "--version")) {
			puts("floor (clone + pivot_root + exec, no runtime)");
			return 0;
		}
	root_path(bundle, rootfs, sizeof(rootfs));
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC |
			     CLONE_NEWNET | CLONE_NEWCGROUP | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0)
		die("clone");
	if (pid == 0)
		_exit(child(rootfs));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
