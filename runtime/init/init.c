/* tinyrun-init: the container's PID 1 when the config has the annotation
 * run.tinyrun.init=true. Freestanding (no libc, x86_64 and aarch64 raw
 * syscalls), static, a few KiB: built by the Makefile, embedded in tinyrun
 * (runtime/container/init-image.c) and exec'd from a sealed memfd after the
 * whole set-up (setup.h), so /proc/1/exe is a sealed anonymous file, not
 * the host's tinyrun.
 *
 *   argv: tinyrun-init STATUS_FD FILTER_FD FILTER_FLAGS WALL_MS CPU_MS CPU_FD
 *                      CPU_KIND EXE ARG0 ARG1 ...
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
 * exits with the task's code, or 128+N when the task was killed by N.
 *
 * The time limits (runtime/sandbox/limits.h; "-" for none): WALL_MS, the
 * task's wall time from now (0: its request's deadline passed before it
 * started, so it does not start); CPU_MS, the CPU time of all the task's
 * processes together, read from CPU_FD (the container's cgroup usage file,
 * of kind CPU_KIND: init_args.h; opened by tinyrun, which the minimal root
 * cannot reach) every tenth of the limit (10 to 100 ms), counted from now.
 * An ITIMER_REAL (SIGALRM from the kernel, SI_KERNEL: the task cannot send
 * one) wakes the loop for the deadline or the next check. At a limit the
 * init kills every process of the pid namespace (kill -1; it then exits,
 * so the kernel kills whatever that missed), writes "9 timeout" or "9
 * cpu-time" (killed by SIGKILL, and why) and exits 137. A task killed by
 * SIGXCPU under a CPU limit (RLIMIT_CPU, set by tinyrun) is "cpu-time" too.
 *
 * The record (runtime/container/result.h reads it): "STATUS WALL_MS NVCSW
 * NIVCSW UTIME_US STIME_US[ LIMIT]\n", the task's wall time in ms (from the
 * start to its reaping) and its wait4 rusage (voluntary and involuntary
 * context switches, user and system CPU time in us), then the time limit
 * that ended it; "STATUS LIMIT\n" alone when the task never started. */

#include "rawsys.h"
#include "init_args.h"

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
#define NR_setitimer 38
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
#define NR_setitimer 103
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
#define SI_KERNEL 0x80
#define SIGKILL 9
#define SIGALRM 14
#define SIGXCPU 24
#define CLOCK_MONOTONIC 1
#define ITIMER_REAL 0

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

/* decimal v before *p */
static char *put_num(char *p, unsigned long v)
{
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	return p;
}

/* "STATUS[ WALL_MS NVCSW NIVCSW UTIME_US STIME_US][ LIMIT]\n": the rusage
 * part once the task was reaped (ru), LIMIT when a time limit ended it */
static void report(sl fd, int status, sl wall_ms, const struct k_rusage *ru, const char *limit)
{
	char buf[192], *p = buf + 160, *e = p;

	if (fd < 0)
		return;
	if (limit)
		for (*e++ = ' '; *limit && e < buf + sizeof(buf) - 1; )
			*e++ = *limit++;
	*e++ = '\n';
	if (ru) {
		unsigned long v[5] = { (ul)wall_ms, (ul)ru->nvcsw, (ul)ru->nivcsw,
				       (ul)(ru->utime_sec * 1000000 + ru->utime_usec),
				       (ul)(ru->stime_sec * 1000000 + ru->stime_usec) };

		for (int i = 4; i >= 0; i--) {
			p = put_num(p, v[i]);
			*--p = ' ';
		}
	}
	p = put_num(p, (unsigned int)status);
	sys6(NR_pwrite64, fd, (sl)p, e - p, 0, 0, 0);
	sys(NR_close, fd, 0, 0);
}

/* ---- the time limits ---------------------------------------------------- */

struct limits {
	sl deadline;                   /* CLOCK_MONOTONIC ms, -1: none */
	sl cpu_ns, cpu_base, poll_ms;  /* the CPU limit (-1: none), the usage at start, how often */
	sl cpu_fd;
	int cpu_kind;
};

static sl now_ms(void)
{
	struct { sl sec, nsec; } ts;

	if (sys(NR_clock_gettime, CLOCK_MONOTONIC, &ts, 0) < 0)
		return -1;
	return ts.sec * 1000 + ts.nsec / 1000000;
}

static sl cpu_used(const struct limits *l)
{
	char buf[1024];
	sl n = sys6(NR_pread64, l->cpu_fd, (sl)buf, sizeof(buf), 0, 0, 0);

	return n > 0 ? init_cpu_usage_ns(buf, n, l->cpu_kind) : -1;
}

