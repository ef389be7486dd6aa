/* The kernel facilities tinyrun uses, probed one by one for `tinyrun check`
 * (hostcaps.h). `without` says what tinyrun does when one is missing: the
 * fallbacks are the code's (grep ENOSYS), tests/check.bats forces each
 * absence with tests/lib/nosys.c and runs a container through it. */
#include "runtime/linux/hostcaps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/linux/hostcaps_criu.h"
#include "runtime/linux/landlock.h"
#include "runtime/linux/procfs.h"
#include "rootfs/rootfs.h"

#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
#endif

static struct oci_host_row *row(struct oci_host_report *r, const char *facility, const char *since,
				enum oci_host_need need, const char *without)
{
	struct oci_host_row *w = &r->rows[r->n < OCI_HOST_ROWS_MAX - 1 ? r->n++ : r->n];

	*w = (struct oci_host_row){ .facility = facility, .since = since, .need = need, .without = without };
	return w;
}

static void found(struct oci_host_row *w, enum oci_host_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void found(struct oci_host_row *w, enum oci_host_status s, const char *fmt, ...)
{
	va_list ap;

	w->status = s;
	va_start(ap, fmt);
	vsnprintf(w->found, sizeof(w->found), fmt, ap);
	va_end(ap);
}

/* A syscall's answer to a call it refuses: there unless ENOSYS. */
static void syscall_found(struct oci_host_row *w, long ret, const char *what)
{
	if (ret < 0 && errno == ENOSYS)
		found(w, OCI_HOST_MISSING, "%s: ENOSYS", what);
	else
		found(w, OCI_HOST_PRESENT, "%s", what);
}

static bool has_clone3(void)
{
	return !(syscall(SYS_clone3, NULL, 0) < 0 && errno == ENOSYS);
}

static void probe_clone3(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "clone3", "5.3", OCI_HOST_REQUIRED,
				     "create, run: clone(2); exec: none (it fails)");

	syscall_found(w, syscall(SYS_clone3, NULL, 0), "clone3");
}

/* CLONE_INTO_CGROUP with a bad fd: EBADF once the flag is known, EINVAL before. */
static void probe_clone_into_cgroup(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "CLONE_INTO_CGROUP", "5.7", OCI_HOST_FALLBACK,
				     "the child writes its own cgroup.procs, then makes its cgroup namespace");
	struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = INT_MAX };
	pid_t pid;

	if (!has_clone3()) {
		found(w, OCI_HOST_MISSING, "no clone3");
		return;
	}
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (pid > 0 || errno == EBADF)
		found(w, OCI_HOST_PRESENT, "clone3 takes it%s",
		      cgroup_detect() == CGROUP_MODE_V2 ? "" : " (used on cgroup v2 hosts only)");
	else
		found(w, OCI_HOST_MISSING, "clone3: %s", strerror(errno));
}

static void probe_openat2(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "openat2", "5.6", OCI_HOST_REQUIRED,
				     "rootfs paths: a component walk with O_PATH (rootfs/resolve.c); /proc writes "
				     "(uid/gid maps, oom_score_adj), linux.sysctl, list: none");

	syscall_found(w, syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0), "openat2");
}

static void probe_mount_api(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "open_tree, move_mount", "5.2", OCI_HOST_REQUIRED,
				     "none: bind mounts fail");
	long t = syscall(SYS_open_tree, -1, "", 0);
	int e = errno;

	if (t >= 0)
		close((int)t);
	errno = e;
	if (t < 0 && e == ENOSYS)
		syscall_found(w, t, "open_tree");
	else
		syscall_found(w, syscall(SYS_move_mount, -1, "", -1, "", 0), "open_tree, move_mount");
}

static void probe_fsopen(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "fsopen, fsmount", "5.2", OCI_HOST_FALLBACK,
				     "runtime binary: a sealed memfd copy, not the overlay view; cgroup2: mount(2) "
				     "only; linux.devices in a user namespace: none");

	syscall_found(w, syscall(SYS_fsopen, NULL, 0), "fsopen");
}

