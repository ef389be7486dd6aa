#include "runtime/cgroup/join.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"
#include "runtime/cgroup/systemd-dbus.h"

static void join_init(struct cgroup_join *j)
{
	j->n = 0;
	j->clone_dirfd = j->procs_fd = -1;
	j->wait_parent = false;
	j->wait_pipe[0] = j->wait_pipe[1] = -1;
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
	if (cg->unit && cg->unit->pending) {
		if (pipe2(j->wait_pipe, O_CLOEXEC) < 0)
			return error_sys(err, errno, "pipe");
		j->wait_parent = true;
		return 0;
	}
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

/* Parent: the child may go on. */
static int release_child(struct cgroup_join *j, struct error *err)
{
	int r = 0;

	if (!j->wait_parent)
		return 0;
	if (write(j->wait_pipe[1], "", 1) != 1)
		r = error_sys(err, errno, "cgroup: releasing the container's init");
	close(j->wait_pipe[0]);
	close(j->wait_pipe[1]);
	j->wait_parent = false;
	return r;
}

/* Child: until the parent has put us in the systemd unit (EOF: it gave up). */
static int wait_for_parent(struct cgroup_join *j, struct error *err)
{
	char c;
	ssize_t n;

	close(j->wait_pipe[1]);
	do
		n = read(j->wait_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(j->wait_pipe[0]);
	j->wait_parent = false;
	if (n != 1)
		return error_set(err, EPIPE, "the runtime did not put the container in its systemd unit");
	return 0;
}

int cgroup_enter_systemd_unit(struct cgroup *cg, const struct oci_config *cfg, pid_t pid,
			      struct cgroup_join *j, struct error *err)
{
	int r;

	if (!cg->unit || !cg->unit->pending)
		return 0;
	cg->unit->pending = false;
	if ((r = systemd_start_unit(cg->unit, pid, err)) < 0)
		return r;
	/* systemd made the unit's cgroup (in the hierarchies it manages) with pid
	 * in it: the rest is as without systemd, at the same path */
	cg->created = true;
	r = cg->mode == CGROUP_MODE_V2 ? cg2_create(cg->path, cfg, cg, err) : cg1_create(cg->path, cfg, cg, err);
	if (r < 0) {
		error_prefix(err, "cgroup %s", cg->path);
		return r;
	}
	if ((r = cgroup_attach(cg, pid, err)) < 0)
		return r;
	return release_child(j, err);
}

int cgroup_join_self(struct cgroup_join *j, struct error *err)
{
	if (j->wait_parent)
		return wait_for_parent(j, err);
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
	if (j->wait_parent) {
		close(j->wait_pipe[0]);
		close(j->wait_pipe[1]);
	}
	join_init(j);
}
