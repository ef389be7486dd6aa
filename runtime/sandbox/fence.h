/* Landlock as the container's second fence (issue 31 §4): the sandbox
 * profile's ruleset, derived from the minimal root's mounts, plus the
 * run.tinyrun.landlock rules of any bundle (oci/sandbox/annotations_landlock.c).
 *
 *   create (parent)   fence_plan: the kernel's ABI, probed once before clone
 *                     (a warning when the config asks and the kernel has
 *                     none: the container still runs), recorded by
 *                     fence_record in <state dir>/landlock-abi for the result
 *   the child         fence_apply, last thing before the execve (setup.c),
 *                     after every mount and pivot_root, at that ABI: a
 *                     failure fails the start, so the recorded ABI is the one
 *                     the task runs under
 *   exec              fence_recorded: its process under the same rules
 *   run, events       fence_result: landlockAbi in the result */
#ifndef TINYRUN_FENCE_H
#define TINYRUN_FENCE_H

#include "oci/config.h"
#include "oci/error.h"
#include "oci/events.h"

/* -1: the config asks for no fence; 0: it does, the kernel has no Landlock
 * (warned); else the ABI to apply. */
/* The config asks for a fence: the sandbox profile or run.tinyrun.landlock. */
bool fence_asked(const struct oci_config *cfg);
int fence_plan(const struct oci_config *cfg);
/* <state dir>/landlock-abi when abi >= 0. */
int fence_record(int dirfd, int abi, struct error *err);
/* abi > 0: restrict the calling process (setup_exec). */
int fence_apply(const struct oci_config *cfg, int abi, struct error *err);
/* The recorded ABI (exec's processes get the same fence), or -1. */
int fence_recorded(int dirfd);
/* The recorded ABI into e (landlock_asked, landlock_abi). */
void fence_result(int dirfd, struct oci_exit *e);

#endif
