/* rootfs/: which kernel calls a mounts[] entry turns into, destination types,
 * guarded destinations, and path resolution that never leaves the rootfs
 * (openat2 and the fallback walk), on a scratch tree; no root needed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rootfs/internal.h"
#include "tests/unit/unit.h"

static struct oci_mount mnt(const char *dest, const char *type, unsigned long flags)
{
	struct oci_mount m = { .destination = (char *)dest, .type = (char *)type, .flags = flags };

	m.is_bind = flags & MS_BIND;
	return m;
}

/* runc's mounts_sshfs.bats cases in a user namespace: src = the source's flags */
static int locked(unsigned long set, unsigned long clr, unsigned long src, struct mount_plan *p, unsigned long *bad)
{
	struct oci_mount m = mnt("/mnt", NULL, MS_BIND | set);

	m.clear_flags = clr;
	rootfs_mount_plan_make(&m, p);
	return rootfs_bind_plan_locked(&m, rootfs_statvfs_ms(src), p, bad);
}

#define ST_RELATIME_ 0x1000
static void test_bind_locked(void)
{
	struct mount_plan p;
	unsigned long bad;

	/* statvfs bits: relatime and nosymfollow are not the MS_* bits */
	CHECK(rootfs_statvfs_ms(ST_RDONLY | ST_RELATIME_ | 0x2000) == (MS_RDONLY | MS_RELATIME | MS_NOSYMFOLLOW));
	CHECK(rootfs_statvfs_ms(ST_NOSUID) == (MS_NOSUID | MS_STRICTATIME));
	/* "bind,dev" of ro,noexec,nosymfollow,nodiratime: the locked ro and
	 * noexec stay, nosymfollow (not lockable) goes, the atime stays */
	CHECK(locked(0, MS_NODEV, ST_RDONLY | ST_NOEXEC | 0x2000 | ST_NODIRATIME | ST_RELATIME_, &p, &bad) == 0);
	CHECK(p.top.attr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RELATIME | MOUNT_ATTR_NODIRATIME));
	CHECK(p.top.attr_clr & MOUNT_ATTR_NOSYMFOLLOW);
	/* "bind,ro" of nosuid,nodev,noexec,noatime: their union */
	CHECK(locked(MS_RDONLY, 0, ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_NOATIME, &p, &bad) == 0);
	CHECK(p.top.attr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
				 MOUNT_ATTR_NOATIME));
	/* "bind,rw,nosuid" of ro: ro is cleared explicitly, locked: refused */
	CHECK(locked(MS_NOSUID, MS_RDONLY, ST_RDONLY | ST_RELATIME_, &p, &bad) == ROOTFS_LOCKED_CLEAR);
	CHECK(bad == MS_RDONLY);
	/* "bind,strictatime" of nodiratime (relatime): another atime, refused */
	CHECK(locked(MS_STRICTATIME, 0, ST_NODIRATIME | ST_RELATIME_, &p, &bad) == ROOTFS_LOCKED_ATIME);
	CHECK(bad == (MS_NODIRATIME | MS_RELATIME));
	/* "bind,relatime" of relatime: the same setting, fine */
	CHECK(locked(MS_RELATIME, 0, ST_RELATIME_, &p, &bad) == 0);
	/* "bind,atime" of noatime: a clear flag that changes nothing (runc passes it) */
	CHECK(locked(0, MS_NOATIME, ST_NOATIME, &p, &bad) == 0);
	CHECK(!(p.top.attr_clr & MOUNT_ATTR_NOATIME) || (p.top.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME);
	/* a bind without flag options is left alone */
	CHECK(locked(0, 0, ST_RDONLY, &p, &bad) == 0 && attr_empty(&p.top));
}

