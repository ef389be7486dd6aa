#include "events.h"

#include <stdbool.h>

#include <stdio.h>

#include "json.h"
#include "tables.h"

static void key_u64(struct json_writer *w, const char *k, uint64_t v)
{
	json_w_key(w, k);
	json_w_uint(w, v);
}

/* Go's omitempty: zero values are left out. */
static void key_u64_nz(struct json_writer *w, const char *k, uint64_t v)
{
	if (v)
		key_u64(w, k, v);
}

/* A list of v64 or v16 (the other NULL); Go's omitempty: an empty one is left out. */
static void key_uint_list(struct json_writer *w, const char *k, const uint64_t *v64, const uint16_t *v16, size_t n)
{
	if (!n)
		return;
	json_w_key(w, k);
	json_w_array(w);
	for (size_t i = 0; i < n; i++)
		json_w_uint(w, v64 ? v64[i] : v16[i]);
	json_w_array_end(w);
}

static void write_cpu(struct json_writer *w, const struct cgroup_stats *st)
{
	json_w_key(w, "cpu");
	json_w_object(w);
	json_w_key(w, "usage");
	json_w_object(w);
	key_u64_nz(w, "total", st->cpu.total);
	key_uint_list(w, "percpu", st->cpu.percpu, NULL, st->cpu.n_percpu);
	key_uint_list(w, "percpu_kernel", st->cpu.percpu_kernel, NULL, st->cpu.n_percpu_kernel);
	key_uint_list(w, "percpu_user", st->cpu.percpu_user, NULL, st->cpu.n_percpu_user);
	key_u64(w, "kernel", st->cpu.kernel);
	key_u64(w, "user", st->cpu.user);
	json_w_object_end(w);
	json_w_key(w, "throttling");
	json_w_object(w);
	key_u64_nz(w, "periods", st->cpu.periods);
	key_u64_nz(w, "throttledPeriods", st->cpu.throttled_periods);
	key_u64_nz(w, "throttledTime", st->cpu.throttled_time);
	json_w_object_end(w);
	json_w_object_end(w);
}

/* runc's types.CPUSet, its keys in its order */
static void write_cpuset(struct json_writer *w, const struct cgroup_stats *st)
{
	json_w_key(w, "cpuset");
	json_w_object(w);
	key_uint_list(w, "cpus", NULL, st->cpuset.cpus, st->cpuset.n_cpus);
	key_u64(w, "cpu_exclusive", st->cpuset.cpu_exclusive);
	key_uint_list(w, "mems", NULL, st->cpuset.mems, st->cpuset.n_mems);
	key_u64(w, "mem_hardwall", st->cpuset.mem_hardwall);
	key_u64(w, "mem_exclusive", st->cpuset.mem_exclusive);
	key_u64(w, "memory_migrate", st->cpuset.memory_migrate);
	key_u64(w, "memory_spread_page", st->cpuset.memory_spread_page);
	key_u64(w, "memory_spread_slab", st->cpuset.memory_spread_slab);
	key_u64(w, "memory_pressure", st->cpuset.memory_pressure);
	key_u64(w, "memory_pressure_enabled", st->cpuset.memory_pressure_enabled);
	key_u64(w, "sched_load_balance", st->cpuset.sched_load_balance);
	json_w_key(w, "sched_relax_domain_level");
	json_w_int(w, st->cpuset.sched_relax_domain_level);
	json_w_object_end(w);
}

static void write_mem_entry(struct json_writer *w, const char *k, const struct cgroup_mem_entry *e)
{
	json_w_key(w, k);
	json_w_object(w);
	key_u64(w, "limit", e->limit);
	key_u64_nz(w, "usage", e->usage);
	key_u64_nz(w, "max", e->max_usage);
	key_u64(w, "failcnt", e->failcnt);
	json_w_object_end(w);
}

