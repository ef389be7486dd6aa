/* tinyrun-init: the container's PID 1 when the config has the annotation
 * run.tinyrun.init=true. Freestanding (no libc, x86_64 and aarch64 raw
 * syscalls), static, a few KiB: built by the Makefile, embedded in tinyrun
 * (runtime/container/init-image.c) and exec'd from a sealed memfd after the
 * whole set-up (setup.h), so /proc/1/exe is a sealed anonymous file, not
 * the host's tinyrun.
 *
 *   argv: tinyrun-init STATUS_FD FILTER_FD FILTER_FLAGS EXE ARG0 ARG1 ...
 *
 * FILTER_FD (or -1): the container's seccomp BPF program (struct
 * sock_filter[]); the task loads it right before its execve (with
 * NoNewPrivileges set by tinyrun), so the init itself is not under it and
 * can fork even when the filter denies fork/clone (`--seccomp strict`).
 *
 * It makes itself non-dumpable, blocks every signal and reads them from a
 * signalfd; forks the task (EXE with ARG0...) as PID 2; reaps every orphan;
 * forwards to the task only the signals sent from outside the pid namespace
 * (siginfo: SI_USER/SI_QUEUE/SI_TKILL with si_pid 0, which is how a sender
 * of an ancestor namespace shows), so the task can neither signal nor stop
 * it (SIGKILL/SIGSTOP from inside are dropped by the kernel for a pid
 * namespace's init). When the task ends it writes the task's raw wait status
 * as decimal text to STATUS_FD (a file of the state dir, opened by tinyrun:
 * the channel that tells "killed by signal N" apart from "exit 128+N") and
 * exits with the task's code, or 128+N when the task was killed by N. After
 * the status, on the same line (runtime/container/result.h reads them): the
 * task's wall time in ms (fork to reaping) and its wait4 rusage: voluntary
 * and involuntary context switches, user and system CPU time in us. */

#include "rawsys.h"

typedef unsigned long ul;

#if defined(__x86_64__)
#define NR_read 0
#define NR_write 1
#define NR_close 3
#define NR_rt_sigprocmask 14
#define NR_pwrite64 18
#define NR_pread64 17
#define NR_seccomp 317
#define NR_getpid 39
#define NR_clone 56
#define NR_execve 59
#define NR_exit 60
#define NR_wait4 61
#define NR_clock_gettime 228
#define NR_kill 62
#define NR_prctl 157
#define NR_signalfd4 289
#define NR_exit_group 231
__asm__(".text\n.global _start\n_start:\n"
	"xor %rbp,%rbp\nmov %rsp,%rdi\nand $-16,%rsp\ncall init_main\nhlt\n");
#elif defined(__aarch64__)
#define NR_read 63
#define NR_write 64
#define NR_close 57
#define NR_rt_sigprocmask 135
#define NR_pwrite64 68
#define NR_pread64 67
#define NR_seccomp 277
#define NR_getpid 172
#define NR_clone 220
#define NR_execve 221
#define NR_exit 93
#define NR_wait4 260
#define NR_clock_gettime 113
#define NR_kill 129
#define NR_prctl 167
#define NR_signalfd4 74
#define NR_exit_group 94
__asm__(".text\n.global _start\n_start:\nmov x29,#0\nmov x0,sp\nbl init_main\nbrk #0\n");
#else
#error "tinyrun-init: add this architecture's syscall numbers"
#endif

#define sys sys3

#define SIGCHLD 17
#define SIG_BLOCK 0
#define SIG_SETMASK 2
#define WNOHANG 1
#define PR_SET_DUMPABLE 4
#define SFD_CLOEXEC 02000000
#define SI_USER 0
#define SI_QUEUE (-1)
#define SI_TKILL (-6)

struct sfd_info {             /* struct signalfd_siginfo: 128 bytes */
	unsigned int signo;
	int err;
	int code;
	unsigned int pid;
	unsigned int uid;
	char rest[128 - 20];
};

static void say(const char *s)
{
	ul n = 0;

	while (s[n])
		n++;
	sys(NR_write, 2, s, n);
}

static __attribute__((noreturn)) void die(sl code)
{
	for (;;)
		sys(NR_exit_group, code, 0, 0);
}

static sl parse_fd(const char *s)
{
	sl v = 0;

	if (*s == '-')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return *s ? -1 : v;
}

struct k_rusage {              /* struct rusage: two timevals, then 14 longs */
	sl utime_sec, utime_usec, stime_sec, stime_usec;
	sl maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock;
	sl msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};

static sl now_ms(void)
{
	sl ts[2] = { 0, 0 };

	sys(NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, ts, 0);
	return ts[0] * 1000 + ts[1] / 1000000;
}

/* decimal v before *p, then a separator */
static char *put_num(char *p, unsigned long v, char sep)
{
	*--p = sep;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	return p;
}

