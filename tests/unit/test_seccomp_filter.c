/* seccomp/: compile profiles, load them in a forked child, assert what the
 * kernel does to that child's syscalls. Needs root (or CAP_SYS_ADMIN is not
 * needed: the child sets no_new_privs), busybox for the profile tests. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/config.h"
#include "oci/json.h"
#include "oci/profiles.h"
#include "seccomp/seccomp.h"
#include "unit.h"

#define BUSYBOX "/bin/busybox"
#define NAMES(...) (char *[]){ __VA_ARGS__ }, sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)
#define ARGS(...) .args = (struct oci_seccomp_arg[]){ __VA_ARGS__ }, \
	.n_args = sizeof((struct oci_seccomp_arg[]){ __VA_ARGS__ }) / sizeof(struct oci_seccomp_arg)

/* ---- helpers ------------------------------------------------------------ */

static char last_debug[256];
static int n_debug;

static void debug(const char *msg)
{
	snprintf(last_debug, sizeof(last_debug), "%s", msg);
	n_debug++;
}

static struct oci_seccomp profile(enum oci_seccomp_action def, struct oci_seccomp_rule *rules, size_t n)
{
	return (struct oci_seccomp){ .default_action = def, .syscalls = rules, .n_syscalls = n };
}

static int compile(const struct oci_seccomp *s, struct seccomp_prog *p)
{
	struct error err = { 0 };
	int r = seccomp_compile(s, NULL, debug, p, &err);

	if (r < 0)
		fprintf(stderr, "compile: %s\n", err.msg);
	return r;
}

/* Fork; the child sets no_new_privs, loads `p` and returns fn(arg) as its
 * exit status. Returns the child's wait status. */
static int run_filtered(const struct seccomp_prog *p, int (*fn)(void *, int), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct error err;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(120);
		int fd = seccomp_prog_load(p, &err);
		if (fd < 0)
			_exit(121);
		_exit(fn(arg, fd));
	}
	waitpid(pid, &status, 0);
	return status;
}

static bool exited_ok(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status))
		fprintf(stderr, "  child exited %d\n", WEXITSTATUS(status));
	else
		fprintf(stderr, "  child killed by signal %d\n", WTERMSIG(status));
	return false;
}

static bool killed_by_sigsys(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
}

/* 0 when syscall `r` failed with `e`, else a distinct code */
static int expect_errno(long r, int e)
{
	return r == -1 && errno == e ? 0 : 10 + (r == -1 ? errno % 100 : 99);
}

/* ---- basic actions -------------------------------------------------------- */

static int do_mkdir(void *arg, int fd)
{
	(void)fd;
	return expect_errno(syscall(SYS_mkdir, "/nonexistent-dir/x", 0700), *(int *)arg);
}

static void test_errno(void)
{
	struct oci_seccomp_rule rule = { NAMES("mkdir", "mkdirat"), .action = OCI_SECCOMP_ERRNO };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct seccomp_prog p;
	int e = EPERM;

	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &e)));   /* no errnoRet: EPERM */
	seccomp_prog_free(&p);

	rule.has_errno_ret = true;
	rule.errno_ret = ENOSYS;
	e = ENOSYS;
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &e)));
	seccomp_prog_free(&p);
}

static int do_getppid_errno(void *arg, int fd)
{
	(void)fd;
	return expect_errno(syscall(SYS_getppid), *(int *)arg);
}

static void test_default_errno(void)
{
	struct oci_seccomp_rule rule = { NAMES("exit_group", "exit"), .action = OCI_SECCOMP_ALLOW };
	struct oci_seccomp s = profile(OCI_SECCOMP_ERRNO, &rule, 1);
	struct seccomp_prog p;
	int e = EACCES;

	s.has_default_errno_ret = true;
	s.default_errno_ret = EACCES;
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_getppid_errno, &e)));
	seccomp_prog_free(&p);
}

static int do_getppid(void *arg, int fd)
{
	(void)arg; (void)fd;
	return syscall(SYS_getppid) > 0 ? 0 : 1;
}

static void test_kill(void)
{
	static const enum oci_seccomp_action kills[] = {
		OCI_SECCOMP_KILL, OCI_SECCOMP_KILL_PROCESS, OCI_SECCOMP_KILL_THREAD };

	for (size_t i = 0; i < 3; i++) {
		struct oci_seccomp_rule rule = { NAMES("getppid"), .action = kills[i] };
		struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
		struct seccomp_prog p;

		CHECK(compile(&s, &p) == 0);
		CHECK(killed_by_sigsys(run_filtered(&p, do_getppid, NULL)));
		seccomp_prog_free(&p);
	}
}

static volatile sig_atomic_t trapped_nr = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	trapped_nr = si->si_syscall;
}

