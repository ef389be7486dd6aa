/* checkpoint and restore through CRIU (runtime/criu/): what both share. */
#ifndef TINYRUN_CR_H
#define TINYRUN_CR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/config.h"
#include "oci/error.h"
#include "runtime/cli.h"
#include "runtime/container/statedir.h"
#include "runtime/criu/rpc.h"

/* The oldest CRIU we talk to: the cgroup2 freezer (3.14) and config_file (3.11). */
#define CR_CRIU_MIN_MAJOR 3
#define CR_CRIU_MIN_MINOR 14

/* runc's checkpoint and restore options. */
struct cr_opts {
	const char *image_path;      /* default "checkpoint" (runc) */
	const char *work_path;       /* NULL: CRIU's logs go to the image dir */
	const char *parent_path;
	bool leave_running, tcp_established, ext_unix_sk, shell_job, file_locks;
	bool pre_dump, auto_dedup, lazy_pages, link_remap;
	char ps_address[256];        /* --page-server ADDRESS:PORT (checkpoint); "" none */
	int ps_port;
	int status_fd;               /* -1: none; with lazy_pages, "\0" when the page server serves */
	enum criu_cg_mode cg_mode;
	uint32_t empty_ns;
	/* restore */
	const char *bundle, *pid_file, *console_socket, *lsm_profile, *lsm_mount_context;
	bool detach, no_pivot;
};

/* criu on the caller's PATH, CR_CRIU_MIN or later: "CMD: criu not found in
 * PATH (install criu)", "CMD: criu X.Y is too old ..." otherwise. Its
 * version as MAJOR * 100 + MINOR in *version (NULL: not wanted). */
int cr_criu_path(const char *cmd, char *path, size_t size, int *version, struct error *err);
/* "soft" "full" "strict" "ignore" -> the mode; -EINVAL otherwise. */
int cr_cg_mode(const char *name, enum criu_cg_mode *mode);
/* --status-fd: a number naming an fd of ours open for writing (made
 * close-on-exec unless it is stdio: criu never holds it); -EINVAL not a number, -EBADF not such an fd. */
int cr_parse_fd(const char *s, int *fd);
/* --page-server ADDRESS:PORT ([IPv6]:PORT): -EINVAL unless both are there, PORT 1-65535. */
int cr_parse_page_server(const char *s, char *addr, size_t size, int *port);
/* "network" "pid" ... (runc's namespace names) -> CLONE_NEW*; 0 if unknown. */
uint32_t cr_ns_flag(const char *name);
/* runc's key for a network or pid namespace joined by path: the dump names it
 * external under it, the restore hands it back under it; NULL for the others */
const char *cr_external_ns_key(enum oci_ns_type t);
/* The image dir (made when `create`) and the work dir, opened. */
int cr_open_dirs(const struct cr_opts *o, bool create, int *img, int *work, struct error *err);
/* The options checkpoint and restore both send: flags from o, the log,
 * org.criu.config (runc: its value, "" none, default /etc/criu/runc.conf). */
void cr_base_opts(const struct cr_opts *o, const struct oci_kv *annotations, size_t n_annotations, int img,
		  int work, const char *log_file, struct criu_opts *co);
/* A failed CRIU run: err gets "(see DIR/LOG)" and the log's last error line. */
void cr_log_hint(const struct cr_opts *o, const char *log_file, struct error *err);

/* Mounts CRIU is told about (ext_mnt): bind mounts, the devices, and at dump
 * (dump_pid: the init) the masked files. Dump: each names itself; restore
 * (dump_pid 0): a bind maps to its host source (relative: to bundle). A bind
 * is named by its destination with the links in the container's root
 * resolved (dump: the init's root; restore: rootfs, the host's rootfs dir). */
struct cr_ext_mounts {
	struct criu_kv *kv;
	size_t n;
};
int cr_ext_mounts(const struct oci_config *cfg, pid_t dump_pid, const char *bundle, const char *rootfs,
		  struct cr_ext_mounts *m, struct error *err);
void cr_ext_mounts_free(struct cr_ext_mounts *m);

/* checkpoint.c: dump the running container c (locked); its saved config cfg. */
int container_checkpoint(struct container *c, const struct oci_config *cfg, const struct cr_opts *o,
			 struct error *err);

#endif
