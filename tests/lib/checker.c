/* checker: the static probe run inside the test containers of both suites
 * (the tests/ bats suites and tests/conformance/), and a few host-side helpers.
 * Built static so it runs in any rootfs.  Run it as process.args[0] itself:
 * any exec in between (sh -c) recomputes the capability sets.
 *
 * Two output modes, one line per answer:
 *
 * Key mode (the tests/ bats suites): checker [-o FILE] [KEY...]
 *   chosen without arguments, with -o FILE, or when an argument is a
 *   key-only name below.  Prints "KEY=VALUE" for each wanted key (all keys
 *   without arguments; a KEY ending in '.' is a prefix) in a fixed order,
 *   to FILE with -o.  Keys: pid ppid uid euid suid gid egid sgid groups umask
 *   cwd hostname domainname CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs
 *   Seccomp oom_score_adj fds rlimit.<NAME> (e.g. rlimit.NOFILE=1024:2048).
 *   Capability sets print as sorted names (CAP_KILL,CAP_CHOWN...), empty
 *   when none; groups and fds as comma-separated numbers.  Key-only names
 *   are all but pid ppid umask cwd hostname domainname fds, which answer the
 *   same in both modes.
 *
 * Query mode (the conformance suite): each argument is one query; the answer
 * is printed as one or more lines "QUERY=VALUE" (errors as
 * "QUERY=ERR:<errno name>"), in argument order, so a test greps the line of
 * the query it asked.  Queries (ARG parts are separated by ':'):
 *   status:FIELD      field of /proc/self/status (CapEff, NoNewPrivs, Seccomp...)
 *   rlimit:NAME       "soft hard" of RLIMIT_NAME (NOFILE, CORE...), "unlimited" for infinity
 *   umask  cwd  ids  pid  ppid  nnp  hostname  domainname  machine  personality
 *   oom  sched  ioprio  procs  fds  env (one line per variable)
 *   file:PATH         each line of the file
 *   sysctl:KEY        /proc/sys/KEY with dots as slashes
 *   ns:TYPE           readlink /proc/self/ns/TYPE
 *   link:PATH         readlink PATH
 *   stat:PATH         lstat: "type=c mode=0666 uid=0 gid=0 rdev=1:3 size=N"
 *   mount:PATH        the top mount at PATH from mountinfo:
 *                     "fstype=F opts=O super=S tags=T root=R source=SRC"
 *   read:PATH         read up to 64 KiB: "ok N" (N bytes) or ERR
 *   readdir:PATH      entries (sorted, without . and ..) joined by ','
 *   write:PATH        open O_WRONLY|O_CREAT|O_APPEND, write "x\n"
 *   open:PATH:MODE    open with r, w or rw (O_NONBLOCK), then close
 *   mkdir:PATH  touch:PATH  exec:PATH (fork+execve, "ok STATUS" or ERR)
 *   isatty:FD         "yes TTYNAME" or "no"
 *   winsize:FD        "ROWS COLS"
 *   clock:NAME        seconds of CLOCK_MONOTONIC / CLOCK_BOOTTIME
 *   sys:NAME[:ARG]    raw syscall getcwd, getpgid:N, getppid, mkdirat... -> "ret=R errno=E"
 *                     also setuid:N setgid:N setgroups:G chroot:PATH mount:PATH
 *                     sethostname unshare:FLAGS (the privileges a sandbox lacks)
 *   echo:TEXT  sleep:SECS  pause  exit:N
 *   spin:SECS         burn SECS (a decimal) of this process's CPU time: "ok"
 *   notify:TEXT       one datagram TEXT (each "\\n" a newline) to $NOTIFY_SOCKET: "ok" or ERR
 *   waitsig           wait for any signal; print "waitsig=SIGNUM" and exit 0
 *
 * Hook mode: when argv[0] is "conformance-hook", the checker is an OCI hook:
 *   conformance-hook DIR [see:PATH] [sleep:N] [exit:N]
 * it creates DIR and records argv.txt, env.txt, stdin.json (the state),
 * self.txt (its mnt/pid/net/uts namespaces and root, "see:PATH=yes|no"
 * for each see:PATH argument), target.txt (for the
 * state's pid: alive, root, cmdline, mnt namespace, "see:PATH=yes|no" as
 * /proc/PID/root/PATH), appends DIR's name to
 * DIR/../order, then sleeps/exits as asked (writing done.txt before exit).
 *
 * Host-side helper modes (first argument):
 *   checker recvtty SOCKET OUTFILE       console-socket receiver: copies the pty master to OUTFILE
 *   checker notify-recv SOCKET OUTFILE   NOTIFY_SOCKET receiver: binds SOCKET (datagrams; @NAME is
 *                                        an abstract name), appends
 *                                        each one to OUTFILE followed by a line "--"; until killed
 *   checker seccomp-agent SOCKET OUTFILE seccomp listener: saves the container process state,
 *                                        then answers every notification with errno ENOMSG(42)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/ioprio.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void out(const char *q, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "%s=", q);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		_exit(3);
}

static void err(const char *q, int e)
{
	const char *name = strerrorname_np(e);
	out(q, "ERR:%s", name ? name : "unknown");
}

/* argument N (1-based) of a query "name:a1:a2"; the last argument a query
 * takes (n == last) runs to the end of the string, so paths may hold ':' */
