/* linux.resources -> cgroup v1 files, one hierarchy per controller. Only what
 * the config sets is written. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

#define ENOTSUPP_KERNEL 524    /* the kernel's internal ENOTSUPP leaks out of some cgroup files */

/* The controller's fd, or an error naming the field that needs it. */
static int need(const int *fds, enum cg1_hier h, const char *field, struct error *err)
{
	if (fds[h] >= 0)
		return fds[h];
	return error_set(err, ENODEV, "linux.resources.%s: the %s cgroup controller is not mounted",
			 field, cg1_names[h]);
}

#define W(fd, file, field, ...) ({ \
	int _r = cg_writef(fd, file, err, __VA_ARGS__); \
	if (_r < 0) \
		error_prefix(err, "linux.resources.%s", field); \
	_r; \
})

static void fmt_v1(char *buf, size_t size, int64_t v)
{
	snprintf(buf, size, "%" PRId64, v < 0 ? (int64_t)-1 : v);
}

static int write_swap(int fd, int64_t swap, struct error *err)
{
	char val[32];
	int r;

	fmt_v1(val, sizeof(val), swap);
	r = cg_write(fd, "memory.memsw.limit_in_bytes", val, err);
	if (r == -ENOENT && swap < 0)
		return 0;
	if (r == -ENOENT)
		return error_set(err, ENOENT, "linux.resources.memory.swap: swap accounting is off "
				 "(no memory.memsw.limit_in_bytes)");
	if (r < 0)
		error_prefix(err, "linux.resources.memory.swap");
	return r;
}

static int write_limit(int fd, int64_t limit, struct error *err)
{
	char val[32];

	fmt_v1(val, sizeof(val), limit);
	return W(fd, "memory.limit_in_bytes", "memory.limit", "%s", val);
}

/* memsw >= limit at every step: which one goes first depends on the current limit. */
static int apply_limit_swap(int fd, const struct oci_memory *m, bool update, struct error *err)
{
	bool has_limit = m->has_limit && m->limit != 0;
	bool has_swap = m->has_swap && m->swap != 0;
	int64_t swap = m->swap;
	uint64_t cur = UINT64_MAX;
	int r;

	if (has_limit && m->limit < 0 && !has_swap) {
		has_swap = true;   /* unlimited memory: unlimited swap too */
		swap = -1;
	}
	if (has_limit && has_swap && swap > 0 && m->limit > 0 && swap < m->limit)
		return error_set(err, EINVAL, "linux.resources.memory.swap %" PRId64
				 " (memory+swap) is lower than memory.limit %" PRId64, swap, m->limit);
	if (has_limit && has_swap) {
		if (update)
			cg_read_u64(fd, "memory.limit_in_bytes", &cur);
		if (update && (swap < 0 || cur < (uint64_t)swap)) {
			if ((r = write_swap(fd, swap, err)) < 0)
				return r;
			return write_limit(fd, m->limit, err);
		}
		if ((r = write_limit(fd, m->limit, err)) < 0)
			return r;
		return write_swap(fd, swap, err);
	}
	if (has_limit)
		return write_limit(fd, m->limit, err);
	if (has_swap)
		return write_swap(fd, swap, err);
	return 0;
}

static bool ignorable(int r)
{
	return r == -ENOENT || r == -EOPNOTSUPP || r == -ENOTSUPP_KERNEL || r == -EINVAL;
}