static void write_memory(struct json_writer *w, const struct cgroup_stats *st)
{
	json_w_key(w, "memory");
	json_w_object(w);
	key_u64_nz(w, "cache", st->memory.cache);
	write_mem_entry(w, "usage", &st->memory.usage);
	write_mem_entry(w, "swap", &st->memory.swap);
	write_mem_entry(w, "kernel", &st->memory.kernel);
	write_mem_entry(w, "kernelTCP", &st->memory.kernel_tcp);
	if (st->memory.n_raw) {
		json_w_key(w, "raw");
		json_w_object(w);
		for (size_t i = 0; i < st->memory.n_raw; i++)
			key_u64(w, st->memory.raw[i].key, st->memory.raw[i].value);
		json_w_object_end(w);
	}
	json_w_object_end(w);
}

static void write_blkio_list(struct json_writer *w, const char *k, const struct cgroup_blkio_entry *e, size_t n)
{
	if (!n)
		return;
	json_w_key(w, k);
	json_w_array(w);
	for (size_t i = 0; i < n; i++) {
		json_w_object(w);
		key_u64(w, "major", e[i].major);
		key_u64(w, "minor", e[i].minor);
		json_w_key(w, "op");
		json_w_string(w, e[i].op);
		key_u64(w, "value", e[i].value);
		json_w_object_end(w);
	}
	json_w_array_end(w);
}

static void write_rest(struct json_writer *w, const struct cgroup_stats *st)
{
	json_w_key(w, "pids");
	json_w_object(w);
	key_u64_nz(w, "current", st->pids.current);
	key_u64_nz(w, "limit", st->pids.limit);
	json_w_object_end(w);
	json_w_key(w, "blkio");
	json_w_object(w);
	write_blkio_list(w, "ioServiceBytesRecursive", st->blkio.service_bytes, st->blkio.n_service_bytes);
	write_blkio_list(w, "ioServicedRecursive", st->blkio.serviced, st->blkio.n_serviced);
	json_w_object_end(w);
	json_w_key(w, "hugetlb");
	json_w_object(w);
	for (size_t i = 0; i < st->n_hugetlb; i++) {
		json_w_key(w, st->hugetlb[i].page_size);
		json_w_object(w);
		key_u64_nz(w, "usage", st->hugetlb[i].usage);
		key_u64_nz(w, "max", st->hugetlb[i].max_usage);
		key_u64(w, "failcnt", st->hugetlb[i].failcnt);
		json_w_object_end(w);
	}
	json_w_object_end(w);
	json_w_key(w, "intel_rdt");
	json_w_object(w);
	json_w_object_end(w);
	json_w_key(w, "network_interfaces");
	json_w_null(w);
}

static void write_head(struct json_writer *w, const char *type, const char *id)
{
	json_w_object(w);
	json_w_key(w, "type");
	json_w_string(w, type);
	json_w_key(w, "id");
	json_w_string(w, id);
}

int oci_event_stats_json(const char *id, const struct cgroup_stats *st, char **out, size_t *len)
{
	struct json_writer *w = json_writer_new(NULL);

	write_head(w, "stats", id);
	json_w_key(w, "data");
	json_w_object(w);
	write_cpu(w, st);
	write_cpuset(w, st);
	write_memory(w, st);
	write_rest(w, st);
	json_w_object_end(w);
	json_w_object_end(w);
	return json_writer_finish(w, out, len);
}

int oci_event_json(const char *type, const char *id, char **out, size_t *len)
{
	struct json_writer *w = json_writer_new(NULL);

	write_head(w, type, id);
	json_w_object_end(w);
	return json_writer_finish(w, out, len);
}

static const char *signal_name(int sig, char *buf, size_t size)
{
	for (size_t i = 0; i < oci_n_signals; i++)
		if (oci_signals[i].value == sig)
			return oci_signals[i].name;
	snprintf(buf, size, "%d", sig);
	return buf;
}

static void key_u64_or_null(struct json_writer *w, const char *k, bool has, uint64_t v)
{
	json_w_key(w, k);
	if (has)
		json_w_uint(w, v);
	else
		json_w_null(w);
}

