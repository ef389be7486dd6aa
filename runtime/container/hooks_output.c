/* run.oci.hooks.stdout / .stderr (crun's annotations): the files every
 * hook's stdout and stderr go to, and the relays that keep them out of the
 * container (hooks_output.h). */
#include "runtime/container/hooks_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/container/process.h"

/* run.oci.hooks.stdout / .stderr: the host files, opened once per process
 * for the host's hooks; -1: the runtime's own stdout / stderr */
static int out_fd = -1, err_fd = -1;
/* The container's hooks never get those files (an image's startContainer
 * hook would reopen one through /proc/self/fd/1 and read or truncate it).
 * Those of one kind write into pipes that a process of the runtime's, their
 * relay, copies into the files; its ack pipe closes once it has written
 * everything, so the next hook's output comes after theirs. -1: none. */
struct relay_ends {
	int out, err;   /* the write ends of the pipes */
	int ack;        /* the read end of the ack pipe */
};
static struct relay_ends relays[2] = { { -1, -1, -1 }, { -1, -1, -1 } };
#define RELAY_ACK_WAIT_MS 2000   /* a hook that left a process holding its stdout */

/* The relay of createContainer's or startContainer's hooks; NULL: a host hook */
static struct relay_ends *relay_of(enum oci_hook_kind kind)
{
	if (kind == OCI_HOOK_CREATE_CONTAINER)
		return &relays[0];
	return kind == OCI_HOOK_START_CONTAINER ? &relays[1] : NULL;
}

static const char *const out_names[] = { "run.oci.hooks.stdout", "run.oci.hooks.stderr" };

/* The file of annotation `name`: a regular file only, never reached through
 * a symlink nor opened on a FIFO (O_NONBLOCK: no wait for a reader), created
 * 0600. */
static int open_output(const char *name, const char *path, int *fd, struct error *err)
{
	struct stat st;
	int e;

	if (!path || *fd >= 0)
		return 0;
	*fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (*fd < 0) {
		e = errno;
		if (e == ELOOP)
			return error_set(err, ELOOP, "annotations.%s: %s: a symlink (refused)", name, path);
		if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return error_set(err, EINVAL, "annotations.%s: %s: not a regular file (refused)", name, path);
		return error_sys(err, e, "annotations.%s: %s", name, path);
	}
	e = fstat(*fd, &st) < 0 ? errno : 0;
	if (!e && S_ISREG(st.st_mode))
		return 0;
	close(*fd);
	*fd = -1;
	if (e)
		return error_sys(err, e, "annotations.%s: %s", name, path);
	return error_set(err, EINVAL, "annotations.%s: %s: not a regular file (refused)", name, path);
}

int hooks_output_open(const struct oci_hooks *hooks, struct error *err)
{
	int r = open_output(out_names[0], hooks->stdout_path, &out_fd, err);

	return r < 0 ? r : open_output(out_names[1], hooks->stderr_path, &err_fd, err);
}

/* One read of `from`, written whole to `to` (a full file: dropped, the pipe
 * is drained anyway); false at EOF or error. */
static bool relay_copy(int from, int to)
{
	char buf[8192];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += w;
	}
	return n > 0;
}

/* The relay, a grandchild (no one of ours waits for it): copies each pipe
 * into its file until every write end is gone (the init's closes after the
 * hooks of its kind, a hook's at its exit), then ends, which closes the ack
 * pipe's write end. */
static _Noreturn void relay(const int from[2], const int to[2])
{
	struct pollfd p[2] = { { .fd = from[0], .events = POLLIN }, { .fd = from[1], .events = POLLIN } };
	int open = (from[0] >= 0) + (from[1] >= 0);

	while (open > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents || relay_copy(p[i].fd, to[i]))
				continue;
			close(p[i].fd);
			p[i].fd = -1;
			open--;
		}
	}
	_exit(0);
}

