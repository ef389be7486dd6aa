/* Process attributes beyond identity and capabilities: scheduler, I/O
 * priority, CPU affinity, NUMA memory policy, LSM labels. Applied by the
 * container child (and `exec`) before execve. */
#ifndef TINYRUN_ATTRS_H
#define TINYRUN_ATTRS_H

#include <stdbool.h>

#include "oci/config.h"
#include "oci/error.h"

/* Parse a cpu list ("0-3,7") into a cpu_set_t-sized mask. */
int attrs_cpu_list(const char *list, void *set, size_t setsize);
/* process.execCPUAffinity.initial: first thing in an exec'd process (the
 * spec leaves the container's init out of execCPUAffinity). */
int attrs_affinity_initial(const struct oci_process *p, struct error *err);
/* Once in the cgroup: an exec'd process gets .final, or every CPU when
 * neither .initial nor .final is given; the init always gets every CPU.
 * The kernel keeps the cgroup's cpuset; the caller's own affinity (taskset,
 * a pinned shim) never leaks in (runc's tryResetCPUAffinity). */
int attrs_affinity_final(const struct oci_process *p, bool exec, struct error *err);
/* scheduler, ioPriority, linux.memoryPolicy: once the process is in its
 * cgroup, before the privileges go. */
int attrs_apply(const struct oci_process *p, const struct oci_linux *l, struct error *err);
/* Which LSMs the host has (AppArmor's /sys/module/.../enabled), cached for
 * attrs_set_labels: called by the runtime before it clones the container or
 * exec child, while /sys is still the host's. */
void attrs_probe_lsm(void);
/* SELinux on (a writable selinuxfs and /etc/selinux/config, as libselinux's
 * is_selinux_enabled), probed once: first called on the host, before clone. */
bool attrs_selinux_enabled(void);
/* process.apparmorProfile and process.selinuxLabel, for the next execve,
 * written through a /proc proven to be procfs (runtime/procfs.h). */
int attrs_set_labels(const struct oci_process *p, struct error *err);

#endif
