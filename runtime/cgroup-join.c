#include "cgroup-join.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cgroup-internal.h"

static void join_init(struct cgroup_join *j)
{
	j->n = 0;
	j->clone_dirfd = j->procs_fd = -1;
}

static int open_at_hier(const struct cgroup *cg, int h, const char *file, int flags, struct error *err)
{
	char p[4200];
	int fd;

	if ((size_t)snprintf(p, sizeof(p), CG_ROOT "/%s%s%s", cg1_names[h], cg->path, file) >= sizeof(p))
		return error_set(err, ENAMETOOLONG, "cgroup path too long");
	fd = open(p, flags | O_CLOEXEC);
	return fd < 0 ? error_sys(err, errno, "%s", p) : fd;
}

int cgroup_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	int fd;

	join_init(j);
	if (cg->mode == CGROUP_MODE_V2) {
		if (cg->v2_dirfd >= 0 && (j->clone_dirfd = dup(cg->v2_dirfd)) < 0)
			return error_sys(err, errno, "cgroup: dup");
		return 0;
	}
	for (int h = 0; h < CG1_N; h++) {
		if (!(cg->v1_mask & (1u << h)))
			continue;
		if (h == CG1_UNIFIED)
			fd = open_at_hier(cg, h, "", O_RDONLY | O_DIRECTORY, err);
		else
			fd = open_at_hier(cg, h, "/tasks", O_WRONLY, err);
		if (fd < 0) {
			cgroup_join_close(j);
			return fd;
		}
		if (h == CG1_UNIFIED)
			j->clone_dirfd = fd;
		else if (j->n < CGROUP_JOIN_MAX)
			j->tasks_fds[j->n++] = fd;
		else
			close(fd);
	}
	return 0;
}

int cgroup_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	int fd;

	if (cg->mode == CGROUP_MODE_V2) {
		fd = openat(cg->v2_dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return error_sys(err, errno, "cgroup %s: cgroup.procs", cg->path);
	} else {
		fd = open_at_hier(cg, CG1_UNIFIED, "/cgroup.procs", O_WRONLY, err);
		if (fd < 0)
			return fd;
	}
	j->procs_fd = fd;
	return 0;
}

int cgroup_join_self(struct cgroup_join *j, struct error *err)
{
	/* the fds are close-on-exec: no close() on the start path */
	for (size_t i = 0; i < j->n; i++)
		if (write(j->tasks_fds[i], "0", 1) != 1)
			return error_sys(err, errno, "join the container's cgroup (v1)");
	j->n = 0;
	if (j->procs_fd >= 0) {
		if (write(j->procs_fd, "0", 1) != 1)
			return error_sys(err, errno, "join the container's cgroup");
		close(j->procs_fd);
		j->procs_fd = -1;
	}
	return 0;
}

void cgroup_join_close(struct cgroup_join *j)
{
	for (size_t i = 0; i < j->n; i++)
		close(j->tasks_fds[i]);
	if (j->clone_dirfd >= 0)
		close(j->clone_dirfd);
	if (j->procs_fd >= 0)
		close(j->procs_fd);
	join_init(j);
}
