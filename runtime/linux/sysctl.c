#include "runtime/linux/sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/rootfs.h"

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ns_new(const struct oci_linux *l, enum oci_ns_type t)
{
	return l->ns[t].present;
}

int sysctl_check(const struct oci_linux *l, struct error *err)
{
	static const char *const ipc_keys[] = {
		"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem", "kernel.shmall",
		"kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
	};

	for (size_t i = 0; i < l->n_sysctl; i++) {
		const char *k = l->sysctl[i].key;
		bool ok = false;

		if (strstr(k, "..") || k[0] == '.' || k[0] == '/')
			return error_set(err, EINVAL, "linux.sysctl.\"%s\": invalid key", k);
		if (has_prefix(k, "net."))
			ok = ns_new(l, OCI_NS_NET);
		else if (has_prefix(k, "fs.mqueue."))
			ok = ns_new(l, OCI_NS_IPC);
		else if (!strcmp(k, "kernel.hostname") || !strcmp(k, "kernel.domainname"))
			ok = ns_new(l, OCI_NS_UTS);
		else
			for (size_t j = 0; j < sizeof(ipc_keys) / sizeof(ipc_keys[0]); j++)
				if (!strcmp(k, ipc_keys[j]))
					ok = ns_new(l, OCI_NS_IPC);
		if (!ok)
			return error_set(err, EPERM,
					 "linux.sysctl.\"%s\": not namespaced by the container's own namespaces (it would change the host)", k);
	}
	return 0;
}

int sysctl_apply(const struct oci_linux *l, const char *rootfs, struct error *err)
{
	struct statfs sfs;
	int dir, root;

	if (!l->n_sysctl)
		return 0;
	/* before readonlyPaths make /proc/sys read-only, as runc: through the
	 * container's procfs, found without leaving the rootfs */
	root = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return error_sys(err, errno, "linux.sysctl: %s", rootfs);
	dir = rootfs_open_in_root(root, "/proc/sys", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	close(root);
	if (dir < 0)
		return error_sys(err, -dir, "linux.sysctl: /proc/sys");
	if (fstatfs(dir, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) {
		close(dir);
		return error_set(err, EPERM, "linux.sysctl: /proc/sys in the container is not procfs");
	}
	for (size_t i = 0; i < l->n_sysctl; i++) {
		char rel[256];
		size_t n = strlen(l->sysctl[i].key), vlen = strlen(l->sysctl[i].value);
		int fd;

		if (n >= sizeof(rel)) {
			close(dir);
			return error_set(err, ENAMETOOLONG, "linux.sysctl.\"%s\": key too long", l->sysctl[i].key);
		}
		for (size_t j = 0; j <= n; j++)
			rel[j] = l->sysctl[i].key[j] == '.' ? '/' : l->sysctl[i].key[j];
		/* never through a symlink or another mount (a bind over the file) */
		struct open_how how = { .flags = O_WRONLY | O_CLOEXEC,
					.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS |
						   RESOLVE_NO_MAGICLINKS };
		fd = syscall(SYS_openat2, dir, rel, &how, sizeof(how));
		if (fd < 0 || write(fd, l->sysctl[i].value, vlen) != (ssize_t)vlen) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			close(dir);
			return error_sys(err, e, "linux.sysctl.\"%s\" = \"%s\"", l->sysctl[i].key, l->sysctl[i].value);
		}
		close(fd);
	}
	close(dir);
	return 0;
}