static int apply_memory(const int *fds, const struct oci_memory *m, bool update, struct error *err)
{
	int fd = need(fds, CG1_MEMORY, "memory", err), r;
	char val[32];

	if (fd < 0)
		return fd;
	if ((r = apply_limit_swap(fd, m, update, err)) < 0)
		return r;
	if (m->has_reservation && m->reservation != 0) {
		fmt_v1(val, sizeof(val), m->reservation);
		if ((r = W(fd, "memory.soft_limit_in_bytes", "memory.reservation", "%s", val)) < 0)
			return r;
	}
	if (m->has_kernel) {
		fmt_v1(val, sizeof(val), m->kernel);
		if ((r = cg_write(fd, "memory.kmem.limit_in_bytes", val, err)) < 0) {
			if (!ignorable(r)) {
				error_prefix(err, "linux.resources.memory.kernel");
				return r;
			}
			cg_debug("cgroup: linux.resources.memory.kernel ignored: this kernel has no kmem limit");
		}
	}
	if (m->has_kernel_tcp) {
		fmt_v1(val, sizeof(val), m->kernel_tcp);
		if ((r = W(fd, "memory.kmem.tcp.limit_in_bytes", "memory.kernelTCP", "%s", val)) < 0)
			return r;
	}
	if (m->has_swappiness && (r = W(fd, "memory.swappiness", "memory.swappiness", "%" PRIu64, m->swappiness)) < 0)
		return r;
	if (m->has_disable_oom_killer && (m->disable_oom_killer || update) &&
	    (r = W(fd, "memory.oom_control", "memory.disableOOMKiller", "%d", m->disable_oom_killer)) < 0)
		return r;
	if (m->has_use_hierarchy && (r = cg_writef(fd, "memory.use_hierarchy", err, "%d", m->use_hierarchy)) < 0) {
		if (!ignorable(r)) {
			error_prefix(err, "linux.resources.memory.useHierarchy");
			return r;
		}
		cg_debug("cgroup: linux.resources.memory.useHierarchy ignored: this kernel is always hierarchical");
	}
	return 0;
}

static int apply_cfs(int fd, const struct oci_cpu *c, struct error *err)
{
	bool has_quota = c->has_quota && c->quota != 0, has_period = c->has_period && c->period != 0;
	char q[32];
	int r;

	fmt_v1(q, sizeof(q), c->quota);
	if (has_period) {
		r = cg_writef(fd, "cpu.cfs_period_us", err, "%" PRIu64, c->period);
		if (r == -EINVAL && has_quota) {
			/* the new period does not fit the old quota: quota first */
			if ((r = W(fd, "cpu.cfs_quota_us", "cpu.quota", "%s", q)) < 0)
				return r;
			return W(fd, "cpu.cfs_period_us", "cpu.period", "%" PRIu64, c->period);
		}
		if (r < 0) {
			error_prefix(err, "linux.resources.cpu.period");
			return r;
		}
	}
	if (has_quota)
		return W(fd, "cpu.cfs_quota_us", "cpu.quota", "%s", q);
	return 0;
}

/* The kernel keeps runtime <= period: a period below the current runtime
 * is refused until the runtime comes down, so then the runtime goes first
 * (runc issue 4094). */
static int apply_rt(int fd, const struct oci_cpu *c, struct error *err)
{
	bool period = c->has_realtime_period && c->realtime_period;
	bool runtime = c->has_realtime_runtime && c->realtime_runtime;
	int r;

	if (period && cg_writef(fd, "cpu.rt_period_us", err, "%" PRIu64, c->realtime_period) < 0) {
		if (runtime &&
		    (r = W(fd, "cpu.rt_runtime_us", "cpu.realtimeRuntime", "%" PRId64, c->realtime_runtime)) < 0)
			return r;
		runtime = false;
		if ((r = W(fd, "cpu.rt_period_us", "cpu.realtimePeriod", "%" PRIu64, c->realtime_period)) < 0)
			return r;
	}
	if (runtime && (r = W(fd, "cpu.rt_runtime_us", "cpu.realtimeRuntime", "%" PRId64, c->realtime_runtime)) < 0)
		return r;
	return 0;
}

static int apply_cpu(const int *fds, const struct oci_cpu *c, struct error *err)
{
	bool cpu_used = (c->has_shares && c->shares) || (c->has_quota && c->quota) || (c->has_period && c->period) ||
			c->has_burst || (c->has_realtime_period && c->realtime_period) ||
			(c->has_realtime_runtime && c->realtime_runtime) || c->has_idle;
	int fd, r;

	if (cpu_used) {
		if ((fd = need(fds, CG1_CPU, "cpu", err)) < 0)
			return fd;
		if (c->has_shares && c->shares && (r = W(fd, "cpu.shares", "cpu.shares", "%" PRIu64, c->shares)) < 0)
			return r;
		if ((r = apply_cfs(fd, c, err)) < 0)
			return r;
		if (c->has_burst && (r = W(fd, "cpu.cfs_burst_us", "cpu.burst", "%" PRIu64, c->burst)) < 0)
			return r;
		if ((r = apply_rt(fd, c, err)) < 0)
			return r;
		if (c->has_idle && (r = W(fd, "cpu.idle", "cpu.idle", "%" PRId64, c->idle)) < 0)
			return r;
	}
	if ((c->cpus && *c->cpus) || (c->mems && *c->mems)) {
		if ((fd = need(fds, CG1_CPUSET, "cpu.cpus/mems", err)) < 0)
			return fd;
		if (c->cpus && *c->cpus && (r = W(fd, "cpuset.cpus", "cpu.cpus", "%s", c->cpus)) < 0)
			return r;
		if (c->mems && *c->mems && (r = W(fd, "cpuset.mems", "cpu.mems", "%s", c->mems)) < 0)
			return r;
	}
	return 0;
}

