/* rootfs_pivot: masks and read-only paths (after the createContainer hooks,
 * before the switch, resolved inside the rootfs), root.readonly, then the
 * switch itself and the final propagation of "/". */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs/internal.h"

/* pivot_root(".", "."): the old root ends up stacked on the new one and is
 * detached right away; no put_old directory is needed in the image. */
static int do_pivot(const struct oci_config *cfg, struct error *err)
{
	unsigned long prop = rootfs_propagation_ms(cfg->linux_.rootfs_propagation);

	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return error_sys(err, errno, "pivot_root");
	/* shared mounts in the old root must not carry our unmount to the host */
	if ((prop & MS_SHARED) && mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return error_sys(err, errno, "make the old root rslave");
	if (umount2(".", MNT_DETACH) < 0)
		return error_sys(err, errno, "detach the old root");
	return 0;
}

/* --no-pivot (initramfs roots, where pivot_root is impossible). */
static int do_move(struct error *err)
{
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
	r = o->no_pivot ? do_move(err) : do_pivot(cfg, err);
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
	struct rootfs_ctx c = { .cfg = cfg, .o = o, .err = err };
	const struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int r;

	if ((c.root_fd = open(o->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error_sys(err, errno, "open the rootfs %s", o->rootfs);
	if ((r = mask_paths(&c)) < 0 || (r = readonly_paths(&c)) < 0)
		goto out;
	if (cfg->root_readonly) {
		/* process.cwd cannot be made once / is read-only (runc makes it too) */
		if (cfg->has_process && cfg->process.cwd) {
			int fd = open_or_create(c.root_fd, cfg->process.cwd, DEST_DIR, false);

			if (fd >= 0)
				close(fd);
		}
		if ((r = setattr_fd(c.root_fd, 0, &ro)) < 0) {
			r = error_sys(err, -r, "root.readonly");
			goto out;
		}
	}
	r = switch_root(cfg, o, c.root_fd, err);
out:
	close(c.root_fd);
	return r;
}
