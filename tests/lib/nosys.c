/* nosys SYSCALL[,SYSCALL...] -- CMD [ARGS...]: run CMD as on a kernel without
 * those syscalls: a seccomp filter (no_new_privs) makes each of them fail
 * with ENOSYS, for CMD and everything it starts. For tests/check.bats: the
 * host report says the facility is missing, and tinyrun takes its fallback.
 * Exit 2 for an unknown name or bad usage. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "nosys: add this architecture's AUDIT_ARCH"
#endif

#define S(n) { #n, SYS_##n }
static const struct { const char *name; long nr; } table[] = {
	S(clone3), S(openat2), S(fsopen), S(fsconfig), S(fsmount), S(open_tree), S(move_mount),
	S(mount_setattr), S(pidfd_open), S(pidfd_send_signal), S(pidfd_getfd), S(close_range),
	S(landlock_create_ruleset), S(seccomp), S(execveat),
};
#define MAX_NRS 16

static long lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].name, name))
			return table[i].nr;
	return -1;
}

int main(int argc, char **argv)
{
	struct sock_filter f[4 + 2 * MAX_NRS + 1];
	size_t n = 0, k = 0;
	long nrs[MAX_NRS];
	char *list, *save = NULL;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: nosys SYSCALL[,SYSCALL...] -- CMD [ARGS...]\n");
		return 2;
	}
	list = strdup(argv[1]);
	for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		if (k == MAX_NRS || (nrs[k++] = lookup(s)) < 0) {
			fprintf(stderr, "nosys: unknown or too many syscalls: %s\n", s);
			return 2;
		}
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < k; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("nosys: seccomp");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
