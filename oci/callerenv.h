/* The caller's environment: the one tinyrun was started with, captured once,
 * first thing in main, into a private deep copy. Every value the runtime
 * reads from its environment (NOTIFY_SOCKET, LISTEN_FDS, XDG_RUNTIME_DIR,
 * TMPDIR, TINYAWS_*, the sealed re-exec's mark) comes from that copy, and it
 * is what a host hook without "env" gets and what the sealed re-exec passes
 * on: never `environ`, which code running before a container's execve could
 * have pointed elsewhere (a child cloned with CLONE_VM shares the variable)
 * and which would then hand the image's process.env (BASH_FUNC_*, LD_PRELOAD,
 * BASH_ENV, PATH) to programs run as root on the host. Layer-neutral, like
 * util.h: oci/ is linked by every binary and unit test. */
#ifndef TINYRUN_CALLERENV_H
#define TINYRUN_CALLERENV_H

#include <stdbool.h>

/* Copy envp (strings and array). `environ` is then set to a second array of
 * the same strings, which nothing of ours writes, for what reads it
 * itself: glibc. 0, or -ENOMEM with nothing captured. */
int callerenv_capture(char *const *envp);
/* NAME's value in the caller's environment, or NULL (also before capture). */
const char *callerenv_get(const char *name);
/* The caller's environment, NULL-terminated (empty before capture). */
char *const *callerenv_list(void);
/* Remove NAME from the copy and from `environ`, as captured; true if it was
 * there. Only before anything has run: main's own set-up. */
bool callerenv_take(const char *name);

#endif
