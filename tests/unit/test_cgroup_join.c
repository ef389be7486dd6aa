/* exec --cgroup: which sub-cgroup paths may be joined (cgroup_sub_clean):
 * relative to the container's cgroup, leading slashes dropped, never a ".."
 * component (cgroupfs has no symlinks, so ".." is the only way out). */
#include <stddef.h>
#include <string.h>

#include "runtime/cgroup/join.h"
#include "unit.h"

static int clean_is(const char *in, const char *want)
{
	const char *got = cgroup_sub_clean(in);

	if (!want)
		return got == NULL;
	return got && !strcmp(got, want);
}

int main(void)
{
	CHECK(clean_is("sub", "sub"));
	CHECK(clean_is("/sub", "sub"));
	CHECK(clean_is("//a/b", "a/b"));
	CHECK(clean_is("/", ""));
	CHECK(clean_is("", ""));
	CHECK(clean_is("a/./b", "a/./b"));
	CHECK(clean_is("..x", "..x"));
	CHECK(clean_is("x..", "x.."));
	CHECK(clean_is("a/...", "a/..."));
	CHECK(clean_is("..", NULL));
	CHECK(clean_is("../x", NULL));
	CHECK(clean_is("/../x", NULL));
	CHECK(clean_is("a/../../x", NULL));
	CHECK(clean_is("a//..", NULL));
	CHECK(clean_is("a/../", NULL));
	return unit_report("test_cgroup_join");
}