static int do_trap(void *arg, int fd)
{
	(void)arg; (void)fd;
	syscall(SYS_getppid);
	return trapped_nr == SYS_getppid ? 0 : 1;
}

static int do_trace(void *arg, int fd)
{
	(void)arg; (void)fd;   /* no tracer attached: the kernel answers ENOSYS */
	return expect_errno(syscall(SYS_getppid), ENOSYS);
}

static void test_trap_trace_log(void)
{
	struct oci_seccomp_rule rule = { NAMES("getppid"), .action = OCI_SECCOMP_TRAP };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO }, old;
	struct seccomp_prog p;

	sigaction(SIGSYS, &sa, &old);   /* inherited by the forked child */
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_trap, NULL)));
	seccomp_prog_free(&p);
	sigaction(SIGSYS, &old, NULL);

	rule.action = OCI_SECCOMP_TRACE;
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_trace, NULL)));
	seccomp_prog_free(&p);

	rule.action = OCI_SECCOMP_LOG;   /* allowed (and logged) */
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_getppid, NULL)));
	seccomp_prog_free(&p);
}

/* ---- arguments ------------------------------------------------------------ */

static int do_personality(void *arg, int fd)
{
	(void)arg; (void)fd;
	if (personality(0xffffffff) < 0)
		return 1;                     /* the query is allowed */
	return expect_errno(personality(PER_LINUX32), EPERM);
}

static int do_dup3(void *arg, int fd)
{
	(void)arg; (void)fd;
	if (dup3(0, 50, 0) != 50)
		return 1;                     /* no O_CLOEXEC: allowed */
	if (dup3(0, 51, O_CLOEXEC | 0) != -1 || errno != EPERM)
		return 2;
	return 0;
}

static int do_umask(void *arg, int fd)
{
	(void)arg; (void)fd;
	if (expect_errno(syscall(SYS_umask, 022), EPERM))
		return 1;
	if (expect_errno(syscall(SYS_umask, 077), EPERM))
		return 2;
	return syscall(SYS_umask, 027) >= 0 ? 0 : 3;
}

static int do_dup3_and(void *arg, int fd)
{
	(void)arg; (void)fd;
	if (expect_errno(dup3(0, 60, 0), EPERM))
		return 1;                     /* 0 -> 60: both conditions hold */
	if (dup3(1, 60, 0) != 60)
		return 2;
	if (dup3(0, 61, 0) != 61)
		return 3;
	return 0;
}

static void test_args(void)
{
	struct seccomp_prog p;

	/* allow one value, deny another */
	struct oci_seccomp_rule pers = { NAMES("personality"), .action = OCI_SECCOMP_ERRNO,
		ARGS({ .index = 0, .value = 0xffffffff, .op = OCI_SECCOMP_OP_NE }) };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &pers, 1);
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_personality, NULL)));
	seccomp_prog_free(&p);

	/* MASKED_EQ: value is the mask, valueTwo the expected bits */
	struct oci_seccomp_rule dup = { NAMES("dup3"), .action = OCI_SECCOMP_ERRNO,
		ARGS({ .index = 2, .value = O_CLOEXEC, .value_two = O_CLOEXEC, .op = OCI_SECCOMP_OP_MASKED_EQ }) };
	s = profile(OCI_SECCOMP_ALLOW, &dup, 1);
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_dup3, NULL)));
	seccomp_prog_free(&p);

	/* two conditions on one index: one rule each (OR), as runc */
	struct oci_seccomp_rule um = { NAMES("umask"), .action = OCI_SECCOMP_ERRNO,
		ARGS({ .index = 0, .value = 022, .op = OCI_SECCOMP_OP_EQ },
		     { .index = 0, .value = 077, .op = OCI_SECCOMP_OP_EQ }) };
	s = profile(OCI_SECCOMP_ALLOW, &um, 1);
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_umask, NULL)));
	seccomp_prog_free(&p);

	/* conditions on different indexes: AND-ed in one rule */
	struct oci_seccomp_rule and = { NAMES("dup3"), .action = OCI_SECCOMP_ERRNO,
		ARGS({ .index = 0, .value = 0, .op = OCI_SECCOMP_OP_EQ },
		     { .index = 1, .value = 60, .op = OCI_SECCOMP_OP_EQ }) };
	s = profile(OCI_SECCOMP_ALLOW, &and, 1);
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_dup3_and, NULL)));
	seccomp_prog_free(&p);
}

/* ---- what is skipped, what is refused ------------------------------------- */

