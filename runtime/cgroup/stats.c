/* Stats for `events --stats`, and OOM notification for `events`. A file a
 * kernel or a disabled controller does not have leaves its values at 0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

void cgroup_stats_free(struct cgroup_stats *st)
{
	free(st->cpu.percpu);
	free(st->memory.raw);
	free(st->blkio.service_bytes);
	free(st->blkio.serviced);
	free(st->hugetlb);
	memset(st, 0, sizeof(*st));
}

static uint64_t kv(const char *text, const char *key)
{
	uint64_t v = 0;

	if (text)
		cg_kv_lookup(text, key, &v);
	return v;
}

static uint64_t u64(int fd, const char *file)
{
	uint64_t v = 0;

	cg_read_u64(fd, file, &v);
	return v;
}

static char *slurp(int fd, const char *file)
{
	char *text = NULL;

	if (fd >= 0 && cg_read_all(fd, file, &text, NULL) < 0)
		text = NULL;
	return text;
}

int cg_stats_memory_raw(const char *text, struct cgroup_stats *st)
{
	const char *p = text;
	size_t cap = 0;

	while (p && *p) {
		const char *sp = strchr(p, ' '), *nl = strchrnul(p, '\n');
		if (sp && sp < nl && (size_t)(sp - p) < sizeof(st->memory.raw[0].key)) {
			if (st->memory.n_raw == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct cgroup_kv *n = realloc(st->memory.raw, nc * sizeof(*n));
				if (!n)
					return -ENOMEM;
				st->memory.raw = n;
				cap = nc;
			}
			struct cgroup_kv *e = &st->memory.raw[st->memory.n_raw++];
			snprintf(e->key, sizeof(e->key), "%.*s", (int)(sp - p), p);
			e->value = strtoull(sp + 1, NULL, 10);
		}
		p = *nl ? nl + 1 : nl;
	}
	return 0;
}

int cg_stats_hugetlb_sizes(char names[][16], size_t max)
{
	DIR *d = opendir("/sys/kernel/mm/hugepages");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		unsigned long kb;
		if (sscanf(de->d_name, "hugepages-%lukB", &kb) == 1)
			cg_hugepage_name(kb, names[n++], 16);
	}
	closedir(d);
	return (int)n;
}

static int add_blkio(struct cgroup_blkio_entry **list, size_t *n, uint32_t major, uint32_t minor,
		     const char *op, uint64_t value)
{
	struct cgroup_blkio_entry *nl = realloc(*list, (*n + 1) * sizeof(**list));

	if (!nl)
		return -ENOMEM;
	*list = nl;
	nl[*n] = (struct cgroup_blkio_entry){ .major = major, .minor = minor, .value = value };
	snprintf(nl[*n].op, sizeof(nl[*n].op), "%s", op);
	(*n)++;
	return 0;
}

/* ---- v2 ----------------------------------------------------------------- */

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
				r = map[i].bytes ? add_blkio(&st->blkio.service_bytes, &st->blkio.n_service_bytes, major, minor, map[i].op, v)
						 : add_blkio(&st->blkio.serviced, &st->blkio.n_serviced, major, minor, map[i].op, v);
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
		ev = slurp(fd, file);
		h->failcnt = kv(ev, "max");
		free(ev);
		st->n_hugetlb++;
	}
}

