#include "runtime/container/vmclone.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The child's deepest path is rootfs_copy_tree (tmpcopyup), ~9 KiB a level
 * and 64 levels at most (copyup.c): 2 MiB, reserved only (MAP_NORESERVE);
 * only the pages it touches are made. */
#define STACK_SIZE (2UL << 20)

#if defined(__x86_64__)
/* long vmclone_raw(struct clone_args *ca, size_t size, void (*fn)(void *), void *arg):
 * the kernel starts the child on ca->stack with every register but rax, rcx
 * and r11 as the caller left them: rdx (fn) and r8 (arg, saved from rcx)
 * survive. As glibc's __clone3; the child never returns. */
long vmclone_raw(struct clone_args *ca, size_t size, void (*fn)(void *), void *arg);
__asm__(".text\n.global vmclone_raw\n.type vmclone_raw,@function\nvmclone_raw:\n"
	"mov %rcx, %r8\n"
	"mov $" "435" ", %eax\n"      /* __NR_clone3 */
	"syscall\n"
	"test %rax, %rax\n"
	"jz 1f\n"
	"ret\n"
	"1:\n"
	"xor %ebp, %ebp\n"
	"and $-16, %rsp\n"
	"mov %r8, %rdi\n"
	"call *%rdx\n"
	"mov $1, %edi\n"
	"mov $60, %eax\n"              /* __NR_exit, should fn return */
	"syscall\n"
	"hlt\n");
_Static_assert(SYS_clone3 == 435, "x86_64 clone3");

bool vmclone_supported(void)
{
	return true;
}
#else
bool vmclone_supported(void)
{
	return false;
}
#endif

pid_t vmclone_spawn(struct clone_args *ca, void (*fn)(void *), void *arg)
{
#if defined(__x86_64__)
	long page = sysconf(_SC_PAGESIZE), r;
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

	if (stack == MAP_FAILED)
		return -1;
	if (mprotect(stack, page, PROT_NONE) < 0) {
		munmap(stack, STACK_SIZE);
		return -1;
	}
	ca->flags |= CLONE_VM;
	ca->stack = (uint64_t)(uintptr_t)stack;
	ca->stack_size = STACK_SIZE;
	r = vmclone_raw(ca, sizeof(*ca), fn, arg);
	if (r < 0) {
		munmap(stack, STACK_SIZE);
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
#else
	(void)ca, (void)fn, (void)arg;
	errno = ENOSYS;
	return -1;
#endif
}