static void probe_mount_setattr(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "mount_setattr", "5.12", OCI_HOST_REQUIRED,
				     "none: mounts with attributes (ro, nosuid ...) fail");

	syscall_found(w, syscall(SYS_mount_setattr, -1, "", 0, NULL, 0), "mount_setattr");
}

/* MOUNT_ATTR_IDMAP with a bad user namespace fd: EBADF once the attribute
 * is known, EINVAL before; EPERM without CAP_SYS_ADMIN (unknown). */
static void probe_idmap(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "MOUNT_ATTR_IDMAP", "5.12", OCI_HOST_OPTIONAL,
				     "mounts with idmap or ridmap fail");
	struct mount_attr a = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = INT_MAX };

	if (syscall(SYS_mount_setattr, -1, "", AT_EMPTY_PATH, &a, sizeof(a)) == 0 || errno == EBADF)
		found(w, OCI_HOST_PRESENT, "mount_setattr takes it");
	else if (errno == EPERM)
		found(w, OCI_HOST_UNKNOWN, "cannot tell without CAP_SYS_ADMIN");
	else
		found(w, OCI_HOST_MISSING, "mount_setattr: %s", strerror(errno));
}

static void probe_pidfd(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "pidfd_open, pidfd_send_signal", "5.3", OCI_HOST_REQUIRED,
				     "run: the pid polled (NOTIFY_SOCKET), hooks waited for with waitpid (no "
				     "timeout); kill, exec: none");
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0) {
		syscall_found(w, fd, "pidfd_open");
		return;
	}
	syscall_found(w, syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0), "pidfd_open, pidfd_send_signal");
	close(fd);
}

/* setns(pidfd, CLONE_NEWUTS) into our own UTS namespace: a no-op where the
 * kernel takes a pidfd (EPERM without CAP_SYS_ADMIN), EINVAL where not. */
static void probe_setns_pidfd(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "setns(pidfd)", "5.8", OCI_HOST_REQUIRED, "exec: none (it fails)");
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0) {
		found(w, OCI_HOST_MISSING, "no pidfd_open");
		return;
	}
	if (setns(fd, CLONE_NEWUTS) == 0 || errno == EPERM)
		found(w, OCI_HOST_PRESENT, "setns takes a pidfd");
	else
		found(w, OCI_HOST_MISSING, "setns(pidfd): %s", strerror(errno));
	close(fd);
}

static void probe_pidfd_ns_ioctl(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "PIDFD_GET_*_NAMESPACE", "6.11", OCI_HOST_FALLBACK,
				     "sandbox requests: /proc/PID/ns/*, the pid checked alive through its pidfd "
				     "after the open");
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0), ns;

	if (fd < 0) {
		found(w, OCI_HOST_MISSING, "no pidfd_open");
		return;
	}
	ns = ioctl(fd, PIDFD_GET_USER_NAMESPACE, 0);
	if (ns >= 0 || errno == EPERM)
		found(w, OCI_HOST_PRESENT, "ioctl on a pidfd");
	else
		found(w, OCI_HOST_MISSING, "ioctl(PIDFD_GET_USER_NAMESPACE): %s", strerror(errno));
	if (ns >= 0)
		close(ns);
	close(fd);
}

static void probe_close_range(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "close_range", "5.9", OCI_HOST_REQUIRED,
				     "none: the container's process cannot close the runtime's fds");

	syscall_found(w, syscall(SYS_close_range, ~0U, 0U, 0U), "close_range");
}

static void probe_timens(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "time namespace", "5.6", OCI_HOST_OPTIONAL,
				     "a config with a time namespace fails");

	if (access("/proc/self/ns/time", F_OK) == 0)
		found(w, OCI_HOST_PRESENT, "/proc/self/ns/time");
	else
		found(w, OCI_HOST_MISSING, "/proc/self/ns/time: %s", strerror(errno));
}

