/* `run` in the foreground: the runtime stays the container init's parent,
 * forwards the signals it gets and reports the exit status. */
#include "oci/util.h"
#include "runtime/container/wait.h"
#include "runtime/container/notify.h"
#include "runtime/sandbox/output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static sigset_t forwarded;
static int notify_fd = -1;
static struct output_relay *output;
static struct rusage reaped_usage;   /* wait4's, of the pid wait_container reaped */
static bool reaped;
static int (*watch)(void *);   /* the time limits (runtime/sandbox/limits.h) */
static void *watch_ud;

bool wait_reaped_rusage(struct rusage *ru)
{
	*ru = reaped_usage;
	return reaped;
}

void wait_relay_notify(int fd)
{
	notify_fd = fd;
}

void wait_relay_output(struct output_relay *o)
{
	output = o && o->on ? o : NULL;
}

void wait_watch(int (*fn)(void *ud), void *ud)
{
	watch = fn;
	watch_ud = ud;
}

/* the sooner of two poll timeouts (-1: none) */
static int sooner(int a, int b)
{
	return a < 0 ? b : b < 0 || a < b ? a : b;
}

void wait_block_signals(void)
{
	sigfillset(&forwarded);
	sigdelset(&forwarded, SIGSEGV);
	sigdelset(&forwarded, SIGBUS);
	sigdelset(&forwarded, SIGILL);
	sigdelset(&forwarded, SIGFPE);
	sigdelset(&forwarded, SIGKILL);
	sigdelset(&forwarded, SIGSTOP);
	sigprocmask(SIG_BLOCK, &forwarded, NULL);
}

static int status_code(int status, int *term_sig)
{
	*term_sig = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		*term_sig = WTERMSIG(status);
		return 128 + WTERMSIG(status);
	}
	return 255;
}

/* Reap: our child directly, or (subreaper) any orphan until `pid` shows up. */
static bool reap(pid_t pid, int *status)
{
	for (;;) {
		pid_t r = wait4(-1, status, WNOHANG | __WALL, &reaped_usage);
		if (r == pid)
			return reaped = true;
		if (r <= 0)
			return false;
	}
}

static void on_signal(int sfd, pid_t pid, int pty_master)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		/* SIGCHLD is ours; so is the SIGPIPE of a write to a closed stdout
		 * (relay_out hangs the container up instead) */
		if (si.ssi_signo == SIGCHLD || (si.ssi_signo == SIGPIPE && (pid_t)si.ssi_pid == getpid()))
			continue;
		if (si.ssi_signo == SIGWINCH && pty_master >= 0) {
			struct winsize ws;
			if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
				ioctl(pty_master, TIOCSWINSZ, &ws);
			continue;
		}
		kill(pid, si.ssi_signo);
	}
}

enum copied { COPY_OK, COPY_EOF, COPY_WRITE_FAILED };

/* One read from `from`, all of it written to `to`; *last: its last byte. */
static enum copied copy(int from, int to, char *last)
{
	char buf[8192];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? COPY_OK : COPY_EOF;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return COPY_WRITE_FAILED;
		off += w;
	}
	if (last)
		*last = buf[n - 1];
	return COPY_OK;
}

/* stdin is at its end: what a person does at a terminal, the EOF character
 * (VEOF, ^D): a reader in canonical mode sees end of file, a line editor
 * (a shell's) takes it as EOF on an empty line. A pending partial line needs
 * one ^D to be read and one more for the EOF. A pty has no half-close. */
