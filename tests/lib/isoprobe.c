/* isoprobe QUERY...: the channels between two sandbox requests
 * (tests/sandbox-isolation.bats). Each query prints one line "QUERY=VALUE"
 * (errors "QUERY=ERR:<errno name>"), flushed at once, in argument order;
 * one task holds a channel's end and sleeps, a task of another request
 * tries the other end. Raw syscalls: it must see what the kernel says, not
 * a libc fallback. Queries (ARG parts separated by ':'):
 *   socket:FAMILY:TYPE    socket(FAMILY, TYPE, 0) (numbers): "ok" or ERR
 *   socketcall32:FAMILY:TYPE  the same through x86-32's socketcall(SYS_SOCKET) (int $0x80)
 *   flock:PATH            open PATH read-only, flock(LOCK_SH|LOCK_NB), keep it: "ok" or ERR
 *   flock-ex:PATH         open PATH read-only, flock(LOCK_EX|LOCK_NB): "free" or ERR (held elsewhere)
 *   setlk:PATH            open read-only, fcntl(F_SETLK, F_RDLCK) over the file, keep it
 *   getlk:PATH            open read-only, fcntl(F_GETLK, F_WRLCK): "unlocked" or "locked"
 *   key-add:DESC  ukey-add:DESC     add_key("user", DESC, "x") to the session / user keyring
 *   key-find:DESC ukey-find:DESC    keyctl(KEYCTL_SEARCH) of the session / user keyring: "found" or ERR
 *   keyring               the session keyring's description (KEYCTL_DESCRIBE)
 *   sysv-make:KEY  sysv-get:KEY    shmget(KEY, 4096, IPC_CREAT|0666) / shmget(KEY, 0, 0)
 *   mq-make:NAME   mq-get:NAME     mq_open(NAME, O_CREAT|O_RDWR) / mq_open(NAME, O_RDWR) (raw: no leading /)
 *   abstract-bind:NAME  abstract-connect:NAME   an abstract unix stream socket "\0NAME"
 *   vsock-listen:PORT  vsock-connect:PORT    AF_VSOCK stream: listen on any CID / connect to the local CID
 *   touch:PATH  exists:PATH   create PATH / stat it
 *   watch:PATH            inotify watch on PATH (open, access, attrib): kept for wait-event
 *   wait-event:SECS       an event of that watch within SECS: "event" or "none"
 *   read:PATH             open PATH and read a byte: "ok" or ERR
 *   io_uring              io_uring_setup(1): "ok" or ERR
 *   clone:FLAGS           raw clone(FLAGS|SIGCHLD), the child exits 0: "ok" or ERR
 *   clone3:FLAGS          raw clone3 with flags FLAGS
 *   sleep:SECS            sleep, then "ok"
 * Host side: isoprobe --session CMD [ARGS...] runs CMD in a new session
 * keyring of its own (a real one, as a login's pam_keyinit makes): what a
 * container would share with its caller without its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <poll.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/vm_sockets.h>
#include <sys/stat.h>
#include <unistd.h>

static void out(const char *q, const char *v)
{
	printf("%s=%s\n", q, v);
	fflush(stdout);
}

static void fail(const char *q, int e)
{
	char v[64];
	const char *n = strerrorname_np(e);

	snprintf(v, sizeof(v), "ERR:%s", n ? n : "unknown");
	out(q, v);
}

/* ARG n (1-based) of "name:a1:a2" into buf (the last one takes the rest) */
static const char *arg(const char *q, int n, char *buf, size_t size)
{
	const char *p = q;

	for (int i = 0; i < n; i++)
		if (!(p = strchr(p, ':')))
			return "";
		else
			p++;
	snprintf(buf, size, "%s", p);
	if (n == 1 && (!strncmp(q, "socket:", 7) || !strncmp(q, "socketcall32:", 13)))
		buf[strcspn(buf, ":")] = '\0';
	return buf;
}

static void q_lock(const char *q, const char *path, int kind)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct flock l = { .l_type = kind == 'g' ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };

	if (fd < 0)
		return fail(q, errno);
	if (kind == 's' && flock(fd, LOCK_SH | LOCK_NB) < 0)
		return fail(q, errno);
	if (kind == 'x') {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0)
			return fail(q, errno);
		close(fd);
		return out(q, "free");
	}
	if (kind == 'l' && fcntl(fd, F_SETLK, &l) < 0)
		return fail(q, errno);
	if (kind == 'g') {
		if (fcntl(fd, F_GETLK, &l) < 0)
			return fail(q, errno);
		close(fd);
		return out(q, l.l_type == F_UNLCK ? "unlocked" : "locked");
	}
	out(q, "ok");   /* the fd stays open: the lock is held until exit */
}