static void write_usage(struct json_writer *w, const struct oci_exit *e)
{
	const struct oci_usage *u = &e->usage;

	json_w_key(w, "usage");
	json_w_object(w);
	key_u64_or_null(w, "wallMs", u->has_wall, u->wall_ms);
	key_u64_or_null(w, "cpuUserMs", u->has_cpu, u->cpu_user_us / 1000);
	key_u64_or_null(w, "cpuSystemMs", u->has_cpu, u->cpu_system_us / 1000);
	json_w_key(w, "cpuSource");
	json_w_string(w, u->has_cpu ? u->cpu_source : NULL);
	key_u64_or_null(w, "memoryPeakBytes", u->has_memory_peak, u->memory_peak_bytes);
	key_u64_or_null(w, "pidsPeak", u->has_pids_peak, u->pids_peak);
	key_u64_or_null(w, "cpuThrottledUsec", u->has_throttled, u->cpu_throttled_usec);
	key_u64(w, "oomKills", e->oom_kills);
	key_u64(w, "pidsLimitHits", e->pids_limit_hits);
	key_u64_or_null(w, "voluntaryContextSwitches", u->has_csw, u->voluntary_csw);
	key_u64_or_null(w, "involuntaryContextSwitches", u->has_csw, u->involuntary_csw);
	/* the task's output through `run` (run.tinyrun.output-limit, output.h):
	 * what it wrote to each stream, and whether not all of it was passed on */
	key_u64_or_null(w, "stdoutBytes", e->has_output, e->stdout_bytes);
	key_u64_or_null(w, "stderrBytes", e->has_output, e->stderr_bytes);
	json_w_key(w, "stdoutTruncated");
	if (e->has_output)
		json_w_bool(w, e->stdout_truncated);
	else
		json_w_null(w);
	json_w_key(w, "stderrTruncated");
	if (e->has_output)
		json_w_bool(w, e->stderr_truncated);
	else
		json_w_null(w);
	json_w_key(w, "cleanupSucceeded");
	if (u->cleanup < 0)
		json_w_null(w);
	else
		json_w_bool(w, u->cleanup > 0);
	json_w_object_end(w);
}

static void write_exit(struct json_writer *w, const char *id, const struct oci_exit *e)
{
	char num[16];

	json_w_key(w, "version");
	json_w_uint(w, OCI_EXIT_VERSION);
	json_w_key(w, "id");
	json_w_string(w, id);
	json_w_key(w, "reason");
	json_w_string(w, e->reason);
	json_w_key(w, "exitCode");
	if (e->has_status && !e->signal)
		json_w_int(w, e->exit_code);
	else
		json_w_null(w);
	json_w_key(w, "signal");
	json_w_string(w, e->has_status && e->signal ? signal_name(e->signal, num, sizeof(num)) : NULL);
	json_w_key(w, "status");
	if (e->has_status)
		json_w_int(w, e->status);
	else
		json_w_null(w);
	key_u64(w, "oomKills", e->oom_kills);
	key_u64(w, "pidsLimitHits", e->pids_limit_hits);
	/* sbland: the Landlock ABI the task ran under (runtime/sandbox/fence.h) */
	if (e->landlock_asked) {
		json_w_key(w, "landlockAbi");
		json_w_int(w, e->landlock_abi);
	}
	if (e->error) {
		json_w_key(w, "error");
		json_w_string(w, e->error);
	}
	write_usage(w, e);
}

int oci_exit_json(const char *id, const struct oci_exit *e, bool as_event, char **out, size_t *len)
{
	struct json_writer *w = json_writer_new(NULL);

	if (as_event) {
		write_head(w, "exit", id);
		json_w_key(w, "data");
	}
	json_w_object(w);
	write_exit(w, id, e);
	/* sbiso (issue 31 §5): the host knob that refused the user namespace */
	if (e->host_blocked) {
		json_w_key(w, "hostBlocked");
		json_w_string(w, e->host_blocked);
	}
	json_w_object_end(w);
	if (as_event)
		json_w_object_end(w);
	return json_writer_finish(w, out, len);
}
