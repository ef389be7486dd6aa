/* Why the host cannot give a container its user namespace: sandbox_host.h. */
#include "runtime/sandbox/sandbox_host.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/linux/procfs.h"

static char blocked[256];

static long knob(const char *rel)
{
	char buf[32], *end;
	long v;

	if (procfs_read(-1, rel, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	return errno || end == buf || v < 0 ? -1 : v;
}

void sandbox_host_knobs_read(struct host_userns_knobs *k)
{
	k->max_user_namespaces = knob("sys/user/max_user_namespaces");
	k->apparmor_restrict = knob("sys/kernel/apparmor_restrict_unprivileged_userns");
	k->unprivileged_clone = knob("sys/kernel/unprivileged_userns_clone");
}

const char *sandbox_host_userns_why(int e, const struct host_userns_knobs *k, bool privileged, char *buf,
				    size_t size)
{
	if (k->max_user_namespaces == 0)
		snprintf(buf, size, "user namespaces are disabled: /proc/sys/user/max_user_namespaces is 0");
	else if (e == ENOSPC && k->max_user_namespaces > 0)
		snprintf(buf, size, "a namespace limit is reached: /proc/sys/user/max_user_namespaces is %ld "
			 "(or another /proc/sys/user/max_*_namespaces, or 32 nested user namespaces)",
			 k->max_user_namespaces);
	else if (!privileged && k->unprivileged_clone == 0)
		snprintf(buf, size, "unprivileged user namespaces are disabled: "
			 "/proc/sys/kernel/unprivileged_userns_clone is 0");
	else if (!privileged && (e == EPERM || e == EACCES) && k->apparmor_restrict == 1)
		snprintf(buf, size, "unprivileged user namespaces are restricted by AppArmor: "
			 "/proc/sys/kernel/apparmor_restrict_unprivileged_userns is 1");
	else
		return NULL;
	return buf;
}

static bool privileged(void)
{
	return geteuid() == 0;
}

int room_host_check(const struct oci_config *cfg, struct error *err)
{
	struct host_userns_knobs k = { .apparmor_restrict = -1, .unprivileged_clone = -1 };
	bool priv = privileged();

	if (!cfg->sandbox.userns_auto)
		return 0;
	/* before the clone (no errno yet) only these two can refuse, the second
	 * only for an unprivileged caller; AppArmor's needs the clone's EPERM */
	k.max_user_namespaces = knob("sys/user/max_user_namespaces");
	if (!priv)
		k.unprivileged_clone = knob("sys/kernel/unprivileged_userns_clone");
	if (!sandbox_host_userns_why(0, &k, priv, blocked, sizeof(blocked)))
		return 0;
	return error_set(err, EPERM, "sandbox: %s", blocked);
}

void room_explain_clone(unsigned long clone_ns, struct error *err)
{
	struct host_userns_knobs k;
	size_t len = strlen(err->msg);

	if (!(clone_ns & CLONE_NEWUSER))
		return;
	sandbox_host_knobs_read(&k);
	if (sandbox_host_userns_why(err->code, &k, privileged(), blocked, sizeof(blocked)))
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", blocked);
}

const char *room_host_blocked(void)
{
	return blocked[0] ? blocked : NULL;
}
