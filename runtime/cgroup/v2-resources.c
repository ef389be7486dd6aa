/* linux.resources -> cgroup v2 files. Only what the config sets is written. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

#define CTX(call, ...) ({ \
	int _r = (call); \
	if (_r < 0) \
		error_prefix(err, __VA_ARGS__); \
	_r; \
})

static int current_memory_max(int fd, int64_t *limit)
{
	uint64_t v;
	int r = cg_read_u64(fd, "memory.max", &v);

	if (r == 0)
		*limit = v == UINT64_MAX ? -1 : (int64_t)v;
	return r;
}

static int apply_swap(int fd, const struct oci_memory *m, bool update, struct error *err)
{
	int64_t limit = m->limit, swap;
	bool known = m->has_limit;
	char val[32];
	int r;

	if (!m->has_swap) {
		if (!(m->has_limit && m->limit < 0))
			return 0;
		swap = -1;      /* unlimited memory and swap not given: unlimited swap too */
	} else {
		if (!known && update && m->swap > 0)
			known = current_memory_max(fd, &limit) == 0;
		if ((r = cg_swap_v2(known, limit, m->swap, &swap, err)) <= 0)
			return r;
	}
	cg_fmt_limit(val, sizeof(val), swap);
	r = cg_write(fd, "memory.swap.max", val, err);
	if (r == -ENOENT && swap < 0) {
		cg_debug("cgroup: no memory.swap.max (swap accounting off): unlimited swap needs nothing");
		return 0;
	}
	return r;
}

static int apply_memory(int fd, const struct oci_memory *m, bool update, struct error *err)
{
	char val[32];
	int r;

	if (m->has_kernel || m->has_kernel_tcp)
		cg_debug("cgroup: linux.resources.memory.kernel/kernelTCP ignored on cgroup v2");
	if (m->has_disable_oom_killer && m->disable_oom_killer)
		cg_debug("cgroup: linux.resources.memory.disableOOMKiller ignored on cgroup v2");
	if (m->has_use_hierarchy)
		cg_debug("cgroup: linux.resources.memory.useHierarchy ignored on cgroup v2 (always hierarchical)");
	/* runc's check (opencontainers/cgroups' CheckMemoryUsage), its order and words:
	 * memory+swap first, a limit at or below the usage refused; best effort */
	if (update && m->has_check_before_update && m->check_before_update) {
		uint64_t cur;
		bool swap = m->has_swap && m->swap > 0, lim = m->has_limit && m->limit > 0;

		if ((swap || lim) && cg_read_u64(fd, "memory.current", &cur) == 0) {
			if (swap && (uint64_t)m->swap <= cur)
				return error_set(err, EBUSY, "linux.resources.memory.swap: rejecting memory+swap limit %" PRId64
						 " <= usage %" PRIu64 " (checkBeforeUpdate)", m->swap, cur);
			if (lim && (uint64_t)m->limit <= cur)
				return error_set(err, EBUSY, "linux.resources.memory.limit: rejecting memory limit %" PRId64
						 " <= usage %" PRIu64 " (checkBeforeUpdate)", m->limit, cur);
		}
	}
	if ((r = CTX(apply_swap(fd, m, update, err), "linux.resources.memory.swap")) < 0)
		return r;
	if (m->has_limit && m->limit != 0) {
		cg_fmt_limit(val, sizeof(val), m->limit);
		if ((r = CTX(cg_write(fd, "memory.max", val, err), "linux.resources.memory.limit")) < 0)
			return r;
	}
	if (m->has_reservation && m->reservation != 0) {
		cg_fmt_limit(val, sizeof(val), m->reservation);
		if ((r = CTX(cg_write(fd, "memory.low", val, err), "linux.resources.memory.reservation")) < 0)
			return r;
	}
	return 0;
}

static int apply_cpu_max(int fd, const struct oci_cpu *c, bool update, struct error *err)
{
	char cur[64], quota[32];
	int64_t q = -1;
	uint64_t period = 100000;
	bool has_quota = c->has_quota && c->quota != 0, has_period = c->has_period && c->period != 0;

	if (!has_quota && !has_period)
		return 0;
	/* an update naming one of them keeps the other as it is */
	if (update && (!has_quota || !has_period) && cg_read(fd, "cpu.max", cur, sizeof(cur)) >= 0)
		(void)cg_cpu_max_parse(cur, &q, &period);
	if (has_quota)
		q = c->quota;
	if (has_period)
		period = c->period;
	cg_fmt_limit(quota, sizeof(quota), q);
	return cg_writef(fd, "cpu.max", err, "%s %" PRIu64, quota, period);
}

