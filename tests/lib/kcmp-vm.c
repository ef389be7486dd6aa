/* kcmp-vm PID1 PID2: "shared" when the two processes are one address space
 * (kcmp KCMP_VM: CLONE_VM, a thread), "apart" when not; exit 2 with the
 * reason on stderr when the kernel cannot say (no such process, no access). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KCMP_VM 1

int main(int argc, char **argv)
{
	long r;

	if (argc != 3)
		return fprintf(stderr, "usage: kcmp-vm PID1 PID2\n"), 2;
	r = syscall(SYS_kcmp, atoi(argv[1]), atoi(argv[2]), KCMP_VM, 0, 0);
	if (r < 0)
		return perror("kcmp"), 2;
	puts(r == 0 ? "shared" : "apart");
	return 0;
}
