/* gc: the half-made containers of crashed creates (gc.h). */
#include "runtime/container/gc.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/sandbox/lease.h"
#include "runtime/sandbox/scratch.h"
#include "runtime/linux/rdt.h"
#include "runtime/log.h"

/* What the records of one half-made container say. */
struct gc_target {
	struct container *c;
	char cgroup_path[4096];     /* "" when no cgroup was to be made yet */
	int systemd;                 /* enum cgroup_manager */
};

/* "<pid> <start time>" of record `name`: is that process still the one? */
static bool record_alive(int dirfd, const char *name, pid_t *pid_out)
{
	unsigned long long start;
	bool zombie;
	int pid;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char text[64];
	ssize_t n;

	*pid_out = 0;
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = 0;
	if (sscanf(text, "%d %llu", &pid, &start) != 2 || pid <= 0)
		return false;
	*pid_out = pid;
	return start && container_proc_start_time(pid, &zombie) == start && !zombie;
}

static void read_cgroup_record(struct gc_target *t)
{
	char text[4200];
	int fd = openat(t->c->dirfd, "cgroup", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), sd;
	ssize_t n;

	t->cgroup_path[0] = 0;
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 2)
		return;
	text[n] = 0;
	if (text[n - 1] == '\n')
		text[n - 1] = 0;
	sd = text[0] - '0';    /* enum cgroup_manager */
	if (sd >= 0 && sd <= CGROUP_SYSTEMD_USER && text[1] == ' ' && text[2] == '/' &&
	    strlen(text + 2) < sizeof(t->cgroup_path)) {
		strcpy(t->cgroup_path, text + 2);
		t->systemd = sd;
	}
}

/* ---- the cleaners, in their order ---- */

/* The child, if it outlived the creator (it should not: child.c). */
static void clean_init(struct gc_target *t)
{
	pid_t pid;

	if (!record_alive(t->c->dirfd, "init", &pid))
		return;
	int pidfd = syscall(SYS_pidfd_open, pid, 0);

	/* the same process still (pidfd taken, then checked) */
	if (pidfd >= 0 && record_alive(t->c->dirfd, "init", &pid))
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	if (pidfd >= 0)
		close(pidfd);
}

/* Every process in it, then the cgroup in every hierarchy. */
static void clean_cgroups(struct gc_target *t)
{
	struct cgroup cg;
	struct error err;

	if (!t->cgroup_path[0] || cgroup_open(t->cgroup_path, t->systemd, &cg, &err) < 0)
		return;
	if (cgroup_is_frozen(&cg))
		cgroup_freeze(&cg, false, &err);
	if (cgroup_destroy(&cg, &err) < 0)
		log_warn("gc: %s", err.msg);
	cgroup_close(&cg);
}

static void clean_rdt(struct gc_target *t)
{
	if (t->c->name[0] != '.' && t->c->name[0] != '~')
		rdt_remove(t->c->name);
}

/* a job's overlay upper/work (runtime/sandbox/scratch.h) */
static void clean_scratch(struct gc_target *t)
{
	struct error err;

	if (scratch_remove(t->c->dirfd, &err) < 0)
		log_warn("gc: %s", err.msg);
}

/* the leased uid, run.tinyrun.userns=auto (runtime/sandbox/lease.h) */
static void clean_lease(struct gc_target *t)
{
	container_lease_release(t->c->dirfd);
}

static void clean_state_dir(struct gc_target *t)
{
	container_dir_remove(t->c);
}

static void (*const cleaners[])(struct gc_target *) = {
	clean_init,
	clean_cgroups,
	clean_rdt,
	clean_scratch,
	clean_lease,
	clean_state_dir,
};

static void run_cleaners(struct container *c)
{
	struct gc_target t = { .c = c };

	read_cgroup_record(&t);
	for (size_t i = 0; i < sizeof(cleaners) / sizeof(cleaners[0]); i++)
		cleaners[i](&t);
}

void gc_clean_locked(struct container *c)
{
	run_cleaners(c);
}

/* ".new.<pid>.<name>": the pid of its creator */
static pid_t new_dir_pid(const char *name)
{
	if (strncmp(name, ".new.", 5))
		return -1;
	return (pid_t)atoi(name + 5);
}

/* 1: half-made and dead, cleaned; 0: left alone. */
static int gc_entry(int rootfd, const char *name)
{
	struct container c = { .id = name, .rootfd = rootfd, .dirfd = -1, .peek_rootfd = -1 };
	struct stat sb;
	pid_t pid, npid = new_dir_pid(name);
	int r = 0;

	if (name[0] == '.' && npid <= 0)
		return 0;
	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.dir, sizeof(c.dir), "%s", name);
	c.dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.dirfd < 0)
		return 0;
	/* someone else's (a shared root), busy (a live create or another
	 * command), a real container (a state.json that can be used), or a
	 * creator still alive: not ours */
	if (fstat(c.dirfd, &sb) < 0 || sb.st_uid != geteuid() || flock(c.dirfd, LOCK_EX | LOCK_NB) < 0 ||
	    (faccessat(c.dirfd, "state.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0 && !container_state_unusable(&c)) ||
	    record_alive(c.dirfd, "creator", &pid) || (npid > 0 && kill(npid, 0) == 0 && !pid))
		goto out;
	run_cleaners(&c);
	r = 1;
	if (fstatat(rootfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		log_warn("gc: %s: state dir not empty, left in place", name);
out:
	close(c.dirfd);
	return r;
}

static int open_root(const char *root, struct error *err)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno != ENOENT)
		return error_sys(err, errno, "--root %s", root);
	return fd < 0 ? -ENOENT : fd;
}

int gc_root(const char *root, FILE *out, struct error *err)
{
	int rootfd = open_root(root, err), n = 0;
	struct dirent *d;
	DIR *dir;

	if (rootfd == -ENOENT)
		return 0;
	if (rootfd < 0 || container_root_check(root, err) < 0) {
		if (rootfd >= 0)
			close(rootfd);
		return rootfd < 0 ? rootfd : -err->code;
	}
	if (!(dir = fdopendir(dup(rootfd)))) {
		close(rootfd);
		return error_sys(err, errno, "--root %s", root);
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (gc_entry(rootfd, d->d_name) == 1) {
			n++;
			if (out)
				fprintf(out, "%s\n", d->d_name);
		}
	}
	closedir(dir);
	close(rootfd);
	return n;
}

int gc_id(const char *root, const char *id, struct error *err)
{
	struct container probe;
	int rootfd, r;

	/* the state dir's name for this id (a long id: its hashed name) */
	if (container_ref_check(id, err) < 0 || container_dir_name(root, id, &probe, err) < 0)
		return -err->code;
	if ((rootfd = open_root(root, err)) == -ENOENT)
		return error_set(err, ENOENT, "container \"%s\" does not exist", id);
	if (rootfd < 0)
		return rootfd;
	if (container_root_check(root, err) < 0) {
		close(rootfd);
		return -err->code;
	}
	/* as delete: runc's words for an id with nothing under root */
	if (faccessat(rootfd, probe.name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		close(rootfd);
		return error_set(err, ENOENT, "container \"%s\" does not exist", id);
	}
	r = gc_entry(rootfd, probe.name);
	close(rootfd);
	return r;
}