/* "STATUS WALL_MS NVCSW NIVCSW UTIME_US STIME_US\n" */
static void report(sl fd, int status, sl wall_ms, const struct k_rusage *ru)
{
	char buf[160], *p = buf + sizeof(buf);

	if (fd < 0)
		return;
	p = put_num(p, (ul)(ru->stime_sec * 1000000 + ru->stime_usec), '\n');
	p = put_num(p, (ul)(ru->utime_sec * 1000000 + ru->utime_usec), ' ');
	p = put_num(p, (ul)ru->nivcsw, ' ');
	p = put_num(p, (ul)ru->nvcsw, ' ');
	p = put_num(p, (ul)wall_ms, ' ');
	p = put_num(p, (unsigned int)status, ' ');
	sys6(NR_pwrite64, fd, (sl)p, buf + sizeof(buf) - p, 0, 0, 0);
	sys(NR_close, fd, 0, 0);
}

/* Only what a process outside the pid namespace sent: the runtime's kill. */
static int from_outside(const struct sfd_info *si)
{
	return si->pid == 0 && (si->code == SI_USER || si->code == SI_QUEUE || si->code == SI_TKILL);
}

struct bpf_insn {              /* struct sock_filter */
	unsigned short code;
	unsigned char jt, jf;
	unsigned int k;
};
struct bpf_prog {              /* struct sock_fprog */
	unsigned short len;
	struct bpf_insn *filter;
};
static struct bpf_insn filter[4096];   /* BPF_MAXINSNS */

/* In the task, before its execve: the container's filter from fd. */
static void load_filter(sl fd, ul flags)
{
	struct bpf_prog prog;
	sl n;

	if (fd < 0)
		return;
	n = sys6(NR_pread64, fd, (sl)filter, sizeof(filter), 0, 0, 0);
	sys(NR_close, fd, 0, 0);
	prog.len = (unsigned short)(n / (sl)sizeof(filter[0]));
	prog.filter = filter;
	if (n <= 0 || n % (sl)sizeof(filter[0]) || sys(NR_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, flags, &prog) < 0) {
		say("tinyrun-init: seccomp: loading the filter failed\n");
		sys(NR_exit, 127, 0, 0);
	}
}

static int exit_code(int st)
{
	if ((st & 0x7f) == 0)
		return (st >> 8) & 0xff;
	return 128 + (st & 0x7f);
}

__attribute__((noreturn, used)) void init_main(sl *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
	ul all = ~0UL, old = 0;
	sl status_fd, filter_fd, sfd, task, started;
	ul filter_flags;

	if (argc < 6) {
		say("tinyrun-init: usage: tinyrun-init STATUS_FD FILTER_FD FILTER_FLAGS EXE ARG0 [ARG...]\n");
		die(127);
	}
	status_fd = parse_fd(argv[1]);
	filter_fd = parse_fd(argv[2]);
	filter_flags = (ul)parse_fd(argv[3]);
	/* no ptrace, no /proc/1/{fd,mem,environ} for the task (same uid) */
	sys(NR_prctl, PR_SET_DUMPABLE, 0, 0);
	sys6(NR_rt_sigprocmask, SIG_BLOCK, (sl)&all, (sl)&old, 8, 0, 0);
	sfd = sys6(NR_signalfd4, -1, (sl)&all, 8, SFD_CLOEXEC, 0, 0);
	if (sfd < 0) {
		say("tinyrun-init: signalfd failed\n");
		die(127);
	}
	started = now_ms();
	task = sys6(NR_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (task < 0) {
		say("tinyrun-init: fork failed\n");
		die(127);
	}
	if (task == 0) {
		if (status_fd >= 0)
			sys(NR_close, status_fd, 0, 0);
		sys6(NR_rt_sigprocmask, SIG_SETMASK, (sl)&old, 0, 8, 0, 0);
		load_filter(filter_fd, filter_flags);
		sys(NR_execve, argv[4], argv + 5, envp);
		say("tinyrun-init: exec ");
		say(argv[4]);
		say(" failed\n");
		sys(NR_exit, 127, 0, 0);
	}
	if (filter_fd >= 0)
		sys(NR_close, filter_fd, 0, 0);
	for (;;) {
		struct sfd_info si;
		struct k_rusage ru;
		int st;
		sl w;

		if (sys(NR_read, sfd, &si, sizeof(si)) != (sl)sizeof(si))
			continue;
		if (si.signo != SIGCHLD) {
			if (from_outside(&si))
				sys(NR_kill, task, si.signo, 0);
			continue;
		}
		while ((w = sys6(NR_wait4, -1, (sl)&st, WNOHANG, (sl)&ru, 0, 0)) > 0) {
			if (w != task)
				continue;
			report(status_fd, st, now_ms() - started, &ru);
			die(exit_code(st));
		}
	}
}
