/* landlock-probe: what tests/landlock.bats asks inside (and outside) a
 * container, one answer a line, errors as "KEY=ERR:ENAME":
 *   abi                  the kernel's Landlock ABI (0 without)
 *   listen NAME SECS     an abstract unix socket @NAME listening for SECS
 *                        ("listening" once it is, then it accepts quietly)
 *   connect NAME         connect=ok | connect=ERR:...
 *   widen PATH           a second ruleset that grants every right below "/"
 *                        (restrict=ok), then open PATH: read=ok | read=ERR:...
 *   kill PID             kill(PID, SIGCONT): kill=ok | kill=ERR:...
 * Static, so it runs in any rootfs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int answer(const char *key, int r)
{
	if (r < 0)
		printf("%s=ERR:%s\n", key, strerrorname_np(errno));
	else
		printf("%s=ok\n", key);
	fflush(stdout);
	return r < 0;
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	strncpy(a->sun_path + 1, name, sizeof(a->sun_path) - 2);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a->sun_path + 1));
}

static int do_listen(const char *name, int secs)
{
	struct sockaddr_un a;
	socklen_t n = abstract_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, n) < 0 || listen(s, 16) < 0)
		return answer("listen", -1);
	printf("listening\n");
	fflush(stdout);
	alarm((unsigned)secs);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c >= 0)
			close(c);
	}
}

static int do_connect(const char *name)
{
	struct sockaddr_un a;
	socklen_t n = abstract_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return answer("connect", s < 0 ? -1 : connect(s, (struct sockaddr *)&a, n));
}

static int do_widen(const char *path)
{
	struct { uint64_t fs, net, scoped; } attr = { .fs = (1ull << 16) - 1 };
	struct { uint64_t allowed; int32_t fd; } __attribute__((packed)) pb = { .allowed = attr.fs };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
	int rs, r;

	if (abi < 5)   /* only the rights this ABI has */
		attr.fs = pb.allowed = abi >= 3 ? (1ull << 15) - 1 : abi == 2 ? (1ull << 14) - 1 : (1ull << 13) - 1;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, 8, 0);
	pb.fd = open("/", O_PATH | O_CLOEXEC);
	r = rs < 0 || pb.fd < 0 ? -1 : (int)syscall(SYS_landlock_add_rule, rs, 1, &pb, 0);
	if (r == 0)
		r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (r == 0)
		r = (int)syscall(SYS_landlock_restrict_self, rs, 0);
	answer("restrict", r);
	return answer("read", open(path, O_RDONLY | O_CLOEXEC));
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "abi")) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
		printf("%ld\n", v > 0 ? v : 0);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return do_listen(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "connect"))
		return do_connect(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "widen"))
		return do_widen(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "kill"))
		return answer("kill", kill(atoi(argv[2]), SIGCONT));
	fprintf(stderr, "usage: landlock-probe abi | listen NAME SECS | connect NAME | widen PATH | kill PID\n");
	return 2;
}
