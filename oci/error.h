/* Errors with context: every function below the command layer returns 0 or a
 * negative errno and fills a struct error; only the command layer prints.
 * Layer-neutral (like util.h): it lives in oci/, the base library every
 * binary links, but includes nothing of it, so any layer may include it. */
#ifndef TINYRUN_ERROR_H
#define TINYRUN_ERROR_H

#include <stddef.h>

struct error {
	int code;          /* errno, or 0 when only a message */
	char msg[1024];    /* "config.json: .process.args: expected array" */
};

/* Set the message (printf format) and return -errnum (or -EINVAL when errnum == 0). */
int error_set(struct error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like error_set, but appends ": strerror(errnum)". */
int error_sys(struct error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like error_sys, with runc's (Go's) lower-case errno text ("no such file or
 * directory", "permission denied", "exec format error"): podman, conmon,
 * the containerd shims and dockerd match these case-sensitively to tell
 * 127 from 126. For the exec failures of process.args. */
int error_sys_lc(struct error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The text error_sys_lc appends. */
const char *error_text_lc(int errnum);

/* Prefix the existing message with "prefix: ". */
void error_prefix(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
