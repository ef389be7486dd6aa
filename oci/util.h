/* Small things every layer needs, written once: a whole-file reader, the
 * FNV-1a hash and a growable buffer. Like error.h this header includes
 * nothing of oci/ (oci/ is the base library every binary links, so it is
 * where the layer-neutral code lives): rootfs/, seccomp/ and runtime/ use it
 * without knowing anything of the JSON code beside it. */
#ifndef TINYRUN_UTIL_H
#define TINYRUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- whole files ---------------------------------------------------------- */

/* Read fd from where it is to its end into one malloc'd, NUL-terminated
 * buffer; *len (when len is not NULL) is the byte count before the NUL.
 * hint: the first allocation (st_size + 1 for a regular file; 0: 4096).
 * max: more than max bytes is -EFBIG (0: no limit). EINTR is retried.
 * Returns 0, or -ENOMEM, -EFBIG or read()'s -errno with *out untouched.
 * No check of what fd is: for input a user controls, see oci_read_file. */
int util_read_fd(int fd, size_t hint, size_t max, char **out, size_t *len);
/* One sendmsg(MSG_NOSIGNAL, EINTR retried) of iov[0..n) on a unix socket,
 * with fd (-1: none) as SCM_RIGHTS: the bytes sent, or -errno. */
struct iovec;
ssize_t util_send_fd(int sock, const struct iovec *iov, size_t n, int fd);
/* openat(dirfd, path, O_RDONLY | O_CLOEXEC | flags), then util_read_fd:
 * for kernel files (cgroupfs, /proc) and our own. -errno of openat too. */
int util_read_at(int dirfd, const char *path, int flags, size_t hint, size_t max,
		 char **out, size_t *len);
/* What a file that is not regular is, for "<name>: not a regular file (%s)":
 * "a FIFO", "a directory", "a character device" ... */
const char *util_file_kind(mode_t mode);

/* ---- FNV-1a 64 ------------------------------------------------------------ */

#define UTIL_FNV1A64_BASIS 0xcbf29ce484222325ULL
/* The basis the long-id names (state dir "~<id>-<hash>", cgroup
 * "<id>-<hash>") were made with: FNV's offset basis with its last digit
 * dropped. Kept: the names of existing containers depend on it. */
#define UTIL_ID_HASH_BASIS 1469598103934665603ULL

/* Does comma-separated mount data hold an option starting with key ("mode=")? */
bool util_data_has(const char *data, const char *key);

/* "/a//b/./c/../d/" -> "/a/b/d" into out (strlen(in) + 2 bytes): lexical
 * only, as Go's filepath.Clean("/" + in); ".." never climbs above "/". */
void util_path_clean(const char *in, char *out);
/* For cleaned absolute paths: `path` relative to `root` ("/" for root
 * itself), or NULL when it is not lexically inside. */
const char *util_path_in_root(const char *root, const char *path);
/* A cheap filter before cleaning: false when `path` (uncleaned) cannot be
 * inside the cleaned `root` (it lacks root's last component). */
bool util_path_may_be_in(const char *root, const char *path);

uint64_t util_fnv1a64(const void *data, size_t n, uint64_t basis);

/* repeat[i] = whether v[i]'s key (its first key_len(v[i]) bytes) is also
 * another entry's: one after it when keep_last, else one before it. Sorts an
 * index (n log n, so a hostile list costs what its parse does); when that
 * cannot be allocated, nothing is marked. */
void util_mark_repeats(char *const *v, size_t n, size_t (*key_len)(const char *), bool keep_last,
		       bool *repeat);

/* ---- growable buffer ------------------------------------------------------ */

/* Zero-initialise. p stays NUL-terminated after any append; on an
 * allocation failure oom is set and this and every later append are
 * dropped, so a writer checks once at the end. The owner frees p. */
struct util_buf {
	char *p;
	size_t len, cap;
	bool oom;
};

/* Append n bytes; 0 or -ENOMEM (also once oom is set). */
int util_buf_put(struct util_buf *b, const void *data, size_t n);

/* ---- time ----------------------------------------------------------------- */

struct timespec;
/* ts as UTC RFC 3339 with nanoseconds ("2026-12-04T22:31:07.527283918Z"),
 * computed by hand: glibc's gmtime_r reads /etc/localtime, which the start
 * path does not need. 31 bytes with the NUL; a shorter buffer truncates. */
void util_rfc3339(const struct timespec *ts, char *buf, size_t size);
/* CLOCK_MONOTONIC in milliseconds (deadlines, intervals). */
long long util_mono_ms(void);

#endif