/* seccomp(SET_MODE_FILTER) with a NULL program: EFAULT once the flags pass
 * their check, EINVAL for one the kernel does not know. Nothing installed. */
static bool seccomp_flag_known(unsigned flags)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

static void probe_seccomp_flags(struct oci_host_report *r)
{
	static const struct { const char *name; unsigned bits; } flags[] = {
		{ "TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
		{ "LOG", SECCOMP_FILTER_FLAG_LOG },
		{ "SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
		{ "NEW_LISTENER", SECCOMP_FILTER_FLAG_NEW_LISTENER },
		{ "TSYNC_ESRCH", SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH },
		{ "WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
	};
	struct oci_host_row *w = row(r, "seccomp filter flags", "3.17", OCI_HOST_OPTIONAL,
				     "a flag in linux.seccomp.flags the kernel lacks is refused, by name");
	char have[128] = "", lack[128] = "";

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char *into = seccomp_flag_known(flags[i].bits) ? have : lack;

		snprintf(into + strlen(into), sizeof(have) - strlen(into), "%s%s", *into ? " " : "", flags[i].name);
	}
	if (*lack)
		found(w, OCI_HOST_MISSING, "have: %s; lack: %s", *have ? have : "none", lack);
	else
		found(w, OCI_HOST_PRESENT, "%s", have);
}

static bool seccomp_action_avail(unsigned action)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

static void probe_seccomp_notify(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "seccomp user notification", "5.0", OCI_HOST_OPTIONAL,
				     "a profile with SCMP_ACT_NOTIFY fails");
	struct seccomp_notif_sizes sz;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0 && seccomp_action_avail(SECCOMP_RET_USER_NOTIF))
		found(w, OCI_HOST_PRESENT, "SECCOMP_RET_USER_NOTIF; notif %u bytes, resp %u", sz.seccomp_notif,
		      sz.seccomp_notif_resp);
	else
		found(w, OCI_HOST_MISSING, "SECCOMP_GET_NOTIF_SIZES: %s", strerror(errno));
}

static void probe_landlock(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "Landlock", "5.13", OCI_HOST_NOTE,
				     "the sandbox's second fence and run.tinyrun.landlock run without it (warned)");
	int abi = landlock_abi();

	if (abi > 0)
		found(w, OCI_HOST_PRESENT, "ABI %d", abi);
	else if (abi == -EOPNOTSUPP)
		found(w, OCI_HOST_MISSING, "built in, disabled at boot (lsm=)");
	else
		found(w, OCI_HOST_MISSING, "landlock_create_ruleset: %s", strerror(-abi));
}

/* The first line of a small file, or "" */
static void read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
}

static bool is_fs(const char *path, unsigned long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (unsigned long)sf.f_type == magic;
}

/* The v1 hierarchies mounted under /sys/fs/cgroup, comma-separated. */
static void v1_hierarchies(char *out, size_t size)
{
	DIR *d = opendir("/sys/fs/cgroup");
	struct dirent *e;
	char path[300];

	*out = '\0';
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", e->d_name);
		if (e->d_type == DT_DIR && e->d_name[0] != '.' && is_fs(path, CGROUP_SUPER_MAGIC) &&
		    (size_t)snprintf(out + strlen(out), size - strlen(out), "%s%s", *out ? " " : "", e->d_name) >=
			    size - strlen(out))
			break;
	}
	if (d)
		closedir(d);
}

/* Our own cgroup2 directory (0::/path of /proc/self/cgroup) below ROOT: its
 * controllers, and whether we may write it (delegation). */
static void v2_ours(const char *root, char *out, size_t size)
{
	char self[4096], dir[4400], ctl[256];
	const char *p;
	int fd = procfs_openat(-1, "self/cgroup", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, self, sizeof(self) - 1) : -1;

	if (fd >= 0)
		close(fd);
	self[n > 0 ? n : 0] = '\0';
	p = strstr(self, "0::");
	if (!p) {
		snprintf(out, size, "ours: unknown");
		return;
	}
	p += 3;
	snprintf(dir, sizeof(dir), "%s%.*s", root, (int)strcspn(p, "\n"), p);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/cgroup.controllers");
	read_line(dir, ctl, sizeof(ctl));
	*strrchr(dir, '/') = '\0';
	snprintf(out, size, "ours %.*s: controllers [%s], %s", (int)strcspn(p, "\n"), p, ctl,
		 access(dir, W_OK) == 0 ? "writable (delegated)" : "not writable (not delegated)");
}

