/* criu for `tinyrun check`: is it there, which version (tinyrun itself has
 * no checkpoint/restore yet). */
#ifndef TINYRUN_HOSTCAPS_CRIU_H
#define TINYRUN_HOSTCAPS_CRIU_H

#include <stddef.h>

/* The first executable "criu" on the caller's PATH: 0, or -ENOENT. */
int hostcaps_criu_find(char *path, size_t size);
/* "X.Y" from `PATH --version` ("Version: X.Y"), within 5 s: 0, or -errno. */
int hostcaps_criu_version(const char *path, char *out, size_t size);

#endif
