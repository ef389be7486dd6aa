/* Shared by the files of runtime/cgroup/ only (and tests/unit). */
#ifndef TINYRUN_CGROUP_INTERNAL_H
#define TINYRUN_CGROUP_INTERNAL_H

#include <linux/bpf.h>
#include <stdarg.h>

#include "runtime/cgroup/backend.h"
#include "runtime/cgroup/cgroup.h"
#include "oci/util.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CG_DEFAULT_PARENT "/tinyrun"
#define CG_WAIT_MS 10000          /* destroy/freeze give up after this */

void cg_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- files (file.c) ----------------------------------------------------- */

/* The one write() of every cgroup file value: write(fd, val, len), fd being
 * dirfd/file opened for writing. Unit tests watch the writes (which file of
 * which dir, which value, in which order) with an observer; NULL: none. */
ssize_t cg_file_write(int dirfd, const char *file, int fd, const char *val, size_t len);
void cg_set_write_observer(void (*fn)(int dirfd, const char *file, const char *val, size_t len));
/* One write() of `val` to dirfd/file. Fills err ("memory.max: write \"1\": ...")
 * and returns -errno; -ENOENT when the file does not exist. */
int cg_write(int dirfd, const char *file, const char *val, struct error *err);
/* The same, one write(2) per line when val has several (runc's
 * WriteFileByLine: io.max, rdma.max, ... take one device a write). */