static void probe_cgroups(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "cgroup layout", NULL, OCI_HOST_NOTE, NULL);
	const char *mode = cgroup_mode_name();
	char ctl[256], v1[256], ours[600];

	if (cgroup_detect() == CGROUP_MODE_V2) {
		read_line("/sys/fs/cgroup/cgroup.controllers", ctl, sizeof(ctl));
		v2_ours("/sys/fs/cgroup", ours, sizeof(ours));
		found(w, OCI_HOST_INFO, "v2: controllers [%s]; %s", ctl, ours);
		return;
	}
	v1_hierarchies(v1, sizeof(v1));
	if (!strcmp(mode, "hybrid")) {
		read_line("/sys/fs/cgroup/unified/cgroup.controllers", ctl, sizeof(ctl));
		v2_ours("/sys/fs/cgroup/unified", ours, sizeof(ours));
		found(w, OCI_HOST_INFO, "hybrid: v1 [%s]; cgroup2 at /sys/fs/cgroup/unified, controllers [%s], %s",
		      v1, ctl, ours);
	} else {
		found(w, OCI_HOST_INFO, "%s: v1 [%s]", mode, v1);
	}
}

/* A sysctl under /proc/sys, "absent" when this kernel has none. */
static void sysctl_value(const char *rel, char *buf, size_t size)
{
	ssize_t n = procfs_read(-1, rel, buf, size);

	if (n == -ENOSYS) {   /* no openat2: the report still reads it */
		char path[128];

		snprintf(path, sizeof(path), "/proc/%s", rel);
		read_line(path, buf, size);
		n = *buf ? 1 : -ENOENT;
	}
	if (n < 0)
		snprintf(buf, size, "absent");
	buf[strcspn(buf, "\n")] = '\0';
}

static void probe_userns(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "user namespaces", "3.8", OCI_HOST_OPTIONAL,
				     "linux.namespaces user (rootless, run.tinyrun.userns=auto) fails");
	char max[32], unpriv[32], aa[32];

	sysctl_value("sys/user/max_user_namespaces", max, sizeof(max));
	sysctl_value("sys/kernel/unprivileged_userns_clone", unpriv, sizeof(unpriv));
	sysctl_value("sys/kernel/apparmor_restrict_unprivileged_userns", aa, sizeof(aa));
	found(w, strcmp(max, "0") && access("/proc/self/ns/user", F_OK) == 0 ? OCI_HOST_PRESENT : OCI_HOST_MISSING,
	      "user.max_user_namespaces=%s kernel.unprivileged_userns_clone=%s "
	      "kernel.apparmor_restrict_unprivileged_userns=%s", max, unpriv, aa);
}

static void probe_criu(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "criu", NULL, OCI_HOST_NOTE,
				     "no checkpoint/restore: both fail naming criu (3.14 or later on PATH)");
	char path[PATH_MAX], version[64];

	if (hostcaps_criu_find(path, sizeof(path)) < 0)
		found(w, OCI_HOST_MISSING, "not found on PATH");
	else if (hostcaps_criu_version(path, version, sizeof(version)) < 0)
		found(w, OCI_HOST_PRESENT, "%s (criu --version failed)", path);
	else
		found(w, OCI_HOST_PRESENT, "%s, version %s", path, version);
}

