/* The container's CPU usage file, opened for the time limits
 * (runtime/sandbox/limits.c, tinyrun-init): cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"
#include "runtime/init/init_args.h"

int cgroup_cpu_usage_open(const struct cgroup *cg, int *kind, struct error *err)
{
	int dirfd, fd;

	if (!cg->path || !cg->ops)
		return error_set(err, ENODEV, "no cgroup of its own to measure its CPU usage in");
	if (cg->unit)
		return error_set(err, ENOTSUP, "a systemd unit's cgroup exists only once the container does");
	if (cg->v2_dirfd >= 0) {
		*kind = INIT_CPU_V2_STAT;
		fd = openat(cg->v2_dirfd, "cpu.stat", O_RDONLY | O_CLOEXEC);
		return fd < 0 ? error_sys(err, errno, "cgroup %s: cpu.stat", cg->path) : fd;
	}
	if ((dirfd = cg1_open(cg, CG1_CPUACCT, err)) < 0)
		return dirfd;
	*kind = INIT_CPU_V1_USAGE;
	fd = openat(dirfd, "cpuacct.usage", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = error_sys(err, errno, "cgroup %s: cpuacct.usage", cg->path);
	close(dirfd);
	return fd;
}