static int apply_cpu(int fd, const struct oci_cpu *c, bool update, struct error *err)
{
	int r;

	if (c->has_idle && (r = CTX(cg_writef(fd, "cpu.idle", err, "%" PRId64, c->idle), "linux.resources.cpu.idle")) < 0)
		return r;
	if (c->has_shares && c->shares) {
		if (c->has_idle && c->idle == 1)
			cg_debug("cgroup: linux.resources.cpu.shares ignored: an idle cgroup has no weight");
		else if ((r = CTX(cg_writef(fd, "cpu.weight", err, "%" PRIu64, cg_shares_to_weight(c->shares)),
				  "linux.resources.cpu.shares")) < 0)
			return r;
	}
	if ((r = CTX(apply_cpu_max(fd, c, update, err), "linux.resources.cpu.quota/period")) < 0)
		return r;
	if (c->has_burst && (r = CTX(cg_writef(fd, "cpu.max.burst", err, "%" PRIu64, c->burst),
				     "linux.resources.cpu.burst")) < 0)
		return r;
	if ((c->has_realtime_runtime && c->realtime_runtime) || (c->has_realtime_period && c->realtime_period))
		return error_set(err, EOPNOTSUPP, "linux.resources.cpu.realtimeRuntime/realtimePeriod: "
				 "not supported on cgroup v2");
	if (c->cpus && *c->cpus && (r = CTX(cg_write(fd, "cpuset.cpus", c->cpus, err), "linux.resources.cpu.cpus")) < 0)
		return r;
	if (c->mems && *c->mems && (r = CTX(cg_write(fd, "cpuset.mems", c->mems, err), "linux.resources.cpu.mems")) < 0)
		return r;
	return 0;
}

static int apply_io(int fd, const struct oci_blkio *b, struct error *err)
{
	struct cg_io_line *lines;
	size_t n, i;
	int r;

	if (b->has_weight && b->weight) {
		r = cg_writef(fd, "io.bfq.weight", err, "%u", b->weight);
		if (r == -ENOENT)
			r = cg_writef(fd, "io.weight", err, "default %" PRIu64, cg_blkio_to_io_weight(b->weight));
		if (r < 0) {
			error_prefix(err, "linux.resources.blockIO.weight");
			return r;
		}
	}
	if (b->has_leaf_weight)
		cg_debug("cgroup: linux.resources.blockIO.leafWeight ignored on cgroup v2");
	for (i = 0; i < b->n_weight_device; i++) {
		const struct oci_blkio_weight_device *d = &b->weight_device[i];
		if (!d->has_weight)
			continue;
		r = cg_writef(fd, "io.bfq.weight", err, "%" PRId64 ":%" PRId64 " %u", d->major, d->minor, d->weight);
		if (r == -ENOENT)
			r = cg_writef(fd, "io.weight", err, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor,
				      cg_blkio_to_io_weight(d->weight));
		/* no BFQ, and no io.cost on that device: nothing weighs its I/O.
		 * runc writes device weights only to io.bfq.weight and skips them
		 * without it; a podman update that sets one must not fail here */
		if (r == -EOPNOTSUPP) {
			cg_debug("cgroup: linux.resources.blockIO.weightDevice[%zu]: %" PRId64 ":%" PRId64
				 " has neither BFQ nor io.cost: ignored, as runc", i, d->major, d->minor);
			r = 0;
		}
		if (r < 0) {
			error_prefix(err, "linux.resources.blockIO.weightDevice[%zu]", i);
			return r;
		}
	}
	if ((r = cg_io_max_lines(b, &lines, &n)) < 0)
		return error_set(err, -r, "out of memory");
	for (i = 0, r = 0; i < n && r == 0; i++)
		r = CTX(cg_write(fd, "io.max", lines[i].text, err), "linux.resources.blockIO.throttle*");
	free(lines);
	return r;
}

static int apply_hugetlb(int fd, const struct oci_resources *res, struct error *err)
{
	char file[64];
	size_t i;
	int r;

	for (i = 0; i < res->n_hugepage_limits; i++) {
		const struct oci_hugepage_limit *h = &res->hugepage_limits[i];
		snprintf(file, sizeof(file), "hugetlb.%s.max", h->page_size);
		if ((r = cg_writef(fd, file, err, "%" PRIu64, h->limit)) < 0) {
			error_prefix(err, "linux.resources.hugepageLimits[%zu]", i);
			return r;
		}
		/* The reservation limit too, where the kernel has it, so the
		 * limit also holds for reserved-but-unfaulted pages (as runc). */
		snprintf(file, sizeof(file), "hugetlb.%s.rsvd.max", h->page_size);
		if ((r = cg_writef(fd, file, err, "%" PRIu64, h->limit)) < 0 && r != -ENOENT) {
			error_prefix(err, "linux.resources.hugepageLimits[%zu]", i);
			return r;
		}
	}
	return 0;
}

int cg_rdma_line(const struct oci_rdma *d, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s", d->device);

	if (!d->has_hca_handles && !d->has_hca_objects)
		return 0;
	if (d->has_hca_handles)
		n += snprintf(buf + n, size - n, " hca_handle=%u", d->hca_handles);
	if (d->has_hca_objects)
		snprintf(buf + n, size - n, " hca_object=%u", d->hca_objects);
	return 1;
}

