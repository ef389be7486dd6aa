/* /proc files the runtime writes or relies on, opened through an fd proven to
 * be procfs (CVE-2025-52881 class): the directory is fstatfs'd, and a file
 * below it is reached without crossing a mount or leaving the directory
 * (RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS: only procfs' own
 * symlinks such as "self" are followed). An image's directory named /proc, a
 * tmpfs over it or a bind over one of its files is refused with EXDEV/EPERM. */
#ifndef TINYRUN_PROCFS_H
#define TINYRUN_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* An O_PATH fd of PATH (normally "/proc" of the caller's mount namespace),
 * refused unless it is procfs; the last component is not followed. -errno. */
int procfs_dir(const char *path);

/* Open REL beneath DIR (a procfs_dir fd; < 0: "/proc" for this one call). */
int procfs_openat(int dir, const char *rel, int flags);

/* Write LEN bytes / read at most SIZE-1 bytes (NUL-terminated) of REL. 0 or
 * the count on success, -errno on failure (a short write is -EIO). */
int procfs_write(int dir, const char *rel, const void *buf, size_t len);
ssize_t procfs_read(int dir, const char *rel, char *buf, size_t size);

/* An O_PATH fd of /proc/<pid>/root (the process's root, in its mount
 * namespace) below a proven procfs, or -errno. */
int procfs_root_of(pid_t pid);

/* The pid of `pid` as its own (innermost) pid namespace sees it: the last
 * NSpid of /proc/<pid>/status; `pid` itself when that cannot be read. */
pid_t procfs_ns_pid(pid_t pid);

/* Whether this process runs in a user namespace other than the initial one
 * (as root there: rootless podman calls the runtime so): /proc/self/uid_map
 * is not the identity map of the whole range. Read once, then cached. */
bool procfs_in_userns(void);

/* Whether setgroups(2) is denied in this process's user namespace
 * (/proc/self/setgroups "deny": `unshare --map-root-user`'s namespace, and
 * any namespace made below one). Read at each call. */
bool procfs_setgroups_denied(void);

#endif
