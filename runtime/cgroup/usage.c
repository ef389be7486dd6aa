/* The cgroup's figures of a result (usage.h). */
#include "runtime/cgroup/usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

/* file's single number, or false when absent */
static bool read_num(int fd, const char *file, uint64_t *v)
{
	return fd >= 0 && cg_read_u64(fd, file, v) == 0;
}

/* a "key value" of file, or false */
static bool read_kv(int fd, const char *file, const char *key, uint64_t *v)
{
	char *text = cg_stats_slurp(fd, file);
	bool ok = text && cg_kv_lookup(text, key, v) == 0;

	free(text);
	return ok;
}

static void v2_usage(int fd, struct cgroup_usage *o)
{
	struct oci_usage *u = &o->u;
	char *text = cg_stats_slurp(fd, "cpu.stat");
	uint64_t ooms = 0;

	if (text && cg_kv_lookup(text, "user_usec", &u->cpu_user_us) == 0 &&
	    cg_kv_lookup(text, "system_usec", &u->cpu_system_us) == 0) {
		u->has_cpu = true;
		u->cpu_source = "cgroup";
	}
	/* only with the cpu controller enabled */
	u->has_throttled = text && cg_kv_lookup(text, "throttled_usec", &u->cpu_throttled_usec) == 0;
	free(text);
	u->has_memory_peak = read_num(fd, "memory.peak", &u->memory_peak_bytes);
	u->has_pids_peak = read_num(fd, "pids.peak", &u->pids_peak);
	o->own_limit_hit = read_kv(fd, "memory.events", "oom", &ooms) && ooms > 0;
}

/* the container's dir in hierarchy h, or -1; a dir that is gone is a lost cgroup (err) */
static int v1_open(const struct cgroup *cg, enum cg1_hier h, int *lost, struct error *err)
{
	struct error e2;
	int fd = cg1_open(cg, h, &e2);

	if (fd == -ENOENT && !*lost) {
		*err = e2;
		*lost = fd;
	}
	return fd;
}

/* PREFIX.max_usage_in_bytes came within 64 KiB of PREFIX.limit_in_bytes: the
 * kernel of the dev host (6.18) never counts memory.failcnt, so the peak
 * that reached the container's own limit is what tells it from a parent's */
static bool v1_peak_at_limit(int fd, const char *prefix)
{
	char file[64];
	uint64_t peak, limit;

	snprintf(file, sizeof(file), "%s.max_usage_in_bytes", prefix);
	if (!read_num(fd, file, &peak))
		return false;
	snprintf(file, sizeof(file), "%s.limit_in_bytes", prefix);
	return read_num(fd, file, &limit) && limit < (1ULL << 62) && peak + 65536 >= limit;
}

static int v1_usage(const struct cgroup *cg, struct cgroup_usage *o, struct error *err)
{
	struct oci_usage *u = &o->u;
	int lost = 0, acct = v1_open(cg, CG1_CPUACCT, &lost, err), cpu = v1_open(cg, CG1_CPU, &lost, err),
	    mem = v1_open(cg, CG1_MEMORY, &lost, err), pids = v1_open(cg, CG1_PIDS, &lost, err);
	uint64_t user_ns, sys_ns, throttled_ns, fail = 0, memsw_fail = 0;

	if (read_num(acct, "cpuacct.usage_user", &user_ns) && read_num(acct, "cpuacct.usage_sys", &sys_ns)) {
		u->has_cpu = true;
		u->cpu_source = "cgroup";
		u->cpu_user_us = user_ns / 1000;
		u->cpu_system_us = sys_ns / 1000;
	}
	if ((u->has_throttled = read_kv(cpu, "cpu.stat", "throttled_time", &throttled_ns)))
		u->cpu_throttled_usec = throttled_ns / 1000;
	u->has_memory_peak = read_num(mem, "memory.max_usage_in_bytes", &u->memory_peak_bytes);
	u->has_pids_peak = read_num(pids, "pids.peak", &u->pids_peak);   /* no v1 kernel has it yet */
	read_num(mem, "memory.failcnt", &fail);
	read_num(mem, "memory.memsw.failcnt", &memsw_fail);
	o->own_limit_hit = fail + memsw_fail > 0 || v1_peak_at_limit(mem, "memory") ||
			   v1_peak_at_limit(mem, "memory.memsw");
	for (int *fd = (int[]){ acct, cpu, mem, pids }, i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return lost;
}

int cgroup_usage(const struct cgroup *cg, struct cgroup_usage *out, struct error *err)
{
	struct stat st;
	int fd;

	*out = (struct cgroup_usage){ .u.cleanup = -1 };
	if (!cg->fs || !cg->path)
		return error_set(err, ENODEV, "no cgroup");
	if (cg->fs == &cg1_ops)
		return v1_usage(cg, out, err);
	if (cg->v2_dirfd < 0)
		return error_set(err, ENODEV, "cgroup %s: not open", cg->path);
	/* a removed cgroup's directory keeps no files */
	if (fstatat(cg->v2_dirfd, "cgroup.procs", &st, 0) < 0)
		return error_sys(err, errno == ENODEV ? ENOENT : errno, "cgroup %s", cg->path);
	if ((fd = dup(cg->v2_dirfd)) < 0)
		return error_sys(err, errno, "cgroup %s", cg->path);
	v2_usage(fd, out);
	close(fd);
	return 0;
}
