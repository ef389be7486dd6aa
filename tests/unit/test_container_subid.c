/* runtime/sandbox/lease_subid.h: the /etc/subuid and /etc/subgid lines a
 * uid lease skips (malformed lines skipped, never a guess). */
#include <stdint.h>

#include "runtime/sandbox/lease_subid.h"
#include "unit.h"

static void test_parse(void)
{
	struct subid_ranges s = { 0 };
	uint64_t skip = 0;

	CHECK(subid_parse("alice:100000:65536\n# bob:1:2\n\nbad\nx:1:\nx::5\n:7:1\ny:-1:4\nz:5:0\n"
			  "w:300000:1\r\nv:4294967295:1\nu:4294967296:1\nt:10:99999999999\n"
			  "last:200000:10", &s) == 0);
	CHECK(s.n == 4);
	CHECK(s.r[0].first == 100000 && s.r[0].last == 165535);
	CHECK(s.r[1].first == 300000 && s.r[1].last == 300000);
	CHECK(s.r[2].first == 4294967295u && s.r[2].last == 4294967295u);
	CHECK(s.r[3].first == 200000 && s.r[3].last == 200009);
	CHECK(subid_contains(&s, 100000, &skip) && skip == 165536);
	CHECK(subid_contains(&s, 165535, &skip) && skip == 165536);
	CHECK(!subid_contains(&s, 165536, &skip));
	CHECK(!subid_contains(&s, 99999, &skip));
	CHECK(subid_contains(&s, 4294967295u, &skip) && skip == 4294967296u);
	subid_free(&s);
	CHECK(s.n == 0 && s.r == NULL);
}

int main(void)
{
	test_parse();
	return unit_report("test_container_subid");
}
