/* Namespace planning (runtime/linux/namespaces.h): which namespaces clone
 * makes (fast path), which the child joins, unshares and forks into (slow
 * path), and which exec joins through the init's pidfd. No root needed. */
#include <sched.h>
#include <string.h>

#include "runtime/linux/namespaces.h"
#include "unit.h"

static struct oci_linux l;

static void reset(void)
{
	memset(&l, 0, sizeof(l));
}

static void add(enum oci_ns_type t, const char *path)
{
	l.ns[t].present = true;
	l.ns[t].path = (char *)path;
}

static void plan(struct ns_plan *p)
{
	memset(p, 0xa5, sizeof(*p));   /* every field must be written */
	ns_plan_make(&l, p);
}

static void test_fast_path(void)
{
	struct ns_plan p;

	reset();
	plan(&p);
	CHECK(p.clone_ns == 0 && p.unshare_ns == 0 && !p.join_any && !p.must_fork && !p.userns);

	/* runc's default set: clone makes them all, no fork */
	add(OCI_NS_PID, NULL);
	add(OCI_NS_NET, NULL);
	add(OCI_NS_MOUNT, NULL);
	add(OCI_NS_IPC, NULL);
	add(OCI_NS_UTS, NULL);
	plan(&p);
	CHECK(p.clone_ns == (CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS));
	CHECK(p.unshare_ns == 0 && !p.join_any && !p.must_fork && !p.userns);

	/* rootless: a new user ns and cgroup ns, still the fast path */
	add(OCI_NS_USER, NULL);
	add(OCI_NS_CGROUP, NULL);
	plan(&p);
	CHECK(p.clone_ns & CLONE_NEWUSER && p.clone_ns & CLONE_NEWCGROUP && p.userns);
	CHECK(p.unshare_ns == 0 && !p.must_fork);
}

static void test_slow_path(void)
{
	struct ns_plan p;

	/* join a network ns: clone makes nothing, the child unshares the new
	 * ones after setns and forks into the new pid ns */
	reset();
	add(OCI_NS_PID, NULL);
	add(OCI_NS_MOUNT, NULL);
	add(OCI_NS_NET, "/proc/1/ns/net");
	plan(&p);
	CHECK(p.clone_ns == 0 && p.join_any && p.must_fork && !p.userns);
	CHECK(p.unshare_ns == (CLONE_NEWPID | CLONE_NEWNS));

	/* without a pid ns no fork is needed */
	reset();
	add(OCI_NS_MOUNT, NULL);
	add(OCI_NS_NET, "/proc/1/ns/net");
	plan(&p);
	CHECK(p.clone_ns == 0 && p.unshare_ns == CLONE_NEWNS && p.join_any && !p.must_fork);

	/* a joined pid ns applies to children too: fork, nothing to unshare for it */
	reset();
	add(OCI_NS_PID, "/proc/1/ns/pid");
	add(OCI_NS_UTS, NULL);
	plan(&p);
	CHECK(p.clone_ns == 0 && p.unshare_ns == CLONE_NEWUTS && p.join_any && p.must_fork);

	/* a time ns alone: clone cannot make it with the offsets written, so
	 * unshare, write them, fork */
	reset();
	add(OCI_NS_TIME, NULL);
	add(OCI_NS_MOUNT, NULL);
	plan(&p);
	CHECK(p.clone_ns == 0 && p.unshare_ns == (CLONE_NEWTIME | CLONE_NEWNS));
	CHECK(!p.join_any && p.must_fork);

	/* a joined user ns counts as the container's user ns */
	reset();
	add(OCI_NS_USER, "/proc/1/ns/user");
	add(OCI_NS_MOUNT, NULL);
	plan(&p);
	CHECK(p.userns && p.join_any && p.clone_ns == 0 && p.unshare_ns == CLONE_NEWNS && !p.must_fork);
}

static void test_exec_flags(void)
{
	reset();
	CHECK(ns_exec_join_flags(&l) == 0);
	for (int t = 0; t < OCI_NS_TYPES; t++)
		add(t, t == OCI_NS_NET ? "/proc/1/ns/net" : NULL);
	/* joined or new alike (exec enters the container's); pid and time apart */
	CHECK(ns_exec_join_flags(&l) == (CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
					 CLONE_NEWUSER | CLONE_NEWCGROUP));
	reset();
	add(OCI_NS_PID, NULL);
	add(OCI_NS_TIME, NULL);
	CHECK(ns_exec_join_flags(&l) == 0);
}

int main(void)
{
	test_fast_path();
	test_slow_path();
	test_exec_flags();
	return unit_report("test_container_nsplan");
}
