#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int error_set(struct error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = errnum ? errnum : EINVAL;
	return -err->code;
}

/* The message, then ": TEXT" (the errno's text). */
static int error_with_text(struct error *err, int errnum, const char *text, const char *fmt, va_list ap)
{
	size_t n;

	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", text);
	err->code = errnum ? errnum : EINVAL;
	return -err->code;
}

int error_sys(struct error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_with_text(err, errnum, strerror(errnum), fmt, ap);
	va_end(ap);
	return r;
}

/* Go's syscall.Errno texts where they differ from glibc's beyond the
 * capital (the rest: glibc's text with a lower-case first letter). */
static const struct { int e; const char *text; } go_texts[] = {
	{ ENOENT, "no such file or directory" },
	{ EACCES, "permission denied" },
	{ ENOEXEC, "exec format error" },
	{ EPERM, "operation not permitted" },
	{ ENOTDIR, "not a directory" },
	{ EISDIR, "is a directory" },
	{ ELOOP, "too many levels of symbolic links" },
	{ ENAMETOOLONG, "file name too long" },
	{ E2BIG, "argument list too long" },
	{ ETXTBSY, "text file busy" },
	{ ENOMEM, "cannot allocate memory" },
	{ ELIBBAD, "accessing a corrupted shared library" },
};

const char *error_text_lc(int errnum)
{
	static char buf[128];

	for (size_t i = 0; i < sizeof(go_texts) / sizeof(go_texts[0]); i++)
		if (go_texts[i].e == errnum)
			return go_texts[i].text;
	snprintf(buf, sizeof(buf), "%s", strerror(errnum));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

int error_sys_lc(struct error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_with_text(err, errnum, error_text_lc(errnum), fmt, ap);
	va_end(ap);
	return r;
}

void error_prefix(struct error *err, const char *fmt, ...)
{
	char prefix[512];
	size_t pl, ml = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	pl = strlen(prefix);
	if (pl + 2 >= sizeof(err->msg))
		return;
	if (pl + 2 + ml >= sizeof(err->msg))
		ml = sizeof(err->msg) - pl - 3;
	memmove(err->msg + pl + 2, err->msg, ml);
	err->msg[pl + 2 + ml] = 0;
	memcpy(err->msg, prefix, pl);
	err->msg[pl] = ':';
	err->msg[pl + 1] = ' ';
}
