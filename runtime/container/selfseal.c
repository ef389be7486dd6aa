#include "runtime/container/selfseal.h"
#include "runtime/container/selfexe.h"
#include "runtime/container/selfseal_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/callerenv.h"

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* A detached mount of TYPE (read-only, nodev, nosuid), or -errno. */
static int detached_mount(const char *type, const char *key, const char *val)
{
	int fs = (int)syscall(SYS_fsopen, type, FSOPEN_CLOEXEC), m = -1;

	if (fs < 0)
		return -errno;
	if ((!key || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, val, 0) == 0) &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
				 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID);
	if (m < 0)
		m = -errno;
	close(fs);
	return m;
}

/* The binary seen through an overlay whose layers are its directory and, below
 * it, another directory, with no upper layer: a read-only filesystem, on a
 * mount that is in no namespace (as runc 1.2). No copy; needs CAP_SYS_ADMIN.
 * Only the top layer holds the file opened (a lookup stops at the first layer
 * with a non-directory of that name); the bottom one is there because overlay
 * wants two lower layers without an upper. It is an attached directory that
 * is neither above nor below the binary's (overlay refuses overlapping
 * layers): /dev or /run, or else an empty detached tmpfs. The attached ones
 * come first: Linux 6.1 (Debian 12) refuses a detached mount as a layer
 * (EINVAL), which made every create, run and exec there copy the whole binary
 * into a memfd; and each detached mount closed costs an expedited RCU grace
 * period. */