static void test_skips_and_errors(void)
{
	struct seccomp_prog p;
	struct error err = { 0 };
	int e = EPERM;

	/* unknown names are skipped (and named), the rest of the rule applies */
	struct oci_seccomp_rule unk = { NAMES("no_such_syscall", "mkdir"), .action = OCI_SECCOMP_ERRNO };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &unk, 1);
	n_debug = 0;
	CHECK(compile(&s, &p) == 0);
	CHECK(n_debug == 1 && strstr(last_debug, "\"no_such_syscall\"") != NULL);
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &e)));
	seccomp_prog_free(&p);

	/* a rule with the default action is dropped, not an error */
	struct oci_seccomp_rule same[] = {
		{ NAMES("getppid"), .action = OCI_SECCOMP_ALLOW },
		{ NAMES("mkdir"), .action = OCI_SECCOMP_ERRNO },
	};
	s = profile(OCI_SECCOMP_ALLOW, same, 2);
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_getppid, NULL)));
	seccomp_prog_free(&p);

	/* errnoRet with an action that has none */
	struct oci_seccomp_rule bad = { NAMES("mkdir"), .action = OCI_SECCOMP_KILL_PROCESS,
					.has_errno_ret = true, .errno_ret = 1 };
	s = profile(OCI_SECCOMP_ALLOW, &bad, 1);
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) == -EINVAL);
	CHECK(strstr(err.msg, ".linux.seccomp.syscalls[0]: errnoRet") != NULL);

	/* NOTIFY as the default action */
	s = profile(OCI_SECCOMP_NOTIFY, NULL, 0);
	s.listener_path = (char *)"/run/agent.sock";
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) < 0);
	CHECK(strstr(err.msg, "defaultAction") != NULL);

	/* architectures: native plus the listed ones; unknown names refused */
	s = profile(OCI_SECCOMP_ALLOW, &unk, 1);
	s.architectures = (char *[]){ "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32" };
	s.n_architectures = 3;
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &e)));
	seccomp_prog_free(&p);
	s.architectures = (char *[]){ "SCMP_ARCH_X86_64", "SCMP_ARCH_VAX" };
	s.n_architectures = 2;
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) == -EINVAL);
	CHECK(strstr(err.msg, "architectures[1]") && strstr(err.msg, "SCMP_ARCH_VAX"));
}

static void test_flags(void)
{
	struct oci_seccomp_rule rule = { NAMES("mkdir"), .action = OCI_SECCOMP_ERRNO };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct seccomp_prog p;
	struct error err = { 0 };
	int e = EPERM;

	s.flags = (char *[]){ "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
			      "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV" };
	s.n_flags = 4;
	n_debug = 0;
	CHECK(compile(&s, &p) == 0);
	CHECK(p.flags == (SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_TSYNC));
	CHECK(n_debug == 1 && strstr(last_debug, "WAIT_KILLABLE_RECV"));   /* no notify rule */
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &e)));
	seccomp_prog_free(&p);

	rule.action = OCI_SECCOMP_NOTIFY;   /* TSYNC with a listener needs TSYNC_ESRCH */
	s.listener_path = (char *)"/run/agent.sock";
	CHECK(compile(&s, &p) == 0);
	CHECK(p.notify && (p.flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH) &&
	      (p.flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV));
	seccomp_prog_free(&p);

	s.flags = (char *[]){ "SECCOMP_FILTER_FLAG_BOGUS" };
	s.n_flags = 1;
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) == -EINVAL);
	CHECK(strstr(err.msg, "SECCOMP_FILTER_FLAG_BOGUS") != NULL);
}

/* ---- notify ----------------------------------------------------------------- */

struct notify_arg {
	const char *path;
	const char *state;
};

static int do_notify_child(void *arg, int fd)
{
	struct notify_arg *a = arg;
	struct error err;

	if (fd <= 0)
		return 1;
	if (seccomp_send_listener(a->path, "agent-metadata \"x\"", a->state, getpid(), fd, &err) < 0)
		return 2;
	close(fd);
	/* answered by the parent through the listener */
	long r = syscall(SYS_getppid);
	if (r != 4242)
		return 3;
	return expect_errno(syscall(SYS_mkdir, "/nonexistent-dir/y", 0700), EROFS) ? 4 : 0;
}

/* Receive the payload and the fd from the listener socket. */
static int recv_state(int lsock, char *buf, size_t size, int *fd)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			      .msg_controllen = sizeof(ctl.b) };
	int conn = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
	ssize_t n, total = 0;

	*fd = -1;
	if (conn < 0)
		return -1;
	n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	while (n > 0) {   /* the rest, until the runtime closes the connection */
		total += n;
		n = read(conn, buf + total, size - 1 - (size_t)total);
	}
	buf[total] = '\0';
	close(conn);
	return (int)total;
}

static int answer(int nfd, long nr, long val, int error)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0 || req.data.nr != nr)
		return -1;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.val = val;
	resp.error = error;
	return ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 ? -1 : (int)req.pid;
}

