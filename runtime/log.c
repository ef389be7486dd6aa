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

int log_init(const char *path, enum log_format format, bool debug)
{
	log_fmt = format;
	log_dbg = debug;
	if (!path || !*path)
		return 0;
	log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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

static void log_file_write(const char *level, const char *msg)
{
	char line[2048];
	int n;

	if (log_fmt == LOG_JSON) {
		struct timespec ts;
		struct tm tm;
		char when[64];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(line, sizeof(line), "{\"level\":\"%s\",\"msg\":", level);
		n = oci_json_escape(line, sizeof(line) - 64, n, msg);
		if (n < 0)
			return;
		n += snprintf(line + n, sizeof(line) - n, ",\"time\":\"%s.%09ldZ\"}\n", when, ts.tv_nsec);
	} else {
		n = snprintf(line, sizeof(line), "%s: %s\n", level, msg);
	}
	if (n > 0 && (size_t)n < sizeof(line) && write(log_fd, line, n) < 0)
		return;
}

static void log_emit(const char *level, bool to_stderr, const char *fmt, va_list ap)
{
	char msg[1536];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (to_stderr)
		dprintf(STDERR_FILENO, "tinyrun: %s%s\n",
			strcmp(level, "warning") == 0 ? "warning: " : "", msg);
	if (log_fd >= 0)
		log_file_write(level, msg);
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
	log_emit("debug", log_fd < 0, fmt, ap);
	va_end(ap);
}

void log_debug_msg(const char *msg)
{
	log_debug("%s", msg);
}
