/* CVE-2019-5736 class: the runtime's own code runs inside the container (the
 * container's init until execve, an exec'd process until its execve), so a
 * container process can reach /proc/<pid>/exe of it (with CAP_SYS_PTRACE, or
 * once a "#!/proc/self/exe" program makes the runtime run as the container's
 * process). Where a container could write the binary through such a handle,
 * create, run and exec therefore re-execute from a sealed view of it: a
 * detached read-only overlay (no copy; root) or a sealed memfd copy
 * (unprivileged callers). Whatever handle a container gets on that, it can
 * neither write nor truncate it, and the host's file is never reached. */
#ifndef TINYRUN_SELFSEAL_H
#define TINYRUN_SELFSEAL_H

#include <stdbool.h>

#include "oci/config.h"
#include "oci/error.h"

/* First thing in main: takes (and removes from the environment, so hooks
 * never see it) the mark a sealed re-exec carries. */
void selfseal_init(char **argv);

/* Is this process a sealed re-exec of ours (the mark, and /proc/self/exe a
 * sealed memfd or on a read-only overlay)? */
bool selfseal_running_marked(void);

/* /proc/self/exe's device and inode as that check saw them (its fd's
 * fstat): false when it has not run (or could not tell). */
bool selfseal_self_id(dev_t *dev, ino_t *ino);

/* Could a process of this container write the runtime binary? Without a user
 * namespace (or with one joined by path) it could; with a new one only when a
 * mapped host uid owns it, a mapped gid may write it, or anyone may. */
bool selfseal_needed(const struct oci_config *cfg);

/* When selfseal_needed and not already running sealed: re-execute main's argv
 * from a sealed view. Returns 0 when nothing is to be done; on failure -errno
 * with err set. Call it before the command has changed anything. */
int selfseal_guard(const struct oci_config *cfg, struct error *err);

/* The same decision on the config's text, before it is parsed: a text with no
 * string value "user" (a namespace of type user is one) declares no user
 * namespace, so the copy is needed whatever the rest says: re-execute now and
 * spare this process a parse of the whole config (the copy parses it; a 1 MiB
 * config.json costs about 8 ms a parse here). The scan errs only towards a
 * re-exec: an escaped "\u0075ser" is missed and re-executes too, and the copy
 * still decides on the parsed config through selfseal_guard. 0 when nothing is
 * done here (already re-executed, or a user namespace may be declared). The
 * binary's entry point (runtime/entry/early_seal.c) makes the same test
 * (selfseal_scan.h) for create, run and exec as root before libc starts, so
 * this one re-executes only where that one was unsure. */
int selfseal_guard_text(const char *json, size_t len, struct error *err);

#endif
