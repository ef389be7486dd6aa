/* The path of the real tinyrun binary, across the sealed re-exec
 * (selfseal.h). Once re-executed, /proc/self/exe names the sealed view ("/tinyrun"
 * in a detached overlay, "/memfd:tinyrun (deleted)"), not the binary a user
 * installed, so each sealed re-exec (main's and the entry point's) carries
 * the real path in SELFSEAL_EXE. That value is taken only by a process that
 * carries the mark and runs sealed; in any other process it is dropped
 * unread. (A caller able to run its own sealed copy with both set could name
 * any path; it could as well set $TINYAWS_SECCOMP_PROFILE: no more power.) */
#ifndef TINYRUN_SELFEXE_H
#define TINYRUN_SELFEXE_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"

/* From selfseal_init: keep SELFSEAL_EXE when MARKED, remove it always from
 * the caller's environment as captured (oci/callerenv.h). */
void selfexe_take(bool marked);

/* The real binary's absolute path into buf: the carried one when running
 * sealed (a regular file of the sealed copy's size), else /proc/self/exe's
 * link when it names this very file (same device and inode). 0, or -errno
 * with err set when it cannot be known (a memfd, a deleted or replaced
 * binary, a sealed copy that carries no path): callers fail closed. */
int selfexe_path(char *buf, size_t size, struct error *err);

/* For a sealed re-exec's environment: "SELFSEAL_EXE=<selfexe_path>" (a
 * static buffer), or NULL when that cannot be known. */
const char *selfexe_env(void);

#endif
