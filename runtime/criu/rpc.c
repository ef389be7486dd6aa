#include "runtime/criu/rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/criu/pb.h"

/* criu_opts field numbers (rpc.proto) */
enum {
	O_IMAGES_DIR_FD = 1, O_PID = 2, O_LEAVE_RUNNING = 3, O_EXT_UNIX_SK = 4, O_TCP_ESTABLISHED = 5,
	O_EVASIVE_DEVICES = 6, O_SHELL_JOB = 7, O_FILE_LOCKS = 8, O_LOG_LEVEL = 9, O_LOG_FILE = 10,
	O_PS = 11, O_NOTIFY_SCRIPTS = 12, O_ROOT = 13, O_PARENT_IMG = 14, O_TRACK_MEM = 15, O_AUTO_DEDUP = 16,
	O_WORK_DIR_FD = 17, O_LINK_REMAP = 18, O_EXT_MNT = 23, O_MANAGE_CGROUPS = 24, O_CG_ROOT = 25,
	O_RST_SIBLING = 26, O_INHERIT_FD = 27, O_MANAGE_CGROUPS_MODE = 34, O_EXTERNAL = 37, O_EMPTY_NS = 38, O_JOIN_NS = 39,
	O_FREEZE_CGROUP = 44, O_LAZY_PAGES = 48, O_ORPHAN_PTS_MASTER = 50, O_CONFIG_FILE = 51,
	O_LSM_PROFILE = 53, O_LSM_MOUNT_CONTEXT = 63,
};

/* A nested message of two fields, (1: string, 2: string) or (1: string, 2: int32). */
static void put_pair(struct util_buf *b, uint32_t field, const char *key, const char *val, int ival)
{
	struct util_buf m = { 0 };

	if (key)
		pb_put_string(&m, 1, key);
	if (val)
		pb_put_string(&m, 2, val);
	else
		pb_put_int32(&m, 2, ival);
	pb_put_bytes(b, field, m.p, m.len);
	b->oom |= m.oom;
	free(m.p);
}

static void put_opt_string(struct util_buf *b, uint32_t field, const char *s)
{
	if (s)
		pb_put_string(b, field, s);
}

static void put_flags(struct util_buf *b, const struct criu_opts *o)
{
	const struct { uint32_t field; bool on; } flags[] = {
		{ O_LEAVE_RUNNING, o->leave_running }, { O_EXT_UNIX_SK, o->ext_unix_sk },
		{ O_TCP_ESTABLISHED, o->tcp_established }, { O_EVASIVE_DEVICES, o->evasive_devices },
		{ O_SHELL_JOB, o->shell_job }, { O_FILE_LOCKS, o->file_locks },
		{ O_NOTIFY_SCRIPTS, o->notify_scripts }, { O_TRACK_MEM, o->track_mem },
		{ O_AUTO_DEDUP, o->auto_dedup }, { O_MANAGE_CGROUPS, o->manage_cgroups },
		{ O_RST_SIBLING, o->rst_sibling }, { O_LAZY_PAGES, o->lazy_pages },
		{ O_ORPHAN_PTS_MASTER, o->orphan_pts_master }, { O_LINK_REMAP, o->link_remap },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i].on)
			pb_put_bool(b, flags[i].field, true);
}