static void check_state_json(const char *text, pid_t pid)
{
	char why[128];
	struct json_val *v = json_parse(text, why, sizeof(why));
	int64_t n = 0;

	CHECK(v != NULL);
	if (!v)
		return;
	CHECK_STR(json_str(json_get(v, "ociVersion")), "1.3.0");
	CHECK(json_len(json_get(v, "fds")) == 1);
	CHECK_STR(json_str(json_at(json_get(v, "fds"), 0)), "seccompFd");
	CHECK(json_int64(json_get(v, "pid"), &n) == 0 && n == pid);
	CHECK_STR(json_str(json_get(v, "metadata")), "agent-metadata \"x\"");
	CHECK_STR(json_str(json_get(json_get(v, "state"), "id")), "c1");
	CHECK_STR(json_str(json_get(json_get(json_get(v, "state"), "annotations"), "k")), "v\n");
	json_free(v);
}

static void test_notify(void)
{
	struct oci_seccomp_rule rule = { NAMES("getppid", "mkdir"), .action = OCI_SECCOMP_NOTIFY };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct notify_arg a = { .state = "{\"ociVersion\":\"1.0.2\",\"id\":\"c1\",\"status\":\"creating\","
				"\"pid\":1,\"bundle\":\"/b\",\"annotations\":{\"k\":\"v\\n\"}}" };
	struct seccomp_prog p;
	char buf[4096];
	int status, nfd;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "/tmp/tinyrun-test-seccomp-%d.sock", getpid());
	a.path = addr.sun_path;
	unlink(a.path);
	int lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) == 0 && listen(lsock, 1) == 0);
	struct error err = { 0 };
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) == -EINVAL);   /* no listenerPath */
	CHECK(strstr(err.msg, "listenerPath") != NULL);
	s.listener_path = addr.sun_path;
	CHECK(compile(&s, &p) == 0 && p.notify);

	pid_t pid = fork();
	if (pid == 0) {
		struct error err;
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		_exit(do_notify_child(&a, seccomp_prog_load(&p, &err)));
	}
	CHECK(recv_state(lsock, buf, sizeof(buf), &nfd) > 0);
	check_state_json(buf, pid);
	CHECK(nfd >= 0);
	CHECK(answer(nfd, SYS_getppid, 4242, 0) == pid);
	CHECK(answer(nfd, SYS_mkdir, 0, -EROFS) == pid);
	waitpid(pid, &status, 0);
	CHECK(exited_ok(status));
	close(nfd);
	close(lsock);
	unlink(a.path);
	seccomp_prog_free(&p);

	/* an unreachable listener is an error that names the path */
	CHECK(seccomp_send_listener(a.path, NULL, a.state, 1, 0, &err) < 0);
	CHECK(strstr(err.msg, a.path) != NULL);
}

/* ---- cache ------------------------------------------------------------------ */