/* A whole proc or sysfs that no path reaches is in no mountinfo, so no
 * runtime can detach or mask it, yet while it is in the mount namespace the
 * kernel lets any user namespace mount a fresh, unmasked proc or sysfs
 * (mount_too_revealing): a root stacked over an initramfs whose /proc and
 * /sys were not moved along (busybox's switch_root) leaves one. Asked of the
 * kernel in a throwaway copy of this mount namespace without the proc and
 * sysfs mounts that a path reaches: a new user, pid and network namespace
 * tries both (mount(2): fsmount would log a warning). Exit status bits. */
enum { HIDDEN_PROC = 1, HIDDEN_SYSFS = 2, HIDDEN_NO_USERNS = 4, HIDDEN_FAILED = 8 };

/* mount(2) by number: glibc's <sys/mount.h> clashes with <linux/mount.h> */
static long sys_mount(const char *src, const char *target, const char *type, unsigned long flags)
{
	return syscall(SYS_mount, src, target, type, flags, NULL);
}

static int hidden_try_mounts(void)
{
	const unsigned long fl = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

	return (sys_mount("proc", "/", "proc", fl) == 0 ? HIDDEN_PROC : 0) |
	       (sys_mount("sysfs", "/", "sysfs", fl) == 0 ? HIDDEN_SYSFS : 0);
}

static int hidden_reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return HIDDEN_FAILED;
	return WIFEXITED(st) ? WEXITSTATUS(st) : HIDDEN_FAILED;
}

static int hidden_probe_child(void)
{
	struct error err = { 0 };
	pid_t pid;

	if (unshare(CLONE_NEWNS) < 0 || sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE) < 0 ||
	    rootfs_hide_pseudo_fs(NULL, &err) < 0)
		return HIDDEN_FAILED;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) < 0)
		return errno == EPERM || errno == ENOSPC || errno == EUSERS ? HIDDEN_NO_USERNS : HIDDEN_FAILED;
	if ((pid = fork()) == 0)
		_exit(hidden_try_mounts());
	return pid < 0 ? HIDDEN_FAILED : hidden_reap(pid);
}

static void probe_hidden_pseudo_fs(struct oci_host_report *r)
{
	struct oci_host_row *w = row(r, "hidden proc or sysfs", NULL, OCI_HOST_NOTE, NULL);
	pid_t pid;
	int bits;

	if (geteuid() != 0) {
		found(w, OCI_HOST_UNKNOWN, "cannot tell without root");
		return;
	}
	if ((pid = fork()) == 0)
		_exit(hidden_probe_child());
	bits = pid < 0 ? HIDDEN_FAILED : hidden_reap(pid);
	if (bits & HIDDEN_FAILED)
		found(w, OCI_HOST_UNKNOWN, "the probe failed");
	else if (bits & HIDDEN_NO_USERNS)
		found(w, OCI_HOST_MISSING, "none usable: no user namespace can be made");
	else if (bits & (HIDDEN_PROC | HIDDEN_SYSFS))
		found(w, OCI_HOST_PRESENT,
		      "a whole %s below a stacked / (in no mountinfo): a container process that can make a "
		      "user namespace can mount it fresh, unmasked; move the initramfs' /proc and /sys into the "
		      "new root at boot, or deny containers user namespaces",
		      bits == (HIDDEN_PROC | HIDDEN_SYSFS) ? "proc and sysfs" : bits & HIDDEN_PROC ? "proc" : "sysfs");
	else
		found(w, OCI_HOST_MISSING, "none");
}

void hostcaps_probe(struct oci_host_report *r)
{
	static void (*const probes[])(struct oci_host_report *) = {
		probe_clone3, probe_clone_into_cgroup, probe_openat2, probe_mount_api, probe_fsopen,
		probe_mount_setattr, probe_idmap, probe_pidfd, probe_setns_pidfd, probe_pidfd_ns_ioctl,
		probe_close_range, probe_timens, probe_seccomp_flags, probe_seccomp_notify, probe_landlock,
		probe_cgroups, probe_userns, probe_criu, probe_hidden_pseudo_fs,
	};
	struct utsname u;

	r->n = 0;
	snprintf(r->kernel, sizeof(r->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		probes[i](r);
}
