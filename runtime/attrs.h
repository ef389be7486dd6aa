/* Process attributes beyond identity and capabilities: scheduler, I/O
 * priority, CPU affinity, NUMA memory policy, LSM labels. Applied by the
 * container child (and `exec`) before execve. */
#ifndef TINYRUN_ATTRS_H
#define TINYRUN_ATTRS_H

#include "oci/config.h"
#include "oci/error.h"

/* Parse a cpu list ("0-3,7") into a cpu_set_t-sized mask. */
int attrs_cpu_list(const char *list, void *set, size_t setsize);
/* process.execCPUAffinity.initial: first thing in the new process. */
int attrs_affinity_initial(const struct oci_process *p, struct error *err);
/* process.execCPUAffinity.final, scheduler, ioPriority, linux.memoryPolicy:
 * once the process is in its cgroup, before the privileges go. */
int attrs_apply(const struct oci_process *p, const struct oci_linux *l, struct error *err);
/* process.apparmorProfile and process.selinuxLabel, for the next execve. */
int attrs_set_labels(const struct oci_process *p, struct error *err);

#endif
