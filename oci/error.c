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

int error_sys(struct error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	err->code = errnum ? errnum : EINVAL;
	return -err->code;
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