static const char *qarg(const char *q, int n, char *buf, size_t size)
{
	const char *p = q;
	for (int i = 0; i < n; i++) {
		p = strchr(p, ':');
		if (!p)
			return NULL;
		p++;
	}
	size_t len = strlen(p);
	const char *c = strchr(p, ':');
	int split = !strncmp(q, "open:", 5) || !strncmp(q, "sys:", 4);
	if (c && split)
		len = c - p;
	if (len >= size)
		len = size - 1;
	memcpy(buf, p, len);
	buf[len] = 0;
	return buf;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0 || n + r >= size - 1) {
			n += r;
			break;
		}
		n += r;
	}
	close(fd);
	buf[n] = 0;
	return (int)n;
}

static const struct { const char *name; int res; } rlimits[] = {
	{ "CPU", RLIMIT_CPU }, { "FSIZE", RLIMIT_FSIZE }, { "DATA", RLIMIT_DATA },
	{ "STACK", RLIMIT_STACK }, { "CORE", RLIMIT_CORE }, { "RSS", RLIMIT_RSS },
	{ "NPROC", RLIMIT_NPROC }, { "NOFILE", RLIMIT_NOFILE },
	{ "MEMLOCK", RLIMIT_MEMLOCK }, { "AS", RLIMIT_AS }, { "LOCKS", RLIMIT_LOCKS },
	{ "SIGPENDING", RLIMIT_SIGPENDING }, { "MSGQUEUE", RLIMIT_MSGQUEUE },
	{ "NICE", RLIMIT_NICE }, { "RTPRIO", RLIMIT_RTPRIO }, { "RTTIME", RLIMIT_RTTIME },
};

static void q_rlimit(const char *q)
{
	char name[64];
	if (!qarg(q, 1, name, sizeof(name)))
		return err(q, EINVAL);
	const char *n = strncmp(name, "RLIMIT_", 7) == 0 ? name + 7 : name;
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++) {
		if (strcmp(rlimits[i].name, n))
			continue;
		struct rlimit rl;
		if (getrlimit(rlimits[i].res, &rl) < 0)
			return err(q, errno);
		char s[32], h[32];
		if (rl.rlim_cur == RLIM_INFINITY)
			strcpy(s, "unlimited");
		else
			snprintf(s, sizeof(s), "%llu", (unsigned long long)rl.rlim_cur);
		if (rl.rlim_max == RLIM_INFINITY)
			strcpy(h, "unlimited");
		else
			snprintf(h, sizeof(h), "%llu", (unsigned long long)rl.rlim_max);
		return out(q, "%s %s", s, h);
	}
	err(q, EINVAL);
}

static void q_status(const char *q)
{
	char field[64], buf[16384];
	if (!qarg(q, 1, field, sizeof(field)))
		return err(q, EINVAL);
	int n = read_file("/proc/self/status", buf, sizeof(buf));
	if (n < 0)
		return err(q, -n);
	size_t fl = strlen(field);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
			char *v = line + fl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			for (char *t = v; *t; t++)
				if (*t == '\t')
					*t = ' ';
			return out(q, "%s", v);
		}
	}
	err(q, ENOENT);
}

static void q_file(const char *q, const char *path)
{
	static char buf[65536];
	int n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return err(q, -n);
	if (n == 0)
		return out(q, "%s", "");
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		out(q, "%s", line);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void q_readdir(const char *q, const char *path, int numeric_only)
{
	DIR *d = opendir(path);
	if (!d)
		return err(q, errno);
	char *names[4096];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 4096) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (numeric_only && !isdigit((unsigned char)de->d_name[0]))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmpstr);
	static char buf[65536];
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "", names[i]);
		free(names[i]);
		if (len >= sizeof(buf))
			break;
	}
	out(q, "%s", buf);
}

static void q_fds(const char *q)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return err(q, errno);
	int self = dirfd(d);
	char buf[4096];
	size_t len = 0;
	buf[0] = 0;
	int fds[1024], n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 1024) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		int fd = atoi(de->d_name);
		if (fd != self)
			fds[n++] = fd;
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (fds[j] < fds[i]) {
				int t = fds[i];
				fds[i] = fds[j];
				fds[j] = t;
			}
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? "," : "", fds[i]);
	out(q, "%s", buf);
}

