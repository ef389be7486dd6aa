/* The seccomp ordering rule of the shared process-setup tail
 * (runtime/container/setup.h): where the filter goes in for every
 * combination of noNewPrivileges and a notify action. */
#include "runtime/container/setup.h"
#include "unit.h"

int main(void)
{
	struct oci_process p = { 0 };

	/* no NNP: as root, whether or not the filter notifies */
	p.no_new_privileges = false;
	CHECK(setup_seccomp_point(&p, false) == SETUP_AS_ROOT);
	CHECK(setup_seccomp_point(&p, true) == SETUP_AS_ROOT);
	/* NNP with a notify action: right after NNP, while the runtime listens */
	p.no_new_privileges = true;
	CHECK(setup_seccomp_point(&p, true) == SETUP_AFTER_NNP);
	/* NNP otherwise: last, after the start wait */
	CHECK(setup_seccomp_point(&p, false) == SETUP_AFTER_START);
	/* the points are in the order the path reaches them */
	CHECK(SETUP_AS_ROOT < SETUP_AFTER_NNP && SETUP_AFTER_NNP < SETUP_AFTER_START);
	return unit_report("test_container_setup");
}
