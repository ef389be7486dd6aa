/* run.oci.hooks.stdout / .stderr (crun's annotations): host files for
 * every hook's stdout and stderr. The host's hooks write to them directly;
 * the container's (createContainer, startContainer: an image's programs)
 * never get them, only pipes that a process of the runtime copies into
 * them, so no hook in the container can read, truncate or reopen a host
 * file through /proc/self/fd. */
#ifndef TINYRUN_HOOKS_OUTPUT_H
#define TINYRUN_HOOKS_OUTPUT_H

#include "oci/config.h"
#include "oci/error.h"

/* Open the hooks' output files (run.oci.hooks.stdout/.stderr:
 * oci_hooks.stdout_path/stderr_path) for the host's hooks, once per process:
 * O_NOFOLLOW, O_NONBLOCK, a regular file only (else an error naming the
 * annotation), created 0600. The host's hooks run by hooks_run open them. */
int hooks_output_open(const struct oci_hooks *hooks, struct error *err);
/* Before the container's child is cloned: check the files now (an error
 * before anything is made) and, for each of createContainer and
 * startContainer when the config has such hooks, start a relay: those hooks
 * run in the container (an image's program, for startContainer) and never
 * get a host file, only pipes that a process of ours copies into the files.
 * hooks_run waits (2 s at most) for the relay to have written everything
 * after the hooks of its kind, so the files keep the lifecycle's order. */
int hooks_output_start(const struct oci_hooks *hooks, struct error *err);
/* The startContainer hooks' ends (stdout, stderr pipes, the ack pipe; -1:
 * none), for the container's child to keep open until they run. */
void hooks_output_fds(int fds[3]);
/* The runtime's copy of every end, once the child has its own (SYNC_HOOKS). */
void hooks_output_release(void);
/* The stdout and stderr a hook of `kind` gets (-1: the runtime's own). */
void hooks_output_for(enum oci_hook_kind kind, int *out, int *err);
/* The hooks of `kind` have run: for the container's, wait (2 s at most) for
 * their relay to have written all they wrote, so the files keep the
 * lifecycle's order. */
void hooks_output_done(enum oci_hook_kind kind);

#endif
