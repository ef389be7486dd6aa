/* sysnr NAME [ARG0 [ARG1 [ARG2]]]: make the raw syscall NAME (those arguments, then 0s) and
 * print "ret=R errno=E". For tests that need a syscall a seccomp filter
 * denies (tests/init.bats: policy-violation); exit 2 for an unknown name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

#define S(n) { #n, SYS_##n }
static const struct { const char *name; long nr; } table[] = {
	S(add_key), S(bpf), S(clone), S(delete_module), S(finit_module), S(fsconfig), S(fsmount), S(fsopen),
	S(fspick), S(init_module), S(kexec_file_load), S(kexec_load), S(keyctl), S(mount), S(mount_setattr),
	S(move_mount), S(open_by_handle_at), S(open_tree), S(open_tree_attr), S(perf_event_open),
	S(pivot_root), S(ptrace), S(reboot), S(request_key), S(setns), S(swapoff), S(swapon),
	S(umount2), S(unshare), S(userfaultfd), S(getpid), S(chroot), S(sethostname), S(setdomainname),
	S(mknod), S(mknodat),
};

int main(int argc, char **argv)
{
	long a[3] = { 0, 0, 0 };

	for (int i = 2; i < argc && i < 5; i++)
		a[i - 2] = strtol(argv[i], NULL, 0);

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "umount"))
		argv[1] = "umount2";
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(table[i].name, argv[1]))
			continue;
		long r = syscall(table[i].nr, a[0], a[1], a[2], 0L, 0L, 0L);
		printf("ret=%ld errno=%d\n", r, r < 0 ? errno : 0);
		return 0;
	}
	fprintf(stderr, "sysnr: unknown syscall %s\n", argv[1]);
	return 2;
}