static void put_opts(struct util_buf *b, const struct criu_opts *o)
{
	pb_put_int32(b, O_IMAGES_DIR_FD, o->images_dir_fd);
	if (o->pid > 0)
		pb_put_int32(b, O_PID, o->pid);
	put_flags(b, o);
	pb_put_int32(b, O_LOG_LEVEL, o->log_level);
	put_opt_string(b, O_LOG_FILE, o->log_file);
	put_opt_string(b, O_ROOT, o->root);
	put_opt_string(b, O_PARENT_IMG, o->parent_img);
	if (o->ps_address)   /* criu_page_server_info: 1 address, 2 port */
		put_pair(b, O_PS, o->ps_address, NULL, o->ps_port);
	if (o->work_dir_fd >= 0)
		pb_put_int32(b, O_WORK_DIR_FD, o->work_dir_fd);
	for (size_t i = 0; i < o->n_ext_mnt; i++)
		put_pair(b, O_EXT_MNT, o->ext_mnt[i].key, o->ext_mnt[i].val, 0);
	for (size_t i = 0; i < o->n_cg_root; i++)   /* cgroup_root: 1 ctrl (optional), 2 path */
		put_pair(b, O_CG_ROOT, *o->cg_root[i].key ? o->cg_root[i].key : NULL, o->cg_root[i].val, 0);
	for (size_t i = 0; i < o->n_inherit_fd; i++)
		put_pair(b, O_INHERIT_FD, o->inherit_fd[i].key, NULL, o->inherit_fd[i].fd);
	pb_put_uint(b, O_MANAGE_CGROUPS_MODE, o->manage_cgroups_mode);
	for (size_t i = 0; i < o->n_external; i++)
		pb_put_string(b, O_EXTERNAL, o->external[i]);
	for (size_t i = 0; i < o->n_join_ns; i++)   /* join_namespace: 1 ns, 2 ns_file */
		put_pair(b, O_JOIN_NS, o->join_ns[i].key, o->join_ns[i].val, 0);
	if (o->empty_ns)
		pb_put_uint(b, O_EMPTY_NS, o->empty_ns);
	put_opt_string(b, O_FREEZE_CGROUP, o->freeze_cgroup);
	put_opt_string(b, O_CONFIG_FILE, o->config_file);
	put_opt_string(b, O_LSM_PROFILE, o->lsm_profile);
	put_opt_string(b, O_LSM_MOUNT_CONTEXT, o->lsm_mount_context);
}

int criu_req_encode(enum criu_req_type type, const struct criu_opts *o, bool notify_success,
		    struct util_buf *out)
{
	pb_put_uint(out, 1, type);
	if (o) {
		struct util_buf m = { 0 };

		put_opts(&m, o);
		pb_put_bytes(out, 2, m.p, m.len);
		out->oom |= m.oom;
		free(m.p);
	}
	if (notify_success)
		pb_put_bool(out, 3, true);
	return out->oom ? -ENOMEM : 0;
}

static void copy_string(char *dst, size_t size, const struct pb_field *f)
{
	size_t n = f->len < size - 1 ? f->len : size - 1;

	memcpy(dst, f->data, n);
	dst[n] = '\0';
}

/* criu_notify (1 script, 2 pid), criu_restore_resp (1 pid), criu_version (1 major, 2 minor, 4 sublevel) */
static int decode_sub(const struct pb_field *outer, struct criu_resp *r)
{
	struct pb_reader rd;
	struct pb_field f;
	int n;

	pb_reader_init(&rd, outer->data, outer->len);
	while ((n = pb_next(&rd, &f)) > 0) {
		if (outer->num == 5 && f.num == 1 && f.wire == PB_LEN)
			copy_string(r->notify_script, sizeof(r->notify_script), &f);
		else if (outer->num == 5 && f.num == 2)
			r->notify_pid = (pid_t)f.v;
		else if (outer->num == 4 && f.num == 1)
			r->restore_pid = (pid_t)f.v;
		else if (outer->num == 10 && f.num == 1)
			r->major = (int)f.v;
		else if (outer->num == 10 && f.num == 2)
			r->minor = (int)f.v;
		else if (outer->num == 10 && f.num == 4)
			r->sublevel = (int)f.v;
	}
	r->has_version |= outer->num == 10;
	return n;
}

int criu_resp_decode(const void *data, size_t len, struct criu_resp *r)
{
	struct pb_reader rd;
	struct pb_field f;
	int n;

	memset(r, 0, sizeof(*r));
	pb_reader_init(&rd, data, len);
	while ((n = pb_next(&rd, &f)) > 0) {
		if (f.num == 1 && f.wire == PB_VARINT)
			r->type = (enum criu_req_type)f.v;
		else if (f.num == 2 && f.wire == PB_VARINT)
			r->success = f.v != 0;
		else if (f.num == 7 && f.wire == PB_VARINT)
			r->cr_errno = (int)f.v;
		else if (f.num == 9 && f.wire == PB_LEN)
			copy_string(r->errmsg, sizeof(r->errmsg), &f);
		else if ((f.num == 4 || f.num == 5 || f.num == 10) && f.wire == PB_LEN && decode_sub(&f, r) < 0)
			return -EBADMSG;
	}
	return n < 0 ? -EBADMSG : 0;
}
