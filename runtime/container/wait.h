#ifndef TINYRUN_WAIT_H
#define TINYRUN_WAIT_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Call before the container is started: block the signals `run` forwards. */
void wait_block_signals(void);
/* Forward signals to `pid`, proxy the terminal when pty_master >= 0, and
 * return the container's exit status as a shell would (128+signal).
 * pidfd may be -1 when the init is not our child (we are its subreaper).
 * *raw (when not NULL): the wait status itself. */
int wait_container(pid_t pid, int pidfd, int pty_master, int *term_sig, int *raw);
/* After wait_container: wait4's rusage of the process it reaped (its own and
 * what it reaped: with the init, the task and every orphan); false if none. */
bool wait_reaped_rusage(struct rusage *ru);
/* While wait_container waits: relay READY=1 from this NOTIFY_SOCKET socket
 * (notify_listen; -1: none), which wait_container then closes. */
void wait_relay_notify(int fd);
/* While wait_container waits: pass the task's output on within its limits
 * (runtime/sandbox/output.h; NULL or not on: none), drained once the task is reaped. */
struct output_relay;
void wait_relay_output(struct output_relay *o);
/* While wait_container waits: call fn(ud) now and again, when the ms it
 * returned last have passed (-1: not again); NULL: none (runtime/sandbox/limits.h). */
void wait_watch(int (*fn)(void *ud), void *ud);

#endif
