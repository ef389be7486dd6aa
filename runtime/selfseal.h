/* CVE-2019-5736 class: the runtime's own code runs inside the container (the
 * container's init until execve, an exec'd process until its execve), so a
 * container process can reach /proc/<pid>/exe of it (with CAP_SYS_PTRACE, or
 * once a "#!/proc/self/exe" program makes the runtime run as the container's
 * process). Commands that enter a container therefore run from a sealed
 * memfd copy of the binary: whatever handle a container gets on that, it can
 * neither write nor truncate it, and the host's file is never reached. */
#ifndef TINYRUN_SELFSEAL_H
#define TINYRUN_SELFSEAL_H

#include "oci/error.h"

/* Returns 0 when already running from a sealed copy; otherwise re-executes
 * argv from one and returns only on failure (-errno, err set). */
int selfseal_reexec(char **argv, struct error *err);

#endif