static int spawn_relay(const int from[2], const int to[2], int ack, struct error *err)
{
	const int keep[] = { from[0], from[1], to[0], to[1], ack };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return error_sys(err, errno, "hooks output: fork");
	if (pid == 0) {
		struct error ignored;

		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_NAME, "tinyrun-relay", 0, 0, 0);
		signal(SIGPIPE, SIG_IGN);
		/* nothing of the runtime's: not the state dir's lock, not the log */
		if (chdir("/") < 0 || process_close_fds(3, keep, sizeof(keep) / sizeof(keep[0]), &ignored) < 0)
			_exit(1);
		relay(from, to);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error_sys(err, errno, "hooks output: wait");
	return 0;
}

static void close_ends(struct relay_ends *e)
{
	int *fds[] = { &e->out, &e->err, &e->ack };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Pipes for the files open (out_fd, err_fd), an ack pipe, their relay. */
static int start_relay(struct relay_ends *e, struct error *err)
{
	int to[2] = { out_fd, err_fd }, from[2] = { -1, -1 }, w[2] = { -1, -1 }, ack[2] = { -1, -1 }, r = 0;

	for (int i = 0; i < 2 && r == 0; i++) {
		int p[2];

		if (to[i] < 0)
			continue;
		if (pipe2(p, O_CLOEXEC) < 0)
			r = error_sys(err, errno, "hooks output: pipe");
		else {
			from[i] = p[0];
			w[i] = p[1];
		}
	}
	if (r == 0 && pipe2(ack, O_CLOEXEC) < 0)
		r = error_sys(err, errno, "hooks output: pipe");
	if (r == 0)
		r = spawn_relay(from, to, ack[1], err);
	*e = (struct relay_ends){ .out = w[0], .err = w[1], .ack = ack[0] };
	for (int i = 0; i < 2; i++)
		if (from[i] >= 0)
			close(from[i]);
	if (ack[1] >= 0)
		close(ack[1]);
	if (r < 0)
		close_ends(e);
	return r;
}

/* The hooks of e's kind are done: our write ends go, and the relay has
 * written everything once the ack pipe is at its end. */
static void relay_finish(struct relay_ends *e)
{
	struct pollfd p = { .fd = e->ack, .events = POLLIN };

	if (e->out >= 0)
		close(e->out);
	if (e->err >= 0)
		close(e->err);
	e->out = e->err = -1;
	if (e->ack >= 0)
		while (poll(&p, 1, RELAY_ACK_WAIT_MS) < 0 && errno == EINTR)
			;
	close_ends(e);
}

/* The files are the relays' now (or nobody's yet): the child is never cloned
 * holding one; the host's hooks open them again. */
static void close_files(void)
{
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	out_fd = err_fd = -1;
}

int hooks_output_start(const struct oci_hooks *hooks, struct error *err)
{
	static const enum oci_hook_kind kinds[] = { OCI_HOOK_CREATE_CONTAINER, OCI_HOOK_START_CONTAINER };
	int r = hooks_output_open(hooks, err);

	for (size_t i = 0; r == 0 && (out_fd >= 0 || err_fd >= 0) && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (hooks->n[kinds[i]])
			r = start_relay(relay_of(kinds[i]), err);
	close_files();
	if (r < 0)
		hooks_output_release();
	return r;
}

void hooks_output_fds(int fds[3])
{
	const struct relay_ends *e = relay_of(OCI_HOOK_START_CONTAINER);

	fds[0] = e->out;
	fds[1] = e->err;
	fds[2] = e->ack;
}

void hooks_output_release(void)
{
	close_ends(&relays[0]);
	close_ends(&relays[1]);
}

void hooks_output_for(enum oci_hook_kind kind, int *out, int *err)
{
	const struct relay_ends *e = relay_of(kind);

	*out = e ? e->out : out_fd;
	*err = e ? e->err : err_fd;
}

void hooks_output_done(enum oci_hook_kind kind)
{
	if (relay_of(kind))
		relay_finish(relay_of(kind));
}