static void q_stat(const char *q, const char *path, int follow)
{
	struct stat st;
	if ((follow ? stat(path, &st) : lstat(path, &st)) < 0)
		return err(q, errno);
	char t = '?';
	switch (st.st_mode & S_IFMT) {
	case S_IFCHR: t = 'c'; break;
	case S_IFBLK: t = 'b'; break;
	case S_IFIFO: t = 'p'; break;
	case S_IFDIR: t = 'd'; break;
	case S_IFREG: t = 'f'; break;
	case S_IFLNK: t = 'l'; break;
	case S_IFSOCK: t = 's'; break;
	}
	out(q, "type=%c mode=%04o uid=%u gid=%u rdev=%u:%u size=%lld", t,
	    (unsigned)(st.st_mode & 07777), st.st_uid, st.st_gid, major(st.st_rdev),
	    minor(st.st_rdev), (long long)st.st_size);
}

/* mountinfo: id parent maj:min root mountpoint opts tags... - fstype source super */
static void q_mount(const char *q, const char *path)
{
	static char buf[262144];
	int n = read_file("/proc/self/mountinfo", buf, sizeof(buf));
	if (n < 0)
		return err(q, -n);
	char found[4096] = "";
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char root[1024], mp[1024], opts[1024], rest[2048];
		if (sscanf(line, "%*d %*d %*s %1023s %1023s %1023s %2047[^\n]", root, mp, opts,
			   rest) != 4)
			continue;
		if (strcmp(mp, path))
			continue;
		char *dash = strncmp(rest, "- ", 2) == 0 ? rest - 1 : strstr(rest, " - ");
		char tags[1024] = "";
		char fstype[256] = "", source[1024] = "", super[1024] = "";
		if (!dash)
			continue;
		size_t tl = dash < rest ? 0 : (size_t)(dash - rest);
		if (tl >= sizeof(tags))
			tl = sizeof(tags) - 1;
		memcpy(tags, rest, tl);
		tags[tl] = 0;
		for (char *c = tags; *c; c++)
			if (*c == ' ')
				*c = ',';
		sscanf(dash + 3, "%255s %1023s %1023s", fstype, source, super);
		snprintf(found, sizeof(found), "fstype=%s opts=%s super=%s tags=%s root=%s source=%s",
			 fstype, opts, super, tags[0] ? tags : "-", root, source);
	}
	if (!found[0])
		return err(q, ENOENT);
	out(q, "%s", found);
}

