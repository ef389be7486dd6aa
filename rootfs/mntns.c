/* Away to another mount namespace for a moment, and home again: the runtime
 * reaches a mount of a request's namespace there (rootfs/sandbox/minimal.c), or
 * attaches one in a throwaway private copy of its own so that it can be
 * cloned (devnodes.c). setns resets root and cwd to the namespace's root:
 * both come back as they were, a chroot included. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include "rootfs/internal.h"

static void close_home(struct rootfs_mntns_home *h)
{
	if (h->ns >= 0)
		close(h->ns);
	if (h->root >= 0)
		close(h->root);
	if (h->cwd >= 0)
		close(h->cwd);
	h->ns = h->root = h->cwd = -1;
}

int rootfs_mntns_return(struct rootfs_mntns_home *h)
{
	int r = 0;

	if (setns(h->ns, CLONE_NEWNS) < 0 || fchdir(h->root) < 0 || chroot(".") < 0 || fchdir(h->cwd) < 0)
		r = -errno;
	close_home(h);
	return r;
}

int rootfs_mntns_leave(struct rootfs_mntns_home *h, int to)
{
	h->ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	h->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	h->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h->ns < 0 || h->root < 0 || h->cwd < 0 || (to >= 0 ? setns(to, CLONE_NEWNS) : unshare(CLONE_NEWNS)) < 0) {
		int e = errno;

		close_home(h);
		return -e;
	}
	/* a copy of ours: private, so that what is attached there reaches no peer */
	if (to < 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		int e = errno;

		rootfs_mntns_return(h);
		return -e;
	}
	return 0;
}
