/* NOTIFY_SOCKET: sd_notify(3) from inside the container, relayed by the
 * runtime, as runc and crun do (systemd's Type=notify units that run a
 * container, podman --sdnotify=container, conmon).
 *
 * When create or run finds NOTIFY_SOCKET in its environment:
 *  - the state dir gets notify/ (0755), bound read-only (nosuid, nodev,
 *    noexec) into the container at the NOTIFY_SOCKET path itself (crun's
 *    layout; /run/notify when that is not an absolute path, as for an
 *    abstract "@name"), after the config's own mounts;
 *  - the process gets NOTIFY_SOCKET=<that path>/notify.
 * start (and run) bind <state dir>/notify/notify (0777, for any container
 * uid) before the program runs, then relay: the first datagram with a line
 * READY=1 makes them send "READY=1", then "MAINPID=<pid>" (two datagrams) to
 * the caller's NOTIFY_SOCKET -- never the container's own text, so a container cannot
 * speak for the unit in other fields. start and run -d return once that is
 * sent or the container has exited (MAINPID is its init, as runc); run in the
 * foreground relays it while it waits (MAINPID is the runtime, as runc). */
#ifndef TINYRUN_NOTIFY_H
#define TINYRUN_NOTIFY_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* The caller's NOTIFY_SOCKET, or NULL (unset or empty). */
const char *notify_host(void);

/* create/run: the mount and the variable above, appended to CFG (they live
 * until the command exits, like the rest of the config). ROOT is --root. */
int notify_plan(struct oci_config *cfg, const char *root, const char *id, struct error *err);

/* create/run, once the state dir exists: its notify/ directory. */
int notify_dir_make(int state_dirfd, struct error *err);

/* start/run: the bound socket in <state dir>/notify/, or -1 when the
 * container was created without one (or it cannot be made: a warning). */
int notify_listen(int state_dirfd);

/* One datagram read from FD: 1 when it held READY=1 and that was relayed
 * with MAINPID, 0 when it did not, -1 when none was queued. */
int notify_relay(int fd, pid_t mainpid);

/* start and run -d: relay until READY=1 went out or the process PID (PIDFD,
 * or -1 to open one) has exited. */
void notify_wait_ready(int fd, pid_t pid, int pidfd);

#endif
