/* process.terminal: the pty is made inside the container's devpts; its master
 * goes to --console-socket (or to `run`'s own proxy), its slave becomes the
 * container's stdio and controlling terminal. */
#ifndef TINYRUN_TERMINAL_H
#define TINYRUN_TERMINAL_H

#include "oci/config.h"
#include "oci/error.h"

/* Child: open <rootfs>/dev/pts/ptmx; returns master, *slave set. */
int terminal_open(const char *rootfs, const struct oci_process *p, int *slave, struct error *err);
/* Without a terminal: the process's own session all the same (setsid), as
 * runc (nsexec's last stage) and crun: not in the caller's process group,
 * whose leader its pid namespace cannot see (getpgrp() 0). */
int terminal_none(struct error *err);
/* Child: make the slave stdio and the controlling terminal. */
int terminal_take(int slave, struct error *err);
/* Parent: send the master over the unix socket at `path` as runc does (its
 * name "/dev/pts/ptmx" the only payload), within fdsend.h's deadline. */
int terminal_send(const char *path, int master, struct error *err);
/* Child, before terminal_take and long before the program runs: without a
 * console socket, `run` and `exec` relay the master to their own stdio; when
 * that stdout (still the child's own here) is no terminal (a pipe, a file),
 * the pty stops turning \n into \r\n, as runc: the caller reads the
 * program's own bytes. In the child, not the parent: exec's child does not
 * wait for the parent, whose setting raced the program's first write. */
void terminal_relay_prepare(int slave, const char *console_socket);
#endif
