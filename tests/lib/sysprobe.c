/* sysprobe: make raw syscalls by name and say what the seccomp filter did.
 * For tests/sandbox-acceptance.bats (the probes tests/lib/seccomp-plan.py
 * generates from a profile). Static, with libseccomp for the name -> number
 * tables of each architecture (the same library tinyrun compiles with).
 *
 *   sysprobe list             every syscall libseccomp knows: "ARCH NAME NR"
 *   sysprobe run FILE [ID [in-process]]   each line "ID ARCH NAME MODE A0 A1 A2 A3 A4 A5 ..."
 *                             (the rest ignored; from ID on) probed in a fresh
 *                             child: prints "ID RESULT", then "done". Where fork
 *                             fails (the strict profile), in this process after
 *                             "ID calling": a probe that kills it ends the run
 *                             (in-process: so too where fork works, to compare)
 *   sysprobe self ARCH NAME A0..A5   the call in this very process (the task)
 *
 * ARCH: x86_64 (the syscall instruction), x86 (int $0x80), x32 (the syscall
 * instruction with __X32_SYSCALL_BIT). NAME: a name, or #NR for a number.
 * MODE: plain; handler (a SIGSYS handler with SA_RESTART and SA_ONSTACK on a
 * sigaltstack, as a task that wants to survive a kill rule); thread (the
 * call in a second thread, the first one waits).
 * RESULT: ret=N, errno=N, sigsys (killed by SIGSYS), signal=N, exit=N (it
 * ended in the call: exit, exit_group), blocked (still in the call after
 * 5 s), thread-killed (thread mode: the calling thread died, the process
 * lives on), unknown (no such name on ARCH); " trapped" appended when the
 * SIGSYS handler ran. A call that blocks gets EINTR from a 200 ms timer. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_BIT 0x40000000L
#define REPORT_FD 100

struct probe {
	char id[32], arch[16], name[64], mode[16];
	long nr, a[6];
	int forklike;   /* a child that returns 0 from it leaves at once */
	int i386;
};

static volatile sig_atomic_t trapped;

/* x86_64 and x32: rax = nr, rdi rsi rdx r10 r8 r9. A new process that got 0
 * from a fork-like call (it shares our memory after vfork) exit_groups
 * before touching the stack. */
static long call64(long nr, const long *a, long forklike)
{
	register long r10 __asm__("r10") = a[3];
	register long r8 __asm__("r8") = a[4];
	register long r9 __asm__("r9") = a[5];
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "test %[fk], %[fk]\n\t"
			 "jz 1f\n\t"
			 "mov $231, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(ret)
			 : "0"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9), [fk] "r"(forklike)
			 : "rcx", "r11", "memory");
	return ret;
}

/* i386 through int $0x80: eax = nr, ebx ecx edx esi edi ebp; r8-r11 are
 * not preserved by it. The child of a fork-like call: exit_group (252). */
static long call32(long nr, const long *a, long forklike)
{
	long ret, a5 = a[5];

	__asm__ volatile("xchg %[a5], %%rbp\n\t"
			 "int $0x80\n\t"
			 "xchg %[a5], %%rbp\n\t"
			 "test %%eax, %%eax\n\t"
			 "jnz 1f\n\t"
			 "test %[fk], %[fk]\n\t"
			 "jz 1f\n\t"
			 "mov $252, %%eax\n\t"
			 "xor %%ebx, %%ebx\n\t"
			 "int $0x80\n"
			 "1:"
			 : "=a"(ret), [a5] "+r"(a5)
			 : "0"(nr), "b"(a[0]), "c"(a[1]), "d"(a[2]), "S"(a[3]), "D"(a[4]), [fk] "r"(forklike)
			 : "r8", "r9", "r10", "r11", "memory");
	return (int)ret;
}

static long call(const struct probe *p)
{
	return p->i386 ? call32(p->nr, p->a, p->forklike) : call64(p->nr, p->a, p->forklike);
}

static void result_of(long r, char *out, size_t size)
{
	if (r < 0 && r > -4096)
		snprintf(out, size, "errno=%ld", -r);
	else
		snprintf(out, size, "ret=%ld", r);
}