/* The limit the task has reached, or 0. */
static const char *reached(const struct limits *l)
{
	if (l->deadline >= 0 && now_ms() >= l->deadline)
		return INIT_LIMIT_WALL;
	if (l->cpu_ns >= 0 && cpu_used(l) - l->cpu_base >= l->cpu_ns)
		return INIT_LIMIT_CPU;
	return 0;
}

/* The next SIGALRM: at the deadline or the next CPU check. <0: failed. */
static sl arm(const struct limits *l)
{
	struct { sl isec, iusec, sec, usec; } it = { 0, 0, 0, 0 };
	sl ms = l->cpu_ns >= 0 ? l->poll_ms : -1, left;

	if (l->deadline >= 0) {
		left = l->deadline - now_ms();
		if (left < 1)
			left = 1;
		if (ms < 0 || left < ms)
			ms = left;
	}
	if (ms < 0)
		return 0;
	it.sec = ms / 1000;
	it.usec = ms % 1000 * 1000;
	return sys(NR_setitimer, ITIMER_REAL, &it, 0);
}

/* WALL_MS CPU_MS CPU_FD CPU_KIND, counted from NOW; 0, or -1 when a limit
 * cannot be watched */
static int limits_start(struct limits *l, char **a, sl now)
{
	sl wall = parse_fd(a[0]), cpu = parse_fd(a[1]);

	l->cpu_fd = parse_fd(a[2]);
	l->cpu_kind = (int)parse_fd(a[3]);
	l->deadline = wall >= 0 ? now + wall : -1;
	l->cpu_ns = cpu >= 0 ? cpu * 1000000 : -1;
	l->poll_ms = cpu / 10 < 10 ? 10 : cpu / 10 > 100 ? 100 : cpu / 10;
	if ((wall >= 0 || cpu >= 0) && now < 0)
		return -1;
	if (cpu >= 0 && (l->cpu_base = cpu_used(l)) < 0)
		return -1;
	return arm(l) < 0 ? -1 : 0;
}

/* Killed by SIGXCPU: RLIMIT_CPU's (its tick-based count may reach the
 * limit a few ms before the cgroup's usage does) */
static const char *cpu_ended(const struct limits *l, int st)
{
	return (st & 0x7f) == SIGXCPU && l->cpu_ns >= 0 ? INIT_LIMIT_CPU : 0;
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
	struct limits lim;
	const char *limit;

	if (argc < 10) {
		say("tinyrun-init: usage: tinyrun-init STATUS_FD FILTER_FD FILTER_FLAGS WALL_MS CPU_MS CPU_FD CPU_KIND "
		    "EXE ARG0 [ARG...]\n");
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
	/* the clock starts here, when the container starts: the limits' and
	 * the record's wall time alike */
	started = now_ms();
	if (limits_start(&lim, argv + 4, started) < 0) {
		say("tinyrun-init: the time limits: cannot read the clock, the CPU usage or set a timer\n");
		die(127);
	}
	if ((limit = reached(&lim))) {   /* the request's deadline passed: no task */
		report(status_fd, SIGKILL, 0, 0, limit);
		die(128 + SIGKILL);
	}
	task = sys6(NR_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (task < 0) {
		say("tinyrun-init: fork failed\n");
		die(127);
	}
	if (task == 0) {
		if (status_fd >= 0)
			sys(NR_close, status_fd, 0, 0);
		if (lim.cpu_fd >= 0)
			sys(NR_close, lim.cpu_fd, 0, 0);
		sys6(NR_rt_sigprocmask, SIG_SETMASK, (sl)&old, 0, 8, 0, 0);
		load_filter(filter_fd, filter_flags);
		sys(NR_execve, argv[8], argv + 9, envp);
		say("tinyrun-init: exec ");
		say(argv[8]);
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
		/* the timer of the time limits: kill the namespace at one */
		if (si.signo == SIGALRM && si.code == SI_KERNEL) {
			if ((limit = reached(&lim))) {
				struct k_rusage ru;
				int st = SIGKILL;

				sys(NR_kill, -1, SIGKILL, 0);
				/* the task, killed: its rusage for the record */
				if (sys6(NR_wait4, task, (sl)&st, 0, (sl)&ru, 0, 0) == task)
					report(status_fd, st, now_ms() - started, &ru, limit);
				else
					report(status_fd, SIGKILL, 0, 0, limit);
				die(128 + SIGKILL);
			}
			arm(&lim);
			continue;
		}
		if (si.signo != SIGCHLD) {
			if (from_outside(&si))
				sys(NR_kill, task, si.signo, 0);
			continue;
		}
		while ((w = sys6(NR_wait4, -1, (sl)&st, WNOHANG, (sl)&ru, 0, 0)) > 0) {
			if (w != task)
				continue;
			report(status_fd, st, now_ms() - started, &ru, cpu_ended(&lim, st));
			die(exit_code(st));
		}
	}
}