static void test_binds(void)
{
	struct mount_plan p;
	struct oci_mount m = mnt("/data", NULL, MS_BIND | MS_RDONLY);

	rootfs_mount_plan_make(&m, &p);
	CHECK(p.bind && !p.recursive && !p.remount);
	CHECK(p.top.attr_set == MOUNT_ATTR_RDONLY);
	CHECK(p.top.attr_clr == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSYMFOLLOW));
	CHECK(attr_empty(&p.rec));

	/* rbind,nosuid,rro,rprivate: nosuid on the top mount only, the rest recursive */
	m = mnt("/data", NULL, MS_BIND | MS_REC | MS_NOSUID);
	m.attr_set = MOUNT_ATTR_RDONLY;
	m.propagation = OCI_PROP_RPRIVATE;
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.bind && p.recursive);
	CHECK(p.top.attr_set == MOUNT_ATTR_NOSUID && p.top.propagation == 0);
	CHECK(p.top.attr_clr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSYMFOLLOW));
	CHECK(p.rec.attr_set == MOUNT_ATTR_RDONLY && p.rec.propagation == MS_PRIVATE);

	/* plain bind: recursive options fold into one mount_setattr */
	m = mnt("/data", NULL, MS_BIND);
	m.attr_set = MOUNT_ATTR_NOEXEC;
	m.propagation = OCI_PROP_RSLAVE;
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.top.attr_set == MOUNT_ATTR_NOEXEC && p.top.propagation == MS_SLAVE);
	CHECK(attr_empty(&p.rec));

	/* a bind with any flag option gets exactly its flags (runc 1.2+):
	 * "rw,suid" clears every lockable flag and nosymfollow, not the atime */
	m = mnt("/data", NULL, MS_BIND);
	m.clear_flags = MS_RDONLY | MS_NOSUID;
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.exact && p.top.attr_set == 0);
	CHECK(p.top.attr_clr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
				 MOUNT_ATTR_NOSYMFOLLOW));
	/* "bind" alone keeps everything */
	m = mnt("/data", NULL, MS_BIND);
	rootfs_mount_plan_make(&m, &p);
	CHECK(!p.exact && attr_empty(&p.top) && attr_empty(&p.rec));

	/* atime is an enum for mount_setattr; asked for, nodiratime goes unless asked */
	m = mnt("/data", NULL, MS_BIND | MS_STRICTATIME);
	rootfs_mount_plan_make(&m, &p);
	CHECK((p.top.attr_clr & (MOUNT_ATTR__ATIME | MOUNT_ATTR_NODIRATIME)) ==
	      (MOUNT_ATTR__ATIME | MOUNT_ATTR_NODIRATIME));
	CHECK(p.top.attr_set == MOUNT_ATTR_STRICTATIME);
	/* nodiratime alone: relatime with it, as the kernel reads MS_NODIRATIME */
	m = mnt("/data", NULL, MS_BIND | MS_NODIRATIME);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.top.attr_set == (MOUNT_ATTR_RELATIME | MOUNT_ATTR_NODIRATIME));
	/* noatime,strictatime: strictatime wins (the kernel's rule) */
	m = mnt("/data", NULL, MS_BIND | MS_NOATIME | MS_STRICTATIME);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.top.attr_set == MOUNT_ATTR_STRICTATIME);
	/* norelatime, atime: clear flags, which leave the atime as it is */
	m = mnt("/data", NULL, MS_BIND);
	m.clear_flags = MS_RELATIME;                      /* norelatime */
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.exact && !(p.top.attr_clr & (MOUNT_ATTR__ATIME | MOUNT_ATTR_NODIRATIME)));
	CHECK(!(p.top.attr_set & MOUNT_ATTR__ATIME));

	/* r* options come after the plain ones: rro survives the implied rw */
	m = mnt("/data", NULL, MS_BIND | MS_NOSUID);
	m.attr_set = MOUNT_ATTR_RDONLY;
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.top.attr_set == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY) && !(p.top.attr_clr & MOUNT_ATTR_RDONLY));
	m = mnt("/data", NULL, MS_BIND | MS_REC);
	m.attr_clr = MOUNT_ATTR_NOATIME;                  /* ratime */
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.rec.attr_clr == MOUNT_ATTR__ATIME && p.rec.attr_set == MOUNT_ATTR_RELATIME);
	m = mnt("/data", NULL, MS_BIND | MS_REC);
	m.attr_set = MOUNT_ATTR_NOATIME;                  /* rnoatime */
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.rec.attr_clr == MOUNT_ATTR__ATIME && p.rec.attr_set == MOUNT_ATTR_NOATIME);

	/* bind,remount: attributes on what is already there */
	m = mnt("/data", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.bind && p.remount && p.top.attr_set == MOUNT_ATTR_RDONLY);

	/* propagation bits left in flags by a parser still count */
	m = mnt("/data", NULL, MS_BIND | MS_REC | MS_SHARED);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.rec.propagation == MS_SHARED);
}

