/* runtime/sandbox/sandbox_host.h: which host knob explains a user
 * namespace the kernel refused (issue 31 §5), by name and value. */
#include <errno.h>
#include <stddef.h>

#include "runtime/sandbox/sandbox_host.h"
#include "unit.h"

static const char *why(int e, long max, long aa, long unpriv, bool privileged)
{
	static char buf[256];
	struct host_userns_knobs k = { max, aa, unpriv };

	return sandbox_host_userns_why(e, &k, privileged, buf, sizeof(buf));
}

static void test_why(void)
{
	const char *off = "user namespaces are disabled: /proc/sys/user/max_user_namespaces is 0";

	/* max 0 refuses every one, privileged or not, before trying too */
	CHECK_STR(why(0, 0, -1, -1, true), off);
	CHECK_STR(why(ENOSPC, 0, 1, 0, false), off);
	CHECK_STR(why(ENOSPC, 15000, -1, -1, true),
		  "a namespace limit is reached: /proc/sys/user/max_user_namespaces is 15000 "
		  "(or another /proc/sys/user/max_*_namespaces, or 32 nested user namespaces)");
	/* the unprivileged knobs only for an unprivileged caller */
	CHECK_STR(why(EPERM, 15000, 1, -1, false), "unprivileged user namespaces are restricted by AppArmor: "
		  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns is 1");
	CHECK_STR(why(EACCES, 15000, 1, -1, false), "unprivileged user namespaces are restricted by AppArmor: "
		  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns is 1");
	CHECK_STR(why(0, 15000, -1, 0, false), "unprivileged user namespaces are disabled: "
		  "/proc/sys/kernel/unprivileged_userns_clone is 0");
	CHECK(why(EPERM, 15000, 1, 0, true) == NULL);
	CHECK(why(0, 15000, 1, -1, false) == NULL);   /* AppArmor decides per program: only after a refusal */
	CHECK(why(EPERM, 15000, 0, 1, false) == NULL);
	CHECK(why(EINVAL, -1, -1, -1, true) == NULL);
	CHECK(why(ENOSPC, -1, -1, -1, true) == NULL);
}

int main(void)
{
	test_why();
	return unit_report("test_container_hostknobs");
}
