/* clone3 into our own address space (CLONE_VM), the child on a stack of its
 * own: no page tables copied and no copy-on-write fault on either side
 * (create.c uses it for the container's first process when it may:
 * child_may_share_vm). The child runs fn(arg) until it execs (a new
 * address space) or exits (_exit: never exit(), whose handlers and stdio
 * buffers are ours). Until then the two share memory, errno and libc's
 * state: only one of them may run code at a time (create.c's turns). */
#ifndef TINYRUN_VMCLONE_H
#define TINYRUN_VMCLONE_H

#include <linux/sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* Whether this build has the clone3 trampoline (x86_64). */
bool vmclone_supported(void);

/* clone3(ca | CLONE_VM) with a fresh stack (2 MiB reserved, a guard page
 * below; it stays mapped: the child may still be on it when clone's caller
 * learns it is done). The child calls fn(arg) and must not return. Returns
 * the child's pid, or -1 with errno (ENOSYS: no trampoline here). */
pid_t vmclone_spawn(struct clone_args *ca, void (*fn)(void *), void *arg);

#endif