static void test_new_fs(void)
{
	struct mount_plan p;
	struct oci_mount m = mnt("/proc", "proc", MS_NOSUID);

	m.attr_set = MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY;   /* rnoexec,rro: no children */
	rootfs_mount_plan_make(&m, &p);
	CHECK(!p.bind && p.ms_flags == (MS_NOSUID | MS_NOEXEC | MS_RDONLY));
	CHECK(attr_empty(&p.top) && attr_empty(&p.rec));

	m = mnt("/tmp", "tmpfs", MS_RDONLY | MS_NODEV);      /* ro tmpfs: ro at the end */
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.defer_ro && p.ms_flags == MS_NODEV);
	m = mnt("/dev/", "devtmpfs", MS_RDONLY);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.defer_ro && !(p.ms_flags & MS_RDONLY));
	m = mnt("/sys", "sysfs", MS_RDONLY);
	rootfs_mount_plan_make(&m, &p);
	CHECK(!p.defer_ro && p.ms_flags == MS_RDONLY);

	m = mnt("/tmp", "tmpfs", MS_NOSUID);
	m.clear_flags = MS_RELATIME;                      /* norelatime */
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.ms_flags == (MS_NOSUID | MS_STRICTATIME));

	m = mnt("/mnt", "tmpfs", 0);
	m.propagation = OCI_PROP_RSHARED;
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.top.propagation == MS_SHARED && p.ms_flags == 0);

	m = mnt("/proc", "proc", MS_REMOUNT | MS_RDONLY);
	rootfs_mount_plan_make(&m, &p);
	CHECK(p.remount && p.ms_flags == (MS_REMOUNT | MS_RDONLY) && !p.defer_ro);
}

