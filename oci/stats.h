/* Container statistics as `events --stats` reports them (runc's JSON, its
 * cpu, cpuset, memory, pids, blkio and hugetlb; written by oci/events.c),
 * filled by runtime/cgroup/stats*.c. Plain data:
 * it lives here so that the JSON side needs nothing from runtime/. */
#ifndef TINYRUN_OCI_STATS_H
#define TINYRUN_OCI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Units as runc's `events --stats` JSON: bytes, nanoseconds. A value the
 * kernel does not provide stays 0. Limits: UINT64_MAX when unlimited
 * (pids.limit: 0 when unlimited, as runc). */
struct cgroup_kv {                  /* memory.stat entry */
	char key[40];
	uint64_t value;
};

struct cgroup_blkio_entry {         /* blkio / io.stat */
	uint32_t major, minor;
	char op[12];                    /* "Read", "Write", "Sync", "Async", "Discard", "Total" */
	uint64_t value;
};

struct cgroup_mem_entry {
	uint64_t usage, max_usage, failcnt, limit;
};

struct cgroup_hugetlb_stat {
	char page_size[16];             /* "2MB", "1GB" */
	uint64_t usage, max_usage, failcnt;
};

struct cgroup_stats {
	struct {
		uint64_t total, kernel, user;          /* ns */
		uint64_t *percpu;                      /* v1 only: cpuacct.usage_percpu */
		size_t n_percpu;
		uint64_t *percpu_kernel, *percpu_user; /* v1 only: cpuacct.usage_percpu_sys/_user */
		size_t n_percpu_kernel, n_percpu_user;
		uint64_t periods, throttled_periods, throttled_time;
	} cpu;
	struct {                                   /* runc's cpuset (v2: cpus and mems only) */
		uint16_t *cpus, *mems;                 /* the lists expanded: "0-2" is 0, 1, 2 */
		size_t n_cpus, n_mems;
		uint64_t cpu_exclusive, mem_hardwall, mem_exclusive, memory_migrate;
		uint64_t memory_spread_page, memory_spread_slab, memory_pressure;
		uint64_t memory_pressure_enabled, sched_load_balance;
		int64_t sched_relax_domain_level;
	} cpuset;
	struct {
		uint64_t cache;
		struct cgroup_mem_entry usage;
		struct cgroup_mem_entry swap;          /* memory+swap, as v1 memsw (v2: summed) */
		struct cgroup_mem_entry kernel, kernel_tcp; /* v1 only */
		struct cgroup_kv *raw;                 /* memory.stat */
		size_t n_raw;
		uint64_t oom, oom_kill;                /* memory.events / memory.oom_control */
		bool under_oom;
	} memory;
	struct {
		uint64_t current, limit;
	} pids;
	struct {
		struct cgroup_blkio_entry *service_bytes, *serviced;
		size_t n_service_bytes, n_serviced;
	} blkio;
	struct cgroup_hugetlb_stat *hugetlb;
	size_t n_hugetlb;
};

#endif