static int count_files(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "exit $(ls -A %s | wc -l)", dir);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static ino_t only_file(const char *dir, char *path, size_t size)
{
	char cmd[256];
	struct stat st;
	snprintf(cmd, sizeof(cmd), "ls %s/*.bpf", dir);
	FILE *f = popen(cmd, "r");
	if (!f || !fgets(path, (int)size, f)) {
		if (f) pclose(f);
		return 0;
	}
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

static void test_cache(void)
{
	struct oci_seccomp_rule rule = { NAMES("mkdir", "not_a_syscall"), .action = OCI_SECCOMP_ERRNO };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct seccomp_prog fresh, hit, again;
	struct error err = { 0 };
	char dir[] = "/tmp/tinyrun-test-seccomp-cache-XXXXXX", path[512], cmd[600];
	int e = EPERM;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(seccomp_compile(&s, dir, debug, &fresh, &err) == 0);
	CHECK(count_files(dir) == 1);   /* the entry, no temporary left */
	ino_t ino = only_file(dir, path, sizeof(path));
	CHECK(ino != 0);

	n_debug = 0;
	CHECK(seccomp_compile(&s, dir, debug, &hit, &err) == 0);
	CHECK(hit.len == fresh.len && memcmp(hit.filter, fresh.filter, fresh.len * sizeof(struct sock_filter)) == 0);
	CHECK(hit.flags == fresh.flags && hit.notify == fresh.notify);
	CHECK(only_file(dir, path, sizeof(path)) == ino);   /* read, not rewritten */
	CHECK(n_debug == 1 && strstr(last_debug, "not_a_syscall"));   /* skipped names replayed */
	CHECK(exited_ok(run_filtered(&hit, do_mkdir, &e)));

	/* a corrupted entry is a miss: recompiled, rewritten, same program */
	snprintf(cmd, sizeof(cmd), "printf 'X' | dd of=%s bs=1 seek=200 conv=notrunc status=none", path);
	CHECK(system(cmd) == 0);
	CHECK(seccomp_compile(&s, dir, debug, &again, &err) == 0);
	CHECK(again.len == fresh.len && memcmp(again.filter, fresh.filter, fresh.len * sizeof(struct sock_filter)) == 0);
	CHECK(only_file(dir, path, sizeof(path)) != ino);
	seccomp_prog_free(&again);

	/* another profile gets its own entry */
	rule.action = OCI_SECCOMP_KILL_PROCESS;
	CHECK(seccomp_compile(&s, dir, debug, &again, &err) == 0);
	CHECK(count_files(dir) == 2);
	CHECK(again.len != fresh.len || memcmp(again.filter, fresh.filter, fresh.len * sizeof(struct sock_filter)) != 0);

	seccomp_prog_free(&fresh);
	seccomp_prog_free(&hit);
	seccomp_prog_free(&again);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* ---- shipped profiles --------------------------------------------------------- */

static int load_profile(const char *name, struct oci_config *cfg)
{
	const char *json = oci_seccomp_profile(name);
	struct error err = { 0 };
	char *text;
	int r;

	if (!json)
		return -ENOENT;
	if (asprintf(&text, "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},"
		     "\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0}},"
		     "\"linux\":{\"seccomp\":%s}}", json) < 0)
		return -ENOMEM;
	r = oci_config_parse("config.json", text, strlen(text), OCI_PARSE_ALL, cfg, &err);
	if (r < 0)
		fprintf(stderr, "profile %s: %s\n", name, err.msg);
	free(text);
	return r;
}

/* Run `script` with busybox sh in the filtered child; its stdout in out. */
static int run_sh(const struct seccomp_prog *p, const char *script, char *out, size_t size)
{
	int fds[2], status;
	ssize_t n, total = 0;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct error err;
		dup2(fds[1], 1);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (seccomp_prog_load(p, &err) < 0)
			_exit(121);
		execl(BUSYBOX, "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + total, size - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

static int do_unshare(void *arg, int fd) { (void)arg; (void)fd; unshare(CLONE_NEWNS); return 1; }
static int do_mount(void *arg, int fd) { (void)arg; (void)fd; mount("none", "/mnt", "tmpfs", 0, NULL); return 1; }
static int do_setns(void *arg, int fd) { (void)arg; (void)fd; syscall(SYS_setns, 0, 0); return 1; }
static int do_clone_newnet(void *arg, int fd)
{
	(void)arg; (void)fd;
	syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
	return 1;
}
static int do_clone3(void *arg, int fd) { (void)arg; (void)fd; return expect_errno(syscall(SYS_clone3, NULL, 0), ENOSYS); }
static int do_unlisted(void *arg, int fd)
{
	(void)arg; (void)fd;   /* neither allowed nor denied: ENOSYS, as on an older kernel */
	return expect_errno(syscall(SYS_syslog, 10, NULL, 0), ENOSYS);
}

static int do_fork(void *arg, int fd)
{
	int status;
	(void)fd;
	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	if (*(int *)arg == 0)   /* expected to work */
		return pid > 0 && waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 7 ? 0 : 1;
	return expect_errno(pid, *(int *)arg);
}

static int do_socket(void *arg, int fd)
{
	(void)fd;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (*(int *)arg == 0)
		return s >= 0 ? 0 : 1;
	return expect_errno(s, *(int *)arg);
}

static void *thread_fn(void *arg) { return arg; }

static int do_thread(void *arg, int fd)
{
	pthread_t t;
	void *ret = NULL;
	(void)arg; (void)fd;
	if (pthread_create(&t, NULL, thread_fn, (void *)0x5) != 0 || pthread_join(t, &ret) != 0)
		return 1;
	return ret == (void *)0x5 ? 0 : 2;
}

/* An x32 number (x32 is not in the profile's architectures) from a second
 * thread: the whole process dies, not just the thread (bad-arch action). */
static void *x32_getpid(void *arg) { (void)arg; syscall(0x40000000L | SYS_getpid); return NULL; }

static int do_x32_thread(void *arg, int fd)
{
	pthread_t t;
	(void)arg; (void)fd;
	if (pthread_create(&t, NULL, x32_getpid, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;   /* survived */
}

static void test_profile_default(void)
{
	struct oci_config cfg = { 0 };
	struct seccomp_prog p;
	char out[8192];
	int zero = 0;

	CHECK(load_profile("default", &cfg) == 0);
	if (!cfg.linux_.has_seccomp)
		return;
	CHECK(cfg.linux_.seccomp.default_action == OCI_SECCOMP_ERRNO && cfg.linux_.seccomp.default_errno_ret == ENOSYS);
	CHECK(compile(&cfg.linux_.seccomp, &p) == 0);

	int st = run_sh(&p, "echo ok; ls /", out, sizeof(out));
	CHECK(exited_ok(st));
	CHECK(strncmp(out, "ok\n", 3) == 0 && strstr(out, "\nproc\n") && strstr(out, "\nusr\n"));
	/* the shell survives, its `unshare` child dies by SIGSYS (128 + 31) */
	st = run_sh(&p, BUSYBOX " unshare -m true; echo rc=$?; cat /proc/self/status | grep '^Seccomp:'",
		    out, sizeof(out));
	CHECK(exited_ok(st));
	CHECK(strstr(out, "rc=159\n") != NULL);
	CHECK(strstr(out, "Seccomp:\t2\n") != NULL);

	CHECK(killed_by_sigsys(run_filtered(&p, do_unshare, NULL)));
	CHECK(killed_by_sigsys(run_filtered(&p, do_mount, NULL)));
	CHECK(killed_by_sigsys(run_filtered(&p, do_setns, NULL)));
	CHECK(killed_by_sigsys(run_filtered(&p, do_clone_newnet, NULL)));
	CHECK(exited_ok(run_filtered(&p, do_clone3, NULL)));
	CHECK(exited_ok(run_filtered(&p, do_unlisted, NULL)));
	CHECK(exited_ok(run_filtered(&p, do_fork, &zero)));
	CHECK(exited_ok(run_filtered(&p, do_socket, &zero)));
	CHECK(exited_ok(run_filtered(&p, do_thread, NULL)));
	CHECK(killed_by_sigsys(run_filtered(&p, do_x32_thread, NULL)));
	seccomp_prog_free(&p);
	oci_config_free(&cfg);
}

static void test_profile_strict(void)
{
	struct oci_config cfg = { 0 };
	struct seccomp_prog p;
	char out[8192];
	int eperm = EPERM;

	CHECK(load_profile("strict", &cfg) == 0);
	if (!cfg.linux_.has_seccomp)
		return;
	CHECK(compile(&cfg.linux_.seccomp, &p) == 0);

	/* builtins run; the first command that needs a fork fails */
	run_sh(&p, "echo before; " BUSYBOX " true; echo after", out, sizeof(out));
	CHECK(strncmp(out, "before\n", 7) == 0);
	CHECK(exited_ok(run_filtered(&p, do_fork, &eperm)));
	CHECK(exited_ok(run_filtered(&p, do_socket, &eperm)));
	CHECK(exited_ok(run_filtered(&p, do_thread, NULL)));   /* threads still work */
	CHECK(killed_by_sigsys(run_filtered(&p, do_unshare, NULL)));
	seccomp_prog_free(&p);
	oci_config_free(&cfg);
}

/* strict.json is default.json plus the documented denials: every other
 * syscall has the same rules in both (two hand-kept files must not drift). */
static const char *const strict_only[] = { "clone", "fork", "vfork", "socket", "socketpair", "socketcall" };

static bool strict_changes(const char *name)
{
	for (size_t i = 0; i < sizeof(strict_only) / sizeof(strict_only[0]); i++)
		if (strcmp(name, strict_only[i]) == 0)
			return true;
	return false;
}

/* "name action errno args..." for every (name, rule) outside strict_only, in order */
static size_t rule_lines(const struct oci_seccomp *s, char lines[][256], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct oci_seccomp_rule *r = &s->syscalls[i];
		for (size_t k = 0; k < r->n_names && n < max; k++) {
			if (strict_changes(r->names[k]))
				continue;
			int len = snprintf(lines[n], 256, "%s %d %d %u", r->names[k], (int)r->action,
					   r->has_errno_ret, r->errno_ret);
			for (size_t a = 0; a < r->n_args && len < 200; a++)
				len += snprintf(lines[n] + len, 256 - (size_t)len, " %u:%d:%llx:%llx", r->args[a].index,
						(int)r->args[a].op, (unsigned long long)r->args[a].value,
						(unsigned long long)r->args[a].value_two);
			n++;
		}
	}
	return n;
}

static void test_profiles_in_step(void)
{
	static char a[512][256], b[512][256];
	struct oci_config d = { 0 }, s = { 0 };

	CHECK(load_profile("default", &d) == 0 && load_profile("strict", &s) == 0);
	size_t na = rule_lines(&d.linux_.seccomp, a, 512), nb = rule_lines(&s.linux_.seccomp, b, 512);
	CHECK(na > 300 && na < 512 && na == nb);
	for (size_t i = 0; i < na && i < nb; i++)
		if (strcmp(a[i], b[i]) != 0) {
			CHECK_STR(a[i], b[i]);
			break;
		}
	CHECK(d.linux_.seccomp.default_action == s.linux_.seccomp.default_action &&
	      d.linux_.seccomp.default_errno_ret == s.linux_.seccomp.default_errno_ret &&
	      d.linux_.seccomp.n_architectures == s.linux_.seccomp.n_architectures);
	oci_config_free(&d);
	oci_config_free(&s);
}

/* Not asserted (no timing thresholds in tests): what the cache saves. */
static void report_timing(void)
{
	struct oci_config cfg = { 0 };
	struct seccomp_prog p;
	struct error err;
	struct timespec a, b, b2, c;
	char dir[] = "/tmp/tinyrun-test-seccomp-time-XXXXXX", cmd[128];
	const int n = 50;

	if (load_profile("default", &cfg) < 0 || !mkdtemp(dir))
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		seccomp_compile(&cfg.linux_.seccomp, NULL, NULL, &p, &err);
		seccomp_prog_free(&p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	seccomp_compile(&cfg.linux_.seccomp, dir, NULL, &p, &err);   /* fill */
	seccomp_prog_free(&p);
	clock_gettime(CLOCK_MONOTONIC, &b2);
	for (int i = 0; i < n; i++) {
		seccomp_compile(&cfg.linux_.seccomp, dir, NULL, &p, &err);
		if (i < n - 1)
			seccomp_prog_free(&p);
	}
	clock_gettime(CLOCK_MONOTONIC, &c);
	double t_compile = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1e3;
	double t_hit = ((c.tv_sec - b2.tv_sec) * 1e9 + (c.tv_nsec - b2.tv_nsec)) / n / 1e3;
	printf("# default profile (%u BPF instructions): compile %.0f us, cache hit %.0f us\n",
	       p.len, t_compile, t_hit);
	seccomp_prog_free(&p);
	oci_config_free(&cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/* ---- runc's -ENOSYS stub ------------------------------------------------ */

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static int do_enosys(void *arg, int fd)
{
	(void)fd;
	int deflt = *(int *)arg;
	int r = expect_errno(syscall(SYS_clone3, NULL, 0), ENOSYS);   /* unnamed, newer than all named */
	if (r == 0)
		r = expect_errno(syscall(1000, 0, 0, 0), ENOSYS);       /* no such syscall at all */
	if (r == 0)
		r = expect_errno(syscall(SYS_getpid), deflt) ? 2 : 0;    /* unnamed, older: the default */
	if (r == 0)
		r = syscall(SYS_getppid) > 0 ? 0 : 3;                    /* named and allowed */
	return r;
}

static void test_enosys_stub(void)
{
	struct oci_seccomp_rule rules[] = {
		{ NAMES("exit_group", "exit", "getppid", "mkdir", "no_such_syscall"), .action = OCI_SECCOMP_ALLOW },
	};
	struct oci_seccomp s = profile(OCI_SECCOMP_ERRNO, rules, 1);
	struct seccomp_prog p, plain;
	int e = EPERM;

	s.architectures = (char *[]){ "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64" };
	s.n_architectures = 4;
	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_enosys, &e)));
	seccomp_prog_free(&p);

	/* no architectures: the native one only; kill as default: ENOSYS, not SIGSYS */
	s.architectures = NULL;
	s.n_architectures = 0;
	s.default_action = OCI_SECCOMP_KILL_PROCESS;
	CHECK(compile(&s, &p) == 0);
	CHECK(killed_by_sigsys(run_filtered(&p, do_enosys, &e)));   /* getpid still kills */
	CHECK(exited_ok(run_filtered(&p, do_mkdir, &(int){ ENOENT })));
	seccomp_prog_free(&p);

	/* a default that already says ENOSYS, or allows, needs no stub */
	s.default_action = OCI_SECCOMP_ERRNO;
	s.has_default_errno_ret = true;
	s.default_errno_ret = ENOSYS;
	CHECK(!seccomp_needs_enosys_stub(&s));
	CHECK(compile(&s, &plain) == 0);
	s.default_errno_ret = EPERM;
	CHECK(seccomp_needs_enosys_stub(&s));
	CHECK(compile(&s, &p) == 0 && p.len > plain.len);
	seccomp_prog_free(&p);
	seccomp_prog_free(&plain);
	s.default_action = OCI_SECCOMP_ALLOW;
	CHECK(!seccomp_needs_enosys_stub(&s));
	s.default_action = OCI_SECCOMP_LOG;
	CHECK(!seccomp_needs_enosys_stub(&s));
}

static int do_clone3_kill(void *arg, int fd)
{
	(void)arg; (void)fd;
	return expect_errno(syscall(SYS_clone3, NULL, 0), ENOSYS);
}

static void test_enosys_kill(void)
{
	struct oci_seccomp_rule rule = { NAMES("exit_group", "exit", "getppid"), .action = OCI_SECCOMP_ALLOW };
	struct oci_seccomp s = profile(OCI_SECCOMP_KILL_PROCESS, &rule, 1);
	struct seccomp_prog p;

	CHECK(compile(&s, &p) == 0);
	CHECK(exited_ok(run_filtered(&p, do_clone3_kill, NULL)));
	seccomp_prog_free(&p);
}

static void test_notify_write_refused(void)
{
	struct oci_seccomp_rule rule = { NAMES("getppid", "write"), .action = OCI_SECCOMP_NOTIFY };
	struct oci_seccomp s = profile(OCI_SECCOMP_ALLOW, &rule, 1);
	struct seccomp_prog p;
	struct error err = { 0 };

	s.listener_path = "/nonexistent.sock";
	CHECK(seccomp_compile(&s, NULL, NULL, &p, &err) == -EINVAL);
	CHECK(strstr(err.msg, "SCMP_ACT_NOTIFY cannot be used for the write syscall") != NULL);
	CHECK(strstr(err.msg, ".linux.seccomp.syscalls[0]") != NULL);
}

/* compact.c: a run of consecutive numbers with one verdict becomes a range
 * test; a chain something jumps into the middle of stays as it was. */
static void test_compact(void)
{
	const uint32_t allow = SECCOMP_RET_ALLOW, deny = SECCOMP_RET_ERRNO | 38, kill = SECCOMP_RET_KILL_PROCESS;
	/* nr 10..14 -> allow, 20 -> kill, 12 again (dead) -> kill, else deny */
	struct sock_filter chain[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 14, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 11, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 20, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 10, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 13, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 12, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 12, 2, 1),
		BPF_STMT(BPF_RET | BPF_K, allow),
		BPF_STMT(BPF_RET | BPF_K, deny),
		BPF_STMT(BPF_RET | BPF_K, kill),
	};
	struct seccomp_prog p = { .len = sizeof(chain) / sizeof(chain[0]) };

	CHECK((p.filter = malloc(sizeof(chain))) != NULL);
	memcpy(p.filter, chain, sizeof(chain));
	seccomp_compact(&p);
	CHECK(p.len == 7);   /* ld, jgt 14, jge 10, jeq 20, three rets */
	CHECK(seccomp_compact_same(chain, sizeof(chain) / sizeof(chain[0]), p.filter, p.len));
	CHECK(!seccomp_compact_same(chain, sizeof(chain) / sizeof(chain[0]), p.filter + 1, p.len - 1));
	seccomp_prog_free(&p);

	/* a jump into its middle (to jeq 20) splits it in two: 99 14 11, no run
	 * there; 20 10 13 12 12, only the dead second 12 goes */
	chain[0] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 99, 2, 0);
	p.len = sizeof(chain) / sizeof(chain[0]);
	CHECK((p.filter = malloc(sizeof(chain))) != NULL);
	memcpy(p.filter, chain, sizeof(chain));
	seccomp_compact(&p);
	CHECK(p.len == 10);
	CHECK(seccomp_compact_same(chain, sizeof(chain) / sizeof(chain[0]), p.filter, p.len));
	seccomp_prog_free(&p);

	/* the shipped profiles: libseccomp's program and the compacted one */
	const char *profiles[] = { "default", "strict" };
	for (size_t i = 0; i < 2; i++) {
		struct oci_config cfg = { 0 };
		struct seccomp_skipped sk = { 0 };
		struct seccomp_prog plain = { 0 }, small = { 0 };
		struct error err;

		CHECK(load_profile(profiles[i], &cfg) == 0);
		CHECK(seccomp_build(&cfg.linux_.seccomp, NULL, &sk, &plain, &err) == 0);
		small.len = plain.len;
		CHECK((small.filter = malloc(plain.len * sizeof(*plain.filter))) != NULL);
		memcpy(small.filter, plain.filter, plain.len * sizeof(*plain.filter));
		seccomp_compact(&small);
		CHECK(small.len < plain.len * 9 / 10);
		CHECK(seccomp_compact_same(plain.filter, plain.len, small.filter, small.len));
		free(sk.text);
		seccomp_prog_free(&plain);
		seccomp_prog_free(&small);
		oci_config_free(&cfg);
	}
}

int main(void)
{
	test_errno();
	test_default_errno();
	test_kill();
	test_trap_trace_log();
	test_args();
	test_skips_and_errors();
	test_flags();
	test_notify();
	test_cache();
	test_profile_default();
	test_profile_strict();
	test_profiles_in_step();
	test_enosys_stub();
	test_enosys_kill();
	test_notify_write_refused();
	test_compact();
	report_timing();
	return unit_report("test_seccomp_filter");
}
