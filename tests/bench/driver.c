/* driver: the measuring half of `make bench` (tests/bench/bench.sh is the other).
 *
 *   driver MODE -d DIR [-n N] [-w W] [-c C] [-T SECONDS] NAME=BINARY...
 *
 * The driver is a child subreaper (PR_SET_CHILD_SUBREAPER), as containerd's
 * shim and conmon are: a container's init, orphaned when `create` exits, is
 * re-parented to it, and `wait` is a plain waitpid() on that pid.
 *
 * Every runtime command is posix_spawn()ed and timed with CLOCK_MONOTONIC
 * from just before the spawn to wait4() returning; wait4()'s ru_maxrss is
 * the command's peak RSS. The runtimes are interleaved: each iteration runs
 * one sample of a metric for every runtime, in an order rotated every
 * iteration, so load drift hits all of them alike.
 *
 * DIR holds config-{true,sleep,mem}.json templates (bench.sh writes them;
 * "@CG@" becomes the container's cgroupsPath, "\"@MEM@\"" its memory limit),
 * one --root per runtime (DIR/root-NAME), bundles (DIR/bundles/NAME-wK) whose
 * root.path is absolute, and the last stderr of each runtime (DIR/err-*).
 * Each container's id and cgroup are unique: NAME-PID-COUNTER under the one
 * parent /tinyrun-bench.
 *
 * Modes (each prints "metric<TAB>runtime<TAB>median<TAB>p10<TAB>p90<TAB>
 * samples<TAB>failures<TAB>first error" lines on stdout):
 *   seq     N iterations of: --version; run /bin/true (time, CPU, peak RSS);
 *           create, start, state, exec /bin/true, kill, delete of a sleeping
 *           container (each timed alone; create's peak RSS); create + start +
 *           wait + delete of /bin/true (timed together). Also the floor:
 *           spawning /bin/true itself.
 *   strace  N runs of `strace -f -c run /bin/true`: total syscalls.
 *   par     N rounds of W workers each running C `run /bin/true`: containers/s.
 *   minmem  bisect linux.resources.memory.limit in [64 KiB, 64 MiB], to 4 KiB,
 *           for the smallest value at which `run /bin/true` exits 0 twice in
 *           a row (KiB); -n bisections per runtime, interleaved.
 *   probe   per runtime: create a sleeping container and print its init's
 *           /proc/PID/cgroup, then remove it (bench.sh compares the output
 *           with and without crun's cgroup.controllers bind).
 *   exec -- CMD...  runs CMD (stdio inherited) as the subreaper's child, reaps
 *           every orphan, exits with CMD's status (profile.sh uses it).
 * A failing command never stops the driver: its metric records the failure
 * and the runtime's first error line; after 3 failures without a success the
 * metric is no longer tried for that runtime. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_RT 8
#define MAX_ARGS 16
#define ERR_LEN 240

enum metric {
	M_VERSION, M_RUN, M_RUN_RSS, M_CREATE, M_CREATE_RSS, M_START, M_STATE,
	M_EXEC, M_KILL, M_DELETE, M_CSWD, M_SYSCALLS, M_PAR, M_MINMEM,
	M_INIT_RSS, M_LEFT_CREATE, M_RUND, M_LEFT_RUND, M_PEXEC, M_LIST, M_RUN_CPU, NMETRIC
};

static const char *const metric_name[NMETRIC] = {
	"version", "run", "run_rss", "create", "create_rss", "start", "state",
	"exec", "kill", "delete", "cswd", "syscalls", "par", "minmem",
	"init_rss", "left_create", "rund", "left_rund", "pexec", "list", "run_cpu",
};

struct series {
	double *v;
	int n, cap, fails;
	char err[ERR_LEN];
};

struct runtime {
	const char *name, *bin;
	char root[PATH_MAX];
	struct series s[NMETRIC];
};

struct outcome {
	int status;	/* exit code, 128+signal, or 124 on timeout */
	double ms;
	double cpu_ms;	/* user + system, the children it waited for included */
	long rss_kib;
};

static struct runtime rts[MAX_RT];
static int nrt;
static struct series floor_true;
static const char *dir = ".";
static int opt_n = 10, opt_w = 2, opt_c = 10, opt_timeout = 10, opt_k = 0;
static const char *opt_label, *opt_tmpl = "config-true.json", *opt_wipe;
static unsigned counter;
static volatile sig_atomic_t alarm_fired, stop;

static void on_alarm(int sig) { (void)sig; alarm_fired = 1; }
static void on_stop(int sig) { stop = sig; }

static void die(const char *what)
{
	fprintf(stderr, "driver: %s: %s\n", what, strerror(errno));
	exit(125);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void path(char *buf, const char *fmt, ...)
{
	va_list ap;
	char rel[PATH_MAX - 64];

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(buf, PATH_MAX, "%s/%s", dir, rel);
}

/* ---- samples and statistics ---- */

static void push(struct series *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("realloc");
	}
	s->v[s->n++] = v;
}