static int overlay_on(int dir, int bottom, const char *name)
{
	char low[64];
	int ovl, fd;

	snprintf(low, sizeof(low), "/proc/self/fd/%d:/proc/self/fd/%d", dir, bottom);
	if ((ovl = detached_mount("overlay", "lowerdir", low)) < 0)
		return ovl;
	fd = openat(ovl, name, O_PATH | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	close(ovl);
	return fd;
}

static int overlay_view(struct error *err)
{
	static const char *const bottoms[] = { "/dev", "/run" };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int dir, bottom, fd = -ENOENT;

	(void)err;
	if (n <= 0 || exe[0] != '/')
		return -ENOENT;
	exe[n] = '\0';
	if ((dir = open(dirname(strdupa(exe)), O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (size_t i = 0; fd < 0 && i <= sizeof(bottoms) / sizeof(bottoms[0]); i++) {
		bottom = i < sizeof(bottoms) / sizeof(bottoms[0])
			 ? open(bottoms[i], O_PATH | O_DIRECTORY | O_CLOEXEC)
			 : detached_mount("tmpfs", "size", "4k");
		if (bottom < 0)
			continue;
		fd = overlay_on(dir, bottom, basename(exe));
		close(bottom);
	}
	close(dir);
	return fd;
}

/* A sealed memfd copy (unprivileged callers). */
static int sealed_copy(struct error *err)
{
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), fd, e;
	struct stat st;
	off_t off = 0;

	if (exe < 0 || fstat(exe, &st) < 0)
		return error_sys(err, errno, "runtime binary: open /proc/self/exe");
	fd = memfd_create("tinyrun", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	while (fd >= 0 && off < st.st_size) {
		ssize_t n = sendfile(fd, exe, &off, st.st_size - off);

		if (n <= 0) {
			errno = n < 0 ? errno : EIO;
			break;
		}
	}
	e = errno;
	close(exe);
	if (fd < 0 || off < st.st_size || fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		e = fd < 0 || off < st.st_size ? e : errno;
		if (fd >= 0)
			close(fd);
		return error_sys(err, e, "runtime binary: a sealed memfd copy");
	}
	return fd;
}

/* /proc/self/exe's identity, from the fd running_sealed opens anyway
 * (process_runtime_binary would stat the link again) */
static struct stat self_st;
static bool self_st_known;

bool selfseal_self_id(dev_t *dev, ino_t *ino)
{
	if (!self_st_known)
		return false;
	*dev = self_st.st_dev;
	*ino = self_st.st_ino;
	return true;
}

/* Is /proc/self/exe one of ours: a sealed memfd, or on a read-only overlay? */
static bool running_sealed(void)
{
	int exe = open("/proc/self/exe", O_PATH | O_CLOEXEC), seals;
	struct statfs sfs;
	bool ok = false;

	if (exe < 0)
		return false;
	self_st_known = fstat(exe, &self_st) == 0;
	if (fstatfs(exe, &sfs) == 0 && sfs.f_type == OVERLAYFS_SUPER_MAGIC && (sfs.f_flags & ST_RDONLY)) {
		ok = true;
	} else {
		int rd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		seals = rd < 0 ? -1 : fcntl(rd, F_GET_SEALS);
		ok = seals >= 0 && (seals & SEALS) == SEALS;
		if (rd >= 0)
			close(rd);
	}
	close(exe);
	return ok;
}

static char **main_argv;
static bool marked;

void selfseal_init(char **argv)
{
	main_argv = argv;
	marked = callerenv_take(SELFSEAL_MARK);
	selfexe_take(marked);
}

static bool in_map(const struct oci_idmap *m, size_t n, unsigned int id)
{
	for (size_t i = 0; i < n; i++)
		if (id >= m[i].host_id && id - m[i].host_id < m[i].size)
			return true;
	return false;
}

bool selfseal_needed(const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;
	struct stat st;

	if (!l->ns[OCI_NS_USER].present || l->ns[OCI_NS_USER].path || stat("/proc/self/exe", &st) < 0)
		return true;
	return (st.st_mode & S_IWOTH) || in_map(l->uid_mappings, l->n_uid_mappings, st.st_uid) ||
	       ((st.st_mode & S_IWGRP) && in_map(l->gid_mappings, l->n_gid_mappings, st.st_gid));
}

/* The caller's environment (oci/callerenv.h), the mark and the real binary's
 * path (selfexe.h): malloc'd. */
static char **reexec_env(void)
{
	char *const *caller = callerenv_list();
	const char *exe;
	size_t n = 0;
	char **env;

	while (caller[n])
		n++;
	if (!(env = malloc((n + 3) * sizeof(*env))))
		return NULL;
	memcpy(env, caller, n * sizeof(*env));
	env[n++] = SELFSEAL_MARK "=1";
	if ((exe = selfexe_env()))   /* the real binary's path, for the sealed copy */
		env[n++] = (char *)exe;
	env[n] = NULL;
	return env;
}

/* Re-execute main's argv from a sealed view, with the caller's environment;
 * returns only on failure. */
static int reexec_sealed(struct error *err)
{
	char **env = reexec_env();
	int fd = -ENOENT, e;

	if (!env)
		return error_sys(err, ENOMEM, "runtime binary: the sealed copy's environment");
	/* an ELF is mapped before close-on-exec fds close: O_CLOEXEC is fine;
	 * where the overlay view cannot be had or run (an LSM), the memfd copy */
	static int (*const views[])(struct error *) = { overlay_view, sealed_copy };

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if ((fd = views[i](err)) < 0)
			continue;
		syscall(SYS_execveat, fd, "", main_argv, env, AT_EMPTY_PATH);
		e = errno;
		close(fd);
		fd = error_sys(err, e, "runtime binary: exec the sealed copy");
	}
	free(env);
	return fd;
}

bool selfseal_running_marked(void)
{
	return marked && running_sealed();
}

int selfseal_guard(const struct oci_config *cfg, struct error *err)
{
	if (!selfseal_needed(cfg) || (marked && running_sealed()))
		return 0;
	return reexec_sealed(err);
}

int selfseal_guard_text(const char *json, size_t len, struct error *err)
{
	if (marked || selfseal_text_may_declare_userns(json, len))
		return 0;
	return reexec_sealed(err);
}
