/* linux.resources -> systemd unit properties (systemd-props.h). */
#include "runtime/cgroup/systemd-props.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/cgroup/internal.h"

#define INFINITY_U64 UINT64_MAX
#define CPUSET_MASK_MAX 1024      /* 8192 cpus or nodes */

bool cgsd_props_need_version(const struct oci_resources *res)
{
	const struct oci_cpu *c = &res->cpu;
	size_t i;

	if (res->has_cpu && ((c->has_period && c->period) || (c->cpus && *c->cpus) || (c->mems && *c->mems)))
		return true;
	for (i = 0; i < res->n_unified; i++)
		if (!strcmp(res->unified[i].key, "cpu.max") || !strncmp(res->unified[i].key, "cpuset.", 7))
			return true;
	return false;
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

/* "max" or a number, with the blanks around it the kernel forgives */
static int u64_or_max(const char *v, uint64_t *out)
{
	char *end;

	while (isspace((unsigned char)*v))
		v++;
	if (!strncmp(v, "max", 3)) {
		*out = INFINITY_U64;
		end = (char *)v + 3;
	} else {
		if (!isdigit((unsigned char)*v))
			return -1;
		*out = strtoull(v, &end, 10);
	}
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : 0;
}

/* cpu.max "QUOTA|max [PERIOD]" as runc's: quota max -> 0 (none), period 100000 when absent */
static void unified_cpu_max(struct dbus_writer *w, const char *v, unsigned version)
{
	struct oci_cpu c = { .has_quota = true, .has_period = true, .period = 100000 };
	uint64_t q, p;
	char a[32], b[32];
	int n = sscanf(v, " %31s %31s", a, b);

	if (n < 1 || u64_or_max(a, &q) < 0 || (n == 2 && (u64_or_max(b, &p) < 0 || p == INFINITY_U64)))
		return;
	c.quota = q == INFINITY_U64 || q > INT64_MAX ? 0 : (int64_t)q;
	if (n == 2)
		c.period = p;
	cpu_quota(w, &c, version);
}

/* linux.resources.unified as runc's unifiedResToSystemdProps: the files
 * systemd has a property for; the others are cgroupfs writes alone. After
 * the other properties: a key given both ways is the unified one, as the
 * cgroupfs writes (unified last) leave it. */
static void unified_props(struct dbus_writer *w, const struct oci_resources *res, unsigned version)
{
	static const struct { const char *key, *prop; } mem[] = {
		{ "memory.high", "MemoryHigh" }, { "memory.low", "MemoryLow" }, { "memory.min", "MemoryMin" },
		{ "memory.max", "MemoryMax" }, { "memory.swap.max", "MemorySwapMax" }, { "pids.max", "TasksMax" },
	};
	size_t i, k;
	uint64_t v;
	bool idle = false;

	for (i = 0; i < res->n_unified; i++)
		if (!strcmp(res->unified[i].key, "cpu.idle") && u64_or_max(res->unified[i].value, &v) == 0 && v == 1)
			idle = true;
	for (i = 0; i < res->n_unified; i++) {
		const char *key = res->unified[i].key, *val = res->unified[i].value;

		for (k = 0; k < sizeof(mem) / sizeof(mem[0]); k++)
			if (!strcmp(key, mem[k].key) && u64_or_max(val, &v) == 0)
				prop_u64(w, mem[k].prop, v);
		if (!strcmp(key, "cpu.max"))
			unified_cpu_max(w, val, version);
		else if (!strcmp(key, "cpu.weight") && !idle && u64_or_max(val, &v) == 0 && v != INFINITY_U64)
			prop_u64(w, "CPUWeight", v);
		else if (!strcmp(key, "cpuset.cpus") && version >= CGSD_VERSION_CPUSET)
			prop_mask(w, "AllowedCPUs", val);
		else if (!strcmp(key, "cpuset.mems") && version >= CGSD_VERSION_CPUSET)
			prop_mask(w, "AllowedMemoryNodes", val);
	}
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
	if (res->has_blkio && res->blkio.has_weight && res->blkio.weight) {
		if (v2)
			prop_u64(w, "IOWeight", cg_blkio_to_io_weight(res->blkio.weight));
		else
			prop_u64(w, "BlockIOWeight", res->blkio.weight);
	}
	if (res->has_pids)
		prop_u64(w, "TasksMax", limit_u64(cg_pids_max(res->pids_limit)));
	if (v2)
		unified_props(w, res, version);
}

/* ---- devices (cgroup v1) ----------------------------------------------------- */

/* The next line of a /proc/devices section ("%3d NAME", up to a blank
 * line): 1 with its major and name, 0 at the section's end. */
static int section_line(const char **line, long long *major, char *name)
{
	while (*line && (*line)[1] && (*line)[1] != '\n') {
		int ok = sscanf(*line + 1, "%lld %63s", major, name) == 2;

		*line = strchr(*line + 1, '\n');
		if (ok)
			return 1;
	}
	return 0;
}

/* no other major of the section has that name */
static bool name_alone(const char *section, long long major, const char *name)
{
	const char *line = strchr(section, '\n');
	long long m;
	char n[64];

	while (section_line(&line, &m, n))
		if (m != major && !strcmp(n, name))
			return false;
	return true;
}

int cgsd_device_group(const char *devices, char type, int64_t major, char *name, size_t size)
{
	const char *section = strstr(devices, type == 'b' ? "Block devices:" : "Character devices:");
	const char *line = section ? strchr(section, '\n') : NULL;
	long long m;
	char n[64];

	/* systemd allows every major of the name (fnmatch): a plain one no other major has */
	while (section_line(&line, &m, n))
		if (m == major && !strpbrk(n, "*?[\\/") && name_alone(section, m, n))
			return (size_t)snprintf(name, size, "%s", n) < size;
	return 0;
}

/* One DeviceAllow entry for an exception of the v1 list: its path
 * ("/dev/char/M:m", "char-NAME", "char-*"), or 0 when systemd has none
 * ("*:m"; a major /proc/devices does not name alone; before systemd 240, a
 * node that is not there: it stats the path). */
static int allow_path(const struct cg_dev_rule *e, const char *devices, unsigned version, char *path, size_t size)
{
	const char *kind = e->type == 'b' ? "block" : "char";
	struct stat st;
	char group[64];

	if (e->major < 0 && e->minor < 0)
		return snprintf(path, size, "%s-*", kind) > 0;
	if (e->major < 0)
		return 0;
	if (e->minor < 0) {
		if (!devices || !cgsd_device_group(devices, e->type, e->major, group, sizeof(group)))
			return 0;
		return snprintf(path, size, "%s-%s", kind, group) > 0;
	}
	snprintf(path, size, "/dev/%s/%" PRId64 ":%" PRId64, kind, e->major, e->minor);
	return version >= 240 || stat(path, &st) == 0;
}

int cgsd_append_device_props(struct dbus_writer *w, const struct oci_resources *res, const char *devices,
			     unsigned version)
{
	struct cg_dev_rule *rules, *exc;
	struct dbus_array a;
	size_t n, n_exc, i;
	bool allow_all;
	int r;

	if (cg_device_rules_of(res, &rules, &n) < 0)
		return -ENOMEM;
	r = cg_v1_devices_final(rules, n, &allow_all, &exc, &n_exc);
	free(rules);
	if (r < 0)
		return -ENOMEM;
	cgsd_prop(w, "DevicePolicy", "s");
	dbw_string(w, allow_all && !n_exc ? "auto" : "strict");
	if (allow_all && n_exc)
		cg_warn("--systemd-cgroup: systemd's DeviceAllow cannot deny devices after allowing all: "
			 "the unit allows none, which systemd applies at its next daemon-reload");
	cgsd_prop(w, "DeviceAllow", "a(ss)");
	a = dbw_array_begin(w, 8);
	for (i = 0; !allow_all && i < n_exc; i++) {
		char path[96], perms[4];

		if (!allow_path(&exc[i], devices, version, path, sizeof(path))) {
			cg_debug("cgroup: systemd has no DeviceAllow for %c %" PRId64 ":%" PRId64
				 " (left to tinyrun's devices.allow)", exc[i].type, exc[i].major, exc[i].minor);
			continue;
		}
		dbw_pad(w, 8);          /* a struct */
		dbw_string(w, path);
		dbw_string(w, cg_access_letters(exc[i].access, perms));
	}
	dbw_array_end(w, a);
	free(exc);
	return 0;
}