static void q_exec(const char *q, const char *path)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return err(q, errno);
	pid_t pid = fork();
	if (pid < 0)
		return err(q, errno);
	if (pid == 0) {
		char *argv[] = {(char *)path, "exit:0", NULL};
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execve(path, argv, environ);
		int e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	int e = 0;
	ssize_t r = read(p[0], &e, sizeof(e));
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	if (r == sizeof(e))
		return err(q, e);
	out(q, "ok %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static const char *policy_name(int p)
{
	switch (p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
	}
	return "unknown";
}

static volatile sig_atomic_t got_sig;
static void on_sig(int s) { got_sig = s; }

static void on_sigsys(int s)
{
	(void)s;
	static const char m[] = "signal=SIGSYS\n";
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(3);
}

static void wait_any_signal(void)
{
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP && s != SIGSYS && s != SIGCHLD)
			signal(s, on_sig);
	while (!got_sig)
		pause();
}

static long do_sys(const char *q)
{
	char name[64], a1[64];
	if (!qarg(q, 1, name, sizeof(name)))
		return -EINVAL;
	const char *arg = qarg(q, 2, a1, sizeof(a1));
	long v = arg ? strtol(arg, NULL, 0) : 0;
	char cwd[512];
	errno = 0;
	if (!strcmp(name, "getcwd"))
		return syscall(SYS_getcwd, cwd, sizeof(cwd));
	if (!strcmp(name, "getpgid"))
		return syscall(SYS_getpgid, v);
	if (!strcmp(name, "getppid"))
		return syscall(SYS_getppid);
	if (!strcmp(name, "getpriority"))
		return syscall(SYS_getpriority, PRIO_PROCESS, v);
	if (!strcmp(name, "mkdirat"))
		return syscall(SYS_mkdirat, AT_FDCWD, arg ? arg : "/tmp/x", 0755);
	if (!strcmp(name, "chdir"))
		return syscall(SYS_chdir, arg ? arg : "/");
	if (!strcmp(name, "uname")) {
		struct utsname u;
		return syscall(SYS_uname, &u);
	}
	/* privileges a sandbox must not have (tests/sandbox.bats) */
	if (!strcmp(name, "setuid"))
		return syscall(SYS_setuid, v);
	if (!strcmp(name, "setgid"))
		return syscall(SYS_setgid, v);
	if (!strcmp(name, "setgroups")) {
		gid_t g = (gid_t)v;
		return syscall(SYS_setgroups, 1, &g);
	}
	if (!strcmp(name, "chroot"))
		return syscall(SYS_chroot, arg ? arg : "/");
	if (!strcmp(name, "mount"))
		return syscall(SYS_mount, "none", arg ? arg : "/tmp", "tmpfs", 0, NULL);
	if (!strcmp(name, "sethostname"))
		return syscall(SYS_sethostname, "escaped", 7);
	if (!strcmp(name, "unshare"))
		return syscall(SYS_unshare, v);
	errno = ENOSYS;
	return -1;
}

static int notify_send(const char *text);

static void query(const char *q)
{
	char a[4096], b[64];
	if (!strcmp(q, "umask")) {
		mode_t m = umask(0);
		umask(m);
		out(q, "%04o", (unsigned)m);
	} else if (!strcmp(q, "cwd")) {
		if (!getcwd(a, sizeof(a)))
			return err(q, errno);
		out(q, "%s", a);
	} else if (!strcmp(q, "ids")) {
		gid_t g[256];
		int n = getgroups(256, g);
		size_t len = 0;
		a[0] = 0;
		for (int i = 0; i < n; i++)
			len += snprintf(a + len, sizeof(a) - len, "%s%u", i ? "," : "", g[i]);
		out(q, "uid=%u gid=%u euid=%u egid=%u groups=%s", getuid(), getgid(), geteuid(),
		    getegid(), a);
	} else if (!strcmp(q, "pid")) {
		out(q, "%d", getpid());
	} else if (!strcmp(q, "ppid")) {
		out(q, "%d", getppid());
	} else if (!strcmp(q, "nnp")) {
		out(q, "%d", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	} else if (!strcmp(q, "hostname") || !strcmp(q, "domainname") || !strcmp(q, "machine")) {
		struct utsname u;
		uname(&u);
		out(q, "%s", q[0] == 'h' ? u.nodename : q[0] == 'd' ? u.domainname : u.machine);
	} else if (!strcmp(q, "personality")) {
		out(q, "0x%x", personality(0xffffffff));
	} else if (!strcmp(q, "oom")) {
		q_file(q, "/proc/self/oom_score_adj");
	} else if (!strcmp(q, "sched")) {
		int p = sched_getscheduler(0);
		struct sched_param sp = {0};
		sched_getparam(0, &sp);
		errno = 0;
		int nice = getpriority(PRIO_PROCESS, 0);
		out(q, "policy=%s priority=%d nice=%d reset_on_fork=%d", policy_name(p),
		    sp.sched_priority, nice, !!(p & SCHED_RESET_ON_FORK));
	} else if (!strcmp(q, "ioprio")) {
		long v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
		if (v < 0)
			return err(q, errno);
		out(q, "class=%ld prio=%ld", (long)IOPRIO_PRIO_CLASS(v), (long)IOPRIO_PRIO_DATA(v));
	} else if (!strcmp(q, "procs")) {
		q_readdir(q, "/proc", 1);
	} else if (!strcmp(q, "fds")) {
		q_fds(q);
	} else if (!strcmp(q, "env")) {
		for (char **e = environ; *e; e++)
			out(q, "%s", *e);
	} else if (!strncmp(q, "status:", 7)) {
		q_status(q);
	} else if (!strncmp(q, "rlimit:", 7)) {
		q_rlimit(q);
	} else if (!strncmp(q, "file:", 5)) {
		q_file(q, qarg(q, 1, a, sizeof(a)));
	} else if (!strncmp(q, "sysctl:", 7)) {
		char p[4200];
		qarg(q, 1, a, sizeof(a));
		for (char *c = a; *c; c++)
			if (*c == '.')
				*c = '/';
		snprintf(p, sizeof(p), "/proc/sys/%s", a);
		q_file(q, p);
	} else if (!strncmp(q, "ns:", 3) || !strncmp(q, "link:", 5)) {
		char p[4200], l[4096];
		qarg(q, 1, a, sizeof(a));
		if (q[0] == 'n')
			snprintf(p, sizeof(p), "/proc/self/ns/%s", a);
		else
			snprintf(p, sizeof(p), "%s", a);
		ssize_t n = readlink(p, l, sizeof(l) - 1);
		if (n < 0)
			return err(q, errno);
		l[n] = 0;
		out(q, "%s", l);
	} else if (!strncmp(q, "stat:", 5)) {
		q_stat(q, qarg(q, 1, a, sizeof(a)), 0);
	} else if (!strncmp(q, "statf:", 6)) {
		q_stat(q, qarg(q, 1, a, sizeof(a)), 1);
	} else if (!strncmp(q, "mount:", 6)) {
		q_mount(q, qarg(q, 1, a, sizeof(a)));
	} else if (!strncmp(q, "read:", 5)) {
		static char buf[65536];
		int n = read_file(qarg(q, 1, a, sizeof(a)), buf, sizeof(buf));
		if (n < 0)
			return err(q, -n);
		out(q, "ok %d", n);
	} else if (!strncmp(q, "readdir:", 8)) {
		q_readdir(q, qarg(q, 1, a, sizeof(a)), 0);
	} else if (!strncmp(q, "write:", 6)) {
		int fd = open(qarg(q, 1, a, sizeof(a)), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return err(q, errno);
		if (write(fd, "x\n", 2) != 2) {
			int e = errno;
			close(fd);
			return err(q, e);
		}
		close(fd);
		out(q, "ok");
	} else if (!strncmp(q, "open:", 5)) {
		qarg(q, 1, a, sizeof(a));
		qarg(q, 2, b, sizeof(b));
		int fl = !strcmp(b, "w") ? O_WRONLY : !strcmp(b, "rw") ? O_RDWR : O_RDONLY;
		int fd = open(a, fl | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return err(q, errno);
		close(fd);
		out(q, "ok");
	} else if (!strncmp(q, "mkdir:", 6)) {
		if (mkdir(qarg(q, 1, a, sizeof(a)), 0755) < 0)
			return err(q, errno);
		out(q, "ok");
	} else if (!strncmp(q, "touch:", 6)) {
		int fd = open(qarg(q, 1, a, sizeof(a)), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return err(q, errno);
		close(fd);
		out(q, "ok");
	} else if (!strncmp(q, "exec:", 5)) {
		q_exec(q, qarg(q, 1, a, sizeof(a)));
	} else if (!strncmp(q, "isatty:", 7)) {
		int fd = atoi(qarg(q, 1, a, sizeof(a)));
		if (!isatty(fd))
			return out(q, "no");
		char *n = ttyname(fd);
		out(q, "yes %s", n ? n : "?");
	} else if (!strncmp(q, "winsize:", 8)) {
		struct winsize ws;
		if (ioctl(atoi(qarg(q, 1, a, sizeof(a))), TIOCGWINSZ, &ws) < 0)
			return err(q, errno);
		out(q, "%u %u", ws.ws_row, ws.ws_col);
	} else if (!strncmp(q, "clock:", 6)) {
		qarg(q, 1, a, sizeof(a));
		struct timespec ts;
		clockid_t c = !strcmp(a, "boottime") ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
		clock_gettime(c, &ts);
		out(q, "%lld", (long long)ts.tv_sec);
	} else if (!strncmp(q, "sys:", 4)) {
		long r = do_sys(q);
		int e = errno;
		const char *n = e ? strerrorname_np(e) : "0";
		out(q, "ret=%ld errno=%s", r, n ? n : "unknown");
	} else if (!strncmp(q, "echo:", 5)) {
		out(q, "%s", q + 5);
	} else if (!strncmp(q, "notify:", 7)) {
		if (notify_send(q + 7) < 0)
			return err(q, errno);
		out(q, "ok");
	} else if (!strncmp(q, "sleep:", 6)) {
		sleep(atoi(q + 6));
		out(q, "ok");
	} else if (!strncmp(q, "spin:", 5)) {   /* burn SECS of this process's CPU time */
		struct timespec ts;
		double secs = atof(q + 5);
		do
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		while (ts.tv_sec + ts.tv_nsec / 1e9 < secs);
		out(q, "ok");
	} else if (!strcmp(q, "pause")) {
		for (;;)
			pause();
	} else if (!strncmp(q, "exit:", 5)) {
		_exit(atoi(q + 5));
	} else if (!strcmp(q, "waitsig")) {
		wait_any_signal();
		out(q, "%d", (int)got_sig);
		_exit(0);
	} else {
		err(q, ENOSYS);
	}
}

/* ---- key mode (the tests/ bats suites) ---- */

static const char *cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

/* the key-only names (and the rlimit. prefix): one of them selects key mode */
static const char *const kv_only_keys[] = {
	"uid", "euid", "suid", "gid", "egid", "sgid", "groups", "CapInh", "CapPrm",
	"CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "oom_score_adj",
};

static int kv_nkeys;
static char **kv_keys;
static FILE *kv_out;

static int kv_is_key_only(const char *arg)
{
	if (!strncmp(arg, "rlimit.", 7))
		return 1;
	for (size_t i = 0; i < sizeof(kv_only_keys) / sizeof(kv_only_keys[0]); i++)
		if (!strcmp(arg, kv_only_keys[i]))
			return 1;
	return 0;
}

static int kv_wanted(const char *key)
{
	if (kv_nkeys == 0)
		return 1;
	for (int i = 0; i < kv_nkeys; i++) {
		size_t n = strlen(kv_keys[i]);

		if (strcmp(kv_keys[i], key) == 0)
			return 1;
		if (n && kv_keys[i][n - 1] == '.' && strncmp(kv_keys[i], key, n) == 0)
			return 1;
	}
	return 0;
}

static void kv_put(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void kv_put(const char *key, const char *fmt, ...)
{
	va_list ap;

	if (!kv_wanted(key))
		return;
	fprintf(kv_out, "%s=", key);
	va_start(ap, fmt);
	vfprintf(kv_out, fmt, ap);
	va_end(ap);
	fputc('\n', kv_out);
}

static void kv_put_caps(const char *key, uint64_t mask)
{
	char buf[2048] = "";
	size_t len = 0;

	for (unsigned i = 0; i < 64; i++) {
		char num[16];
		const char *name;

		if (!(mask & (1ULL << i)))
			continue;
		if (i < sizeof(cap_names) / sizeof(cap_names[0])) {
			name = cap_names[i];
		} else {
			snprintf(num, sizeof(num), "CAP_%u", i);
			name = num;
		}
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "", name);
	}
	kv_put(key, "%s", buf);
}

/* Lines of /proc/self/status this mode reports. */
static void kv_status_fields(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[512];

	if (!f) {
		kv_put("status_error", "%s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *val;

		if (!colon)
			continue;
		*colon = 0;
		val = colon + 1;
		val += strspn(val, " \t");
		val[strcspn(val, "\n")] = 0;
		if (strncmp(line, "Cap", 3) == 0)
			kv_put_caps(line, strtoull(val, NULL, 16));
		else if (!strcmp(line, "NoNewPrivs") || !strcmp(line, "Seccomp") ||
			 !strcmp(line, "Umask"))
			kv_put(strcmp(line, "Umask") ? line : "umask", "%s", val);
	}
	fclose(f);
}

static void kv_ids(void)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[256];
	char buf[4096] = "";
	size_t len = 0;
	int n;

	getresuid(&ru, &eu, &su);
	getresgid(&rg, &eg, &sg);
	kv_put("uid", "%u", ru);
	kv_put("euid", "%u", eu);
	kv_put("suid", "%u", su);
	kv_put("gid", "%u", rg);
	kv_put("egid", "%u", eg);
	kv_put("sgid", "%u", sg);
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "," : "", groups[i]);
	kv_put("groups", "%s", buf);
}

static void kv_limits(void)
{
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++) {
		struct rlimit rl;
		char key[32], soft[32], hard[32];

		if (getrlimit(rlimits[i].res, &rl) < 0)
			continue;
		snprintf(key, sizeof(key), "rlimit.%s", rlimits[i].name);
		if (rl.rlim_cur == RLIM_INFINITY)
			strcpy(soft, "unlimited");
		else
			snprintf(soft, sizeof(soft), "%llu", (unsigned long long)rl.rlim_cur);
		if (rl.rlim_max == RLIM_INFINITY)
			strcpy(hard, "unlimited");
		else
			snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
		kv_put(key, "%s:%s", soft, hard);
	}
}

/* Open fds, not counting the directory stream used to list them nor the
 * output file of -o. */
static void kv_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	char buf[4096] = "";
	size_t len = 0;
	int nums[1024], n = 0;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && n < 1024) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d) || (kv_out != stdout && fd == fileno(kv_out)))
			continue;
		nums[n++] = fd;
	}
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
			int t = nums[j];
			nums[j] = nums[j - 1];
			nums[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? "," : "", nums[i]);
	kv_put("fds", "%s", buf);
}

