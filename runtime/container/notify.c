#include "runtime/container/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/callerenv.h"
#include "runtime/log.h"

#define DIR_NAME "notify"
#define SOCK_NAME DIR_NAME "/notify"
#define FALLBACK_DIR "/run/notify"   /* runc's, for a NOTIFY_SOCKET that is no path */

const char *notify_host(void)
{
	const char *s = callerenv_get("NOTIFY_SOCKET");

	return s && *s ? s : NULL;
}

static int append_mount(struct oci_config *cfg, char *dst, char *src)
{
	static char *opts[] = { "bind", "ro", "nosuid", "nodev", "noexec" };
	struct oci_mount *m = calloc(cfg->n_mounts + 1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	memcpy(m, cfg->mounts, cfg->n_mounts * sizeof(*m));
	m[cfg->n_mounts] = (struct oci_mount){
		.destination = dst, .source = src, .options = opts,
		.n_options = sizeof(opts) / sizeof(opts[0]), .is_bind = true,
		.flags = MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
	};
	cfg->mounts = m;
	cfg->n_mounts++;
	return 0;
}

int notify_plan(struct oci_config *cfg, const char *root, const char *id, struct error *err)
{
	const char *host = notify_host();
	char cwd[PATH_MAX], *dst, *src, *var;
	bool rel = root[0] != '/';

	if (rel && !getcwd(cwd, sizeof(cwd)))
		return error_sys(err, errno, "NOTIFY_SOCKET: the current directory");
	dst = strdup(host[0] == '/' && strlen(host) < PATH_MAX ? host : FALLBACK_DIR);
	if (!dst || asprintf(&src, "%s%s%s/%s/" DIR_NAME, rel ? cwd : "", rel ? "/" : "", root, id) < 0 ||
	    asprintf(&var, "NOTIFY_SOCKET=%s%s" DIR_NAME, dst, dst[strlen(dst) - 1] == '/' ? "" : "/") < 0)
		return error_set(err, ENOMEM, "out of memory");
	if (append_mount(cfg, dst, src) < 0 || oci_process_env_append(&cfg->process, &var, 1) < 0)
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

int notify_dir_make(int state_dirfd, struct error *err)
{
	if (mkdirat(state_dirfd, DIR_NAME, 0755) < 0 || fchmodat(state_dirfd, DIR_NAME, 0755, 0) < 0)
		return error_sys(err, errno, "NOTIFY_SOCKET: the state dir's " DIR_NAME "/");
	return 0;
}

/* ADDR for PATH: a file name, or "@name" for an abstract socket. */
static socklen_t address(const char *path, struct sockaddr_un *addr)
{
	size_t n = strlen(path);

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (n >= sizeof(addr->sun_path))
		return 0;
	memcpy(addr->sun_path, path, n);
	if (path[0] == '@')
		addr->sun_path[0] = 0;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] != '@'));
}

int notify_listen(int state_dirfd)
{
	struct sockaddr_un a;
	char path[64];
	socklen_t len;
	int fd;

	if (!notify_host() || faccessat(state_dirfd, DIR_NAME, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	/* through the dir's fd: the state dir's own path may be longer than sun_path */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/" SOCK_NAME, state_dirfd);
	len = address(path, &a);
	unlinkat(state_dirfd, SOCK_NAME, 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0 ||
	    fchmodat(state_dirfd, SOCK_NAME, 0777, 0) < 0) {
		log_warn("NOTIFY_SOCKET: cannot listen in the state dir: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool has_ready(const char *msg)
{
	for (const char *l = msg; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "READY=1", 7) && (l[7] == '\n' || l[7] == 0))
			return true;
	return false;
}

int notify_relay(int fd, pid_t mainpid)
{
	char msg[4097], out[64];
	struct sockaddr_un a;
	socklen_t len = address(notify_host() ? notify_host() : "", &a);
	ssize_t n = recv(fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);
	int s, r;

	if (n <= 0)
		return -1;
	msg[n] = 0;
	if (!has_ready(msg))
		return 0;
	if (!len || (s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		log_warn("NOTIFY_SOCKET: cannot reach \"%s\"", notify_host() ? notify_host() : "");
		return 1;
	}
	/* two datagrams, as runc writes them; the first exactly crun's */
	n = snprintf(out, sizeof(out), "MAINPID=%d", (int)mainpid);
	r = (int)sendto(s, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&a, len);
	if (r >= 0)
		r = (int)sendto(s, out, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&a, len);
	if (r < 0)
		log_warn("NOTIFY_SOCKET: send to \"%s\": %s", notify_host(), strerror(errno));
	close(s);
	return 1;
}

void notify_wait_ready(int fd, pid_t pid, int pidfd)
{
	int own = pidfd < 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = pidfd < 0 ? own : pidfd, .events = POLLIN } };

	for (;;) {
		/* without a pidfd (an old kernel), a look at the pid every 100 ms */
		int n = poll(p, p[1].fd >= 0 ? 2 : 1, p[1].fd >= 0 ? -1 : 100);

		if (n < 0 && errno != EINTR)
			break;
		if ((p[0].revents & POLLIN) && notify_relay(fd, pid) == 1)
			break;
		if (p[1].revents || (p[1].fd < 0 && kill(pid, 0) < 0 && errno == ESRCH)) {
			/* what it sent before it exited is still queued */
			while (notify_relay(fd, pid) == 0)
				;
			break;
		}
	}
	if (own >= 0)
		close(own);
}
