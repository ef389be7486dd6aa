/* rootfs_pivot: masks and read-only paths (after the createContainer hooks,
 * before the switch, resolved inside the rootfs), root.readonly, then the
 * switch itself and the final propagation of "/". */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/util.h"
#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"

/* After pivot_root(".", ".") our cwd still names the new root, with the old
 * root stacked on top of it: "." must be reached through an fd of the old
 * root (as runc), or the rslave below would make every mount of the
 * container a slave and cut rshared volumes off from the host. The rslave
 * is needed only where set_propagation (prepare.c) left the host's mounts
 * shared, i.e. for shared modes; otherwise every mount is a slave or private
 * already and a second recursive walk of the host's mounts is spent for
 * nothing at every start. */
static int detach_old_root(int old_root, bool shared, struct error *err)
{
	if (fchdir(old_root) < 0)
		return error_sys(err, errno, "chdir to the old root");
	/* shared mounts in the old root must not carry our unmount to the host */
	if (shared && mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return error_sys(err, errno, "make the old root rslave");
	if (umount2(".", MNT_DETACH) < 0)
		return error_sys(err, errno, "detach the old root");
	return 0;
}

/* pivot_root(".", "."): the old root ends up stacked on the new one and is
 * detached right away; no put_old directory is needed in the image. */
static int do_pivot(int root_fd, bool shared, struct error *err)
{
	int old_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (old_root < 0)
		return error_sys(err, errno, "open the old root");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		r = error_sys(err, errno, "pivot_root");
	else
		r = detach_old_root(old_root, shared, err);
	close(old_root);
	if (r == 0 && fchdir(root_fd) < 0)
		r = error_sys(err, errno, "chdir to the new root");
	return r;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

static bool under_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The first five fields of a mountinfo line; strtok_r goes on from *save. */
static bool mountinfo_fields(char *line, char *f[5], char **save)
{
	int i;

	for (i = 0; i < 5 && (f[i] = strtok_r(i ? NULL : line, " ", save)); i++)
		;
	return i == 5;
}

/* One mountinfo line: is it a shared mount outside the rootfs? Then *mnt
 * is its mount point (unescaped, in place). */
static bool shared_outside(char *line, const char *rootfs, char **mnt)
{
	char *f[5], *save = NULL, *tag;
	bool shared = false;

	if (!mountinfo_fields(line, f, &save))
		return false;
	while ((tag = strtok_r(NULL, " ", &save)) && strcmp(tag, "-") != 0)
		shared |= strncmp(tag, "shared:", 7) == 0;
	unescape(f[4]);
	*mnt = f[4];
	return shared && !under_dir(f[4], rootfs);
}

/* One mountinfo line: is it a whole proc or sysfs (root "/") outside the
 * rootfs (NULL: anywhere)? Then *mnt is its mount point (unescaped, in place). */
static bool full_pseudo_fs(char *line, const char *rootfs, char **mnt)
{
	char *f[5], *save = NULL, *sep, *type;

	if (!mountinfo_fields(line, f, &save) || strcmp(f[3], "/") != 0)
		return false;
	while ((sep = strtok_r(NULL, " ", &save)) && strcmp(sep, "-") != 0)
		;
	if (!sep || !(type = strtok_r(NULL, " ", &save)) || (strcmp(type, "proc") && strcmp(type, "sysfs")))
		return false;
	unescape(f[4]);
	*mnt = f[4];
	return !rootfs || !under_dir(f[4], rootfs);
}

static char *read_mountinfo(void)
{
	char *buf;

	return util_read_at(AT_FDCWD, "/proc/self/mountinfo", 0, 16384, 0, &buf, NULL) < 0 ? NULL : buf;
}

/* With shared propagation the host's mounts around the rootfs may be peers
 * of the host's own: unmounting its proc (a child of a shared "/") or
 * moving the rootfs onto a shared "/" would then reach the host (its /proc
 * gone, our rootfs stacked on its "/"). So first every shared mount outside
 * the rootfs is made a slave, as the old root is with pivot_root; the
 * rootfs' own mounts keep theirs (rshared volumes). */
static int slave_host_mounts(const char *rootfs, struct error *err)
{
	char *info = read_mountinfo(), *line, *save = NULL, *mnt;
	int r = 0;

	if (!info)
		return error_sys(err, errno ? errno : ENOMEM, "--no-pivot: read /proc/self/mountinfo");
	for (line = strtok_r(info, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save))
		if (shared_outside(line, rootfs, &mnt) && mount(NULL, mnt, NULL, MS_SLAVE, NULL) < 0 &&
		    errno != ENOENT && errno != EINVAL)   /* covered, or gone with a mount above */
			r = error_sys(err, errno, "--no-pivot: make %s a slave", mnt);
	free(info);
	return r;
}

/* With MS_MOVE + chroot the old root stays in the mount namespace, and a
 * whole proc or sysfs in it lets a process of the container mount a fresh,
 * unmasked proc (the kernel allows that when a full one is already visible).
 * So, as runc's msMoveRoot: detach every such mount outside the rootfs (every
 * one that a path reaches, rootfs NULL), or cover it with an empty tmpfs
 * where it cannot be detached. */
int rootfs_hide_pseudo_fs(const char *rootfs, struct error *err)
{
	char *info = read_mountinfo(), *line, *save = NULL, *mnt;
	int r = 0;

	if (!info)
		return error_sys(err, errno ? errno : ENOMEM, "--no-pivot: read /proc/self/mountinfo");
	for (line = strtok_r(info, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save)) {
		if (!full_pseudo_fs(line, rootfs, &mnt))
			continue;
		/* our unmount must not reach the host */
		if (mount(NULL, mnt, NULL, MS_SLAVE | MS_REC, NULL) < 0) {
			if (errno == ENOENT)
				continue;     /* gone with a mount above it */
			r = error_sys(err, errno, "--no-pivot: make %s rslave", mnt);
		} else if (umount2(mnt, MNT_DETACH) < 0 &&
			   ((errno != EINVAL && errno != EPERM) || mount("tmpfs", mnt, "tmpfs", MS_RDONLY, NULL) < 0)) {
			r = error_sys(err, errno, "--no-pivot: hide %s", mnt);
		}
	}
	free(info);
	return r;
}

/* --no-pivot (initramfs roots, where pivot_root is impossible). The shared
 * host mounts need a slave first only where set_propagation (prepare.c) left
 * them shared, as the old root's rslave with pivot_root (detach_old_root). */
static int do_move(const char *rootfs, bool shared, struct error *err)
{
	int r;

	if ((shared && (r = slave_host_mounts(rootfs, err)) < 0) || (r = rootfs_hide_pseudo_fs(rootfs, err)) < 0)
		return r;
	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
		return error_sys(err, errno, "move the rootfs to /");
	if (chroot(".") < 0)
		return error_sys(err, errno, "chroot");
	return 0;
}

static int switch_root(const struct oci_config *cfg, const struct rootfs_opts *o, int root_fd, struct error *err)
{
	unsigned long prop = rootfs_propagation_ms(cfg->linux_.rootfs_propagation);
	int r;

	if (fchdir(root_fd) < 0)
		return error_sys(err, errno, "chdir to the rootfs");
	r = o->no_pivot ? do_move(o->rootfs, prop & MS_SHARED, err) : do_pivot(root_fd, prop & MS_SHARED, err);
	if (r < 0)
		return r;
	if (chdir("/") < 0)
		return error_sys(err, errno, "chdir /");
	if (prop && mount(NULL, "/", NULL, prop, NULL) < 0)
		return error_sys(err, errno, "linux.rootfsPropagation");
	return 0;
}

int rootfs_pivot(const struct oci_config *cfg, const struct rootfs_opts *o, struct error *err)
{
	/* cwd_fd -1: the cwd stays where a mount took it, switch_root sets it */
	struct rootfs_ctx c = { .cfg = cfg, .o = o, .err = err, .cwd_fd = -1, .fresh_fd = -1 };
	const struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int r;

	if (rootfs_room_builds_root(cfg) && rootfs_minimal_root_fd() >= 0)
		c.root_fd = fcntl(rootfs_minimal_root_fd(), F_DUPFD_CLOEXEC, 0);
	else
		c.root_fd = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c.root_fd < 0)
		return error_sys(err, errno, "open the rootfs %s", o->rootfs);
	if ((r = rootfs_mask_paths(&c)) < 0 || (r = rootfs_readonly_paths(&c)) < 0)
		goto out;
	/* the minimal root belongs to the process's id: read-only whatever root.readonly says */
	if (cfg->root_readonly || rootfs_room_builds_root(cfg)) {
		/* process.cwd cannot be made once / is read-only (runc makes it too) */
		if (cfg->has_process && cfg->process.cwd) {
			int fd = rootfs_open_or_create(c.root_fd, cfg->process.cwd, DEST_DIR, false);

			if (fd >= 0)
				close(fd);
		}
		if ((r = rootfs_setattr_fd(c.root_fd, 0, &ro)) < 0) {
			r = error_sys(err, -r, "root.readonly");
			goto out;
		}
	}
	r = switch_root(cfg, o, c.root_fd, err);
out:
	close(c.root_fd);
	return r;
}