/* The number of syscall NAME on ARCH, found through the number -> name table. */
static long number_of(uint32_t arch, const char *name)
{
	long bit = arch == SCMP_ARCH_X32 ? X32_BIT : 0;

	for (long nr = 0; nr < 1024; nr++) {
		char *n = seccomp_syscall_resolve_num_arch(arch, (int)(nr | bit));
		int same = n && !strcmp(n, name);
		free(n);
		if (same)
			return nr | bit;
	}
	return -1;
}

static int resolve(struct probe *p)
{
	uint32_t arch;

	if (!strcmp(p->arch, "x86_64"))
		arch = SCMP_ARCH_X86_64;
	else if (!strcmp(p->arch, "x86"))
		arch = SCMP_ARCH_X86, p->i386 = 1;
	else if (!strcmp(p->arch, "x32"))
		arch = SCMP_ARCH_X32;
	else
		return -1;
	if (p->name[0] == '#')
		p->nr = strtol(p->name + 1, NULL, 0) | (arch == SCMP_ARCH_X32 ? X32_BIT : 0);
	else
		p->nr = seccomp_syscall_resolve_name_arch(arch, p->name);
	if (p->nr < 0)   /* x86's socket and ipc calls: a pseudo number, then the real one */
		p->nr = number_of(arch, p->name);
	if (p->nr < 0)
		return -1;
	p->forklike = !strcmp(p->name, "fork") || !strcmp(p->name, "vfork") || !strcmp(p->name, "clone");
	return 0;
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	trapped = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void install_handler(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK };

	sigaltstack(&ss, NULL);
	sigfillset(&sa.sa_mask);
	sigaction(SIGSYS, &sa, NULL);
}

struct thread_call {
	const struct probe *p;
	long ret;
	volatile int done;
};

static void *thread_main(void *arg)
{
	struct thread_call *tc = arg;

	tc->ret = call(tc->p);
	tc->done = 1;
	return NULL;
}

/* The call as MODE says, its result into out. */
static void probe_call(const struct probe *p, char *out, size_t size)
{
	struct sigaction sa = { .sa_handler = on_alarm };   /* no SA_RESTART: EINTR */
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	size_t n;

	trapped = 0;
	sigaction(SIGALRM, &sa, NULL);
	if (!strcmp(p->mode, "handler"))
		install_handler();
	setitimer(ITIMER_REAL, &it, NULL);
	if (!strcmp(p->mode, "thread")) {
		struct thread_call tc = { .p = p };
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, &tc) != 0)
			snprintf(out, size, "no-thread");
		else if (pthread_join(t, NULL), tc.done)
			result_of(tc.ret, out, size);
		else
			snprintf(out, size, "thread-killed");
	} else {
		result_of(call(p), out, size);
	}
	n = strlen(out);
	if (trapped)
		snprintf(out + n, size - n, " trapped");
}

/* In the probe's own child: the call, then "RESULT" to the report fd. */
static void child(const struct probe *p)
{
	char out[96];

	probe_call(p, out, sizeof(out));
	if (write(REPORT_FD, out, strlen(out)) < 0)
		_exit(4);
	_exit(0);
}

/* Where no child can be made (a profile that denies fork): the call in this
 * process, after "ID calling"; a probe that ends the process ends the run,
 * and the caller starts the next one from the following ID (`run FILE ID`). */
static void in_process(const struct probe *p)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	char out[96];

	printf("%s calling\n", p->id);
	fflush(stdout);
	probe_call(p, out, sizeof(out));
	sigaction(SIGSYS, &dfl, NULL);
	printf("%s %s\n", p->id, out);
	fflush(stdout);
}

/* Wait for pid, reaping whatever else is ours on the way: orphans of a clone
 * without an exit signal, and a thread that made itself our tracee
 * (ptrace(PTRACE_TRACEME)), without which its process is never reaped. */
static void reap(pid_t pid, int *ws)
{
	int st;
	pid_t r;

	while ((r = waitpid(-1, &st, __WALL)) != pid)
		if (r < 0 && errno != EINTR)
			return;
	*ws = st;
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
}