static int usable(const struct series *s)
{
	return !(s->fails >= 3 && s->n == 0);
}

static void fail(struct series *s, const char *msg)
{
	s->fails++;
	if (!s->err[0])
		snprintf(s->err, sizeof(s->err), "%.*s", ERR_LEN - 1, msg);
}

/* A metric that timed out before it ever worked is not tried again. */
static void disable(struct series *s)
{
	if (s->n == 0 && s->fails < 3)
		s->fails = 3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n-1], linear between closest ranks. */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static void print_series(const char *metric, const char *rt, struct series *s)
{
	double med = 0, p10 = 0, p90 = 0;

	if (s->n == 0 && s->fails == 0 && !s->err[0])
		return;
	if (s->n > 0) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		med = quantile(s->v, s->n, 0.5);
		p10 = quantile(s->v, s->n, 0.1);
		p90 = quantile(s->v, s->n, 0.9);
	}
	printf("%s\t%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%s\n", metric, rt, med, p10, p90,
	       s->n, s->fails, s->err);
}

static void print_all(void)
{
	char name[32];

	for (int r = 0; r < nrt; r++)
		for (int m = 0; m < NMETRIC; m++) {
			if (m == M_PAR || m == M_PEXEC)
				snprintf(name, sizeof(name), "%s%d", metric_name[m], opt_w);
			else if (opt_label)
				snprintf(name, sizeof(name), "%s@%s", metric_name[m], opt_label);
			else
				snprintf(name, sizeof(name), "%s", metric_name[m]);
			print_series(name, rts[r].name, &rts[r].s[m]);
		}
	print_series("spawn_true", "floor", &floor_true);
	fflush(stdout);
}

/* ---- files ---- */

static char *slurp(const char *file, size_t *len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;
	ssize_t got;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (got = read(fd, buf + n, cap - n)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	close(fd);
	if (!buf)
		die("malloc");
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* First non-empty line of a runtime's stderr, made safe for a table cell. */
static void first_error(const char *file, int status, char *out, size_t size)
{
	char *text = slurp(file, NULL), *line = text, *end;

	while (line && *line == '\n')
		line++;
	if (!line || !*line) {
		snprintf(out, size, "exit %d, no message", status);
		free(text);
		return;
	}
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	for (char *p = line; *p; p++)
		if (*p == '|' || *p == '\t' || (unsigned char)*p < 0x20)
			*p = ' ';
	snprintf(out, size, "exit %d: %.180s", status, line);
	free(text);
}

static void write_file(const char *file, const char *text, size_t len)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		die(file);
	close(fd);
}

/* Writes bundle W of runtime R from template T with cgroup CG and memory MEM. */
static void render(const struct runtime *rt, int w, const char *tmpl_name,
		   const char *cg, long mem)
{
	char tmpl_path[PATH_MAX], bundle[PATH_MAX], file[PATH_MAX + 16], num[32];
	char *tmpl, *out, *o;
	size_t len;

	path(tmpl_path, "%s", tmpl_name);
	tmpl = slurp(tmpl_path, &len);
	if (!tmpl)
		die(tmpl_path);
	out = malloc(len + 64 * (strlen(cg) + 32));
	if (!out)
		die("malloc");
	snprintf(num, sizeof(num), "%ld", mem);
	o = out;
	for (const char *p = tmpl; *p;) {
		if (!strncmp(p, "@CG@", 4)) {
			o = stpcpy(o, cg);
			p += 4;
		} else if (!strncmp(p, "\"@MEM@\"", 7)) {
			o = stpcpy(o, num);
			p += 7;
		} else {
			*o++ = *p++;
		}
	}
	path(bundle, "bundles/%s-w%d", rt->name, w);
	mkdir(bundle, 0755);
	snprintf(file, sizeof(file), "%s/config.json", bundle);
	write_file(file, out, o - out);
	free(out);
	free(tmpl);
}

/* ---- processes ---- */

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

/* Spawns argv (stdin /dev/null, stdout to OUT or /dev/null, stderr to ERR),
 * waits for that process only, and times it. On timeout or interrupt its
 * process group is killed. */
static int spawn_wait(char *const argv[], const char *out, const char *err,
		      struct outcome *o)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	struct rusage ru;
	int st = 0, timed_out = 0, r;
	double t0;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err ? err : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	t0 = now_ms();
	r = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r) {
		if (err)
			write_file(err, strerror(r), strlen(strerror(r)));
		o->status = 127;
		o->ms = o->cpu_ms = 0;
		o->rss_kib = 0;
		return o->status;
	}
	alarm_fired = 0;
	alarm(opt_timeout);
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR)
			die("wait4");
		if (alarm_fired || stop) {
			timed_out = alarm_fired;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			alarm_fired = 0;
		}
	}
	o->ms = now_ms() - t0;
	alarm(0);
	o->rss_kib = ru.ru_maxrss;
	o->cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	o->status = timed_out ? 124 : status_code(st);
	if (timed_out && err) {
		char msg[64];

		snprintf(msg, sizeof(msg), "timed out after %d s, killed\n", opt_timeout);

		write_file(err, msg, strlen(msg));
	}
	return o->status;
}