int cg_write_lines(int dirfd, const char *file, const char *val, struct error *err);
int cg_writef(int dirfd, const char *file, struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Read a small file, NUL-terminated, trailing newline removed. Length or -errno. */
ssize_t cg_read(int dirfd, const char *file, char *buf, size_t size);
/* A whole file of any size: util_read_at (oci/util.h). */
/* A single number; "max" reads as UINT64_MAX. */
int cg_read_u64(int dirfd, const char *file, uint64_t *v);
/* "key value" lines: the value of `key`, or -ENOENT. */
int cg_kv_lookup(const char *text, const char *key, uint64_t *v);
/* Is the word `w` in the space-separated list `list`? */
bool cg_word_in(const char *list, const char *w);
/* The cgroup is a unit of a rootless caller's own systemd (systemd.c). */
bool cg_users_unit(const struct cgroup *cg);
/* mkdir every missing component of rel (no leading '/') under rootfd.
 * *first_new: index in rel of the first component created (its '\0' or '/'
 * position is the end), or -1 when everything existed. */
int cg_mkdir_p(int rootfd, const char *rel, int *first_new, struct error *err);
/* Remove rel under rootfd and every sub-cgroup in it, deepest first.
 * ENOENT is success; EBUSY is returned as is (still populated). */
int cg_rmdir_tree(int rootfd, const char *rel);
/* Undo cg_mkdir_p: remove rel and its parents down to first_new (ignoring
 * parents that became non-empty meanwhile). */
void cg_rmdir_created(int rootfd, const char *rel, int first_new);
/* Append the pids of dirfd/cgroup.procs (and sub-cgroups' when recursive). */
int cg_read_pids(int dirfd, bool recursive, pid_t **pids, size_t *n, size_t *cap);
/* Sleep for a backoff step: 1, 2, 4 ... up to 32 ms; returns ms slept. */
unsigned cg_backoff(unsigned step);

/* ---- pure conversions (convert.c) --------------------------------------- */

/* v1 cpu.shares [2, 262144] -> v2 cpu.weight [1, 10000], as runc/crun. 0 -> 0. */
uint64_t cg_shares_to_weight(uint64_t shares);
/* v1 blkio.weight [10, 1000] -> v2 io.weight [1, 10000]. 0 -> 0. */
uint64_t cg_blkio_to_io_weight(uint64_t w);
/* OCI memory.swap (memory+swap) -> v2 memory.swap.max. limit_known: the
 * memory limit (`limit`, -1 = unlimited) is known. *out = -1 for "max",
 * or the swap-only bytes. Returns 1 when something must be written, 0 when
 * not, or -EINVAL with err filled. */
int cg_swap_v2(bool limit_known, int64_t limit, int64_t swap, int64_t *out, struct error *err);
/* "max" for negative values, else the number. */
void cg_fmt_limit(char *buf, size_t size, int64_t v);
/* pids.limit -> pids.max: -1 no limit; 0 is a limit (runtime-spec 1.3),
 * written as 1 as runc 1.4 does (systemd has no TasksMax=0): the container's
 * init may not fork. */
int64_t cg_pids_max(int64_t limit);

struct cg_io_line {
	int64_t major, minor;
	char text[160];               /* "8:0 rbps=1 wbps=max riops=3" */
};
/* Group blockIO.throttle* by device into io.max lines (0 rate = max, as v1's
 * 0 = no limit). *lines malloc'd. */
int cg_io_max_lines(const struct oci_blkio *b, struct cg_io_line **lines, size_t *n);

/* Device rules, normalised: major/minor -1 = any; access = BPF_DEVCG_ACC_* bits. */
struct cg_dev_rule {
	bool allow;
	char type;                    /* 'a', 'c', 'b' */
	int64_t major, minor;
	unsigned access;
};
unsigned cg_access_bits(const char *access);
/* The other way: "rwm" letters of the bits, into out; returns out. */
const char *cg_access_letters(unsigned access, char out[4]);
/* config rules + default devices + linux.devices. *out malloc'd. */
int cg_device_rules(const struct oci_config *cfg, struct cg_dev_rule **out, size_t *n);
/* The same of linux.resources (NULL: none, the defaults alone). */
int cg_device_rules_of(const struct oci_resources *res, struct cg_dev_rule **out, size_t *n);

struct cg_v1_dev_write {
	const char *file;             /* "devices.allow" / "devices.deny" */
	char value[64];               /* "c 1:3 rwm", "a" */
};
/* The v1 writes that give `rules` their meaning: "a" to devices.deny (or
 * devices.allow when the last catch-all rule allows), then every rule after
 * the last catch-all in order ('a' with a number split into 'c' and 'b'). */
int cg_v1_device_writes(const struct cg_dev_rule *rules, size_t n,
			struct cg_v1_dev_write **out, size_t *n_out);
/* The same into buf when its cap entries hold them (*out == buf: nothing
 * to free), else into malloc'd memory: musl's malloc maps and unmaps a
 * group for the ~2 KB of a stock config's writes. */
int cg_v1_device_writes_into(const struct cg_dev_rule *rules, size_t n, struct cg_v1_dev_write *buf,
			     size_t cap, struct cg_v1_dev_write **out, size_t *n_out);

/* What a v1 devices cgroup holds after those writes (the kernel's list):
 * *allow_all, the default, and the exceptions to it, each an exact type
 * ('c' or 'b') and numbers (-1: "*") with the access bits it grants (under a
 * deny default) or denies (under an allow one). *out malloc'd. systemd's
 * DevicePolicy and DeviceAllow are derived from it (systemd-props.c). */
int cg_v1_devices_final(const struct cg_dev_rule *rules, size_t n, bool *allow_all,
			struct cg_dev_rule **out, size_t *n_out);

/* v2 cpu.max, "QUOTA|max PERIOD": *quota (-1: max) and *period, both set
 * only when the text is that (else -EINVAL). */
int cg_cpu_max_parse(const char *text, int64_t *quota, uint64_t *period);

/* hugepage size in kB -> "2MB", "1GB", "64KB" (names of hugetlb.<size>.*). */
void cg_hugepage_name(unsigned long kb, char *buf, size_t size);

/* ---- device filter for v2 (devices-bpf.c) ------------------------------- */

/* The BPF_PROG_TYPE_CGROUP_DEVICE program for rules. *insns malloc'd. */
int cg_bpf_build(const struct cg_dev_rule *rules, size_t n, struct bpf_insn **insns, size_t *n_insns);
/* Load it and attach it to the cgroup dir (BPF_F_ALLOW_MULTI). */
int cg_bpf_attach(int dirfd, const struct bpf_insn *insns, size_t n, struct error *err);

/* ---- v2 (v2.c, v2-resources.c) ------------------------------------------ */

int cg2_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err);
int cg2_open(struct cgroup *cg, struct error *err);
int cg2_apply(int dirfd, const struct oci_resources *res, bool update, struct error *err);
/* Shared with v1: "mlx4_0 hca_handle=2 hca_object=3" (0: nothing to write),
 * and the `unified` keys written as given. */
int cg_rdma_line(const struct oci_rdma *d, char *buf, size_t size);
int cg_apply_unified(int fd, const struct oci_resources *res, struct error *err);
int cg2_apply_devices(int dirfd, const struct oci_config *cfg, struct error *err);
/* chown the cgroup and its delegate files to process.user's host ids when the
 * container has a user namespace, a cgroup namespace and a rw cgroup mount. */
int cg2_delegate_to_user(int dirfd, const struct oci_config *cfg, struct error *err);
int cg2_freeze(int dirfd, bool frozen, struct error *err);
bool cg2_is_frozen(int dirfd);
int cg2_kill_all(int dirfd, int sig, struct error *err);
int cg2_destroy(struct cgroup *cg, struct error *err);
/* stats-v2.c */
int cg2_stats(int dirfd, struct cgroup_stats *st, struct error *err);
int cg2_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err);
int cg2_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err);