static int write_throttle(int fd, const char *file, const struct oci_blkio_throttle *t, size_t n,
			  struct error *err)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		if ((r = W(fd, file, "blockIO.throttle", "%" PRId64 ":%" PRId64 " %" PRIu64,
			   t[i].major, t[i].minor, t[i].rate)) < 0)
			return r;
	return 0;
}

static int apply_blkio(const int *fds, const struct oci_blkio *b, struct error *err)
{
	int fd = need(fds, CG1_BLKIO, "blockIO", err), r;
	size_t i;

	if (fd < 0)
		return fd;
	if (b->has_weight && b->weight) {
		r = cg_writef(fd, "blkio.weight", err, "%u", b->weight);
		if (r == -ENOENT)
			r = cg_writef(fd, "blkio.bfq.weight", err, "%u", b->weight);
		if (r < 0) {
			error_prefix(err, "linux.resources.blockIO.weight");
			return r;
		}
	}
	if (b->has_leaf_weight && b->leaf_weight &&
	    (r = W(fd, "blkio.leaf_weight", "blockIO.leafWeight", "%u", b->leaf_weight)) < 0)
		return r;
	for (i = 0; i < b->n_weight_device; i++) {
		const struct oci_blkio_weight_device *d = &b->weight_device[i];
		if (d->has_weight) {
			r = cg_writef(fd, "blkio.weight_device", err, "%" PRId64 ":%" PRId64 " %u", d->major, d->minor, d->weight);
			if (r == -ENOENT)
				r = cg_writef(fd, "blkio.bfq.weight_device", err, "%" PRId64 ":%" PRId64 " %u",
					      d->major, d->minor, d->weight);
			if (r < 0) {
				error_prefix(err, "linux.resources.blockIO.weightDevice[%zu]", i);
				return r;
			}
		}
		if (d->has_leaf_weight &&
		    (r = W(fd, "blkio.leaf_weight_device", "blockIO.weightDevice.leafWeight",
			   "%" PRId64 ":%" PRId64 " %u", d->major, d->minor, d->leaf_weight)) < 0)
			return r;
	}
	if ((r = write_throttle(fd, "blkio.throttle.read_bps_device", b->throttle_read_bps, b->n_throttle_read_bps, err)) < 0 ||
	    (r = write_throttle(fd, "blkio.throttle.write_bps_device", b->throttle_write_bps, b->n_throttle_write_bps, err)) < 0 ||
	    (r = write_throttle(fd, "blkio.throttle.read_iops_device", b->throttle_read_iops, b->n_throttle_read_iops, err)) < 0 ||
	    (r = write_throttle(fd, "blkio.throttle.write_iops_device", b->throttle_write_iops, b->n_throttle_write_iops, err)) < 0)
		return r;
	return 0;
}

static int apply_hugetlb(const int *fds, const struct oci_resources *res, struct error *err)
{
	char file[64];
	size_t i;
	int fd, r;

	if (!res->n_hugepage_limits)
		return 0;
	if ((fd = need(fds, CG1_HUGETLB, "hugepageLimits", err)) < 0)
		return fd;
	for (i = 0; i < res->n_hugepage_limits; i++) {
		const struct oci_hugepage_limit *h = &res->hugepage_limits[i];
		snprintf(file, sizeof(file), "hugetlb.%s.limit_in_bytes", h->page_size);
		if ((r = cg_writef(fd, file, err, "%" PRIu64, h->limit)) < 0) {
			error_prefix(err, "linux.resources.hugepageLimits[%zu]", i);
			return r;
		}
		snprintf(file, sizeof(file), "hugetlb.%s.rsvd.limit_in_bytes", h->page_size);
		if ((r = cg_writef(fd, file, err, "%" PRIu64, h->limit)) < 0 && r != -ENOENT) {
			error_prefix(err, "linux.resources.hugepageLimits[%zu]", i);
			return r;
		}
	}
	return 0;
}

