/* cgroup v2 stats (cg2_ops.stats) and OOM events (memory.events). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

/* io.stat: "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6" */
static int v2_io_stat(const char *text, struct cgroup_stats *st)
{
	static const struct { const char *key, *op; bool bytes; } map[] = {
		{ "rbytes", "Read", true }, { "wbytes", "Write", true }, { "dbytes", "Discard", true },
		{ "rios", "Read", false }, { "wios", "Write", false }, { "dios", "Discard", false },
	};
	const char *line = text;
	int r = 0;

	while (line && *line && r == 0) {
		const char *end = strchrnul(line, '\n');
		unsigned major, minor;
		size_t i;
		if (sscanf(line, "%u:%u", &major, &minor) == 2)
			for (i = 0; i < sizeof(map) / sizeof(map[0]) && r == 0; i++) {
				char pat[16];
				const char *p;
				snprintf(pat, sizeof(pat), " %s=", map[i].key);
				p = strstr(line, pat);
				if (!p || p > end)
					continue;
				uint64_t v = strtoull(p + strlen(pat), NULL, 10);
				if (map[i].bytes)
					r = cg_stats_add_blkio(&st->blkio.service_bytes, &st->blkio.n_service_bytes,
							       major, minor, map[i].op, v);
				else
					r = cg_stats_add_blkio(&st->blkio.serviced, &st->blkio.n_serviced, major, minor,
							       map[i].op, v);
			}
		line = *end ? end + 1 : end;
	}
	return r;
}

static void v2_hugetlb(int fd, struct cgroup_stats *st)
{
	char names[8][16], file[96], *ev;
	int n = cg_stats_hugetlb_sizes(names, 8), i;

	if (n <= 0 || !(st->hugetlb = calloc(n, sizeof(*st->hugetlb))))
		return;
	for (i = 0; i < n; i++) {
		struct cgroup_hugetlb_stat *h = &st->hugetlb[st->n_hugetlb];
		snprintf(file, sizeof(file), "hugetlb.%.15s.current", names[i]);
		if (cg_read_u64(fd, file, &h->usage) < 0)
			continue;
		snprintf(h->page_size, sizeof(h->page_size), "%.15s", names[i]);
		snprintf(file, sizeof(file), "hugetlb.%.15s.events", names[i]);
		ev = cg_stats_slurp(fd, file);
		h->failcnt = cg_stats_kv(ev, "max");
		free(ev);
		st->n_hugetlb++;
	}
}

/* v2 has no cpuset flags: the effective cpus and mems only (0 and empty
 * without the cpuset controller). */
static int v2_cpuset(int fd, struct cgroup_stats *st, struct error *err)
{
	if (cg_stats_list_at(fd, "cpuset.cpus.effective", NULL, &st->cpuset.cpus, &st->cpuset.n_cpus) < 0 ||
	    cg_stats_list_at(fd, "cpuset.mems.effective", NULL, &st->cpuset.mems, &st->cpuset.n_mems) < 0)
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

int cg2_stats(int fd, struct cgroup_stats *st, struct error *err)
{
	char *text;
	uint64_t swap_cur, swap_max;

	if ((text = cg_stats_slurp(fd, "cpu.stat"))) {
		st->cpu.total = cg_stats_kv(text, "usage_usec") * 1000;
		st->cpu.user = cg_stats_kv(text, "user_usec") * 1000;
		st->cpu.kernel = cg_stats_kv(text, "system_usec") * 1000;
		st->cpu.periods = cg_stats_kv(text, "nr_periods");
		st->cpu.throttled_periods = cg_stats_kv(text, "nr_throttled");
		st->cpu.throttled_time = cg_stats_kv(text, "throttled_usec") * 1000;
		free(text);
	} else {
		return error_sys(err, errno, "cpu.stat");
	}
	st->memory.usage.usage = cg_stats_u64(fd, "memory.current");
	st->memory.usage.max_usage = cg_stats_u64(fd, "memory.peak");
	st->memory.usage.limit = UINT64_MAX;
	cg_read_u64(fd, "memory.max", &st->memory.usage.limit);
	if ((text = cg_stats_slurp(fd, "memory.events"))) {
		st->memory.usage.failcnt = cg_stats_kv(text, "max");
		st->memory.oom = cg_stats_kv(text, "oom");
		st->memory.oom_kill = cg_stats_kv(text, "oom_kill");
		free(text);
	}
	if (cg_read_u64(fd, "memory.swap.current", &swap_cur) == 0) {
		swap_max = UINT64_MAX;
		cg_read_u64(fd, "memory.swap.max", &swap_max);
		st->memory.swap.usage = swap_cur + st->memory.usage.usage;
		st->memory.swap.limit = swap_max == UINT64_MAX || st->memory.usage.limit == UINT64_MAX
			? UINT64_MAX : swap_max + st->memory.usage.limit;
	}
	if ((text = cg_stats_slurp(fd, "memory.stat"))) {
		int r = cg_stats_memory_raw(text, st);
		st->memory.cache = cg_stats_kv(text, "file");
		free(text);
		if (r < 0)
			return error_set(err, ENOMEM, "out of memory");
	}
	st->pids.current = cg_stats_u64(fd, "pids.current");
	st->pids.limit = cg_stats_u64(fd, "pids.max");
	if (st->pids.limit == UINT64_MAX)
		st->pids.limit = 0;
	if ((text = cg_stats_slurp(fd, "io.stat"))) {
		int r = v2_io_stat(text, st);
		free(text);
		if (r < 0)
			return error_set(err, ENOMEM, "out of memory");
	}
	v2_hugetlb(fd, st);
	return v2_cpuset(fd, st, err);
}

int cg2_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	return cg_stats_oom_kill_at(cg, cg->v2_dirfd, "memory.events", count, err);
}

/* v2: memory.events itself, kernfs signals POLLPRI on change. */
int cg2_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	w->fd = openat(cg->v2_dirfd, "memory.events", O_RDONLY | O_CLOEXEC);
	if (w->fd < 0)
		return error_sys(err, errno, "cgroup %s: %s", cg->path, "memory.events");
	cg_stats_read_oom_kill(w->fd, &w->last);
	w->events = POLLPRI;
	return 0;
}