int cg2_stats(int fd, struct cgroup_stats *st, struct error *err)
{
	char *text;
	uint64_t swap_cur, swap_max;

	if ((text = slurp(fd, "cpu.stat"))) {
		st->cpu.total = kv(text, "usage_usec") * 1000;
		st->cpu.user = kv(text, "user_usec") * 1000;
		st->cpu.kernel = kv(text, "system_usec") * 1000;
		st->cpu.periods = kv(text, "nr_periods");
		st->cpu.throttled_periods = kv(text, "nr_throttled");
		st->cpu.throttled_time = kv(text, "throttled_usec") * 1000;
		free(text);
	} else {
		return error_sys(err, errno, "cpu.stat");
	}
	st->memory.usage.usage = u64(fd, "memory.current");
	st->memory.usage.max_usage = u64(fd, "memory.peak");
	st->memory.usage.limit = UINT64_MAX;
	cg_read_u64(fd, "memory.max", &st->memory.usage.limit);
	if ((text = slurp(fd, "memory.events"))) {
		st->memory.usage.failcnt = kv(text, "max");
		st->memory.oom = kv(text, "oom");
		st->memory.oom_kill = kv(text, "oom_kill");
		free(text);
	}
	if (cg_read_u64(fd, "memory.swap.current", &swap_cur) == 0) {
		swap_max = UINT64_MAX;
		cg_read_u64(fd, "memory.swap.max", &swap_max);
		st->memory.swap.usage = swap_cur + st->memory.usage.usage;
		st->memory.swap.limit = swap_max == UINT64_MAX || st->memory.usage.limit == UINT64_MAX
			? UINT64_MAX : swap_max + st->memory.usage.limit;
	}
	if ((text = slurp(fd, "memory.stat"))) {
		int r = cg_stats_memory_raw(text, st);
		st->memory.cache = kv(text, "file");
		free(text);
		if (r < 0)
			return error_set(err, ENOMEM, "out of memory");
	}
	st->pids.current = u64(fd, "pids.current");
	st->pids.limit = u64(fd, "pids.max");
	if (st->pids.limit == UINT64_MAX)
		st->pids.limit = 0;
	if ((text = slurp(fd, "io.stat"))) {
		int r = v2_io_stat(text, st);
		free(text);
		if (r < 0)
			return error_set(err, ENOMEM, "out of memory");
	}
	v2_hugetlb(fd, st);
	return 0;
}

/* ---- v1 ----------------------------------------------------------------- */

static void v1_mem_entry(int fd, const char *prefix, struct cgroup_mem_entry *e)
{
	char file[64];

	snprintf(file, sizeof(file), "%s.usage_in_bytes", prefix);
	e->usage = u64(fd, file);
	snprintf(file, sizeof(file), "%s.max_usage_in_bytes", prefix);
	e->max_usage = u64(fd, file);
	snprintf(file, sizeof(file), "%s.failcnt", prefix);
	e->failcnt = u64(fd, file);
	snprintf(file, sizeof(file), "%s.limit_in_bytes", prefix);
	e->limit = u64(fd, file);
}