static void kv_misc(void)
{
	char buf[4096];
	struct utsname u;
	FILE *f;

	kv_put("pid", "%d", getpid());
	kv_put("ppid", "%d", getppid());
	if (getcwd(buf, sizeof(buf)))
		kv_put("cwd", "%s", buf);
	if (uname(&u) == 0) {
		kv_put("hostname", "%s", u.nodename);
		kv_put("domainname", "%s", u.domainname);
	}
	f = fopen("/proc/self/oom_score_adj", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			kv_put("oom_score_adj", "%s", buf);
		}
		fclose(f);
	}
}

/* key mode: KEY... are argv[first..argc-1]; returns the exit status */
static int key_mode(int argc, char **argv, int first)
{
	kv_keys = argv + first;
	kv_nkeys = argc - first;
	kv_fds(); /* first: before stdio opens anything of its own */
	kv_misc();
	kv_ids();
	kv_status_fields();
	kv_limits();
	return fclose(kv_out) == 0 ? 0 : 1;
}

/* ---- host-side helpers ---- */

static int listen_unix(const char *path)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (s < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	unlink(path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 4) < 0)
		return -1;
	return s;
}

/* receives data and at most 4 fds; returns bytes read, fills fds/nfds */
static ssize_t recv_with_fds(int c, char *buf, size_t size, int *fds, int *nfds)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {.iov_base = buf, .iov_len = size};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	ssize_t n = recvmsg(c, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (int i = 0; i < k && *nfds < 4; i++)
			memcpy(&fds[(*nfds)++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
	}
	return n;
}

/* NOTIFY_SOCKET, both ends (sd_notify's protocol: one datagram each) */
static int notify_send(const char *text)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char msg[4096];
	size_t n = 0;
	int s, r;

	if (!path || strlen(path) >= sizeof(a.sun_path))
		return errno = ENOENT, -1;
	strcpy(a.sun_path, path);
	for (const char *t = text; *t && n < sizeof(msg); t++)
		msg[n++] = t[0] == '\\' && t[1] == 'n' ? (t++, '\n') : *t;
	if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	r = (int)sendto(s, msg, n, 0, (struct sockaddr *)&a, sizeof(a));
	close(s);
	return r < 0 ? -1 : 0;
}

