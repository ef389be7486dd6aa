/* Messages for people and for containerd: one line per event on stderr or,
 * with --log, in the log file (text, or runc's JSON form with --log-format
 * json); with --log, errors go to stderr as well (runc's logrus and fatal). */
#ifndef TINYRUN_LOG_H
#define TINYRUN_LOG_H

#include <stdbool.h>

enum log_format { LOG_TEXT, LOG_JSON };

/* Open the log file (append). NULL path: stderr only. */
int log_init(const char *path, enum log_format format, bool debug);

/* The container's process before exec: stop writing to the --log file (its fd
 * is closed with every other host fd; the number may be reused). */
void log_forget_file(void);
bool log_debug_enabled(void);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For callbacks that take a plain message (seccomp's unknown-syscall notes). */
void log_debug_msg(const char *msg);
void log_warn_msg(const char *msg);

#endif
