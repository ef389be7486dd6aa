/* rootfs/sandbox/minimal.c's plan (pure): exactly the list, in an order
 * where every mount point exists before its child, with the flags each
 * must carry. */
#include <string.h>

#include "rootfs/internal.h"
#include "rootfs/sandbox/room.h"
#include "tests/unit/unit.h"

static const struct minimal_step *find(const struct minimal_step *s, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].path, path) == 0)
			return &s[i];
	return NULL;
}

static void test_plan(bool shared)
{
	struct minimal_step s[16];
	size_t n = rootfs_minimal_plan("/workspace", shared, NULL, s, 16);
	const struct minimal_step *w = find(s, n, "workspace"), *t = find(s, n, "tmp"), *p = find(s, n, "proc");
	const char *want[] = { "usr", "bin", "lib", "lib64", "etc", "workspace", "tmp", "proc", "sys", "dev", "dev/shm" };

	CHECK(n == sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_STR(s[i].path, want[i]);
	for (size_t i = 0; i < 4; i++)
		CHECK(s[i].kind == MIN_IMAGE && (s[i].ms_flags & (MS_RDONLY | MS_NOSUID | MS_NODEV)) == (MS_RDONLY | MS_NOSUID | MS_NODEV));
	CHECK(w && t && p);
	CHECK(w->kind == (shared ? MIN_SHARED : MIN_TMPFS) && t->kind == w->kind);
	CHECK((w->ms_flags & (MS_NOSUID | MS_NODEV)) == (MS_NOSUID | MS_NODEV) && !(w->ms_flags & MS_RDONLY));
	CHECK(strstr(w->data, "size=134217728,nr_inodes=65536") && strstr(t->data, "size=134217728,nr_inodes=65536") &&
	      strstr(t->data, "mode=1777"));
	CHECK(p->kind == MIN_PROC && strstr(p->data, "subset=pid"));
	CHECK(find(s, n, "sys")->ms_flags & MS_RDONLY);
	CHECK(find(s, n, "etc")->ms_flags & MS_RDONLY);
	CHECK(find(s, n, "dev")->ms_flags & MS_RDONLY);
	CHECK(!find(s, n, "dev/pts") && !find(s, n, "sys/fs/cgroup") && !find(s, n, "dev/mqueue"));
	/* never more than asked for */
	CHECK(rootfs_minimal_plan("/w", shared, NULL, s, 2) == n);
	CHECK_STR(s[1].path, "bin");
}

/* run.tinyrun.workspace-size and -inodes: the quota of both */
static void test_quota(void)
{
	struct oci_output_limits q = { .workspace_size = 4096, .workspace_inodes = 7 };
	struct minimal_step s[16];
	size_t n = rootfs_minimal_plan("/workspace", false, &q, s, 16);

	CHECK_STR(find(s, n, "workspace")->data, "mode=755,size=4096,nr_inodes=7");
	CHECK_STR(find(s, n, "tmp")->data, "mode=1777,size=4096,nr_inodes=7");
}

int main(void)
{
	test_quota();
	test_plan(false);
	test_plan(true);
	return unit_report("test_rootfs_minimal");
}