static int notify_recv(const char *sock, const char *outpath)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[65536];
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sock));

	if (strlen(sock) >= sizeof(a.sun_path))
		return fprintf(stderr, "notify-recv: path too long\n"), 1;
	strcpy(a.sun_path, sock);
	if (sock[0] == '@')   /* an abstract name */
		a.sun_path[0] = 0;
	else
		unlink(sock), len++;
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0)
		return perror("notify-recv: bind"), 1;
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		int fd = n < 0 ? -1 : open(outpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0)
			continue;
		if (write(fd, buf, n) < 0 || write(fd, "\n--\n", 4) < 0)
			perror("notify-recv: write");
		close(fd);
	}
}

static int recvtty(const char *sock, const char *outpath)
{
	int s = listen_unix(sock);
	if (s < 0)
		return perror("recvtty: listen"), 1;
	int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return perror("recvtty: accept"), 1;
	char name[4096];
	int fds[4], nfds = 0;
	if (recv_with_fds(c, name, sizeof(name), fds, &nfds) < 0 || nfds < 1)
		return fprintf(stderr, "recvtty: no fd received\n"), 1;
	close(c);
	close(s);
	int o = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o < 0)
		return perror("recvtty: open"), 1;
	char buf[4096];
	for (;;) {
		ssize_t n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ssize_t k = 0;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != '\r')
				buf[k++] = buf[i];
		if (write(o, buf, k) != k)
			break;
	}
	close(o);
	return 0;
}