static int v1_cpu(const int *fds, struct cgroup_stats *st)
{
	long hz = sysconf(_SC_CLK_TCK);
	char *text;

	if (fds[CG1_CPUACCT] >= 0) {
		st->cpu.total = u64(fds[CG1_CPUACCT], "cpuacct.usage");
		if ((text = slurp(fds[CG1_CPUACCT], "cpuacct.stat"))) {
			st->cpu.user = kv(text, "user") * (1000000000ULL / (hz > 0 ? hz : 100));
			st->cpu.kernel = kv(text, "system") * (1000000000ULL / (hz > 0 ? hz : 100));
			free(text);
		}
		if ((text = slurp(fds[CG1_CPUACCT], "cpuacct.usage_percpu"))) {
			char *p = text, *end;
			size_t cap = 0;
			for (;;) {
				uint64_t v = strtoull(p, &end, 10);
				if (end == p)
					break;
				if (st->cpu.n_percpu == cap) {
					uint64_t *n = realloc(st->cpu.percpu, (cap = cap ? cap * 2 : 16) * sizeof(*n));
					if (!n) {
						free(text);
						return -ENOMEM;
					}
					st->cpu.percpu = n;
				}
				st->cpu.percpu[st->cpu.n_percpu++] = v;
				p = end;
			}
			free(text);
		}
	}
	if (fds[CG1_CPU] >= 0 && (text = slurp(fds[CG1_CPU], "cpu.stat"))) {
		st->cpu.periods = kv(text, "nr_periods");
		st->cpu.throttled_periods = kv(text, "nr_throttled");
		st->cpu.throttled_time = kv(text, "throttled_time");
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
	if ((text = slurp(fd, "memory.oom_control"))) {
		st->memory.oom_kill = kv(text, "oom_kill");
		st->memory.under_oom = kv(text, "under_oom") != 0;
		free(text);
	}
	if ((text = slurp(fd, "memory.stat"))) {
		r = cg_stats_memory_raw(text, st);
		st->memory.cache = kv(text, "cache");
		free(text);
	}
	return r;
}

/* "8:0 Read 4096" lines; the "Total N" summary line is skipped. */
static int v1_blkio_file(int fd, const char *file, struct cgroup_blkio_entry **list, size_t *n)
{
	char *text = slurp(fd, file), *line, *save = NULL;
	int r = 0;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save)) {
		unsigned major, minor;
		char op[16];
		unsigned long long v;
		if (sscanf(line, "%u:%u %15s %llu", &major, &minor, op, &v) == 4)
			r = add_blkio(list, n, major, minor, op, v);
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

int cg1_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	int fds[CG1_N], r;

	if ((r = cg1_open_all(cg, fds, err)) < 0)
		return r;
	if ((r = v1_cpu(fds, st)) == 0 && (r = v1_memory(fds[CG1_MEMORY], st)) == 0)
		r = v1_blkio(fds[CG1_BLKIO], st);
	if (r == 0 && fds[CG1_PIDS] >= 0) {
		st->pids.current = u64(fds[CG1_PIDS], "pids.current");
		st->pids.limit = u64(fds[CG1_PIDS], "pids.max");
		if (st->pids.limit == UINT64_MAX)
			st->pids.limit = 0;
	}
	if (r == 0)
		v1_hugetlb(fds[CG1_HUGETLB], st);
	cg1_close_all(fds);
	if (r < 0)
		return error_set(err, -r, "out of memory");
	return 0;
}

/* ---- OOM ---------------------------------------------------------------- */

static int read_oom_kill(int fd, uint64_t *v)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*v = kv(buf, "oom_kill");
	return 0;
}

static int oom_kill_at(const struct cgroup *cg, int dirfd, const char *file, uint64_t *count, struct error *err)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC), r;

	r = fd < 0 ? -errno : read_oom_kill(fd, count);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return error_sys(err, -r, "cgroup %s: %s", cg->path, file);
	return 0;
}

int cg2_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	return oom_kill_at(cg, cg->v2_dirfd, "memory.events", count, err);
}

int cg1_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	int dirfd = cg1_open(cg, CG1_MEMORY, err), r;

	if (dirfd < 0)
		return dirfd;
	r = oom_kill_at(cg, dirfd, "memory.oom_control", count, err);
	close(dirfd);
	return r;
}

/* v2: memory.events itself, kernfs signals POLLPRI on change. */
int cg2_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err)
{
	w->fd = openat(cg->v2_dirfd, "memory.events", O_RDONLY | O_CLOEXEC);
	if (w->fd < 0)
		return error_sys(err, errno, "cgroup %s: %s", cg->path, "memory.events");
	read_oom_kill(w->fd, &w->last);
	return 0;
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
	read_oom_kill(w->ctl_fd, &w->last);
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

int cgroup_oom_watch_read(struct cgroup_oom_watch *w, uint64_t *new_kills, struct error *err)
{
	uint64_t cur = 0;
	int r;

	*new_kills = 0;
	if (w->ctl_fd >= 0) {
		/* v1: the eventfd counts the OOM events themselves */
		if (read(w->fd, &cur, sizeof(cur)) < 0 && errno != EAGAIN)
			return error_sys(err, errno, "cgroup %s: oom eventfd", w->cg->path);
		*new_kills = cur;
		return 0;
	}
	if ((r = read_oom_kill(w->fd, &cur)) < 0)
		return error_sys(err, -r, "cgroup %s: memory.events", w->cg->path);
	*new_kills = cur > w->last ? cur - w->last : 0;
	w->last = cur;
	return 0;
}

void cgroup_oom_watch_close(struct cgroup_oom_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->ctl_fd >= 0)
		close(w->ctl_fd);
	w->fd = w->ctl_fd = -1;
}