/* Runs `BIN --root ROOT ARGS...` (ARGS NULL-terminated) for worker W;
 * stdout to OUT (may be NULL), stderr to DIR/err-NAME-wW.txt. */
static int rt_cmdv(struct runtime *rt, int w, const char *out, struct outcome *o,
		   const char *const args[])
{
	char *argv[MAX_ARGS], err[PATH_MAX];
	int argc = 0;

	argv[argc++] = (char *)rt->bin;
	argv[argc++] = "--root";
	argv[argc++] = rt->root;
	for (int i = 0; args[i] && argc < MAX_ARGS - 1; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	path(err, "err-%s-w%d.txt", rt->name, w);
	return spawn_wait(argv, out, err, o);
}

#define rt_cmd(rt, w, out, o, ...) \
	rt_cmdv(rt, w, out, o, (const char *const[]){ __VA_ARGS__, NULL })

/* Records a command's outcome in S: VALUE on success, the error otherwise. */
static int record(struct runtime *rt, int w, enum metric m, const struct outcome *o,
		  double value)
{
	char err[PATH_MAX], msg[ERR_LEN];

	if (o->status == 0) {
		push(&rt->s[m], value);
		return 0;
	}
	path(err, "err-%s-w%d.txt", rt->name, w);
	first_error(err, o->status, msg, sizeof(msg));
	fail(&rt->s[m], msg);
	if (o->status == 124)
		disable(&rt->s[m]);
	return -1;
}

/* Waits until the container init PID has exited (reaps it: we are its
 * subreaper). Falls back to polling if it is not our child. */
static int wait_exit(pid_t pid, int secs)
{
	double deadline = now_ms() + secs * 1e3;
	int st;

	if (pid <= 0)
		return -1;
	alarm_fired = 0;
	alarm(secs);
	for (;;) {
		if (waitpid(pid, &st, 0) == pid)
			break;
		if (errno == EINTR) {
			if (alarm_fired)
				break;
			continue;
		}
		while (kill(pid, 0) == 0 && now_ms() < deadline)
			usleep(500);
		break;
	}
	alarm(0);
	return alarm_fired ? -1 : 0;
}

static void reap_strays(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static pid_t read_pid(const char *file)
{
	char *text = slurp(file, NULL);
	pid_t pid = text ? (pid_t)atoi(text) : 0;

	free(text);
	return pid;
}

static void new_id(const struct runtime *rt, char *id, char *cg)
{
	snprintf(id, 64, "%s-%d-%u", rt->name, (int)getpid(), counter++);
	snprintf(cg, 96, "/tinyrun-bench/%s", id);
}

/* Untimed removal of a container that may be in any state, after a failed
 * step: the driver kills the init itself (it is the init's subreaper and
 * knows its pid), so a runtime whose `kill` hangs costs no second timeout;
 * `delete --force` does the rest. */
static void remove_container(struct runtime *rt, int w, const char *id, pid_t pid)
{
	struct outcome o;

	if (pid > 0 && kill(pid, SIGKILL) == 0)
		wait_exit(pid, opt_timeout);
	rt_cmd(rt, w, NULL, &o, "delete", "--force", id);
	reap_strays();
}

/* The floors (tests/bench/floor.c: floor, and floor-cg built with
 * -DFLOOR_CGROUPS) only run: no lifecycle, no exec. */
static int is_floor(const struct runtime *rt)
{
	return !strncmp(rt->name, "floor", 5);
}

/* How many processes have the driver as parent: after a runtime command
 * returned, these are containers' inits and whatever the runtime left
 * behind (a monitor, a shim), re-parented to us, the subreaper. */
static int count_children(void)
{
	char file[300], *text, *p;
	int n = 0, me = (int)getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		die("opendir /proc");
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(file, sizeof(file), "/proc/%s/stat", e->d_name);
		if (!(text = slurp(file, NULL)))
			continue;
		/* pid (comm) state ppid: comm may hold anything, take the last ')' */
		int ppid = 0;

		if ((p = strrchr(text, ')')) && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == me)
			n++;
		free(text);
	}
	closedir(d);
	return n;
}

/* VmRSS of PID in KiB, or -1. */
static long vm_rss(pid_t pid)
{
	char file[64], *text, *p;
	long kib = -1;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	if ((text = slurp(file, NULL)) && (p = strstr(text, "VmRSS:")))
		kib = atol(p + 6);
	free(text);
	return kib;
}

/* ---- seq: the sequential metrics ---- */

static void seq_version(struct runtime *rt)
{
	struct outcome o;

	if (!usable(&rt->s[M_VERSION]))
		return;
	rt_cmd(rt, 0, NULL, &o, "--version");
	record(rt, 0, M_VERSION, &o, o.ms);
}

static void seq_run(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX];
	struct outcome o;

	if (!usable(&rt->s[M_RUN]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, "config-true.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	rt_cmd(rt, 0, NULL, &o, "run", "--bundle", bundle, id);
	if (record(rt, 0, M_RUN, &o, o.ms) == 0) {
		push(&rt->s[M_RUN_RSS], o.rss_kib);
		push(&rt->s[M_RUN_CPU], o.cpu_ms);
	} else {
		if (!rt->s[M_RUN_RSS].err[0])
			snprintf(rt->s[M_RUN_RSS].err, ERR_LEN, "not measured: run failed");
		remove_container(rt, 0, id, 0);
	}
	reap_strays();
}

/* Runs one timed lifecycle step for M (stdout to OUT) and records it. */
static int step(struct runtime *rt, enum metric m, const char *out,
		const char *const args[])
{
	struct outcome o;

	rt_cmdv(rt, 0, out, &o, args);
	if (record(rt, 0, m, &o, o.ms) < 0)
		return -1;
	if (m == M_CREATE)
		push(&rt->s[M_CREATE_RSS], o.rss_kib);
	return 0;
}

/* After step M failed, the later steps of that container were not run
 * (state and exec failing stop nothing). */
static void skip_after(struct runtime *rt, enum metric m)
{
	if (m == M_STATE || m == M_EXEC)
		return;
	for (int later = m + 1; later <= M_DELETE; later++)
		if (!rt->s[later].err[0] && rt->s[later].n == 0)
			snprintf(rt->s[later].err, ERR_LEN, "not measured: %s failed",
				 metric_name[m]);
}

/* The "pid" member of a state.json, for runtimes without --pid-file. */
static pid_t state_pid(const char *file)
{
	char *text = slurp(file, NULL), *p = text ? strstr(text, "\"pid\"") : NULL;
	pid_t pid = 0;

	if (p && (p = strchr(p, ':')))
		pid = (pid_t)atoi(p + 1);
	free(text);
	return pid;
}

/* Runs lifecycle step M unless it was given up on; 0 when it worked. */
static int try_step(struct runtime *rt, enum metric m, const char *out,
		    const char *const args[])
{
	if (!usable(&rt->s[m]))
		return -1;
	if (step(rt, m, out, args) == 0)
		return 0;
	skip_after(rt, m);
	return -1;
}

/* create, start, state, exec /bin/true, kill, delete of a sleeping container,
 * each timed alone. exec or state failing does not stop the others. */
static void seq_lifecycle(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], pidfile[PATH_MAX], statefile[PATH_MAX];
	pid_t pid = 0;

	if (!usable(&rt->s[M_CREATE]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, "config-sleep.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(pidfile, "pid-%s", rt->name);
	path(statefile, "state-%s.json", rt->name);
	unlink(pidfile);
	unlink(statefile);
	if (try_step(rt, M_CREATE, NULL, (const char *const[]){ "create", "--bundle", bundle,
			"--pid-file", pidfile, id, NULL }) < 0)
		goto cleanup;
	pid = read_pid(pidfile);
	/* what stays after create: the init (the runtime's code until start) and nothing else */
	if (pid > 0) {
		long kib = vm_rss(pid);

		if (kib >= 0)
			push(&rt->s[M_INIT_RSS], kib);
		push(&rt->s[M_LEFT_CREATE], count_children() - 1);
	}
	if (try_step(rt, M_START, NULL, (const char *const[]){ "start", id, NULL }) < 0)
		goto cleanup;
	try_step(rt, M_STATE, statefile, (const char *const[]){ "state", id, NULL });
	if (pid <= 0)
		pid = state_pid(statefile);
	try_step(rt, M_EXEC, NULL, (const char *const[]){ "exec", id, "/bin/true", NULL });
	if (try_step(rt, M_KILL, NULL, (const char *const[]){ "kill", id, "KILL", NULL }) < 0)
		goto cleanup;
	if (wait_exit(pid, opt_timeout) < 0) {
		fail(&rt->s[M_DELETE], "not measured: the container did not exit after kill");
		disable(&rt->s[M_KILL]);
		goto cleanup;
	}
	if (try_step(rt, M_DELETE, NULL, (const char *const[]){ "delete", id, NULL }) < 0)
		goto cleanup;
	reap_strays();
	return;
cleanup:
	remove_container(rt, 0, id, pid);
}

/* create + start + wait for /bin/true to exit + delete, timed together. */
static void seq_cswd(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], pidfile[PATH_MAX];
	struct outcome o;
	pid_t pid = 0;
	double t0;

	if (!usable(&rt->s[M_CSWD]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, "config-true.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(pidfile, "pid-%s", rt->name);
	unlink(pidfile);
	t0 = now_ms();
	if (rt_cmd(rt, 0, NULL, &o, "create", "--bundle", bundle, "--pid-file", pidfile, id))
		goto fail;
	pid = read_pid(pidfile);
	if (rt_cmd(rt, 0, NULL, &o, "start", id))
		goto fail;
	if (wait_exit(pid, opt_timeout) < 0) {
		fail(&rt->s[M_CSWD], "the container did not exit");
		disable(&rt->s[M_CSWD]);
		goto cleanup;
	}
	if (rt_cmd(rt, 0, NULL, &o, "delete", id))
		goto fail;
	push(&rt->s[M_CSWD], now_ms() - t0);
	reap_strays();
	return;
fail:
	record(rt, 0, M_CSWD, &o, 0);
cleanup:
	remove_container(rt, 0, id, pid);
}

/* run -d of a sleeping container (timed), then how many processes other
 * than its init stayed (untimed removal). */
static void seq_rund(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], pidfile[PATH_MAX];
	struct outcome o;
	pid_t pid;

	if (!usable(&rt->s[M_RUND]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, "config-sleep.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(pidfile, "pid-%s", rt->name);
	unlink(pidfile);
	rt_cmd(rt, 0, NULL, &o, "run", "-d", "--bundle", bundle, "--pid-file", pidfile, id);
	pid = read_pid(pidfile);
	if (record(rt, 0, M_RUND, &o, o.ms) == 0 && pid > 0)
		push(&rt->s[M_LEFT_RUND], count_children() - 1);
	remove_container(rt, 0, id, pid);
}

static void mode_seq(void)
{
	char *true_argv[] = { "/bin/true", NULL };
	struct outcome o;

	for (int i = 0; i < opt_n && !stop; i++) {
		spawn_wait(true_argv, NULL, NULL, &o);
		push(&floor_true, o.ms);
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				seq_version(&rts[(i + k) % nrt]);
		for (int k = 0; k < nrt && !stop; k++)
			seq_run(&rts[(i + k) % nrt]);
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				seq_lifecycle(&rts[(i + k) % nrt]);
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				seq_cswd(&rts[(i + k) % nrt]);
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				seq_rund(&rts[(i + k) % nrt]);
	}
}

/* ---- strace: syscalls per run ---- */

/* The "calls" column of strace -c's "total" line. */
static long strace_total(const char *file)
{
	char *text = slurp(file, NULL), *line, *save = NULL;
	double pct, secs, usecs;
	long calls = -1;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);

		if (len > 5 && !strcmp(line + len - 5, "total") &&
		    sscanf(line, "%lf %lf %lf %ld", &pct, &secs, &usecs, &calls) != 4)
			calls = -1;
	}
	free(text);
	return calls;
}

static void strace_one(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], out[PATH_MAX], err[PATH_MAX], msg[ERR_LEN];
	struct outcome o;
	long calls;

	if (!usable(&rt->s[M_SYSCALLS]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, "config-true.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(out, "strace-%s.txt", rt->name);
	path(err, "err-%s-w0.txt", rt->name);
	char *argv[] = { "strace", "-f", "-c", "-o", out, (char *)rt->bin, "--root",
			 rt->root, "run", "--bundle", bundle, id, NULL };
	spawn_wait(argv, NULL, err, &o);
	calls = o.status == 0 ? strace_total(out) : -1;
	if (calls > 0) {
		push(&rt->s[M_SYSCALLS], calls);
	} else {
		first_error(err, o.status, msg, sizeof(msg));
		fail(&rt->s[M_SYSCALLS], msg);
		remove_container(rt, 0, id, 0);
	}
	reap_strays();
}

static void mode_strace(void)
{
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			strace_one(&rts[(i + k) % nrt]);
}

/* ---- par: containers per second with W workers ---- */

/* A worker: C sequential `run /bin/true`; returns how many failed and keeps
 * the first error in DIR/fail-NAME-wW.txt. */
static int par_worker(struct runtime *rt, int w)
{
	char id[64], cg[96], bundle[PATH_MAX], err[PATH_MAX], failfile[PATH_MAX];
	char msg[ERR_LEN];
	struct outcome o;
	int fails = 0;

	path(bundle, "bundles/%s-w%d", rt->name, w);
	path(err, "err-%s-w%d.txt", rt->name, w);
	path(failfile, "fail-%s-w%d.txt", rt->name, w);
	for (int j = 0; j < opt_c && !stop; j++) {
		new_id(rt, id, cg);
		render(rt, w, "config-true.json", cg, 0);
		if (rt_cmd(rt, w, NULL, &o, "run", "--bundle", bundle, id) == 0)
			continue;
		if (fails++ == 0) {
			first_error(err, o.status, msg, sizeof(msg));
			write_file(failfile, msg, strlen(msg));
		}
		remove_container(rt, w, id, 0);
		if (fails >= 2)
			break; /* broken: no point in timing it further */
	}
	return fails;
}

static void par_round(struct runtime *rt)
{
	pid_t pids[64];
	int nw = opt_w > 64 ? 64 : opt_w, left = 0, fails = 0, st;
	char failfile[PATH_MAX];
	double t0;

	if (!usable(&rt->s[M_PAR]))
		return;
	for (int w = 0; w < nw; w++) {
		path(failfile, "fail-%s-w%d.txt", rt->name, w);
		unlink(failfile);
	}
	t0 = now_ms();
	for (int w = 0; w < nw; w++) {
		pids[w] = fork();
		if (pids[w] < 0)
			die("fork");
		if (pids[w] == 0) {
			int f = par_worker(rt, w);

			_exit(f > 255 ? 255 : f);
		}
		left++;
	}
	while (left > 0) {
		pid_t pid = waitpid(-1, &st, 0);

		if (pid < 0) {
			if (errno != EINTR)
				break;
			for (int w = 0; stop && w < nw; w++)
				kill(pids[w], stop);
			continue;
		}
		for (int w = 0; w < nw; w++)
			if (pids[w] == pid) {
				fails += WIFEXITED(st) ? WEXITSTATUS(st) : opt_c;
				left--;
			}
	}
	if (fails == 0) {
		push(&rt->s[M_PAR], nw * opt_c / ((now_ms() - t0) / 1e3));
		return;
	}
	for (int w = 0; w < nw; w++) {
		char *msg;

		path(failfile, "fail-%s-w%d.txt", rt->name, w);
		if ((msg = slurp(failfile, NULL))) {
			char full[ERR_LEN];

			snprintf(full, sizeof(full), "%d of %d failed, %.180s", fails,
				 nw * opt_c, msg);
			fail(&rt->s[M_PAR], full);
			free(msg);
			break;
		}
	}
}

static void mode_par(void)
{
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			par_round(&rts[(i + k) % nrt]);
}

/* ---- pexec: W parallel `exec` into one container ---- */

/* Creates and starts a sleeping container ID of RT (worker W's bundle, from
 * TMPL); its init's pid, or -1 (recorded as a failure of M). */
static pid_t start_sleeper(struct runtime *rt, int w, const char *tmpl, enum metric m,
			   char *id, int started)
{
	char cg[96], bundle[PATH_MAX], pidfile[PATH_MAX];
	struct outcome o;

	new_id(rt, id, cg);
	render(rt, w, tmpl, cg, 0);
	path(bundle, "bundles/%s-w%d", rt->name, w);
	path(pidfile, "pid-%s-w%d", rt->name, w);
	unlink(pidfile);
	if (rt_cmd(rt, w, NULL, &o, "create", "--bundle", bundle, "--pid-file", pidfile, id) ||
	    (started && rt_cmd(rt, w, NULL, &o, "start", id))) {
		record(rt, w, m, &o, 0);
		remove_container(rt, w, id, read_pid(pidfile));
		return -1;
	}
	return read_pid(pidfile);
}

static void pexec_round(struct runtime *rt)
{
	char id[64];
	pid_t pids[64], init;
	int nw = opt_w > 64 ? 64 : opt_w, fails = 0, st;
	double t0;

	if (!usable(&rt->s[M_PEXEC]) || (init = start_sleeper(rt, 0, "config-sleep.json",
							      M_PEXEC, id, 1)) < 0)
		return;
	t0 = now_ms();
	for (int w = 0; w < nw; w++) {
		if ((pids[w] = fork()) < 0)
			die("fork");
		if (pids[w] == 0) {
			struct outcome o;
			int f = 0;

			for (int j = 0; j < opt_c && !stop; j++)
				if (rt_cmd(rt, w + 1, NULL, &o, "exec", id, "/bin/true"))
					f++;
			_exit(f > 255 ? 255 : f);
		}
	}
	for (int w = 0; w < nw; w++) {
		while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
			;
		fails += WIFEXITED(st) ? WEXITSTATUS(st) : opt_c;
	}
	if (fails == 0) {
		push(&rt->s[M_PEXEC], nw * opt_c / ((now_ms() - t0) / 1e3));
	} else {
		char err[PATH_MAX], msg[ERR_LEN], full[ERR_LEN];

		path(err, "err-%s-w1.txt", rt->name);
		first_error(err, 1, msg, sizeof(msg));
		snprintf(full, sizeof(full), "%d of %d failed, %.180s", fails, nw * opt_c, msg);
		fail(&rt->s[M_PEXEC], full);
	}
	remove_container(rt, 0, id, init);
}

static void mode_pexec(void)
{
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				pexec_round(&rts[(i + k) % nrt]);
}

/* ---- curve: create time for one config (-f TEMPLATE, -l LABEL) ---- */

/* Empties directory -W (the bench's private seccomp cache), so the next
 * create compiles its filter again. */
static void wipe(void)
{
	DIR *d;
	struct dirent *e;

	if (!opt_wipe || !(d = opendir(opt_wipe)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static void curve_one(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], pidfile[PATH_MAX];
	struct outcome o;

	if (!usable(&rt->s[M_CREATE]))
		return;
	new_id(rt, id, cg);
	render(rt, 0, opt_tmpl, cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(pidfile, "pid-%s", rt->name);
	unlink(pidfile);
	wipe();
	rt_cmd(rt, 0, NULL, &o, "create", "--bundle", bundle, "--pid-file", pidfile, id);
	record(rt, 0, M_CREATE, &o, o.ms);
	remove_container(rt, 0, id, read_pid(pidfile));
}

static void mode_curve(void)
{
	for (int k = 0; k < nrt; k++)	/* warm-up: the page cache, a cached filter */
		if (!is_floor(&rts[k]))
			curve_one(&rts[k]);
	for (int k = 0; k < nrt; k++)
		rts[k].s[M_CREATE].n = 0;
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				curve_one(&rts[(i + k) % nrt]);
}

/* ---- many: state, list, create with -k K running containers under --root ---- */

struct crowd {
	char (*ids)[64];
	pid_t *pids;
	int n;
};

static void crowd_fill(struct runtime *rt, struct crowd *c, int k)
{
	c->ids = calloc(k ? k : 1, sizeof(*c->ids));
	c->pids = calloc(k ? k : 1, sizeof(*c->pids));
	if (!c->ids || !c->pids)
		die("calloc");
	for (c->n = 0; c->n < k && !stop; c->n++)
		if ((c->pids[c->n] = start_sleeper(rt, 0, "config-sleep.json", M_STATE,
						    c->ids[c->n], 1)) < 0)
			break;
}

static void crowd_clear(struct runtime *rt, struct crowd *c)
{
	for (int i = 0; i < c->n; i++)
		remove_container(rt, 0, c->ids[i], c->pids[i]);
	free(c->ids);
	free(c->pids);
}

static void many_one(struct runtime *rt, const struct crowd *c)
{
	struct outcome o;

	if (c->n > 0 && usable(&rt->s[M_STATE])) {
		rt_cmd(rt, 0, NULL, &o, "state", c->ids[c->n / 2]);
		record(rt, 0, M_STATE, &o, o.ms);
	}
	if (usable(&rt->s[M_LIST])) {
		rt_cmd(rt, 0, NULL, &o, "list");
		record(rt, 0, M_LIST, &o, o.ms);
	}
	curve_one(rt);
}

static void mode_many(void)
{
	struct crowd crowds[MAX_RT] = { 0 };

	for (int k = 0; k < nrt && !stop; k++)
		if (!is_floor(&rts[k]))
			crowd_fill(&rts[k], &crowds[k], opt_k);
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			if (!is_floor(&rts[(i + k) % nrt]))
				many_one(&rts[(i + k) % nrt], &crowds[(i + k) % nrt]);
	for (int k = 0; k < nrt; k++)
		if (!is_floor(&rts[k]))
			crowd_clear(&rts[k], &crowds[k]);
}

/* ---- minmem: smallest working memory limit ---- */

/* Whether `run /bin/true` exits 0 with memory.limit BYTES twice in a row
 * (the boundary moves by a few pages from run to run). */
static int mem_works(struct runtime *rt, long bytes, char *msg)
{
	char id[64], cg[96], bundle[PATH_MAX], err[PATH_MAX];
	struct outcome o;

	path(bundle, "bundles/%s-w0", rt->name);
	path(err, "err-%s-w0.txt", rt->name);
	for (int i = 0; i < 2; i++) {
		new_id(rt, id, cg);
		render(rt, 0, "config-mem.json", cg, bytes);
		if (rt_cmd(rt, 0, NULL, &o, "run", "--bundle", bundle, id) != 0) {
			first_error(err, o.status, msg, ERR_LEN);
			remove_container(rt, 0, id, 0);
			return 0;
		}
		reap_strays();
	}
	return 1;
}

static void minmem_one(struct runtime *rt)
{
	long lo = 64 << 10, hi = 64 << 20, mid;
	char msg[ERR_LEN], full[ERR_LEN + 40];

	if (!mem_works(rt, hi, msg)) {
		snprintf(full, sizeof(full), "fails even at 64 MiB: %s", msg);
		fail(&rt->s[M_MINMEM], full);
		return;
	}
	if (mem_works(rt, lo, msg)) {
		push(&rt->s[M_MINMEM], lo >> 10);
		return;
	}
	while (hi - lo > 4096 && !stop) {
		mid = (lo + (hi - lo) / 2) & ~4095L;
		if (mid <= lo)
			mid = lo + 4096;
		if (mem_works(rt, mid, msg))
			hi = mid;
		else
			lo = mid;
	}
	push(&rt->s[M_MINMEM], hi >> 10);
}

/* -n rounds, the runtimes interleaved: the boundary moves by a few pages
 * from one bisection to the next, the report takes the median. */
static void mode_minmem(void)
{
	for (int i = 0; i < opt_n && !stop; i++)
		for (int k = 0; k < nrt && !stop; k++)
			minmem_one(&rts[(i + k) % nrt]);
}

/* ---- probe: where a container's init lands in the cgroup hierarchies ---- */

static void probe_one(struct runtime *rt)
{
	char id[64], cg[96], bundle[PATH_MAX], pidfile[PATH_MAX], file[64], msg[ERR_LEN];
	char *text, *line, *save = NULL;
	struct outcome o;
	pid_t pid;

	new_id(rt, id, cg);
	render(rt, 0, "config-sleep.json", cg, 0);
	path(bundle, "bundles/%s-w0", rt->name);
	path(pidfile, "pid-%s", rt->name);
	unlink(pidfile);
	if (rt_cmd(rt, 0, NULL, &o, "create", "--bundle", bundle, "--pid-file", pidfile, id)) {
		record(rt, 0, M_CREATE, &o, 0);
		printf("probe\t%s\tcreate failed: %s\n", rt->name, rt->s[M_CREATE].err);
		remove_container(rt, 0, id, 0);
		return;
	}
	pid = read_pid(pidfile);
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	text = slurp(file, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(line, id);

		if (at)
			snprintf(msg, sizeof(msg), "%.*sID%s", (int)(at - line), line,
				 at + strlen(id));
		else
			snprintf(msg, sizeof(msg), "%s", line);
		printf("probe\t%s\t%s\n", rt->name, msg);
	}
	free(text);
	remove_container(rt, 0, id, pid);
}

static void mode_probe(void)
{
	for (int k = 0; k < nrt; k++)
		probe_one(&rts[k]);
}

/* ---- exec: one command under the subreaper ---- */

static int mode_exec(char **argv)
{
	pid_t cmd = fork(), pid;
	int st, code = 125;

	if (cmd < 0)
		die("fork");
	if (cmd == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "driver: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while ((pid = waitpid(-1, &st, 0)) > 0 || errno == EINTR)
		if (pid == cmd)
			code = status_code(st);
	return code;
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr, "usage: driver seq|strace|par|pexec|curve|many|minmem|probe -d DIR "
			"[-n N] [-w W] [-c C] [-k K] [-l LABEL] [-f TEMPLATE] [-W WIPEDIR] "
			"[-T SECONDS] NAME=BINARY...\n"
			"       driver exec -- CMD [ARGS...]\n");
	exit(2);
}

static void add_runtime(const char *spec)
{
	char *eq = strchr(spec, '=');
	struct runtime *rt = &rts[nrt];

	if (!eq || nrt == MAX_RT)
		usage();
	rt->name = strndup(spec, eq - spec);
	rt->bin = eq + 1;
	path(rt->root, "root-%s", rt->name);
	mkdir(rt->root, 0700);
	nrt++;
}

static void signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_alarm; /* no SA_RESTART: wait4 returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *mode;
	char bundles[PATH_MAX];
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "d:n:w:c:T:k:l:f:W:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'n': opt_n = atoi(optarg); break;
		case 'w': opt_w = atoi(optarg); break;
		case 'c': opt_c = atoi(optarg); break;
		case 'T': opt_timeout = atoi(optarg); break;
		case 'k': opt_k = atoi(optarg); break;
		case 'l': opt_label = optarg; break;
		case 'f': opt_tmpl = optarg; break;
		case 'W': opt_wipe = optarg; break;
		default: usage();
		}
	}
	if (!strcmp(mode, "exec")) {
		if (optind >= argc)
			usage();
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
			die("prctl(PR_SET_CHILD_SUBREAPER)");
		return mode_exec(argv + optind);
	}
	path(bundles, "bundles");
	mkdir(bundles, 0755);
	for (; optind < argc; optind++)
		add_runtime(argv[optind]);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_CHILD_SUBREAPER)");
	signals();
	if (!strcmp(mode, "seq"))
		mode_seq();
	else if (!strcmp(mode, "strace"))
		mode_strace();
	else if (!strcmp(mode, "par"))
		mode_par();
	else if (!strcmp(mode, "pexec"))
		mode_pexec();
	else if (!strcmp(mode, "curve"))
		mode_curve();
	else if (!strcmp(mode, "many"))
		mode_many();
	else if (!strcmp(mode, "minmem"))
		mode_minmem();
	else if (!strcmp(mode, "probe"))
		mode_probe();
	else
		usage();
	if (strcmp(mode, "probe"))
		print_all();
	reap_strays();
	if (stop) {
		/* Die of the signal so that the calling shell runs its trap. */
		signal(stop, SIG_DFL);
		raise(stop);
	}
	return stop ? 128 + stop : 0;
}