static void pty_send_eof(int master, char last)
{
	struct termios t;
	char eof = 4;

	if (tcgetattr(master, &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE)
		eof = (char)t.c_cc[VEOF];
	if (last != '\n' && last != 0 && write(master, &eof, 1) < 0)
		return;
	if (write(master, &eof, 1) < 0)
		return;
}

/* After the hang-up of a terminal nobody reads, how long the container has
 * to end before it is killed. */
#define HANGUP_GRACE_MS 2000

/* The EOF character reaches the program only if it reads it in the mode it
 * was typed in: queued in canonical mode, then read by a line editor that
 * switched to raw mode, it becomes a NUL byte. So, as a person would, it is
 * typed once the program has read everything before it, and again (at most
 * EOF_TRIES times, EOF_EVERY_MS apart) while the program still runs. */
#define EOF_TRIES 8
#define EOF_EVERY_MS 250

struct pty_eof {
	bool pending;
	int peer;                  /* our own fd of the pty's slave: its input queue */
	int sent;
	long long last_ms;
};

static void pty_eof_step(struct pty_eof *e, int master, char last_in)
{
	int queued = 0;

	if (!e->pending || util_mono_ms() - e->last_ms < EOF_EVERY_MS)
		return;
	if (e->peer >= 0 && ioctl(e->peer, TIOCINQ, &queued) == 0 && queued > 0)
		return;
	pty_send_eof(master, e->sent ? '\n' : last_in);
	e->last_ms = util_mono_ms();
	if (++e->sent >= EOF_TRIES || e->peer < 0) {
		e->pending = false;
		if (e->peer >= 0)
			close(e->peer);
		e->peer = -1;
	}
}

int wait_container(pid_t pid, int pidfd, int pty_master, int *term_sig, int *raw_status)
{
	int sfd = signalfd(-1, &forwarded, SFD_CLOEXEC | SFD_NONBLOCK), status = 0;
	struct termios saved, raw;
	bool tty = pty_master >= 0 && tcgetattr(STDIN_FILENO, &saved) == 0;
	char last_in = 0;
	bool hung_up = false;
	long long hup_at = 0;
	struct pty_eof eof = { .peer = -1, .last_ms = -EOF_EVERY_MS };
	int n;
	struct pollfd p[7] = {
		{ .fd = sfd, .events = POLLIN },
		{ .fd = pidfd, .events = POLLIN },
		{ .fd = pty_master >= 0 ? STDIN_FILENO : -1, .events = POLLIN },
		{ .fd = pty_master, .events = POLLIN },
		{ .fd = notify_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },   /* run.tinyrun.output-limit: the task's stdout, */
		{ .fd = -1, .events = POLLIN },   /* stderr (runtime/sandbox/output.h) */
	};

	if (tty) {
		struct winsize ws;
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
			ioctl(pty_master, TIOCSWINSZ, &ws);
	}
	for (;;) {
		if (reap(pid, &status))
			break;
		for (int i = 0; i < 2; i++)
			p[5 + i].fd = output ? output->fd[i] : -1;
		n = poll(p, 7, sooner(eof.pending ? EOF_EVERY_MS / 5 : hung_up ? HANGUP_GRACE_MS : -1,
				      watch ? watch(watch_ud) : -1));
		if (n < 0 && errno != EINTR)
			break;
		if (hung_up && util_mono_ms() - hup_at >= HANGUP_GRACE_MS) {   /* a pid-namespace init ignores SIGHUP */
			kill(pid, SIGKILL);
			hung_up = false;
		}
		pty_eof_step(&eof, pty_master, last_in);
		if (p[0].revents)
			on_signal(sfd, pid, pty_master);
		/* MAINPID: this runtime, as runc. Then the socket closes: a program that
		 * goes on sending (WATCHDOG=1) gets ECONNREFUSED, not a full queue */
		if (p[4].revents && notify_relay(notify_fd, getpid()) == 1) {
			close(notify_fd);
			notify_fd = p[4].fd = -1;
		}
		for (int i = 0; i < 2; i++)
			if (p[5 + i].revents)
				output_pump(output, i);
		if (p[2].revents) {
			enum copied c = copy(STDIN_FILENO, pty_master, &last_in);
			if (c == COPY_EOF) {
				eof.pending = true;
				eof.peer = ioctl(pty_master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
				pty_eof_step(&eof, pty_master, last_in);
			}
			if (c != COPY_OK)
				p[2].fd = -1;
		}
		if (p[3].revents) {
			enum copied c = copy(pty_master, STDOUT_FILENO, NULL);
			/* nobody reads the container's terminal any more: it hangs
			 * up, as when a terminal is closed (SIGHUP to its session) */
			if (c == COPY_WRITE_FAILED && !hung_up) {
				hung_up = kill(pid, SIGHUP) == 0;
				hup_at = util_mono_ms();
			}
			if (c != COPY_OK)
				p[3].fd = -1;
		}
	}
	/* drain what the container wrote before it exited */
	while (pty_master >= 0 && p[3].fd >= 0 && poll(&p[3], 1, 0) > 0 && (p[3].revents & POLLIN) &&
	       copy(pty_master, STDOUT_FILENO, NULL) == COPY_OK)
		;
	if (output)
		output_drain(output);
	output = NULL;
	if (eof.peer >= 0)
		close(eof.peer);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	if (sfd >= 0)
		close(sfd);
	/* a READY=1 sent just before the exit is still queued */
	while (notify_fd >= 0 && notify_relay(notify_fd, getpid()) == 0)
		;
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
	if (raw_status)
		*raw_status = status;
	return status_code(status, term_sig);
}
