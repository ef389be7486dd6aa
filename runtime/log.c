#include "log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oci/state.h"

static int log_fd = -1;
static enum log_format log_fmt = LOG_TEXT;
static bool log_dbg;
/* a --log file was given (still true after log_forget_file) */
static bool log_to_file;

int log_init(const char *path, enum log_format format, bool debug)
{
	log_fmt = format;
	log_dbg = debug;
	if (!path || !*path)
		return 0;
	log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	log_to_file = log_fd >= 0;
	return log_fd < 0 ? -1 : 0;
}

void log_forget_file(void)
{
	log_fd = -1;
}

bool log_debug_enabled(void)
{
	return log_dbg;
}

/* One line: json ({"level","msg","time"}, runc's and containerd's) or text
 * (time="..." level=... msg="...", runc's logrus text). */
static int format_line(char *line, size_t size, bool json, const char *level, const char *msg)
{
	struct timespec ts;
	struct tm tm;
	char when[64];
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (json) {
		n = snprintf(line, size, "{\"level\":\"%s\",\"msg\":", level);
		n = oci_json_escape(line, size - 64, n, msg);
		if (n < 0)
			return -1;
		return n + snprintf(line + n, size - n, ",\"time\":\"%s.%09ldZ\"}\n", when, ts.tv_nsec);
	}
	n = snprintf(line, size, "time=\"%s.%09ldZ\" level=%s msg=", when, ts.tv_nsec, level);
	n = oci_json_escape(line, size - 2, n, msg);   /* a quoted string, as logrus */
	if (n < 0)
		return -1;
	return n + snprintf(line + n, size - n, "\n");
}

static void write_line(int fd, bool json, const char *level, const char *msg)
{
	char line[2048];
	int n = format_line(line, sizeof(line), json, level, msg);

	if (n > 0 && (size_t)n < sizeof(line) && write(fd, line, n) < 0)
		return;
}

static void log_emit(const char *level, bool to_stderr, const char *fmt, va_list ap)
{
	char msg[1536];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* as runc (logrus' output is the --log file): with --log, warnings and
	 * debug lines go to the file only, errors to stderr too. A client's
	 * stderr is often the container's (containerd's shim passes its stdio
	 * pipes to create): a warning there would show in `docker logs`. */
	if (log_to_file && strcmp(level, "error"))
		to_stderr = false;
	/* --log-format json without --log: json on stderr too, as runc */
	if (to_stderr && log_fmt == LOG_JSON && log_fd < 0)
		write_line(STDERR_FILENO, true, level, msg);
	else if (to_stderr)
		dprintf(STDERR_FILENO, "tinyrun: %s%s%s\n", strcmp(level, "error") ? level : "",
			strcmp(level, "error") ? ": " : "", msg);
	if (log_fd >= 0)
		write_line(log_fd, log_fmt == LOG_JSON, level, msg);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit("error", true, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit("warning", true, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_dbg)
		return;
	va_start(ap, fmt);
	log_emit("debug", true, fmt, ap);
	va_end(ap);
}

void log_debug_msg(const char *msg)
{
	log_debug("%s", msg);
}

void log_warn_msg(const char *msg)
{
	log_warn("%s", msg);
}
