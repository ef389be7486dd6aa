/* The cgroup's part of a result's usage (oci/events.h: struct oci_usage),
 * read once when the task has ended, before the cgroup is removed: only the
 * few files the result needs, not the whole of `events --stats`.
 *   v2: cpu.stat user_usec system_usec throttled_usec, memory.peak (Linux
 *       5.19+), pids.peak (where the kernel has it), memory.events oom;
 *   v1: cpuacct.usage_user/usage_sys (ns), cpu.stat throttled_time (ns),
 *       memory.max_usage_in_bytes, memory(.memsw).failcnt, pids.peak (the
 *       pids controller's files are v1's too: 6.18 has it).
 * A file the kernel or a disabled controller lacks leaves its figure null. */
#ifndef TINYRUN_CGROUP_USAGE_H
#define TINYRUN_CGROUP_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "oci/events.h"
#include "runtime/cgroup/cgroup.h"

struct cgroup_usage {
	struct oci_usage u;         /* has_cpu (cpu_source "cgroup"), memory/pids peak, throttling */
	/* the container's own memory limit (or a sub-cgroup's) was reached: v2
	 * memory.events "oom" (charged to the cgroup whose limit it was), v1
	 * memory(.memsw).failcnt (the page counter that failed) or, where the
	 * kernel leaves those at 0 (6.18), a peak that reached its own limit */
	bool own_limit_hit;
};

/* -ENOENT (err filled) when the container's cgroup is gone: in any v1
 * hierarchy it was made in, or its v2 directory. */
int cgroup_usage(const struct cgroup *cg, struct cgroup_usage *out, struct error *err);

#endif
