/* cgroup v1 stats (cg1_ops.stats), one hierarchy per controller, and OOM
 * events (memory.oom_control with an eventfd). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

static void v1_mem_entry(int fd, const char *prefix, struct cgroup_mem_entry *e)
{
	char file[64];

	snprintf(file, sizeof(file), "%s.usage_in_bytes", prefix);
	e->usage = cg_stats_u64(fd, file);
	snprintf(file, sizeof(file), "%s.max_usage_in_bytes", prefix);
	e->max_usage = cg_stats_u64(fd, file);
	snprintf(file, sizeof(file), "%s.failcnt", prefix);
	e->failcnt = cg_stats_u64(fd, file);
	snprintf(file, sizeof(file), "%s.limit_in_bytes", prefix);
	e->limit = cg_stats_u64(fd, file);
}

static int v1_cpu(const int *fds, struct cgroup_stats *st)
{
	long hz = sysconf(_SC_CLK_TCK);
	char *text;
	int r, acct = fds[CG1_CPUACCT];

	if (acct >= 0) {
		st->cpu.total = cg_stats_u64(acct, "cpuacct.usage");
		if ((text = cg_stats_slurp(acct, "cpuacct.stat"))) {
			st->cpu.user = cg_stats_kv(text, "user") * (1000000000ULL / (hz > 0 ? hz : 100));
			st->cpu.kernel = cg_stats_kv(text, "system") * (1000000000ULL / (hz > 0 ? hz : 100));
			free(text);
		}
		if ((r = cg_stats_list_at(acct, "cpuacct.usage_percpu", &st->cpu.percpu, NULL, &st->cpu.n_percpu)) < 0 ||
		    (r = cg_stats_list_at(acct, "cpuacct.usage_percpu_sys", &st->cpu.percpu_kernel, NULL,
					  &st->cpu.n_percpu_kernel)) < 0 ||
		    (r = cg_stats_list_at(acct, "cpuacct.usage_percpu_user", &st->cpu.percpu_user, NULL,
					  &st->cpu.n_percpu_user)) < 0)
			return r;
	}
	if (fds[CG1_CPU] >= 0 && (text = cg_stats_slurp(fds[CG1_CPU], "cpu.stat"))) {
		st->cpu.periods = cg_stats_kv(text, "nr_periods");
		st->cpu.throttled_periods = cg_stats_kv(text, "nr_throttled");
		st->cpu.throttled_time = cg_stats_kv(text, "throttled_time");
		free(text);
	}
	return 0;
}

/* runc's cpuset stats: the lists and every cpuset.* flag (0 when absent:
 * memory_pressure_enabled exists in the root cpuset only). */
static int v1_cpuset(int fd, struct cgroup_stats *st)
{
	static const struct { const char *file; size_t off; } flags[] = {
#define F(name) { "cpuset." #name, offsetof(struct cgroup_stats, cpuset.name) }
		F(cpu_exclusive), F(mem_hardwall), F(mem_exclusive), F(memory_migrate), F(memory_spread_page),
		F(memory_spread_slab), F(memory_pressure), F(memory_pressure_enabled), F(sched_load_balance),
#undef F
	};
	char *text;
	int r;

	if (fd < 0)
		return 0;
	if ((r = cg_stats_list_at(fd, "cpuset.cpus", NULL, &st->cpuset.cpus, &st->cpuset.n_cpus)) < 0 ||
	    (r = cg_stats_list_at(fd, "cpuset.mems", NULL, &st->cpuset.mems, &st->cpuset.n_mems)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		*(uint64_t *)((char *)st + flags[i].off) = cg_stats_u64(fd, flags[i].file);
	if ((text = cg_stats_slurp(fd, "cpuset.sched_relax_domain_level"))) {
		st->cpuset.sched_relax_domain_level = strtoll(text, NULL, 10);
		free(text);
	}
	return 0;
}

static int v1_memory(int fd, struct cgroup_stats *st)
{
	char *text;
	int r = 0;

	if (fd < 0)
		return 0;
	v1_mem_entry(fd, "memory", &st->memory.usage);
	v1_mem_entry(fd, "memory.memsw", &st->memory.swap);
	v1_mem_entry(fd, "memory.kmem", &st->memory.kernel);
	v1_mem_entry(fd, "memory.kmem.tcp", &st->memory.kernel_tcp);
	if ((text = cg_stats_slurp(fd, "memory.oom_control"))) {
		st->memory.oom_kill = cg_stats_kv(text, "oom_kill");
		st->memory.under_oom = cg_stats_kv(text, "under_oom") != 0;
		free(text);
	}
	if ((text = cg_stats_slurp(fd, "memory.stat"))) {
		r = cg_stats_memory_raw(text, st);
		st->memory.cache = cg_stats_kv(text, "cache");
		free(text);
	}
	return r;
}

/* "8:0 Read 4096" lines; the "Total N" summary line is skipped. */
static int v1_blkio_file(int fd, const char *file, struct cgroup_blkio_entry **list, size_t *n)
{
	char *text = cg_stats_slurp(fd, file), *line, *save = NULL;
	int r = 0;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save)) {
		unsigned major, minor;
		char op[16];
		unsigned long long v;
		if (sscanf(line, "%u:%u %15s %llu", &major, &minor, op, &v) == 4)
			r = cg_stats_add_blkio(list, n, major, minor, op, v);
	}
	free(text);
	return r;
}

