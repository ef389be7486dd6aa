/* OCI seccomp -> BPF. Compiled in the parent before clone (and cached by a
 * hash of the profile), loaded by the child as the very last step before
 * execve, after capabilities and noNewPrivileges. */
#ifndef TINYRUN_SECCOMP_H
#define TINYRUN_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/filter.h>
#include <sys/types.h>

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

/* The compiled-filter cache directory, never under --root (a root holds
 * container state only; dockerd shares one between runtimes): the host's
 * root: /run/tinyrun-cache; a user's runtime (`user`: a user other than root,
 * or root of the user's own user namespace, as rootless podman calls it):
 * $XDG_RUNTIME_DIR/tinyrun-cache. Made 0700;
 * NULL (compile every time, a debug note) when it cannot be made or is not
 * the caller's own directory, writable by nobody else: what it holds
 * becomes the container's filter. */
const char *seccomp_cache_dir(char *buf, size_t size, bool user, void (*debug)(const char *msg));

/* In the child: seccomp(SECCOMP_SET_MODE_FILTER). Returns the notify fd
 * (>= 0) when prog->notify, 0 otherwise, or a negative errno. No allocation.
 * (Not "seccomp_load": libseccomp, linked statically, owns that symbol.) */
int seccomp_prog_load(const struct seccomp_prog *prog, struct error *err);

/* With linux.seccomp.listenerPath: connect to the AF_UNIX stream socket
 * `listener_path` and send, in one connection, the containerProcessState
 * JSON (config-linux.md: ociVersion, fds ["seccompFd"], pid, metadata =
 * listenerMetadata (may be NULL), state = `state_json`, the spec state object
 * as oci_state_to_json prints it) with `notify_fd` attached by SCM_RIGHTS.
 * `pid` is the process the filter was loaded in, as seen by the runtime. */
int seccomp_send_listener(const char *listener_path, const char *listener_metadata,
			  const char *state_json, pid_t pid, int notify_fd, struct error *err);

void seccomp_prog_free(struct seccomp_prog *prog);

/* compact.c: runs of consecutive syscall numbers with one verdict as range
 * tests; kept only when the check finds the same verdict for every number
 * and argument tried (else prog is left as it was). */
void seccomp_compact(struct seccomp_prog *prog);
bool seccomp_compact_same(const struct sock_filter *a, size_t na, const struct sock_filter *b, size_t nb);

/* ---- inside seccomp/ (compile.c, cache.c), exposed for the unit tests ---- */

#include <stdint.h>

struct seccomp_skipped {      /* unknown syscall names, '\n'-separated */
	char *text;
	size_t len;
};
void seccomp_skipped_add(struct seccomp_skipped *sk, const char *name);

bool seccomp_uses_notify(const struct oci_seccomp *s);
/* linux.seccomp.flags -> SECCOMP_FILTER_FLAG_* bits, each checked against
 * the running kernel (an unsupported one is an error naming it). */
int seccomp_flags_of(const struct oci_seccomp *s, bool notify, unsigned int *flags,
		     void (*debug)(const char *msg), struct error *err);
/* libseccomp only, no cache, no flags (out->flags/notify are left alone). */
int seccomp_build(const struct oci_seccomp *s, void (*debug)(const char *msg),
		  struct seccomp_skipped *skipped, struct seccomp_prog *out, struct error *err);

/* runc's -ENOSYS stub (enosys.c): needed for this default action? Then the
 * instructions to put in front of the libseccomp program, for the filter's
 * architectures (libseccomp tokens, SCMP_ARCH_*). *out malloc'd. */
bool seccomp_needs_enosys_stub(const struct oci_seccomp *s);
int seccomp_enosys_stub(const struct oci_seccomp *s, const uint32_t *arches, size_t n,
			struct sock_filter **out, size_t *n_out);

int seccomp_cache_key(const struct oci_seccomp *s, unsigned int flags, bool notify,
		      unsigned char **key, size_t *len);
/* "<dir>/<fnv1a64 of key>.bpf"; get: 0 on a hit, negative on any miss. */
int seccomp_cache_get(const char *dir, const unsigned char *key, size_t key_len,
		      void (*debug)(const char *msg), struct seccomp_prog *out);
int seccomp_cache_put(const char *dir, const unsigned char *key, size_t key_len,
		      const struct seccomp_prog *prog, const struct seccomp_skipped *skipped);

#endif