static int abstract_addr(const char *name, struct sockaddr_un *a)
{
	*a = (struct sockaddr_un){ .sun_family = AF_UNIX };
	snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s", name);
	return (int)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static void q_abstract(const char *q, const char *name, int bind_it)
{
	struct sockaddr_un a;
	int len = abstract_addr(name, &a), fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return fail(q, errno);
	if (bind_it ? bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 1) < 0
		    : connect(fd, (struct sockaddr *)&a, len) < 0)
		return fail(q, errno);
	out(q, "ok");
}

static void q_vsock(const char *q, const char *port, int listen_it)
{
	struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_port = (unsigned)atoi(port),
				 .svm_cid = listen_it ? VMADDR_CID_ANY : VMADDR_CID_LOCAL };
	int fd = (int)syscall(SYS_socket, AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return fail(q, errno);
	if (listen_it ? bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0
		      : connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(q, errno);
	out(q, "ok");
}

static int watch_fd = -1;

static void q_watch(const char *q, const char *path)
{
	if (watch_fd < 0 && (watch_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0)
		return fail(q, errno);
	if (inotify_add_watch(watch_fd, path, IN_OPEN | IN_ACCESS | IN_ATTRIB | IN_CLOSE_NOWRITE) < 0)
		return fail(q, errno);
	out(q, "ok");
}

static void q_wait_event(const char *q, int secs)
{
	struct pollfd p = { .fd = watch_fd, .events = POLLIN };

	if (watch_fd < 0)
		return fail(q, EBADF);
	out(q, poll(&p, 1, secs * 1000) > 0 ? "event" : "none");
}

static void q_read(const char *q, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char c;

	if (fd < 0)
		return fail(q, errno);
	if (read(fd, &c, 1) != 1) {
		close(fd);
		return fail(q, errno ? errno : EIO);
	}
	close(fd);
	out(q, "ok");
}

/* x86-32's socketcall(SYS_SOCKET, {family, type, 0}) from this 64-bit
 * process: its arguments in memory below 4 GiB (a static non-PIE binary) */
static void q_socketcall32(const char *q, long family, long type)
{
#if defined(__x86_64__)
	static unsigned int args[3];
	long r;

	args[0] = (unsigned int)family;
	args[1] = (unsigned int)type;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(102), "b"(1), "c"((unsigned long)args) : "memory");
	if (r < 0 && r > -4096)
		return fail(q, (int)-r);
	out(q, "ok");
#else
	(void)family;
	(void)type;
	fail(q, ENOSYS);
#endif
}

static void q_clone(const char *q, const char *flags, int v3)
{
	unsigned long f = strtoul(flags, NULL, 0);
	struct clone_args ca = { .flags = f, .exit_signal = SIGCHLD };
	long pid = v3 ? syscall(SYS_clone3, &ca, sizeof(ca)) : syscall(SYS_clone, f | SIGCHLD, NULL, NULL, NULL, NULL);
	int st;

	if (pid < 0)
		return fail(q, errno);
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, &st, 0);
	out(q, "ok");
}

static void q_num(const char *q, long r)
{
	if (r < 0)
		return fail(q, errno);
	out(q, "ok");
}

