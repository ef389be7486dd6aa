#include "runtime/linux/attrs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/log.h"
#include "runtime/linux/procfs.h"

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

/* Every CPU the kernel may ever have (it clamps the mask to its own size
 * and to the cgroup's cpuset); a failure only warns, as runc's. */
static void affinity_reset(void)
{
	unsigned long all[8192 / (8 * sizeof(unsigned long))];

	memset(all, 0xff, sizeof(all));
	if (sched_setaffinity(0, sizeof(all), (cpu_set_t *)all) < 0)
		log_warn("resetting the CPU affinity failed (%s): the process may keep the runtime's",
			 strerror(errno));
}

int attrs_affinity_final(const struct oci_process *p, bool exec, struct error *err)
{
	if (exec && p->exec_cpu_affinity_final)
		return set_affinity(p->exec_cpu_affinity_final, "final", err);
	if (!exec || !p->exec_cpu_affinity_initial)
		affinity_reset();
	return 0;
}

/* sched_setattr(2)'s argument; glibc 2.36 has no declaration of it. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

static int set_scheduler(const struct oci_scheduler *s, const struct oci_linux *l, struct error *err)
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

	if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
		return 0;
	/* sched_setattr(2): EPERM when the affinity leaves out CPUs of the
	 * system (SCHED_DEADLINE): say why, in runc's words */
	if (errno == EPERM && l && l->resources.has_cpu && l->resources.cpu.cpus && *l->resources.cpu.cpus)
		return error_set(err, EPERM, "process.scheduler: process scheduler can't be used together with "
				 "AllowedCPUs (linux.resources.cpu.cpus \"%s\")", l->resources.cpu.cpus);
	return error_sys(err, errno, "process.scheduler");
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
	unsigned long mask[OCI_MEMPOLICY_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
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

	if (p->has_scheduler && (r = set_scheduler(&p->scheduler, l, err)) < 0)
		return r;
	if (p->has_io_priority && (r = set_ioprio(p, err)) < 0)
		return r;
	if (l && l->has_memory_policy && (r = set_mempolicy(&l->memory_policy, err)) < 0)
		return r;
	/* the container's, for an exec'd process too (as runc) */
	if (l && l->has_personality && personality(l->personality) < 0)
		return error_sys(err, errno, "linux.personality");
	return 0;
}

/* The host's answer, read by the runtime before clone (attrs_probe_lsm):
 * after pivot_root /sys is the image's, and a fake "N" there (or no /sys)
 * must not turn the profile off. -1: not probed. */
static int apparmor_on = -1;

void attrs_probe_lsm(void)
{
	char c = 0;
	int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	apparmor_on = c == 'Y';
}

static int apparmor_enabled(const char *profile, struct error *err)
{
	if (apparmor_on < 0)
		return error_set(err, EINVAL, "process.apparmorProfile \"%s\": AppArmor was not probed before clone",
				 profile);
	return apparmor_on;
}

/* "exec PROFILE" for the next execve, written through the proven procfs
 * DIR: attr/apparmor/exec (Linux 5.8+), else the shared attr/exec. */
static int set_apparmor(int dir, const char *profile, struct error *err)
{
	char buf[512];
	int n, r;

	if ((r = apparmor_enabled(profile, err)) <= 0) {
		if (r == 0)
			log_debug("process.apparmorProfile \"%s\": AppArmor is not enabled, ignored", profile);
		return r;
	}
	n = snprintf(buf, sizeof(buf), "exec %s", profile);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return error_set(err, ENAMETOOLONG, "process.apparmorProfile \"%.64s...\": name too long", profile);
	r = procfs_write(dir, "self/attr/apparmor/exec", buf, n);
	if (r == -ENOENT)
		r = procfs_write(dir, "self/attr/exec", buf, n);
	if (r == -ENOENT)
		return error_set(err, ENOENT, "process.apparmorProfile \"%s\": profile not loaded", profile);
	if (r == -EXDEV || r == -EPERM)
		return error_set(err, EPERM, "process.apparmorProfile \"%s\": /proc/self/attr in the container is "
				 "not procfs (a mount over it?)", profile);
	if (r < 0)
		return error_sys(err, -r, "process.apparmorProfile \"%s\"", profile);
	return 0;
}

/* SELinux is on as libselinux's is_selinux_enabled says (without linking
 * it: its constructor cost 8 syscalls at every start): a writable selinuxfs
 * at /sys/fs/selinux (or /selinux) and an /etc/selinux/config. Asked on the
 * host (create, exec: before clone), cached for the child after pivot_root,
 * which never probes itself (set_selinux refuses an unprobed state). */
#define SELINUX_FS_MAGIC 0xf97cff8cu
static int selinux_on = -1;

static bool selinuxfs_at(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (uint32_t)sf.f_type == SELINUX_FS_MAGIC && !(sf.f_flags & ST_RDONLY);
}

bool attrs_selinux_enabled(void)
{
	if (selinux_on < 0)
		selinux_on = (selinuxfs_at("/sys/fs/selinux") || selinuxfs_at("/selinux")) &&
			     access("/etc/selinux/config", F_OK) == 0;
	return selinux_on;
}

/* SELinux: the label (NUL included, as libselinux's setexeccon_raw) written
 * to /proc/thread-self/attr/exec through the fd proven to be procfs, so a
 * mount over it (or an image's /proc) is refused rather than absorbing it. */
static int set_selinux(int dir, const char *label, struct error *err)
{
	size_t n = strlen(label) + 1;
	ssize_t w;
	int fd;

	/* the host's answer only: the container's /etc and /sys are the image's */
	if (selinux_on < 0)
		return error_set(err, EINVAL, "process.selinuxLabel \"%s\": SELinux was not probed before clone", label);
	if (!selinux_on) {
		log_debug("process.selinuxLabel \"%s\": SELinux is not enabled, ignored", label);
		return 0;
	}
	fd = procfs_openat(dir, "thread-self/attr/exec", O_WRONLY);
	if (fd < 0)
		return error_set(err, EPERM, "process.selinuxLabel \"%s\": /proc/thread-self/attr/exec in the "
				 "container is not procfs (%s)", label, strerror(-fd));
	w = write(fd, label, n);
	if (w < 0)
		w = -errno;
	close(fd);
	if (w < 0)
		return error_sys(err, (int)-w, "process.selinuxLabel \"%s\"", label);
	if ((size_t)w != n)
		return error_set(err, EIO, "process.selinuxLabel \"%s\": short write", label);
	return 0;
}

int attrs_set_labels(const struct oci_process *p, struct error *err)
{
	int dir, r = 0;

	if (!p->apparmor_profile && !p->selinux_label)
		return 0;
	/* the labels go through /proc/self/attr: a real procfs, not a directory
	 * of the image or a mount over it that would silently absorb them */
	dir = procfs_dir("/proc");
	if (dir < 0)
		return error_set(err, EPERM, "process labels: /proc in the container is not procfs (%s)",
				 strerror(-dir));
	if (p->apparmor_profile)
		r = set_apparmor(dir, p->apparmor_profile, err);
	if (r >= 0 && p->selinux_label)
		r = set_selinux(dir, p->selinux_label, err);
	close(dir);
	return r < 0 ? r : 0;
}