static void test_decisions(void)
{
	struct oci_mount b = mnt("/etc/hosts", NULL, MS_BIND), t = mnt("/x", "tmpfs", 0);

	CHECK(rootfs_dest_kind_for(&b, S_IFREG | 0644) == DEST_FILE);
	CHECK(rootfs_dest_kind_for(&b, S_IFCHR | 0666) == DEST_FILE);
	CHECK(rootfs_dest_kind_for(&b, S_IFDIR | 0755) == DEST_DIR);
	CHECK(rootfs_dest_kind_for(&t, S_IFREG) == DEST_DIR);

	CHECK(rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/x", .type = "proc" }));
	CHECK(rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/x", .type = "sysfs" }));
	CHECK(rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "//proc/" }));
	CHECK(rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/proc/cpuinfo" }));
	CHECK(rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/sys" }));
	CHECK(!rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/procfoo" }));
	CHECK(!rootfs_dest_is_guarded(&(struct oci_mount){ .destination = "/sys/fs/cgroup", .type = "cgroup" }));

	CHECK(rootfs_path_equal("/dev", "/dev/") && rootfs_path_equal("//dev", "/dev") && rootfs_path_equal("/./dev", "/dev"));
	CHECK(!rootfs_path_equal("/dev/shm", "/dev") && !rootfs_path_equal("/devx", "/dev"));
	CHECK(rootfs_is_bind_of_dev(&(struct oci_mount){ .destination = "/dev/", .is_bind = true }));
	CHECK(!rootfs_is_bind_of_dev(&(struct oci_mount){ .destination = "/dev", .type = "tmpfs" }));

	CHECK(rootfs_mount_propagation_ms(OCI_PROP_RUNBINDABLE) == (MS_UNBINDABLE | MS_REC));
	CHECK(rootfs_propagation_ms(OCI_ROOTFS_PROP_DEFAULT) == 0);
	CHECK(rootfs_propagation_ms(OCI_ROOTFS_PROP_RSLAVE) == (MS_SLAVE | MS_REC));
	CHECK(rootfs_propagation_ms(OCI_ROOTFS_PROP_SHARED) == MS_SHARED);
}

/* Same inode as <root>/<rel>? */
static bool same(int fd, int root, const char *rel)
{
	struct stat a, b;
	bool r = fd >= 0 && fstat(fd, &a) == 0 && fstatat(root, rel, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		 a.st_ino == b.st_ino && a.st_dev == b.st_dev;

	if (fd >= 0)
		close(fd);
	return r;
}

/* mounts.c makes a fresh tmpfs's direct children in it: which paths are */
static void test_child_name(void)
{
	const char *n = rootfs_child_name("/dev", "/dev/pts");

	CHECK(n && strcmp(n, "pts") == 0);
	CHECK(rootfs_child_name("/dev", "/dev/shm/x") == NULL);
	CHECK(rootfs_child_name("/dev", "/devx") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev/") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev//pts") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev/.") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev/..") == NULL);
	CHECK(rootfs_child_name("/dev", "/dev/.x") != NULL);
	CHECK(rootfs_child_name("/dev", "/dev/..x") != NULL);
	CHECK(rootfs_child_name("/a/../dev", "/a/../dev/pts") == NULL);
	CHECK(rootfs_child_name("/a/./b", "/a/./b/c") == NULL);
	CHECK(rootfs_child_name("dev", "dev/pts") == NULL);
	CHECK(rootfs_child_name("/", "//x") == NULL);
	CHECK(rootfs_path_clean("/a/b") && rootfs_path_clean("/a/.b/..c"));
	CHECK(!rootfs_path_clean("/") && !rootfs_path_clean("/a/") && !rootfs_path_clean("/a/./b") &&
	      !rootfs_path_clean("/a/..") && !rootfs_path_clean("a/b") && !rootfs_path_clean(""));
}

static void test_resolve(void)
{
	char tmpl[] = "/tmp/test_rootfs_XXXXXX";
	char *dir = mkdtemp(tmpl);
	int root, fd;
	struct stat st;
	int (*open_fns[2])(int, const char *, int, mode_t) = { rootfs_open_in_root, rootfs_walk_in_root };

	CHECK(dir != NULL);
	if (!dir)
		return;
	root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(mkdirat(root, "a", 0755) == 0 && mkdirat(root, "a/b", 0755) == 0);
	CHECK(symlinkat("/", root, "evil") == 0);
	CHECK(symlinkat("../../../..", root, "up") == 0);
	CHECK(symlinkat("a/b", root, "rel") == 0);
	CHECK(symlinkat("../evil/a", root, "a/back") == 0);
	CHECK(symlinkat("loop", root, "loop") == 0);
	CHECK(symlinkat("/nowhere/x", root, "dangling") == 0);

	for (int i = 0; i < 2; i++) {
		int (*f)(int, const char *, int, mode_t) = open_fns[i];

		CHECK(same(f(root, "/evil/a/b", O_PATH, 0), root, "a/b"));
		CHECK(same(f(root, "/up/a", O_PATH, 0), root, "a"));
		CHECK(same(f(root, "/a/b/../../../../a", O_PATH, 0), root, "a"));
		CHECK(same(f(root, "rel", O_PATH, 0), root, "a/b"));
		CHECK(same(f(root, "/a/back/b", O_PATH, 0), root, "a/b"));
		CHECK(same(f(root, "/evil", O_PATH | O_DIRECTORY, 0), root, "."));
		CHECK(same(f(root, "/", O_PATH, 0), root, "."));
		CHECK(same(f(root, "/rel", O_PATH | O_NOFOLLOW, 0), root, "rel"));
		CHECK(f(root, "/loop", O_PATH, 0) == -ELOOP);
		CHECK(f(root, "/dangling", O_PATH, 0) == -ENOENT);
		CHECK(f(root, "/a/b/nothing", O_PATH, 0) == -ENOENT);
		fd = f(root, "/up/created", O_WRONLY | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0 && same(fd, root, "created"));
		CHECK(unlinkat(root, "created", 0) == 0);
	}
	CHECK(rootfs_open_in_root_flags(root, "/evil/a", O_PATH, true) == -ELOOP);
	CHECK(same(rootfs_open_in_root_flags(root, "/a/b", O_PATH, true), root, "a/b"));

	/* destinations are created inside the root, through the links */
	CHECK(same(rootfs_open_or_create(root, "/evil/new/dir/", DEST_DIR, false), root, "new/dir"));
	CHECK(fstatat(root, "new/dir", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(same(rootfs_open_or_create(root, "/up/a/file", DEST_FILE, false), root, "a/file"));
	CHECK(fstatat(root, "a/file", &st, 0) == 0 && S_ISREG(st.st_mode));
	CHECK(same(rootfs_open_or_create(root, "/a/file", DEST_DIR, false), root, "a/file"));  /* exists: kept */
	/* a dangling link: its target is made inside the root, as runc's securejoin */
	CHECK(same(rootfs_open_or_create(root, "/dangling/sub", DEST_DIR, false), root, "nowhere/x/sub"));
	CHECK(symlinkat("../../nowhere2/y", root, "a/dangling2") == 0);
	CHECK(same(rootfs_open_or_create(root, "/a/dangling2", DEST_FILE, false), root, "nowhere2/y"));
	CHECK(fstatat(root, "nowhere2/y", &st, 0) == 0 && S_ISREG(st.st_mode));
	CHECK(rootfs_open_or_create(root, "/evil/x", DEST_DIR, true) == -ELOOP);
	CHECK(rootfs_open_or_create(root, "/dangling/z", DEST_DIR, true) == -ELOOP);

	close(root);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	test_binds();
	test_bind_locked();
	test_new_fs();
	test_decisions();
	test_child_name();
	test_resolve();
	return unit_report("test_rootfs_plan");
}