static int seccomp_agent(const char *sock, const char *outpath)
{
	int s = listen_unix(sock);
	if (s < 0)
		return perror("seccomp-agent: listen"), 1;
	int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return perror("seccomp-agent: accept"), 1;
	static char buf[1 << 20];
	size_t len = 0;
	int fds[4], nfds = 0, msgs = 0, fds_in_later_msg = 0;
	for (;;) {
		int before = nfds;
		ssize_t n = recv_with_fds(c, buf + len, sizeof(buf) - 1 - len, fds, &nfds);
		if (n <= 0)
			break;
		if (msgs > 0 && nfds > before)
			fds_in_later_msg = 1;
		msgs++;
		len += n;
	}
	buf[len] = 0;
	/* a second connection on the same socket would be a protocol violation:
	 * count how many arrive while the container runs */
	close(c);
	FILE *f = fopen(outpath, "w");
	if (!f)
		return perror("seccomp-agent: open"), 1;
	fputs(buf, f);
	fclose(f);
	char meta[4200];
	snprintf(meta, sizeof(meta), "%s.meta", outpath);
	f = fopen(meta, "w");
	if (!f)
		return 1;
	fprintf(f, "nfds=%d\nfds_in_later_msg=%d\n", nfds, fds_in_later_msg);
	fclose(f);
	if (nfds < 1)
		return 1;
	int nfd = fds[0];
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		return 1;
	struct seccomp_notif *req = calloc(1, sz.seccomp_notif > sizeof(*req) ? sz.seccomp_notif : sizeof(*req));
	struct seccomp_notif_resp *resp = calloc(1, sz.seccomp_notif_resp > sizeof(*resp) ? sz.seccomp_notif_resp : sizeof(*resp));
	int handled = 0;
	for (;;) {
		struct pollfd p = {.fd = nfd, .events = POLLIN};
		if (poll(&p, 1, 60000) <= 0 || (p.revents & (POLLHUP | POLLERR)) || !(p.revents & POLLIN))
			break;
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->error = -ENOMSG;
		ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, resp);
		handled++;
		f = fopen(meta, "a");
		if (f) {
			fprintf(f, "handled=%d syscall=%d\n", handled, req->data.nr);
			fclose(f);
		}
	}
	return 0;
}

static void save(const char *dir, const char *name, const char *data, size_t len)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, data, len) < 0)
		_exit(3);
	close(fd);
}

