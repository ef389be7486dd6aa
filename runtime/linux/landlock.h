/* Landlock, with raw syscalls (no library): the kernel's ABI, and a ruleset
 * put on the calling process (and everything it execs or forks later) from
 * a list of paths with what may be done below each. The rights of the ABI
 * the caller names are all handled, so whatever no rule grants is denied. */
#ifndef TINYRUN_LANDLOCK_H
#define TINYRUN_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"

/* The newest ABI this file knows (6.15+: 7, whose only addition is audit
 * logging); a newer kernel is used at this one. */
#define LANDLOCK_ABI_KNOWN 7

struct landlock_rule {
	const char *path;        /* opened in the caller's root (after pivot_root) */
	unsigned int access;     /* OCI_LANDLOCK_READ | _WRITE | _EXEC (oci/config.h) */
	bool optional;           /* a missing path is skipped, not an error */
	bool file;               /* usually not a directory: its kind is looked up first
	                          * (either way a file gets only a file's rights) */
};

/* The kernel's ABI version (1..): a negative errno without Landlock
 * (-ENOSYS: not built in, -EOPNOTSUPP: disabled at boot). */
int landlock_abi(void);
/* Restrict the caller at ABI abi (1..LANDLOCK_ABI_KNOWN): every filesystem
 * right that ABI has, granted only below rules[]; scope (OCI_LANDLOCK_SCOPE_*)
 * from ABI 6, skipped before. Needs no_new_privs or CAP_SYS_ADMIN. 0 or a
 * negative errno, err naming the path or the step. */
int landlock_restrict(int abi, const struct landlock_rule *rules, size_t n, unsigned int scope,
		      struct error *err);

#endif
