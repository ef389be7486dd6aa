/* linux.resources -> systemd unit properties (systemd-props.h). */
#include "runtime/cgroup/systemd-props.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cgroup/internal.h"

#define INFINITY_U64 UINT64_MAX
#define CPUSET_MASK_MAX 1024      /* 8192 cpus or nodes */

bool cgsd_props_need_version(const struct oci_resources *res)
{
	const struct oci_cpu *c = &res->cpu;

	return res->has_cpu && ((c->has_period && c->period) || (c->cpus && *c->cpus) || (c->mems && *c->mems));
}

void cgsd_prop(struct dbus_writer *w, const char *name, const char *type)
{
	dbw_pad(w, 8);
	dbw_string(w, name);
	dbw_signature(w, type);
}

static void prop_u64(struct dbus_writer *w, const char *name, uint64_t v)
{
	cgsd_prop(w, name, "t");
	dbw_u64(w, v);
}

/* -1 (and any negative): no limit */
static uint64_t limit_u64(int64_t v)
{
	return v < 0 ? INFINITY_U64 : (uint64_t)v;
}

int cgsd_cpuset_mask(const char *list, uint8_t *mask, size_t n)
{
	const char *p = list;
	size_t len = 0;

	memset(mask, 0, n);
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || a >= n * 8)
			return -1;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= n * 8)
				return -1;
			p = end;
		}
		for (unsigned long i = a; i <= b; i++)
			mask[i / 8] |= (uint8_t)(1u << (i % 8));
		if (b / 8 + 1 > len)
			len = b / 8 + 1;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return (int)len;
}

static void prop_mask(struct dbus_writer *w, const char *name, const char *list)
{
	uint8_t mask[CPUSET_MASK_MAX];
	struct dbus_array a;
	int len = cgsd_cpuset_mask(list, mask, sizeof(mask));

	if (len <= 0)
		return;
	cgsd_prop(w, name, "ay");
	a = dbw_array_begin(w, 1);
	for (int i = 0; i < len; i++)
		dbw_byte(w, mask[i]);
	dbw_array_end(w, a);
}

/* runc's addCpuQuota: the quota per second, rounded up to systemd's 1%
 * (10 ms); a period alone, or quota -1: no limit */
static void cpu_quota(struct dbus_writer *w, const struct oci_cpu *c, unsigned version)
{
	uint64_t period = c->has_period ? c->period : 0;
	int64_t quota = c->has_quota ? c->quota : 0;
	uint64_t per_sec = INFINITY_U64;

	if (period && version >= CGSD_VERSION_PERIOD)
		prop_u64(w, "CPUQuotaPeriodUSec", period);
	if (!quota && !period)
		return;
	if (quota > 0) {
		per_sec = (uint64_t)quota * 1000000 / (period ? period : 100000);
		if (per_sec % 10000)
			per_sec = (per_sec / 10000 + 1) * 10000;
	}
	prop_u64(w, "CPUQuotaPerSecUSec", per_sec);
}

static void memory(struct dbus_writer *w, const struct oci_memory *m, bool v2)
{
	int64_t swap;
	struct error err;

	if (m->has_limit && m->limit)
		prop_u64(w, v2 ? "MemoryMax" : "MemoryLimit", limit_u64(m->limit));
	if (!v2)
		return;
	if (m->has_reservation && m->reservation)
		prop_u64(w, "MemoryLow", limit_u64(m->reservation));
	if (m->has_swap && cg_swap_v2(m->has_limit, m->limit, m->swap, &swap, &err) == 1)
		prop_u64(w, "MemorySwapMax", limit_u64(swap));
}

void cgsd_append_resource_props(struct dbus_writer *w, const struct oci_resources *res, bool v2,
				unsigned version)
{
	const struct oci_cpu *c = &res->cpu;

	if (res->has_memory)
		memory(w, &res->memory, v2);
	if (res->has_cpu && c->has_shares && c->shares)
		prop_u64(w, v2 ? "CPUWeight" : "CPUShares", v2 ? cg_shares_to_weight(c->shares) : c->shares);
	if (res->has_cpu)
		cpu_quota(w, c, version);
	if (res->has_cpu && version >= CGSD_VERSION_CPUSET) {
		if (c->cpus && *c->cpus)
			prop_mask(w, "AllowedCPUs", c->cpus);
		if (c->mems && *c->mems)
			prop_mask(w, "AllowedMemoryNodes", c->mems);
	}
	if (!v2 && res->has_blkio && res->blkio.has_weight && res->blkio.weight)
		prop_u64(w, "BlockIOWeight", res->blkio.weight);
	if (res->has_pids)
		prop_u64(w, "TasksMax", limit_u64(cg_pids_max(res->pids_limit)));
}
