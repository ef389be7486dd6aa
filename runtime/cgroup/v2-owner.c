/* cgroup v2 delegation to a user-namespaced container (config-linux.md,
 * "cgroup ownership"): with a new user namespace, a new cgroup namespace and
 * a writable cgroup mount, the container's cgroup directory and its delegate
 * files belong to the host ids of process.user, so the container can manage
 * its own sub-cgroups. The controller files (memory.max ...) stay root's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

static bool has_option(const struct oci_mount *m, const char *opt)
{
	for (size_t i = 0; i < m->n_options; i++)
		if (!strcmp(m->options[i], opt))
			return true;
	return false;
}

static bool rw_cgroup_mount(const struct oci_config *cfg)
{
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct oci_mount *m = &cfg->mounts[i];
		if (m->type && (!strcmp(m->type, "cgroup") || !strcmp(m->type, "cgroup2")) &&
		    !has_option(m, "ro"))
			return true;
	}
	return false;
}

static bool map_id(const struct oci_idmap *map, size_t n, uint32_t id, uint32_t *host)
{
	for (size_t i = 0; i < n; i++)
		if (id >= map[i].container_id && id - map[i].container_id < map[i].size) {
			*host = map[i].host_id + (id - map[i].container_id);
			return true;
		}
	return false;
}

/* The kernel's list (since 5.x) or the three files every kernel delegates. */
static void delegate_files(char *buf, size_t size)
{
	int fd = open("/sys/kernel/cgroup/delegate", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = snprintf(buf, size, "cgroup.procs\ncgroup.subtree_control\ncgroup.threads\n");
	buf[n] = '\0';
}

int cg2_delegate_to_user(int dirfd, const struct oci_config *cfg, struct error *err)
{
	const struct oci_linux *l = &cfg->linux_;
	char files[512], *f, *save;
	uint32_t uid, gid;

	if (!cfg->has_linux || !l->ns[OCI_NS_USER].present || !l->ns[OCI_NS_CGROUP].present ||
	    l->ns[OCI_NS_CGROUP].path || !rw_cgroup_mount(cfg))
		return 0;
	if (!map_id(l->uid_mappings, l->n_uid_mappings, cfg->process.uid, &uid) ||
	    !map_id(l->gid_mappings, l->n_gid_mappings, cfg->process.gid, &gid)) {
		cg_debug("cgroup: process.user has no host id in the config's mappings: cgroup not delegated");
		return 0;
	}
	if (fchown(dirfd, uid, gid) < 0)
		return error_sys(err, errno, "delegate to %u:%u: chown", uid, gid);
	delegate_files(files, sizeof(files));
	for (f = strtok_r(files, "\n", &save); f; f = strtok_r(NULL, "\n", &save))
		if (fchownat(dirfd, f, uid, gid, 0) < 0 && errno != ENOENT)
			return error_sys(err, errno, "delegate to %u:%u: chown %s", uid, gid, f);
	return 0;
}
