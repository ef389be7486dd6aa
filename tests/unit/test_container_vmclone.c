/* vmclone (runtime/container/vmclone.h): the child runs in our address space
 * on a stack of its own, and its execve leaves us alone. No root needed:
 * clone3 with CLONE_VM alone. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/container/vmclone.h"
#include "unit.h"

static volatile int shared_word;
static volatile uintptr_t child_sp;

static void writer(void *arg)
{
	int here;

	shared_word = *(int *)arg;
	child_sp = (uintptr_t)&here;
	_exit(7);
}

static void execer(void *arg)
{
	(void)arg;
	shared_word = 1;
	execl("/bin/sh", "sh", "-c", "exit 9", (char *)NULL);
	_exit(127);
}

static int wait_status(pid_t pid)
{
	int st = -1;

	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	return st;
}

int main(void)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	int value = 4242, here, st;
	pid_t pid;

	if (!vmclone_supported()) {
		pid = vmclone_spawn(&ca, writer, &value);
		CHECK(pid < 0 && errno == ENOSYS);
		return unit_report("test_container_vmclone");
	}
	/* what the child writes is ours: one address space */
	pid = vmclone_spawn(&ca, writer, &value);
	CHECK(pid > 0);
	CHECK((ca.flags & CLONE_VM) != 0);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	CHECK(shared_word == 4242);
	/* on a stack of its own, not below ours */
	CHECK(child_sp != 0);
	CHECK(child_sp >= ca.stack && child_sp < ca.stack + ca.stack_size);
	CHECK(!((uintptr_t)&here >= ca.stack && (uintptr_t)&here < ca.stack + ca.stack_size));
	/* an execve gives the child its own memory; we go on untouched */
	struct clone_args cb = { .exit_signal = SIGCHLD };

	shared_word = 0;
	pid = vmclone_spawn(&cb, execer, NULL);
	CHECK(pid > 0);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	CHECK(shared_word == 1);
	/* a bad flag: an error, nothing started */
	struct clone_args bad = { .flags = CLONE_THREAD, .exit_signal = SIGCHLD };

	errno = 0;
	pid = vmclone_spawn(&bad, writer, &value);
	CHECK(pid < 0 && errno == EINVAL);
	return unit_report("test_container_vmclone");
}
