#include "attrs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <selinux/selinux.h>

#include "log.h"

int attrs_cpu_list(const char *list, void *setp, size_t setsize)
{
	cpu_set_t *set = setp;
	const char *s = list;

	CPU_ZERO_S(setsize, set);
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		if (b >= setsize * 8)
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++)
			CPU_SET_S(c, setsize, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

static int set_affinity(const char *list, const char *what, struct error *err)
{
	cpu_set_t set;

	if (attrs_cpu_list(list, &set, sizeof(set)) < 0)
		return error_set(err, EINVAL, "process.execCPUAffinity.%s: invalid cpu list \"%s\"", what, list);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return error_sys(err, errno, "process.execCPUAffinity.%s \"%s\"", what, list);
	return 0;
}

int attrs_affinity_initial(const struct oci_process *p, struct error *err)
{
	return p->exec_cpu_affinity_initial ? set_affinity(p->exec_cpu_affinity_initial, "initial", err) : 0;
}

/* sched_setattr(2)'s argument; glibc 2.36 has no declaration of it. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

static int set_scheduler(const struct oci_scheduler *s, struct error *err)
{
	struct sched_attr_v1 a = {
		.size = sizeof(a),
		.sched_policy = s->policy,
		.sched_flags = s->flags,
		.sched_nice = s->nice,
		.sched_priority = s->priority,
		.sched_runtime = s->runtime,
		.sched_deadline = s->deadline,
		.sched_period = s->period,
	};

	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
		return error_sys(err, errno, "process.scheduler");
	return 0;
}

static int set_ioprio(const struct oci_process *p, struct error *err)
{
	int value = (p->io_priority_class << 13) | (p->io_priority & 0x1fff);

	if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, value) < 0)
		return error_sys(err, errno, "process.ioPriority");
	return 0;
}

static int set_mempolicy(const struct oci_memory_policy *m, struct error *err)
{
	unsigned long mask[16] = { 0 };
	unsigned long maxnode = 0;

	if (m->nodes && *m->nodes) {
		if (attrs_cpu_list(m->nodes, mask, sizeof(mask)) < 0)
			return error_set(err, EINVAL, "linux.memoryPolicy.nodes: invalid node list \"%s\"", m->nodes);
		maxnode = sizeof(mask) * 8 + 1;
	}
	if (syscall(SYS_set_mempolicy, m->mode | m->flags, maxnode ? mask : NULL, maxnode) < 0)
		return error_sys(err, errno, "linux.memoryPolicy");
	return 0;
}

int attrs_apply(const struct oci_process *p, const struct oci_linux *l, struct error *err)
{
	int r;

	if (p->exec_cpu_affinity_final && (r = set_affinity(p->exec_cpu_affinity_final, "final", err)) < 0)
		return r;
	if (p->has_scheduler && (r = set_scheduler(&p->scheduler, err)) < 0)
		return r;
	if (p->has_io_priority && (r = set_ioprio(p, err)) < 0)
		return r;
	if (l && l->has_memory_policy && (r = set_mempolicy(&l->memory_policy, err)) < 0)
		return r;
	return 0;
}

static bool apparmor_enabled(void)
{
	char c = 0;
	int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y';
}

static int set_apparmor(const char *profile, struct error *err)
{
	char buf[512];
	int fd, n;

	if (!apparmor_enabled()) {
		log_debug("process.apparmorProfile \"%s\": AppArmor is not enabled, ignored", profile);
		return 0;
	}
	n = snprintf(buf, sizeof(buf), "exec %s", profile);
	fd = open("/proc/self/attr/apparmor/exec", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/attr/exec", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, n) != n) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return e == ENOENT ? error_set(err, ENOENT, "process.apparmorProfile \"%s\": profile not loaded", profile)
				   : error_sys(err, e, "process.apparmorProfile \"%s\"", profile);
	}
	close(fd);
	return 0;
}

/* The labels go through /proc/self/attr: it must be a real procfs, not a
 * directory of the image that would silently absorb them. */
static int check_procfs(struct error *err)
{
	struct statfs sfs;

	if (statfs("/proc/self/attr", &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
		return error_set(err, EPERM, "process labels: /proc in the container is not procfs");
	return 0;
}

int attrs_set_labels(const struct oci_process *p, struct error *err)
{
	int r;

	if (!p->apparmor_profile && !p->selinux_label)
		return 0;
	if ((r = check_procfs(err)) < 0)
		return r;

	if (p->apparmor_profile && (r = set_apparmor(p->apparmor_profile, err)) < 0)
		return r;
	if (p->selinux_label) {
		if (is_selinux_enabled() <= 0) {
			log_debug("process.selinuxLabel \"%s\": SELinux is not enabled, ignored", p->selinux_label);
		} else if (setexeccon(p->selinux_label) < 0) {
			return error_sys(err, errno, "process.selinuxLabel \"%s\"", p->selinux_label);
		}
	}
	return 0;
}