/* ---- v1 (v1.c, v1-resources.c) ------------------------------------------ */

enum cg1_hier {
	CG1_CPUSET, CG1_CPU, CG1_CPUACCT, CG1_MEMORY, CG1_DEVICES, CG1_FREEZER,
	CG1_BLKIO, CG1_PIDS, CG1_NET_CLS, CG1_NET_PRIO, CG1_HUGETLB, CG1_PERF_EVENT,
	CG1_RDMA, CG1_MISC, CG1_SYSTEMD, CG1_UNIFIED, CG1_N
};
extern const char *const cg1_names[CG1_N];
/* Bit per mounted hierarchy (co-mounted ones counted once); probed once. */
uint32_t cg1_mounted(void);
/* Open the container's dir in hierarchy h: fd, or -errno with err filled. */
int cg1_open(const struct cgroup *cg, enum cg1_hier h, struct error *err);

int cg1_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err);
int cg1_open_existing(struct cgroup *cg, struct error *err);
int cg1_attach(const struct cgroup *cg, pid_t pid, struct error *err);
int cg1_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err);
/* Open the container's dir in every hierarchy of cg->v1_mask; co-mounted
 * controllers share the fd of their hierarchy. Close with cg1_close_all. */
int cg1_open_all(const struct cgroup *cg, int fds[CG1_N], struct error *err);
void cg1_close_all(int fds[CG1_N]);
/* fds[h]: the container's dir in each hierarchy, or -1. */
int cg1_apply(const int *fds, const struct oci_resources *res, bool update, struct error *err);
int cg1_apply_devices(int fd, const struct oci_config *cfg, struct error *err);
int cg1_freeze(const struct cgroup *cg, bool frozen, struct error *err);
bool cg1_is_frozen(const struct cgroup *cg);
int cg1_kill_all(const struct cgroup *cg, int sig, struct error *err);
int cg1_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err);
int cg1_destroy(struct cgroup *cg, struct error *err);
/* PID frozen in a freezer cgroup outside the container's (in WHERE); one
 * below the container's is thawed instead. */
bool cg1_frozen_elsewhere(const struct cgroup *cg, pid_t pid, char *where, size_t size);
/* stats-v1.c; cg1_stats_at reads fds[h], the container's dir in each
 * hierarchy (-1: none), as cg1_apply writes them. */
int cg1_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err);
int cg1_stats_at(const int *fds, struct cgroup_stats *st, struct error *err);
int cg1_oom_kill_count(const struct cgroup *cg, uint64_t *count, struct error *err);
int cg1_oom_watch_open(const struct cgroup *cg, struct cgroup_oom_watch *w, struct error *err);

/* ---- stats shared by v1 and v2 (stats.c) -------------------------------- */

/* The value of `key` in "key value" lines, 0 when text is NULL or has none. */
uint64_t cg_stats_kv(const char *text, const char *key);
/* A number file, 0 when unreadable. */
uint64_t cg_stats_u64(int fd, const char *file);
/* A whole file, malloc'd, or NULL (fd < 0 or unreadable). */
char *cg_stats_slurp(int fd, const char *file);
/* Append one entry to a blkio list (-ENOMEM). */
int cg_stats_add_blkio(struct cgroup_blkio_entry **list, size_t *n, uint32_t major, uint32_t minor,
		       const char *op, uint64_t value);
/* Whitespace-separated numbers (cpuacct.usage_percpu) appended to *list (-ENOMEM). */
int cg_stats_u64_list(const char *text, uint64_t **list, size_t *n);
/* A cpu or node list ("0-2,4\n") expanded into *list (-ENOMEM, -EINVAL). */
int cg_stats_id_list(const char *text, uint16_t **list, size_t *n);
/* Either list (u64 or ids, the other NULL) from dirfd fd's file; a missing
 * or malformed file leaves it empty (0); -ENOMEM. */
int cg_stats_list_at(int fd, const char *file, uint64_t **u64, uint16_t **ids, size_t *n);
/* memory.stat "key value" lines into st->memory.raw. */
int cg_stats_memory_raw(const char *text, struct cgroup_stats *st);
/* The hugepage sizes of this machine, named as in hugetlb.<size>.* files. */
int cg_stats_hugetlb_sizes(char names[][16], size_t max);
/* oom_kill of the "key value" file at fd (read from offset 0). */
int cg_stats_read_oom_kill(int fd, uint64_t *v);
/* oom_kill of dirfd/file; messages name cg and file. */
int cg_stats_oom_kill_at(const struct cgroup *cg, int dirfd, const char *file, uint64_t *count,
			 struct error *err);

#endif
