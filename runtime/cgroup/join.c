/* Joining the container's cgroup: the backend fills struct cgroup_join
 * (backend.h), the child uses it here. */
#include "runtime/cgroup/join.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

static void join_init(struct cgroup_join *j)
{
	j->subs = NULL;
	j->n_subs = 0;
	j->n = 0;
	j->clone_dirfd = j->procs_fd = -1;
	j->wait_parent = false;
	j->wait_pipe[0] = j->wait_pipe[1] = -1;
}

int cgroup_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	join_init(j);
	return cg_ops(cg)->join_prepare(cg, j, err);
}

int cgroup_join_prepare_sub(const struct cgroup *cg, const struct cgroup_sub *subs, size_t n,
			    struct cgroup_join *j, struct error *err)
{
	join_init(j);
	j->subs = subs;
	j->n_subs = n;
	return cg_ops(cg)->join_prepare(cg, j, err);
}

const char *cgroup_sub_clean(const char *path)
{
	const char *p = path;

	while (*p == '/')
		p++;
	for (const char *c = p; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 2 && c[0] == '.' && c[1] == '.')
			return NULL;
		c += len;
		while (*c == '/')
			c++;
	}
	return p;
}

int cgroup_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	return cg_ops(cg)->join_without_clone(cg, j, err);
}

int cgroup_join_release(struct cgroup_join *j, struct error *err)
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
	if (!cg_ops(cg)->enter)
		return 0;
	return cg_ops(cg)->enter(cg, cfg, pid, j, err);
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
