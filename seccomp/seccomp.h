/* OCI seccomp -> BPF. Compiled in the parent before clone (and cached by a
 * hash of the profile), loaded by the child as the very last step before
 * execve, after capabilities and noNewPrivileges. */
#ifndef TINYRUN_SECCOMP_H
#define TINYRUN_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/filter.h>

#include "oci/config.h"
#include "oci/error.h"

struct seccomp_prog {
	struct sock_filter *filter;   /* malloc'd BPF program */
	unsigned short len;           /* instructions */
	unsigned int flags;           /* SECCOMP_FILTER_FLAG_* for seccomp(2) */
	bool notify;                  /* an action is SCMP_ACT_NOTIFY: load returns the listener fd */
};

/* Compile (or fetch from the cache dir when non-NULL) the program. Unknown
 * syscall names are skipped and reported through `debug` (may be NULL). */
int seccomp_compile(const struct oci_seccomp *s, const char *cache_dir,
		    void (*debug)(const char *msg), struct seccomp_prog *out, struct error *err);

/* In the child: seccomp(SECCOMP_SET_MODE_FILTER). Returns the notify fd
 * (>= 0) when prog->notify, 0 otherwise, or a negative errno. No allocation. */
int seccomp_load(const struct seccomp_prog *prog, struct error *err);

/* With linux.seccomp.listenerPath: send the container state JSON (with
 * listenerMetadata) and the notify fd over SCM_RIGHTS, per config-linux.md. */
int seccomp_send_listener(const char *listener_path, const char *state_json, size_t len,
			  int notify_fd, struct error *err);

void seccomp_prog_free(struct seccomp_prog *prog);

#endif