static int v1_blkio(int fd, struct cgroup_stats *st)
{
	int r;

	if (fd < 0)
		return 0;
	/* The CFQ/BFQ files when the scheduler fills them, else the throttle ones. */
	if ((r = v1_blkio_file(fd, "blkio.io_service_bytes_recursive", &st->blkio.service_bytes,
			       &st->blkio.n_service_bytes)) < 0)
		return r;
	if (st->blkio.n_service_bytes == 0 &&
	    (r = v1_blkio_file(fd, "blkio.throttle.io_service_bytes_recursive", &st->blkio.service_bytes,
			       &st->blkio.n_service_bytes)) < 0)
		return r;
	if ((r = v1_blkio_file(fd, "blkio.io_serviced_recursive", &st->blkio.serviced, &st->blkio.n_serviced)) < 0)
		return r;
	if (st->blkio.n_serviced == 0)
		r = v1_blkio_file(fd, "blkio.throttle.io_serviced_recursive", &st->blkio.serviced, &st->blkio.n_serviced);
	return r;
}

static void v1_hugetlb(int fd, struct cgroup_stats *st)
{
	char names[8][16], prefix[48];
	int n = cg_stats_hugetlb_sizes(names, 8), i;

	if (fd < 0 || n <= 0 || !(st->hugetlb = calloc(n, sizeof(*st->hugetlb))))
		return;
	for (i = 0; i < n; i++) {
		struct cgroup_hugetlb_stat *h = &st->hugetlb[st->n_hugetlb++];
		struct cgroup_mem_entry e;
		snprintf(prefix, sizeof(prefix), "hugetlb.%.15s", names[i]);
		v1_mem_entry(fd, prefix, &e);
		snprintf(h->page_size, sizeof(h->page_size), "%.15s", names[i]);
		h->usage = e.usage;
		h->max_usage = e.max_usage;
		h->failcnt = e.failcnt;
	}
}

int cg1_stats_at(const int *fds, struct cgroup_stats *st, struct error *err)
{
	int r;

	if ((r = v1_cpu(fds, st)) == 0 && (r = v1_cpuset(fds[CG1_CPUSET], st)) == 0 &&
	    (r = v1_memory(fds[CG1_MEMORY], st)) == 0)
		r = v1_blkio(fds[CG1_BLKIO], st);
	if (r == 0 && fds[CG1_PIDS] >= 0) {
		st->pids.current = cg_stats_u64(fds[CG1_PIDS], "pids.current");
		st->pids.limit = cg_stats_u64(fds[CG1_PIDS], "pids.max");
		if (st->pids.limit == UINT64_MAX)
			st->pids.limit = 0;
	}
	if (r == 0)
		v1_hugetlb(fds[CG1_HUGETLB], st);
	if (r < 0)
		return error_set(err, -r, "out of memory");
	return 0;
}

int cg1_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	int fds[CG1_N], r;

	if ((r = cg1_open_all(cg, fds, err)) < 0)
		return r;
	r = cg1_stats_at(fds, st, err);
	cg1_close_all(fds);
	return r;
}

int cg1_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	int dirfd = cg1_open(cg, CG1_MEMORY, err), r;

	if (dirfd < 0)
		return dirfd;
	r = cg_stats_oom_kill_at(cg, dirfd, "memory.oom_control", count, err);
	close(dirfd);
	return r;
}

/* v1: an eventfd registered for memory.oom_control in cgroup.event_control. */
int cg1_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	int dirfd = cg1_open(cg, CG1_MEMORY, err), r = 0;

	if (dirfd < 0)
		return dirfd;
	w->ctl_fd = openat(dirfd, "memory.oom_control", O_RDONLY | O_CLOEXEC);
	if (w->ctl_fd < 0) {
		r = error_sys(err, errno, "cgroup %s: %s", cg->path, "memory.oom_control");
		goto out;
	}
	cg_stats_read_oom_kill(w->ctl_fd, &w->last);
	w->events = POLLIN;
	w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->fd < 0 || (r = cg_writef(dirfd, "cgroup.event_control", err, "%d %d", w->fd, w->ctl_fd)) < 0) {
		r = w->fd < 0 ? error_sys(err, errno, "eventfd") : r;
		error_prefix(err, "cgroup %s", cg->path);
		cgroup_oom_watch_close(w);
	}
out:
	close(dirfd);
	return r;
}
