/* criu for `tinyrun check` and for checkpoint/restore (cr_criu_path): is it
 * there, which version. */
#ifndef TINYRUN_HOSTCAPS_CRIU_H
#define TINYRUN_HOSTCAPS_CRIU_H

#include <stddef.h>

/* The first executable "criu" on the caller's PATH: 0, or -ENOENT. */
int hostcaps_criu_find(char *path, size_t size);
/* "X.Y" from `PATH --version` ("Version: X.Y"), within 5 s: 0, or -errno. */
int hostcaps_criu_version(const char *path, char *out, size_t size);

#endif
