/* The v1 hierarchy probe (cg1_mounted, one listing of /sys/fs/cgroup and a
 * stat of each known name in it) finds what a stat of /sys/fs/cgroup/<name>
 * for every name finds: a directory on a device of its own, co-mounted
 * controllers (the same device) counted once, under the first name. Run on
 * this host's /sys/fs/cgroup, whatever it is (none, v2, hybrid, v1). */
#include <stdio.h>
#include <sys/stat.h>

#include "runtime/cgroup/internal.h"
#include "unit.h"

int main(void)
{
	struct stat root, st[CG1_N];
	int alias[CG1_N];
	uint32_t want = 0, got = cg1_mounted();
	char p[64];

	if (stat(CG_ROOT, &root) < 0)
		root.st_dev = 0;
	for (int i = 0; i < CG1_N; i++) {
		alias[i] = -1;
		snprintf(p, sizeof(p), CG_ROOT "/%s", cg1_names[i]);
		if (stat(p, &st[i]) < 0 || st[i].st_dev == root.st_dev || !S_ISDIR(st[i].st_mode))
			continue;
		for (int j = 0; j < i && alias[i] < 0; j++)
			if (alias[j] == j && st[j].st_dev == st[i].st_dev)
				alias[i] = j;
		if (alias[i] < 0) {
			alias[i] = i;
			want |= 1u << i;
		}
	}
	CHECK(got == want);
	CHECK(cg1_mounted() == want);   /* probed once, the same after */
	for (int i = 0; i < CG1_N; i++)
		CHECK(cgroup_v1_hierarchy_mounted(cg1_names[i]) == (alias[i] == i));
	return unit_report("test_cgroup_probe");
}
