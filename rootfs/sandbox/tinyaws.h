/* tinyaws image + app dir -> the choices of a bundle (oci/sandbox/tinyaws.h):
 * the pieces of `tinyrun bundle tinyaws` that know tinyaws' conventions.
 * Pure functions but the copy; unit-tested in tests/unit/test_rootfs_tinyaws.c. */
#ifndef TINYRUN_ROOTFS_TINYAWS_H
#define TINYRUN_ROOTFS_TINYAWS_H

#include <stdbool.h>
#include <stddef.h>

#define TINYAWS_IMAGES_DIR "/var/lib/tinyaws/images"
#define TINYAWS_ETC_PROFILE "/etc/tinyaws/seccomp-default.json"
#define TINYAWS_PIDS_DEFAULT 1024

/* tinyaws.build: `key: value` lines, '#' starts a comment line, unknown keys
 * ignored. The value of `start:` (trimmed) into out: 1; none: 0;
 * -ENAMETOOLONG when it does not fit. */
int rootfs_tinyaws_build_start(const char *text, char *out, size_t size);

/* --type: nano micro small medium large = 25 50 100 200 400 % of a CPU,
 * 128 256 512 1024 2048 MiB. 0, or -1 for an unknown name. */
int rootfs_tinyaws_type(const char *name, unsigned *cpu_percent, unsigned *memory_mb);

/* IMAGE as given: a path (holds '/') or an id under images_dir (from
 * $TINYAWS_IMAGES_DIR, NULL: TINYAWS_IMAGES_DIR). 0, -EINVAL for an id that
 * is empty, "." or "..", -ENAMETOOLONG. */
int rootfs_tinyaws_image_path(const char *arg, const char *images_dir, char *out, size_t size);

/* The job's command: CMD after "--" (joined by spaces, as sh -c "$*"),
 * else start:, else "sh start.sh" when the app dir has it. 0 or -ENOENT
 * (none), -ENAMETOOLONG. */
int rootfs_tinyaws_command(char *const *cmd, int n_cmd, const char *start, bool has_start_sh,
			   char *out, size_t size);

/* Which seccomp profile, in tinyaws' order: --seccomp FILE, then
 * $TINYAWS_SECCOMP_PROFILE, then <exe_dir>/seccomp-default.json, then
 * /etc/tinyaws/seccomp-default.json when `exists` says so, else NULL
 * (tinyrun's default profile). *source names the step. An explicitly named
 * file (option or variable) is taken even when missing: reading it fails. */
const char *rootfs_tinyaws_seccomp_pick(const char *opt, const char *env, const char *exe_dir,
					bool (*exists)(const char *path), char *buf, size_t size,
					const char **source);

/* The app dir's own file NAME (tinyaws.build, start.sh), read on the host:
 * through APP, the opened app dir, beneath it with no link followed
 * (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS), opened O_NONBLOCK, and only
 * a regular file of at most MAX bytes (max < 0: any size): a link to a host
 * file, a FIFO or a device is refused, never opened to wait. The fd; -ENOENT
 * when there is none; else -errno with *why set ("a symbolic link: ...",
 * "not a regular file (a FIFO)", "too large") or left NULL (strerror). */
int rootfs_tinyaws_app_open(int app, const char *name, long long max, const char **why);

/* The same, read whole into *text (malloc'd, NUL-terminated; NULL when there
 * is none): 0 or -errno as above; a NUL byte: -EINVAL "not text". */
int rootfs_tinyaws_app_read(int app, const char *name, size_t max, char **text, const char **why);

/* Copy the app dir (APP, its opened fd) into dest_dir (a new empty
 * directory): files, links, modes, owners, times, as cp -a; no link
 * followed. 0 or -errno. */
int rootfs_tinyaws_copy_app(int app, const char *dest_dir);

/* --no-overlay: the root's skeleton in dest_dir (the bundle's empty rootfs/),
 * so that the image is never written: a link at the image's top level copied
 * as that link (never followed), a mount point for each directory and file
 * (their names in *names, sorted, malloc'd: rootfs_tinyaws_names_free), the
 * job's app, proc, dev and sys made (the image's own never bound); devices,
 * FIFOs and sockets left out. The image is only read. 0 or -errno. */
int rootfs_tinyaws_skeleton(const char *image, const char *dest_dir, char ***names, size_t *n);
void rootfs_tinyaws_names_free(char **names, size_t n);

#endif
