/* CRIU's RPC messages (criu/images/rpc.proto: criu_req, criu_opts, criu_resp)
 * for the fields tinyrun uses, to and from the protobuf wire format (pb.h). */
#ifndef TINYRUN_CRIU_RPC_H
#define TINYRUN_CRIU_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/util.h"

/* criu_req_type */
enum criu_req_type {
	CRIU_REQ_DUMP = 1,
	CRIU_REQ_RESTORE = 2,
	CRIU_REQ_PRE_DUMP = 4,
	CRIU_REQ_NOTIFY = 6,
	CRIU_REQ_FEATURE_CHECK = 9,
	CRIU_REQ_VERSION = 10,
};

/* criu_cg_mode */
enum criu_cg_mode {
	CRIU_CG_IGNORE = 0, CRIU_CG_SOFT = 3, CRIU_CG_FULL = 4, CRIU_CG_STRICT = 5, CRIU_CG_DEFAULT = 6,
};

struct criu_kv {
	const char *key, *val;
};

struct criu_inherit_fd {
	const char *key;
	int fd;
};

/* criu_opts; a NULL string, a zero count or a -1 fd is left out. */
struct criu_opts {
	int images_dir_fd;
	int work_dir_fd;
	pid_t pid;
	bool leave_running, ext_unix_sk, tcp_established, shell_job, file_locks;
	bool notify_scripts, track_mem, auto_dedup, evasive_devices, rst_sibling;
	bool orphan_pts_master, lazy_pages, manage_cgroups, link_remap;
	const char *ps_address;          /* page server (ps): address and port, NULL none */
	int ps_port;
	enum criu_cg_mode manage_cgroups_mode;
	int log_level;
	const char *log_file, *root, *parent_img, *freeze_cgroup, *config_file;
	const char *lsm_profile, *lsm_mount_context;   /* restore: "TYPE:NAME", an SELinux context */
	uint32_t empty_ns;               /* CLONE_NEW* flags */
	const struct criu_kv *ext_mnt;   /* ext_mount_map: mount point -> what it is */
	size_t n_ext_mnt;
	const char *const *external;     /* "net[INODE]:KEY" and the like */
	size_t n_external;
	const struct criu_inherit_fd *inherit_fd;
	size_t n_inherit_fd;
	const struct criu_kv *join_ns;   /* join_ns: CRIU's namespace name -> path to join */
	size_t n_join_ns;
	const struct criu_kv *cg_root;   /* cgroup_root: controller ("" for cgroup2) -> path */
	size_t n_cg_root;
};

/* A criu_req: its type, opts (NULL: none), notify_success. 0 or -ENOMEM. */
int criu_req_encode(enum criu_req_type type, const struct criu_opts *o, bool notify_success,
		    struct util_buf *out);

struct criu_resp {
	enum criu_req_type type;
	bool success;
	int cr_errno;
	char errmsg[512];                /* cr_errmsg, "" when none */
	char notify_script[64];          /* criu_notify.script */
	pid_t notify_pid;
	pid_t restore_pid;               /* criu_restore_resp.pid */
	bool has_version;
	int major, minor, sublevel;      /* criu_version */
};

/* 0, or -EBADMSG when the bytes are not a criu_resp. */
int criu_resp_decode(const void *data, size_t len, struct criu_resp *r);

#endif