static void query(const char *q)
{
	char a[256], b[64];

	if (!strncmp(q, "socket:", 7))
		q_num(q, syscall(SYS_socket, strtol(arg(q, 1, b, sizeof(b)), NULL, 0), atoi(arg(q, 2, a, sizeof(a))), 0));
	else if (!strncmp(q, "socketcall32:", 13))
		q_socketcall32(q, strtol(arg(q, 1, b, sizeof(b)), NULL, 0), atoi(arg(q, 2, a, sizeof(a))));
	else if (!strncmp(q, "flock:", 6))
		q_lock(q, arg(q, 1, a, sizeof(a)), 's');
	else if (!strncmp(q, "flock-ex:", 9))
		q_lock(q, arg(q, 1, a, sizeof(a)), 'x');
	else if (!strncmp(q, "setlk:", 6))
		q_lock(q, arg(q, 1, a, sizeof(a)), 'l');
	else if (!strncmp(q, "getlk:", 6))
		q_lock(q, arg(q, 1, a, sizeof(a)), 'g');
	else if (!strncmp(q, "key-add:", 8) || !strncmp(q, "ukey-add:", 9))
		q_num(q, syscall(SYS_add_key, "user", arg(q, 1, a, sizeof(a)), "x", 1,
				 q[0] == 'u' ? KEY_SPEC_USER_KEYRING : KEY_SPEC_SESSION_KEYRING));
	else if (!strncmp(q, "key-find:", 9) || !strncmp(q, "ukey-find:", 10)) {
		long r = syscall(SYS_keyctl, KEYCTL_SEARCH, q[0] == 'u' ? KEY_SPEC_USER_KEYRING : KEY_SPEC_SESSION_KEYRING,
				 "user", arg(q, 1, a, sizeof(a)), 0);
		r < 0 ? fail(q, errno) : out(q, "found");
	} else if (!strcmp(q, "keyring")) {
		long r = syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING, a, sizeof(a) - 1);
		if (r < 0)
			return fail(q, errno);
		a[r < (long)sizeof(a) ? r : (long)sizeof(a) - 1] = '\0';
		out(q, strrchr(a, ';') ? strrchr(a, ';') + 1 : a);
	} else if (!strncmp(q, "sysv-make:", 10))
		q_num(q, shmget((key_t)atoi(arg(q, 1, a, sizeof(a))), 4096, IPC_CREAT | 0666));
	else if (!strncmp(q, "sysv-get:", 9))
		q_num(q, shmget((key_t)atoi(arg(q, 1, a, sizeof(a))), 0, 0));
	else if (!strncmp(q, "mq-make:", 8))
		q_num(q, syscall(SYS_mq_open, arg(q, 1, a, sizeof(a)), O_CREAT | O_RDWR, 0666, NULL));
	else if (!strncmp(q, "mq-get:", 7))
		q_num(q, syscall(SYS_mq_open, arg(q, 1, a, sizeof(a)), O_RDWR, 0, NULL));
	else if (!strncmp(q, "abstract-bind:", 14))
		q_abstract(q, arg(q, 1, a, sizeof(a)), 1);
	else if (!strncmp(q, "abstract-connect:", 17))
		q_abstract(q, arg(q, 1, a, sizeof(a)), 0);
	else if (!strncmp(q, "vsock-listen:", 13))
		q_vsock(q, arg(q, 1, a, sizeof(a)), 1);
	else if (!strncmp(q, "vsock-connect:", 14))
		q_vsock(q, arg(q, 1, a, sizeof(a)), 0);
	else if (!strncmp(q, "touch:", 6))
		q_num(q, open(arg(q, 1, a, sizeof(a)), O_WRONLY | O_CREAT | O_CLOEXEC, 0666));
	else if (!strncmp(q, "exists:", 7)) {
		struct stat sb;
		q_num(q, stat(arg(q, 1, a, sizeof(a)), &sb));
	} else if (!strncmp(q, "watch:", 6))
		q_watch(q, arg(q, 1, a, sizeof(a)));
	else if (!strncmp(q, "wait-event:", 11))
		q_wait_event(q, atoi(q + 11));
	else if (!strncmp(q, "read:", 5))
		q_read(q, arg(q, 1, a, sizeof(a)));
	else if (!strcmp(q, "io_uring")) {
		char params[120] = { 0 };
		q_num(q, syscall(SYS_io_uring_setup, 1, params));
	} else if (!strncmp(q, "clone:", 6))
		q_clone(q, arg(q, 1, a, sizeof(a)), 0);
	else if (!strncmp(q, "clone3:", 7))
		q_clone(q, arg(q, 1, a, sizeof(a)), 1);
	else if (!strncmp(q, "sleep:", 6)) {
		sleep((unsigned)atoi(q + 6));
		out(q, "ok");
	} else
		fail(q, ENOSYS);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--session")) {
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
			perror("isoprobe: keyctl(KEYCTL_JOIN_SESSION_KEYRING)");
			return 2;
		}
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	for (int i = 1; i < argc; i++)
		query(argv[i]);
	return 0;
}
