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
 * bench container runs) and exits with its status.
 *
 * Built with -DFLOOR_CGROUPS (build/bench/floor-cg) it also gives the process
 * a cgroup of its own in every cgroup hierarchy mounted under /sys/fs/cgroup,
 * at linux.cgroupsPath of the config, the cheapest way a runtime can: cgroup2
 * joined by clone3(CLONE_INTO_CGROUP), each v1 hierarchy by the child writing
 * "0" into its `tasks` (the calling thread only: no RCU grace period), the
 * v1 cpuset's cpus and mems copied from the parent; all removed after the
 * wait. No controller is configured: it is the floor of "one cgroup per
 * container in every hierarchy". */
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
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

/* The string value of KEY in BUNDLE/config.json, after the first FIRST when
 * given (the bench's configs have no escapes in them). */
static void config_string(const char *bundle, const char *first, const char *key, char *out, size_t size)
{
	char file[PATH_MAX], buf[1 << 16], *p = buf, *q;
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
	if ((first && !(p = strstr(buf, first))) || !(p = strstr(p, key)) ||
	    !(p = strchr(p + strlen(key), '"')) || !(q = strchr(++p, '"')) || (size_t)(q - p) >= size) {
		errno = EINVAL;
		die(key);
	}
	memcpy(out, p, q - p);
	out[q - p] = '\0';
}

#ifdef FLOOR_CGROUPS
#define MAX_HIER 32
#define CGROUP2_MAGIC 0x63677270

static char cg_dirs[MAX_HIER][PATH_MAX];
static int n_cg, v2_fd = -1, tasks_fds[MAX_HIER], n_tasks;

/* v1 cpuset: a new cgroup has no cpus and no mems until given its parent's */
static void cpuset_copy(const char *dir)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
	char from[PATH_MAX + 32], to[PATH_MAX + 32], buf[4096];
	ssize_t n;
	int fd;

	for (int i = 0; i < 2; i++) {
		snprintf(from, sizeof(from), "%s/../%s", dir, files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
		if ((fd = open(from, O_RDONLY | O_CLOEXEC)) < 0)
			return;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n > 0 && (fd = open(to, O_WRONLY | O_CLOEXEC)) >= 0) {
			if (write(fd, buf, n) < 0) { /* the join fails and says so */ }
			close(fd);
		}
	}
}

/* mkdir PATH (and its parent) in every hierarchy under /sys/fs/cgroup; open
 * what the join needs */
static void cgroups_make(const char *path)
{
	char line[4096], dir[PATH_MAX], parent[PATH_MAX + 8], *slash;
	dev_t seen[MAX_HIER];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n_seen = 0;

	if (!f)
		die("/proc/self/mountinfo");
	while (fgets(line, sizeof(line), f) && n_cg < MAX_HIER) {
		char mnt[256], *sep = strstr(line, " - ");
		struct statfs sfs;
		struct stat st;
		int i;

		if (!sep || (strncmp(sep, " - cgroup ", 10) && strncmp(sep, " - cgroup2 ", 11)) ||
		    sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || strncmp(mnt, "/sys/fs/cgroup", 14) ||
		    stat(mnt, &st) < 0 || statfs(mnt, &sfs) < 0)
			continue;
		for (i = 0; i < n_seen && seen[i] != st.st_dev; i++)
			;
		if (i < n_seen)
			continue;   /* a hierarchy mounted twice (cpu and cpuacct) */
		seen[n_seen++] = st.st_dev;
		if ((size_t)snprintf(dir, sizeof(dir), "%s%s", mnt, path) >= sizeof(dir)) {
			errno = ENAMETOOLONG;
			die(path);
		}
		snprintf(parent, sizeof(parent), "%s", dir);
		if ((slash = strrchr(parent, '/')) && slash > parent + strlen(mnt)) {
			*slash = '\0';
			if (mkdir(parent, 0755) == 0 && strstr(mnt, "cpuset"))
				cpuset_copy(parent);
		}
		if (mkdir(dir, 0755) < 0)
			die(dir);
		snprintf(cg_dirs[n_cg++], PATH_MAX, "%s", dir);
		if (sfs.f_type == CGROUP2_MAGIC) {
			if ((v2_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
				die(dir);
			continue;
		}
		if (strstr(mnt, "cpuset"))
			cpuset_copy(dir);
		snprintf(parent, sizeof(parent), "%s/tasks", dir);
		if ((tasks_fds[n_tasks++] = open(parent, O_WRONLY | O_CLOEXEC)) < 0)
			die(parent);
	}
	fclose(f);
}

static void cgroups_join(void)
{
	for (int i = 0; i < n_tasks; i++)
		if (write(tasks_fds[i], "0", 1) != 1)
			die("join a v1 cgroup");
}

static void cgroups_remove(void)
{
	for (int i = 0; i < n_cg; i++)
		for (int try = 0; rmdir(cg_dirs[i]) < 0; try++)
			if (errno != EBUSY || try == 100)   /* the reaped child leaving it */
				die(cg_dirs[i]);
			else
				usleep(1000);
}

static pid_t clone_into_cgroup(unsigned long flags)
{
	struct clone_args args = { .flags = flags | (v2_fd >= 0 ? CLONE_INTO_CGROUP : 0),
				   .exit_signal = SIGCHLD, .cgroup = (unsigned long)(v2_fd >= 0 ? v2_fd : 0) };

	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}
#endif

static int child(const char *rootfs)
{
	char *argv[] = { "/bin/true", NULL };

#ifdef FLOOR_CGROUPS
	cgroups_join();
#endif
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
#ifdef FLOOR_CGROUPS
			puts("floor-cg (clone + pivot_root + exec, a cgroup in every hierarchy, no runtime)");
#else
			puts("floor (clone + pivot_root + exec, no runtime)");
#endif
			return 0;
		}
	config_string(bundle, "\"root\"", "\"path\"", rootfs, sizeof(rootfs));
#ifdef FLOOR_CGROUPS
	char cgpath[PATH_MAX];

	config_string(bundle, NULL, "\"cgroupsPath\"", cgpath, sizeof(cgpath));
	if (cgpath[0] != '/' || strstr(cgpath, "..")) {
		errno = EINVAL;
		die("config.json: linux.cgroupsPath: not an absolute path");
	}
	cgroups_make(cgpath);
	pid = clone_into_cgroup(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
				CLONE_NEWCGROUP);
#else
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC |
			     CLONE_NEWNET | CLONE_NEWCGROUP | SIGCHLD, NULL, NULL, NULL, NULL);
#endif
	if (pid < 0)
		die("clone");
	if (pid == 0)
		_exit(child(rootfs));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
#ifdef FLOOR_CGROUPS
	cgroups_remove();
#endif
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
