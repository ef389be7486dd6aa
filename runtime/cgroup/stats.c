/* Stats for `events --stats`, and OOM notification for `events`: what v1
 * and v2 share (stats-v1.c and stats-v2.c read their files). A file a kernel
 * or a disabled controller does not have leaves its values at 0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

void cgroup_stats_free(struct cgroup_stats *st)
{
	free(st->cpu.percpu);
	free(st->cpu.percpu_kernel);
	free(st->cpu.percpu_user);
	free(st->cpuset.cpus);
	free(st->cpuset.mems);
	free(st->memory.raw);
	free(st->blkio.service_bytes);
	free(st->blkio.serviced);
	free(st->hugetlb);
	memset(st, 0, sizeof(*st));
}

uint64_t cg_stats_kv(const char *text, const char *key)
{
	uint64_t v = 0;

	if (text)
		cg_kv_lookup(text, key, &v);
	return v;
}

uint64_t cg_stats_u64(int fd, const char *file)
{
	uint64_t v = 0;

	cg_read_u64(fd, file, &v);
	return v;
}

char *cg_stats_slurp(int fd, const char *file)
{
	char *text = NULL;

	if (fd >= 0 && util_read_at(fd, file, 0, 0, 0, &text, NULL) < 0)
		text = NULL;
	return text;
}

int cg_stats_u64_list(const char *text, uint64_t **list, size_t *n)
{
	const char *p = text;
	char *end;
	size_t cap = *n;

	for (;;) {
		uint64_t v = strtoull(p, &end, 10);
		if (end == p)
			return 0;
		if (*n == cap) {
			uint64_t *nl = realloc(*list, (cap = cap ? cap * 2 : 16) * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			*list = nl;
		}
		(*list)[(*n)++] = v;
		p = end;
	}
}

static int id_list_add(uint16_t **list, size_t *n, unsigned long lo, unsigned long hi)
{
	uint16_t *nl;

	if (lo > hi || hi > UINT16_MAX)
		return -EINVAL;
	if (!(nl = realloc(*list, (*n + hi - lo + 1) * sizeof(*nl))))
		return -ENOMEM;
	*list = nl;
	for (unsigned long i = lo; i <= hi; i++)
		nl[(*n)++] = (uint16_t)i;
	return 0;
}

int cg_stats_id_list(const char *text, uint16_t **list, size_t *n)
{
	const char *p = text;
	char *end;
	int r;

	while (*p && *p != '\n') {
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if ((r = id_list_add(list, n, lo, hi)) < 0)
			return r;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int cg_stats_list_at(int fd, const char *file, uint64_t **u64, uint16_t **ids, size_t *n)
{
	char *text = cg_stats_slurp(fd, file);
	int r;

	if (!text)
		return 0;
	r = u64 ? cg_stats_u64_list(text, u64, n) : cg_stats_id_list(text, ids, n);
	free(text);
	return r == -ENOMEM ? r : 0;
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

int cg_stats_add_blkio(struct cgroup_blkio_entry **list, size_t *n, uint32_t major, uint32_t minor,
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

int cg_stats_read_oom_kill(int fd, uint64_t *v)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*v = cg_stats_kv(buf, "oom_kill");
	return 0;
}

int cg_stats_oom_kill_at(const struct cgroup *cg, int dirfd, const char *file, uint64_t *count,
			 struct error *err)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC), r;

	r = fd < 0 ? -errno : cg_stats_read_oom_kill(fd, count);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return error_sys(err, -r, "cgroup %s: %s", cg->path, file);
	return 0;
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
	if ((r = cg_stats_read_oom_kill(w->fd, &cur)) < 0)
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

/* pids.events "max": forks refused at pids.max (v2: the cgroup's own file;
 * v1: the pids hierarchy's). */
int cgroup_pids_limit_hits(const struct cgroup *cg, uint64_t *count, struct error *err)
{
	char buf[256];
	int dirfd, fd;
	ssize_t n;

	*count = 0;
	if (!cg->fs || !cg->path)
		return error_set(err, ENODEV, "no cgroup");
	dirfd = cg->fs == &cg1_ops ? cg1_open(cg, CG1_PIDS, err) : dup(cg->v2_dirfd);
	if (dirfd < 0)
		return cg->fs == &cg1_ops ? dirfd : error_sys(err, errno, "cgroup %s", cg->path);
	fd = openat(dirfd, "pids.events", O_RDONLY | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		return error_sys(err, errno, "cgroup %s: pids.events", cg->path);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n < 0)
		return error_sys(err, errno, "cgroup %s: pids.events", cg->path);
	buf[n] = 0;
	*count = cg_stats_kv(buf, "max");
	return 0;
}