static void add_link(char *buf, size_t size, size_t *len, const char *key, const char *path)
{
	char l[4096];
	ssize_t n = readlink(path, l, sizeof(l) - 1);
	if (n < 0)
		n = snprintf(l, sizeof(l), "ERR:%s", strerrorname_np(errno));
	else
		l[n] = 0;
	*len += snprintf(buf + *len, size - *len, "%s=%s\n", key, l);
}

static int hook(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *dir = argv[1];
	mkdir(dir, 0755);
	static char buf[1 << 16], in[1 << 16];
	size_t len = 0;
	for (int i = 0; i < argc; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s\n", argv[i]);
	save(dir, "argv.txt", buf, len);
	len = 0;
	for (char **e = environ; *e; e++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s\n", *e);
	save(dir, "env.txt", buf, len);
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(in) - 1 && (r = read(0, in + n, sizeof(in) - 1 - n)) > 0)
		n += r;
	in[n] = 0;
	save(dir, "stdin.json", in, n);
	len = 0;
	add_link(buf, sizeof(buf), &len, "mnt", "/proc/self/ns/mnt");
	add_link(buf, sizeof(buf), &len, "pid", "/proc/self/ns/pid");
	add_link(buf, sizeof(buf), &len, "net", "/proc/self/ns/net");
	add_link(buf, sizeof(buf), &len, "uts", "/proc/self/ns/uts");
	add_link(buf, sizeof(buf), &len, "root", "/proc/self/root");
	for (int i = 2; i < argc; i++) {
		struct stat st;
		if (!strncmp(argv[i], "see:", 4))
			len += snprintf(buf + len, sizeof(buf) - len, "see:%s=%s\n", argv[i] + 4,
					stat(argv[i] + 4, &st) == 0 ? "yes" : "no");
	}
	save(dir, "self.txt", buf, len);
	/* the state's pid, read naively from the JSON */
	const char *pp = strstr(in, "\"pid\"");
	long pid = 0;
	if (pp && (pp = strchr(pp, ':')))
		pid = strtol(pp + 1, NULL, 10);
	len = 0;
	if (pid > 0) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%ld", pid);
		struct stat st;
		len += snprintf(buf + len, sizeof(buf) - len, "alive=%s\n", stat(p, &st) == 0 ? "yes" : "no");
		snprintf(p, sizeof(p), "/proc/%ld/root", pid);
		add_link(buf, sizeof(buf), &len, "root", p);
		snprintf(p, sizeof(p), "/proc/%ld/ns/mnt", pid);
		add_link(buf, sizeof(buf), &len, "mnt", p);
		snprintf(p, sizeof(p), "/proc/%ld/ns/net", pid);
		add_link(buf, sizeof(buf), &len, "net", p);
		char cmd[4096];
		snprintf(p, sizeof(p), "/proc/%ld/cmdline", pid);
		int c = read_file(p, cmd, sizeof(cmd));
		for (int i = 0; i < c; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		len += snprintf(buf + len, sizeof(buf) - len, "cmdline=%s\n", c > 0 ? cmd : "");
		for (int i = 2; i < argc; i++) {
			if (strncmp(argv[i], "see:", 4))
				continue;
			snprintf(cmd, sizeof(cmd), "/proc/%ld/root%s", pid, argv[i] + 4);
			len += snprintf(buf + len, sizeof(buf) - len, "see:%s=%s\n", argv[i] + 4,
					stat(cmd, &st) == 0 ? "yes" : "no");
		}
	}
	save(dir, "target.txt", buf, len);
	char order[4200], name[4096];
	snprintf(name, sizeof(name), "%s", dir);
	char *slash = strrchr(name, '/');
	if (slash) {
		*slash = 0;
		snprintf(order, sizeof(order), "%s/order", name[0] ? name : "/");
		int fd = open(order, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%s\n", slash + 1);
			close(fd);
		}
	}
	int code = 0;
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "sleep:", 6))
			sleep(atoi(argv[i] + 6));
		else if (!strncmp(argv[i], "exit:", 5))
			code = atoi(argv[i] + 5);
	}
	save(dir, "done.txt", "done\n", 5);
	return code;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "conformance-hook"))
		return hook(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "recvtty"))
		return recvtty(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "notify-recv"))
		return notify_recv(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "seccomp-agent"))
		return seccomp_agent(argv[2], argv[3]);
	kv_out = stdout;
	if (argc > 2 && !strcmp(argv[1], "-o")) {
		kv_out = fopen(argv[2], "we");
		if (!kv_out) {
			fprintf(stderr, "checker: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		return key_mode(argc, argv, 3);
	}
	int keys = argc < 2;
	for (int i = 1; i < argc && !keys; i++)
		keys = kv_is_key_only(argv[i]);
	if (keys)
		return key_mode(argc, argv, 1);
	signal(SIGSYS, on_sigsys);
	for (int i = 1; i < argc; i++)
		query(argv[i]);
	return 0;
}