static int apply_rdma(int fd, const struct oci_resources *res, struct error *err)
{
	char line[256];
	size_t i;
	int r;

	for (i = 0; i < res->n_rdma; i++)
		if (cg_rdma_line(&res->rdma[i], line, sizeof(line)) &&
		    (r = CTX(cg_write(fd, "rdma.max", line, err), "linux.resources.rdma[\"%s\"]", res->rdma[i].device)) < 0)
			return r;
	return 0;
}

/* Is the controller of `key` (its part before the dot) enabled here? The
 * core files (cgroup.*) always are. */
static bool controller_available(int fd, const char *key)
{
	char list[1024];
	size_t n = strcspn(key, ".");
	int cfd = openat(fd, "cgroup.controllers", O_RDONLY | O_CLOEXEC);
	ssize_t len = cfd < 0 ? -1 : read(cfd, list, sizeof(list) - 1);

	if (cfd >= 0)
		close(cfd);
	if (n == 6 && !strncmp(key, "cgroup", 6))
		return true;
	if (len < 0)
		return true;   /* cannot tell: the file's own error stands */
	list[len] = '\0';
	char *save = NULL;

	for (char *w = strtok_r(list, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		if (strlen(w) == n && !strncmp(w, key, n))
			return true;
	return false;
}

int cg_apply_unified(int fd, const struct oci_resources *res, struct error *err)
{
	size_t i;
	int r;

	for (i = 0; i < res->n_unified; i++) {
		const char *k = res->unified[i].key;
		if (!*k || strchr(k, '/') || !strcmp(k, ".") || !strcmp(k, ".."))
			return error_set(err, EINVAL, "linux.resources.unified: \"%s\": not a cgroup file name", k);
		/* crun's words for both */
		if (!strchr(k, '.') || *k == '.')
			return error_set(err, EINVAL, "linux.resources.unified: the specified key has not the form "
					 "CONTROLLER.VALUE `%s`", k);
		r = cg_write_lines(fd, k, res->unified[i].value, err);
		if (r == -ENOENT && !controller_available(fd, k))
			return error_set(err, ENOENT, "linux.resources.unified: \"%s\": the requested cgroup controller "
					 "`%.*s` is not available", k, (int)strcspn(k, "."), k);
		if (r == -ENOENT)
			return error_set(err, ENOENT, "linux.resources.unified: \"%s\": %s", k, strerror(ENOENT));
		if (r < 0) {
			error_prefix(err, "linux.resources.unified");
			return r;
		}
	}
	return 0;
}

/* config-linux.md "Unified": a v1 setting that cannot be converted MUST be
 * an error. memory.kernel/kernelTCP are the exception (charged to memory.max
 * on v2, ignored like runc does; SPEC-NOTES.md). */
static int refuse_unconvertible(const struct oci_resources *res, struct error *err)
{
	if (res->has_memory && res->memory.has_swappiness)
		return error_set(err, EINVAL, "linux.resources.memory.swappiness: not supported on cgroup v2 "
				 "(no per-cgroup swappiness)");
	if (res->has_network && res->has_class_id)
		return error_set(err, EINVAL, "linux.resources.network.classID: not supported on cgroup v2 "
				 "(no net_cls controller)");
	if (res->has_network && res->n_net_priorities)
		return error_set(err, EINVAL, "linux.resources.network.priorities: not supported on cgroup v2 "
				 "(no net_prio controller)");
	return 0;
}

int cg2_apply(int fd, const struct oci_resources *res, bool update, struct error *err)
{
	int r;

	if ((r = refuse_unconvertible(res, err)) < 0)
		return r;
	if (res->has_memory && (r = apply_memory(fd, &res->memory, update, err)) < 0)
		return r;
	if (res->has_cpu && (r = apply_cpu(fd, &res->cpu, update, err)) < 0)
		return r;
	if (res->has_pids) {
		char val[32];
		cg_fmt_limit(val, sizeof(val), cg_pids_max(res->pids_limit));
		if ((r = CTX(cg_write(fd, "pids.max", val, err), "linux.resources.pids.limit")) < 0)
			return r;
	}
	if (res->has_blkio && (r = apply_io(fd, &res->blkio, err)) < 0)
		return r;
	if ((r = apply_hugetlb(fd, res, err)) < 0 || (r = apply_rdma(fd, res, err)) < 0)
		return r;
	return cg_apply_unified(fd, res, err);
}

int cg2_apply_devices(int dirfd, const struct oci_config *cfg, struct error *err)
{
	struct cg_dev_rule *rules;
	struct bpf_insn *insns;
	size_t n, ni;
	int r;

	if (cg_device_rules(cfg, &rules, &n) < 0)
		return error_set(err, ENOMEM, "out of memory");
	r = cg_bpf_build(rules, n, &insns, &ni);
	free(rules);
	if (r < 0)
		return error_set(err, ENOMEM, "out of memory");
	r = cg_bpf_attach(dirfd, insns, ni, err);
	free(insns);
	if (r < 0)
		error_prefix(err, "linux.resources.devices");
	return r;
}
