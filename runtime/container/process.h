/* The container process's own attributes, applied by the child after
 * pivot_root and before exec (also used by `exec`). */
#ifndef TINYRUN_PROCESS_H
#define TINYRUN_PROCESS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"

/* While still privileged: rlimits, personality, oom, scheduler, io priority. */
int process_apply_limits(const struct oci_process *p, struct error *err);
/* Before a user namespace takes CAP_SYS_RESOURCE away (create: before the
 * clone; exec: before the child joins): raise the caller's hard limits to
 * process.rlimits' where they are lower, the hard limit only, so nothing
 * is restricted early; the child inherits them and process_apply_limits
 * sets the exact values later. runc sets rlimits from its parent (prlimit)
 * for the same reason. A raise that fails is left to that call to report. */
void process_raise_hard_limits(const struct oci_process *p);
/* Drop the bounding set (needs CAP_SETPCAP: call before the uid change). */
int process_drop_bounding(const struct oci_process *p, struct error *err);
/* In runc's order: chdir(cwd) while still root, stdio (pty, pipes; not
 * /dev/null) owned by process.user.uid, groups, gid, uid (keeping
 * capabilities across the change), chdir(cwd) again as the user when root
 * was denied (EACCES/EPERM), cwd check (must be inside the root), then the
 * effective/permitted/inheritable and ambient sets and the umask.
 * Groups: process.user.additionalGids (SETGROUPS_SET); none may be set in a
 * user namespace whose setgroups is "deny"; the caller's stay with crun's
 * annotation run.oci.keep_original_groups. */
enum setgroups_mode { SETGROUPS_SET, SETGROUPS_DENIED, SETGROUPS_KEEP };
/* The caller's permitted and inheritable sets, read once (one capget) by
 * process_warn_ungrantable for process_become_user: nothing in between
 * changes them (the bounding set's drops do not; the uid change keeps the
 * permitted set, PR_SET_KEEPCAPS for another uid, and never touches the
 * inheritable one). */
struct process_caps { uint64_t permitted, inheritable; };
int process_become_user(const struct oci_process *p, enum setgroups_mode groups, const struct process_caps *held,
			struct error *err);
/* A warning per capability of process.capabilities the runtime does not hold
 * (process_become_user skips them): call before the host's fds are closed, so
 * that it reaches the --log file, never the container's stdio. Fills *held. */
void process_warn_ungrantable(const struct oci_process *p, struct process_caps *held);
/* process.env as runc hands it on: each name once with its last value, and
 * HOME from the container's /etc/passwd (or "/") when it is missing or
 * empty. Call after pivot_root, while still root. ROOM (or NULL: the heap)
 * holds the result of a usual env (at most PROCESS_ENV_INLINE entries): the
 * container's init, a clone of the runtime without CLONE_VM, would otherwise
 * copy the allocator's pages it writes. */
#define PROCESS_ENV_INLINE 32
struct process_env {
	char *slot[PROCESS_ENV_INLINE + 2];
	bool keep[PROCESS_ENV_INLINE];
	char home[sizeof("HOME=") - 1 + PATH_MAX];
};
char **process_env_final(const struct oci_process *p, struct process_env *room);
/* Find args[0] in the PATH of process.env (as execvp would), check it is executable. */
int process_find_exec(const struct oci_process *p, char *path, size_t size, struct stat *st, struct error *err);
int process_set_no_new_privs(const struct oci_process *p, struct error *err);
/* The child itself, first thing (the host's /proc still in view, and before
 * it makes itself non-dumpable): its oom_score_adj from process.oomScoreAdj. */
int process_set_oom_score(const struct oci_process *p, struct error *err);
/* The child, while the host's /proc is in view: default dispositions for
 * every signal (those the caller or the runtime ignored) and an empty mask. */
void process_reset_signals(void);
/* The container's session keyring is named after it (as runc: "_ses.<id>"). */
void process_join_keyring(const char *id);
/* CVE-2019-5736 class: the runtime's own binary must never become a program
 * of the container. self_dev/self_ino identify /proc/self/exe (taken by the
 * parent). Fails when `exe`, or any "#!" interpreter on the way to it, is that
 * file. */
int process_check_not_runtime(const char *exe, const struct stat *exe_st, dev_t self_dev, ino_t self_ino,
			      struct error *err);
/* The parent's half of that check: *dev and *ino of /proc/self/exe (left as
 * they are when it cannot be stat'd). */
void process_runtime_binary(dev_t *dev, ino_t *ino);
/* Highest capability the running kernel knows, asked of the kernel
 * (PR_CAPBSET_READ), never of a file an image could fake; cached. */
int process_cap_last_cap(void);

/* CVE-2024-21626 class: close every fd from `first` up, except the KEEP ones
 * (n of them, any order, -1 entries ignored). Called before the process's
 * cwd, PATH and program (which the container controls) are resolved. */
int process_close_fds(int first, const int *keep, size_t n, struct error *err);

#endif