static int apply_network(const int *fds, const struct oci_resources *res, struct error *err)
{
	size_t i;
	int fd = -1, r;

	if (res->has_class_id) {
		if ((fd = need(fds, CG1_NET_CLS, "network.classID", err)) < 0)
			return fd;
		if ((r = W(fd, "net_cls.classid", "network.classID", "%u", res->class_id)) < 0)
			return r;
	}
	if (res->n_net_priorities && (fd = need(fds, CG1_NET_PRIO, "network.priorities", err)) < 0)
		return fd;
	for (i = 0; i < res->n_net_priorities; i++)
		if ((r = W(fd, "net_prio.ifpriomap", "network.priorities", "%s %u",
			   res->net_priorities[i].name, res->net_priorities[i].priority)) < 0)
			return r;
	return 0;
}

static int apply_rdma(const int *fds, const struct oci_resources *res, struct error *err)
{
	char line[256];
	size_t i;
	int fd, r;

	if (!res->n_rdma)
		return 0;
	if ((fd = need(fds, CG1_RDMA, "rdma", err)) < 0)
		return fd;
	for (i = 0; i < res->n_rdma; i++)
		if (cg_rdma_line(&res->rdma[i], line, sizeof(line)) &&
		    (r = W(fd, "rdma.max", "rdma", "%s", line)) < 0)
			return r;
	return 0;
}

int cg1_apply(const int *fds, const struct oci_resources *res, bool update, struct error *err)
{
	int r;

	if (res->has_memory && (r = apply_memory(fds, &res->memory, update, err)) < 0)
		return r;
	if (res->has_cpu && (r = apply_cpu(fds, &res->cpu, err)) < 0)
		return r;
	if (res->has_pids) {
		int fd = need(fds, CG1_PIDS, "pids", err);
		char val[32];
		if (fd < 0)
			return fd;
		cg_fmt_limit(val, sizeof(val), cg_pids_max(res->pids_limit));
		if ((r = W(fd, "pids.max", "pids.limit", "%s", val)) < 0)
			return r;
	}
	if (res->has_blkio && (r = apply_blkio(fds, &res->blkio, err)) < 0)
		return r;
	if ((r = apply_hugetlb(fds, res, err)) < 0 || (r = apply_network(fds, res, err)) < 0 ||
	    (r = apply_rdma(fds, res, err)) < 0)
		return r;
	/* as runc (ErrV1NoUnified): the container's controllers are v1 ones, on
	 * a hybrid host too, whose cgroup2 hierarchy holds no controller */
	if (res->n_unified)
		return error_set(err, EINVAL, "linux.resources.unified (\"%s\"%s): invalid configuration: "
				 "cannot use unified on cgroup v1%s", res->unified[0].key,
				 res->n_unified > 1 ? ", ..." : "", fds[CG1_UNIFIED] >= 0 ? " (a hybrid host)" : "");
	return 0;
}

int cg1_apply_devices(int fd, const struct oci_config *cfg, struct error *err)
{
	struct cg_dev_rule *rules;
	struct cg_v1_dev_write *w, stack[32];   /* a stock config's 12 writes */
	int allow = -1, deny = -1, r = 0;
	size_t n, nw, i;

	if (cg_device_rules(cfg, &rules, &n) < 0)
		return error_set(err, ENOMEM, "out of memory");
	r = cg_v1_device_writes_into(rules, n, stack, sizeof(stack) / sizeof(stack[0]), &w, &nw);
	free(rules);
	if (r < 0)
		return error_set(err, ENOMEM, "out of memory");
	/* one open per file, one write() per rule */
	allow = openat(fd, "devices.allow", O_WRONLY | O_CLOEXEC);
	deny = openat(fd, "devices.deny", O_WRONLY | O_CLOEXEC);
	if (allow < 0 || deny < 0)
		r = error_sys(err, errno, "devices.allow/deny");
	for (i = 0; i < nw && r == 0; i++) {
		size_t len = strlen(w[i].value);
		int wfd = w[i].file[8] == 'a' ? allow : deny;   /* "devices.allow" */
		if (cg_file_write(fd, w[i].file, wfd, w[i].value, len) != (ssize_t)len)
			r = error_sys(err, errno, "%s: write \"%s\"", w[i].file, w[i].value);
	}
	if (allow >= 0)
		close(allow);
	if (deny >= 0)
		close(deny);
	if (w != stack)
		free(w);
	if (r < 0)
		error_prefix(err, "linux.resources.devices");
	return r;
}