static void probe_one(struct probe *p)
{
	char out[128] = "";
	int fds[2], ws = 0;
	size_t len = 0;
	pid_t pid;

	if (resolve(p) < 0) {
		printf("%s unknown\n", p->id);
		return;
	}
	fflush(stdout);
	if (pipe(fds) < 0) {
		perror("sysprobe: pipe");
		exit(3);
	}
	if ((pid = fork()) < 0) {
		close(fds[0]), close(fds[1]);
		in_process(p);
		return;
	}
	if (pid == 0) {
		dup2(fds[1], REPORT_FD);
		close(fds[0]), close(fds[1]);
		close(0), close(1), close(2);
		child(p);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		ssize_t r;
		if (poll(&pfd, 1, 5000) == 0) {
			kill(pid, SIGKILL);
			snprintf(out, sizeof(out), "blocked");
			len = (size_t)-1;
			break;
		}
		r = read(fds[0], out + len, sizeof(out) - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	reap(pid, &ws);
	if (len == 0) {
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSYS)
			snprintf(out, sizeof(out), "sigsys");
		else if (WIFSIGNALED(ws))
			snprintf(out, sizeof(out), "signal=%d", WTERMSIG(ws));
		else
			snprintf(out, sizeof(out), "exit=%d", WEXITSTATUS(ws));
	} else if (len != (size_t)-1) {
		out[len] = 0;
	}
	printf("%s %s\n", p->id, out);
}

static int parse(struct probe *p, char **f, int n)
{
	memset(p, 0, sizeof(*p));
	if (n < 4)
		return -1;
	snprintf(p->id, sizeof(p->id), "%s", f[0]);
	snprintf(p->arch, sizeof(p->arch), "%s", f[1]);
	snprintf(p->name, sizeof(p->name), "%s", f[2]);
	snprintf(p->mode, sizeof(p->mode), "%s", f[3]);
	for (int i = 0; i < 6 && 4 + i < n; i++)
		p->a[i] = (long)strtoul(f[4 + i], NULL, 0);
	return 0;
}

static int run_file(const char *path, long first, bool self)
{
	FILE *in = fopen(path, "r");
	char line[512];

	if (!in) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		char *f[16], *save = NULL, *tok;
		struct probe p;
		int n = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok && n < 16; tok = strtok_r(NULL, " \t\n", &save))
			f[n++] = tok;
		if (n == 0 || f[0][0] == '#')
			continue;
		if (parse(&p, f, n) < 0)
			return fprintf(stderr, "sysprobe: bad line\n"), 2;
		if (strtol(p.id, NULL, 10) < first)
			continue;
		if (!self)
			probe_one(&p);
		else if (resolve(&p) < 0)
			printf("%s unknown\n", p.id);
		else
			in_process(&p);
	}
	fclose(in);
	printf("done\n");
	return 0;
}

static void list(void)
{
	static const struct { const char *name; uint32_t arch; long bit; } arches[] = {
		{ "x86_64", SCMP_ARCH_X86_64, 0 }, { "x86", SCMP_ARCH_X86, 0 }, { "x32", SCMP_ARCH_X32, X32_BIT },
	};

	for (size_t k = 0; k < sizeof(arches) / sizeof(arches[0]); k++)
		for (int nr = 0; nr < 1024; nr++) {
			char *name = seccomp_syscall_resolve_num_arch(arches[k].arch, (int)(nr | arches[k].bit));
			if (name)
				printf("%s %s %d\n", arches[k].name, name, nr);
			free(name);
		}
}

int main(int argc, char **argv)
{
	struct probe p;
	char out[64];

	if (argc == 2 && !strcmp(argv[1], "list"))
		return list(), 0;
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "run"))
		return run_file(argv[2], argc >= 4 ? strtol(argv[3], NULL, 10) : 0,
				argc == 5 && !strcmp(argv[4], "in-process"));
	if (argc >= 4 && !strcmp(argv[1], "self")) {
		char *f[10] = { "self", argv[2], argv[3], "plain" };
		for (int i = 4; i < argc && i < 10; i++)
			f[i] = argv[i];
		if (parse(&p, f, argc < 10 ? argc : 10) < 0 || resolve(&p) < 0)
			return fprintf(stderr, "sysprobe: unknown syscall %s on %s\n", argv[3], argv[2]), 2;
		printf("calling %s on %s\n", p.name, p.arch);
		fflush(stdout);
		result_of(call(&p), out, sizeof(out));
		printf("%s\n", out);
		return 0;
	}
	fprintf(stderr, "usage: sysprobe list | run FILE [ID [in-process]] | self ARCH NAME [ARGS...]\n");
	return 2;
}
