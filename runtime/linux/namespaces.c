#include "runtime/linux/namespaces.h"
#include "runtime/linux/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int ns_flags[OCI_NS_TYPES] = {
	[OCI_NS_PID] = CLONE_NEWPID, [OCI_NS_NET] = CLONE_NEWNET, [OCI_NS_MOUNT] = CLONE_NEWNS,
	[OCI_NS_IPC] = CLONE_NEWIPC, [OCI_NS_UTS] = CLONE_NEWUTS, [OCI_NS_USER] = CLONE_NEWUSER,
	[OCI_NS_CGROUP] = CLONE_NEWCGROUP, [OCI_NS_TIME] = CLONE_NEWTIME,
};

static const char *const ns_names[OCI_NS_TYPES] = {
	"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time",
};

int ns_new_flags(const struct oci_linux *l)
{
	int flags = 0;

	for (int t = 0; t < OCI_NS_TYPES; t++)
		if (l->ns[t].present && !l->ns[t].path)
			flags |= ns_flags[t];
	return flags;
}

bool ns_any_path(const struct oci_linux *l)
{
	for (int t = 0; t < OCI_NS_TYPES; t++)
		if (l->ns[t].present && l->ns[t].path)
			return true;
	return false;
}

void ns_plan_make(const struct oci_linux *l, struct ns_plan *p)
{
	int new_ns = ns_new_flags(l);

	*p = (struct ns_plan){ .join_any = ns_any_path(l), .userns = l->ns[OCI_NS_USER].present };
	if (!p->join_any && !l->ns[OCI_NS_TIME].present) {
		p->clone_ns = new_ns;      /* fast path: clone makes them all */
		return;
	}
	p->unshare_ns = new_ns;            /* a new pid ns too: the fork below enters it */
	p->must_fork = (new_ns & CLONE_NEWPID) || l->ns[OCI_NS_PID].path || l->ns[OCI_NS_TIME].present;
}

int ns_exec_join_flags(const struct oci_linux *l)
{
	int flags = 0;

	for (int t = 0; t < OCI_NS_TYPES; t++)
		if (l->ns[t].present)
			flags |= ns_flags[t];
	return flags & ~(CLONE_NEWPID | CLONE_NEWTIME);
}

static int join_one(const struct oci_linux *l, int t, struct error *err)
{
	int fd = open(l->ns[t].path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_sys(err, errno, "linux.namespaces: %s path %s", ns_names[t], l->ns[t].path);
	if (setns(fd, ns_flags[t]) < 0) {
		int e = errno;
		close(fd);
		return error_sys(err, e, "linux.namespaces: join %s namespace %s", ns_names[t], l->ns[t].path);
	}
	close(fd);
	return 0;
}

/* Each namespace is tried before the user namespace too, while we still
 * hold the host's rights: one not owned by the joined user namespace (a
 * host netns) can only be joined then; one it owns, which an unprivileged
 * caller cannot enter from outside, is joined after it (runc's order). The
 * mount namespace comes last: the other paths are the host's. */
int ns_join_paths(const struct oci_linux *l, struct error *err)
{
	static const int order[] = { OCI_NS_IPC, OCI_NS_UTS, OCI_NS_NET, OCI_NS_PID, OCI_NS_CGROUP, OCI_NS_TIME };
	bool joined[OCI_NS_TYPES] = { false };
	bool userns = l->ns[OCI_NS_USER].present && l->ns[OCI_NS_USER].path;
	int r;

	for (size_t i = 0; userns && i < sizeof(order) / sizeof(order[0]); i++) {
		int t = order[i];
		if (!l->ns[t].present || !l->ns[t].path)
			continue;
		if ((r = join_one(l, t, err)) == 0)
			joined[t] = true;
		else if (r != -EPERM)
			return r;
	}
	if (userns && (r = join_one(l, OCI_NS_USER, err)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int t = order[i];
		if (l->ns[t].present && l->ns[t].path && !joined[t] && (r = join_one(l, t, err)) < 0)
			return r;
	}
	if (l->ns[OCI_NS_MOUNT].present && l->ns[OCI_NS_MOUNT].path && (r = join_one(l, OCI_NS_MOUNT, err)) < 0)
		return r;
	return 0;
}

static int write_map(pid_t pid, const char *file, const struct oci_idmap *m, size_t n, struct error *err)
{
	char path[64], buf[4096];
	size_t len = 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + len, sizeof(buf) - len, "%u %u %u\n",
				 m[i].container_id, m[i].host_id, m[i].size);
		if (w < 0 || (size_t)w >= sizeof(buf) - len)
			return error_set(err, E2BIG, "linux.%s: too many mappings", file);
		len += w;
	}
	snprintf(path, sizeof(path), "%d/%s", (int)pid, file);
	if ((r = procfs_write(-1, path, buf, len)) < 0)
		return error_sys(err, -r, "linux.%s: write /proc/%s", strcmp(file, "uid_map") ? "gidMappings" : "uidMappings", path);
	return 0;
}

/* Unprivileged (rootless): the kernel takes a gid_map only once setgroups is denied. */
static int deny_setgroups(pid_t pid, struct error *err)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "%d/setgroups", (int)pid);
	if ((r = procfs_write(-1, path, "deny", 4)) < 0)
		return error_sys(err, -r, "rootless: write /proc/%s", path);
	return 0;
}

int ns_write_id_maps(pid_t pid, const struct oci_linux *l, struct error *err)
{
	int r = geteuid() ? deny_setgroups(pid, err) : 0;

	if (r < 0)
		return r;
	r = write_map(pid, "uid_map", l->uid_mappings, l->n_uid_mappings, err);

	return r < 0 ? r : write_map(pid, "gid_map", l->gid_mappings, l->n_gid_mappings, err);
}

int ns_write_time_offsets(const struct oci_linux *l, struct error *err)
{
	static const char *const clocks[OCI_CLOCKS] = { "monotonic", "boottime" };
	char buf[128];
	int r;

	for (int c = 0; c < OCI_CLOCKS; c++) {
		const struct oci_time_offset *o = &l->time_offsets[c];
		int n;

		if (!o->present)
			continue;
		n = snprintf(buf, sizeof(buf), "%s %lld %u\n", clocks[c], (long long)o->secs, o->nanosecs);
		if ((r = procfs_write(-1, "self/timens_offsets", buf, n)) < 0)
			return error_sys(err, -r, "linux.timeOffsets.%s", clocks[c]);
	}
	return 0;
}
