/* The runtime-spec v1.3 config.json as plain C structs.
 *
 * oci/ is the only place that knows JSON. Everything below it (runtime/,
 * rootfs/, seccomp/) takes these structs, already validated:
 *  - strings are NUL-terminated, NULL when absent;
 *  - arrays are (pointer, count), count 0 when absent;
 *  - optional scalars have a `has_x` flag;
 *  - names from the spec (rlimit types, capabilities, namespace types, mount
 *    options, seccomp actions ...) are already translated to kernel values.
 * One allocation arena owns every pointer: oci_config_free() releases it all. */
#ifndef TINYRUN_OCI_CONFIG_H
#define TINYRUN_OCI_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct oci_kv {               /* map entry: annotations, sysctl, unified */
	char *key;
	char *value;
};

struct oci_idmap {            /* linux.uidMappings / gidMappings, mounts[].uidMappings */
	uint32_t container_id;
	uint32_t host_id;
	uint32_t size;
};

/* ---- process ---------------------------------------------------------- */

struct oci_rlimit {
	int resource;             /* RLIMIT_NOFILE ... */
	uint64_t soft;
	uint64_t hard;
};

/* Capability sets as 64-bit masks of CAP_* numbers (bit n = capability n). */
struct oci_caps {
	bool has_bounding, has_effective, has_inheritable, has_permitted, has_ambient;
	uint64_t bounding, effective, inheritable, permitted, ambient;
	/* names no table knows (spec: log a warning, do not fail), each once */
	char **unknown;
	size_t n_unknown;
	/* names given in the config that this build knows but the running kernel
	 * lacks are dropped by the runtime with a debug note (see cap_last_cap). */
};

struct oci_scheduler {
	int policy;               /* SCHED_OTHER ... SCHED_DEADLINE */
	int32_t nice;
	int32_t priority;
	uint64_t flags;           /* SCHED_FLAG_* bits */
	uint64_t runtime, deadline, period;
};

struct oci_process {
	bool terminal;
	bool has_console_size;
	unsigned console_height, console_width;
	uint32_t uid, gid;
	bool has_umask;
	uint32_t umask;
	uint32_t *additional_gids;
	size_t n_additional_gids;
	char **args;              /* NULL-terminated as well, n_args entries */
	size_t n_args;
	char **env;               /* NULL-terminated as well */
	size_t n_env;
	char *cwd;                /* absolute */
	bool has_caps;
	struct oci_caps caps;
	struct oci_rlimit *rlimits;
	size_t n_rlimits;
	bool no_new_privileges;
	char *apparmor_profile;
	bool has_oom_score_adj;
	int oom_score_adj;
	bool has_scheduler;
	struct oci_scheduler scheduler;
	char *selinux_label;
	bool has_io_priority;
	int io_priority_class;    /* IOPRIO_CLASS_RT=1, BE=2, IDLE=3 */
	int io_priority;
	char *exec_cpu_affinity_initial;  /* cpu list, e.g. "0-3,7" */
	char *exec_cpu_affinity_final;
};

/* ---- mounts ----------------------------------------------------------- */

/* propagation requested by an option, applied after the mount */
enum oci_propagation {
	OCI_PROP_NONE = 0,
	OCI_PROP_PRIVATE, OCI_PROP_RPRIVATE,
	OCI_PROP_SHARED, OCI_PROP_RSHARED,
	OCI_PROP_SLAVE, OCI_PROP_RSLAVE,
	OCI_PROP_UNBINDABLE, OCI_PROP_RUNBINDABLE,
};

struct oci_mount {
	char *destination;        /* absolute path inside the container */
	char *destination_given;  /* as written when relative (deprecated: warned), else NULL */
	char *type;               /* may be NULL (bind mounts) */
	char *source;             /* may be NULL */
	char **options;           /* the raw option strings, as given */
	size_t n_options;
	/* options translated: */
	unsigned long flags;      /* MS_* to set (MS_BIND, MS_REC, MS_RDONLY ...) */
	unsigned long clear_flags;/* MS_* explicitly cleared (rw, suid, dev ...) */
	uint64_t attr_set;        /* MOUNT_ATTR_* for recursive r* options (mount_setattr) */
	uint64_t attr_clr;
	enum oci_propagation propagation;
	bool is_bind;             /* bind or rbind */
	bool tmpcopyup;
	bool idmap, ridmap;       /* idmap / ridmap options */
	char *data;               /* unknown options joined with ',' (fs data), or NULL */
	struct oci_idmap *uid_mappings;
	size_t n_uid_mappings;
	struct oci_idmap *gid_mappings;
	size_t n_gid_mappings;
};

/* ---- hooks ------------------------------------------------------------ */

struct oci_hook {
	char *path;
	char **args;              /* NULL-terminated; n_args may be 0 */
	size_t n_args;
	char **env;               /* NULL-terminated */
	size_t n_env;
	bool has_timeout;
	int timeout;              /* seconds, > 0 */
};

enum oci_hook_kind {
	OCI_HOOK_PRESTART,
	OCI_HOOK_CREATE_RUNTIME,
	OCI_HOOK_CREATE_CONTAINER,
	OCI_HOOK_START_CONTAINER,
	OCI_HOOK_POSTSTART,
	OCI_HOOK_POSTSTOP,
	OCI_HOOK_KINDS
};

struct oci_hooks {
	struct oci_hook *list[OCI_HOOK_KINDS];
	size_t n[OCI_HOOK_KINDS];
	/* annotations run.oci.hooks.stdout / .stderr (crun): files (appended,
	 * made 0600) for every hook's stdout / stderr, or NULL */
	const char *stdout_path, *stderr_path;
};

/* ---- linux ------------------------------------------------------------ */

enum oci_ns_type {
	OCI_NS_PID, OCI_NS_NET, OCI_NS_MOUNT, OCI_NS_IPC,
	OCI_NS_UTS, OCI_NS_USER, OCI_NS_CGROUP, OCI_NS_TIME,
	OCI_NS_TYPES
};

struct oci_namespace {
	bool present;             /* listed in linux.namespaces */
	char *path;               /* join this one (setns) when non-NULL */
};

struct oci_device {           /* linux.devices[] */
	char *path;
	char type;                /* 'c', 'b', 'u' (unbuffered char), 'p' (fifo) */
	int64_t major, minor;
	bool has_file_mode;
	uint32_t file_mode;
	bool has_uid, has_gid;
	uint32_t uid, gid;
};

struct oci_device_rule {      /* linux.resources.devices[] */
	bool allow;
	char type;                /* 'a', 'c', 'b' ('a' when absent) */
	bool has_major, has_minor;/* absent = wildcard */
	int64_t major, minor;
	char access[4];           /* subset of "rwm", "" when absent (= rwm) */
	const char *access_given; /* the text, when it had letters besides r, w, m (dropped) */
};

struct oci_memory {
	bool has_limit, has_reservation, has_swap, has_kernel, has_kernel_tcp;
	int64_t limit, reservation, swap, kernel, kernel_tcp; /* -1 = unlimited */
	bool has_swappiness;
	uint64_t swappiness;
	bool has_disable_oom_killer, disable_oom_killer;
	bool has_use_hierarchy, use_hierarchy;
	bool has_check_before_update, check_before_update;
};

struct oci_cpu {
	bool has_shares, has_quota, has_burst, has_period;
	uint64_t shares;
	int64_t quota;
	uint64_t burst, period;
	bool has_realtime_runtime, has_realtime_period;
	int64_t realtime_runtime;
	uint64_t realtime_period;
	char *cpus, *mems;
	bool has_idle;
	int64_t idle;
};

struct oci_blkio_weight_device {
	int64_t major, minor;
	bool has_weight, has_leaf_weight;
	uint16_t weight, leaf_weight;
};

struct oci_blkio_throttle {
	int64_t major, minor;
	uint64_t rate;
};

struct oci_blkio {
	bool has_weight, has_leaf_weight;
	uint16_t weight, leaf_weight;
	struct oci_blkio_weight_device *weight_device;
	size_t n_weight_device;
	struct oci_blkio_throttle *throttle_read_bps, *throttle_write_bps,
		*throttle_read_iops, *throttle_write_iops;
	size_t n_throttle_read_bps, n_throttle_write_bps,
		n_throttle_read_iops, n_throttle_write_iops;
};

struct oci_hugepage_limit {
	char *page_size;          /* "2MB", "1GB" */
	uint64_t limit;
};

struct oci_net_priority {
	char *name;
	uint32_t priority;
};

struct oci_rdma {
	char *device;
	bool has_hca_handles, has_hca_objects;
	uint32_t hca_handles, hca_objects;
};

struct oci_resources {
	struct oci_device_rule *devices;
	size_t n_devices;
	bool has_memory;
	struct oci_memory memory;
	bool has_cpu;
	struct oci_cpu cpu;
	bool has_pids;
	int64_t pids_limit;       /* <= 0: unlimited */
	bool has_blkio;
	struct oci_blkio blkio;
	struct oci_hugepage_limit *hugepage_limits;
	size_t n_hugepage_limits;
	bool has_network;
	bool has_class_id;
	uint32_t class_id;
	struct oci_net_priority *net_priorities;
	size_t n_net_priorities;
	struct oci_rdma *rdma;
	size_t n_rdma;
	struct oci_kv *unified;
	size_t n_unified;
};

/* seccomp: names translated to libseccomp-independent values (the seccomp/
 * module maps them to SCMP_* constants). */
enum oci_seccomp_action {
	OCI_SECCOMP_KILL,          /* SCMP_ACT_KILL (= kill thread) */
	OCI_SECCOMP_KILL_PROCESS,
	OCI_SECCOMP_KILL_THREAD,
	OCI_SECCOMP_TRAP,
	OCI_SECCOMP_ERRNO,
	OCI_SECCOMP_TRACE,
	OCI_SECCOMP_ALLOW,
	OCI_SECCOMP_LOG,
	OCI_SECCOMP_NOTIFY,
};

enum oci_seccomp_op {
	OCI_SECCOMP_OP_NE, OCI_SECCOMP_OP_LT, OCI_SECCOMP_OP_LE, OCI_SECCOMP_OP_EQ,
	OCI_SECCOMP_OP_GE, OCI_SECCOMP_OP_GT, OCI_SECCOMP_OP_MASKED_EQ,
};

struct oci_seccomp_arg {
	unsigned index;
	uint64_t value, value_two;
	enum oci_seccomp_op op;
};

struct oci_seccomp_rule {
	char **names;
	size_t n_names;
	enum oci_seccomp_action action;
	bool has_errno_ret;
	uint32_t errno_ret;
	struct oci_seccomp_arg *args;
	size_t n_args;
};

struct oci_seccomp {
	enum oci_seccomp_action default_action;
	bool has_default_errno_ret;
	uint32_t default_errno_ret;
	char **architectures;     /* "SCMP_ARCH_X86_64" ... as given (validated) */
	size_t n_architectures;
	char **flags;             /* "SECCOMP_FILTER_FLAG_LOG" ... (validated) */
	size_t n_flags;
	char *listener_path;
	char *listener_metadata;
	struct oci_seccomp_rule *syscalls;
	size_t n_syscalls;
};

struct oci_intel_rdt {
	char *clos_id;
	char *l3_cache_schema;
	char *mem_bw_schema;
	char **schemata;
	size_t n_schemata;
	bool enable_monitoring;
};

struct oci_time_offset {
	bool present;
	int64_t secs;
	uint32_t nanosecs;
};

enum oci_time_clock { OCI_CLOCK_MONOTONIC, OCI_CLOCK_BOOTTIME, OCI_CLOCKS };

/* nodes 0..1023: the kernel's MAX_NUMNODES with NODES_SHIFT 10 (x86-64) */
#define OCI_MEMPOLICY_MAX_NODES 1024

struct oci_memory_policy {
	int mode;                 /* MPOL_DEFAULT ... */
	char *nodes;              /* node list "0-3" (each < OCI_MEMPOLICY_MAX_NODES), may be NULL */
	unsigned flags;           /* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING */
};

struct oci_net_device {
	char *host_name;          /* key of linux.netDevices */
	char *name;               /* name inside the container (defaults to host_name) */
};

enum oci_rootfs_propagation_mode {
	OCI_ROOTFS_PROP_DEFAULT = 0, /* not given: rprivate (runc) */
	OCI_ROOTFS_PROP_PRIVATE, OCI_ROOTFS_PROP_RPRIVATE,
	OCI_ROOTFS_PROP_SHARED, OCI_ROOTFS_PROP_RSHARED,
	OCI_ROOTFS_PROP_SLAVE, OCI_ROOTFS_PROP_RSLAVE,
	OCI_ROOTFS_PROP_UNBINDABLE, OCI_ROOTFS_PROP_RUNBINDABLE,
};

struct oci_linux {
	struct oci_namespace ns[OCI_NS_TYPES];
	struct oci_idmap *uid_mappings;
	size_t n_uid_mappings;
	struct oci_idmap *gid_mappings;
	size_t n_gid_mappings;
	struct oci_time_offset time_offsets[OCI_CLOCKS];
	struct oci_device *devices;
	size_t n_devices;
	struct oci_net_device *net_devices;
	size_t n_net_devices;
	char *cgroups_path;
	bool has_resources;
	struct oci_resources resources;
	bool has_intel_rdt;
	struct oci_intel_rdt intel_rdt;
	bool has_memory_policy;
	struct oci_memory_policy memory_policy;
	struct oci_kv *sysctl;
	size_t n_sysctl;
	bool has_seccomp;
	struct oci_seccomp seccomp;
	enum oci_rootfs_propagation_mode rootfs_propagation;
	char **masked_paths;
	size_t n_masked_paths;
	char **readonly_paths;
	size_t n_readonly_paths;
	char *mount_label;
	bool has_personality;
	unsigned long personality; /* PER_LINUX or PER_LINUX32 */
};

/* ---- the sandbox annotations (oci/sandbox/annotations_sandbox.c) -------------- */

#define OCI_SANDBOX_RANGE_FIRST 100000u
#define OCI_SANDBOX_RANGE_LAST 165535u
#define OCI_ANNOTATION_REQUEST_KEY_FILE "run.tinyrun.sandbox.request-key-file"
#define OCI_SANDBOX_KEY_MIN 16     /* bytes of a request's key: at least, */
#define OCI_SANDBOX_KEY_MAX 4096   /* at most */

/* run.tinyrun.landlock (oci/sandbox/annotations_landlock.c): what the task may do
 * below each path of the container (resolved after pivot_root), and which
 * IPC leaves its Landlock domain. */
#define OCI_LANDLOCK_READ 1u               /* r: read files, list directories */
#define OCI_LANDLOCK_WRITE 2u              /* w: write, make, remove, rename, truncate */
#define OCI_LANDLOCK_EXEC 4u               /* x: execute */
#define OCI_LANDLOCK_LIST 8u               /* (the sandbox's "/" only) list directories */
#define OCI_LANDLOCK_SCOPE_SIGNAL 1u       /* scope:signal */
#define OCI_LANDLOCK_SCOPE_ABSTRACT_UNIX 2u /* scope:abstract-unix */
#define OCI_LANDLOCK_RULES_MAX 64
struct oci_landlock_rule {
	char *path;                /* absolute, no "." or ".." component */
	unsigned int access;       /* OCI_LANDLOCK_READ | ... */
};
struct oci_landlock {
	bool set;                  /* the annotation is there */
	struct oci_landlock_rule *rules;
	size_t n_rules;
	unsigned int scope;        /* OCI_LANDLOCK_SCOPE_* */
};
/* The output and disk limits (oci/sandbox/annotations_output.c); 0: not set. */
#define OCI_ANNOTATION_OUTPUT_LIMIT "run.tinyrun.output-limit"
#define OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT "run.tinyrun.request-output-limit"
#define OCI_ANNOTATION_WORKSPACE_SIZE "run.tinyrun.workspace-size"
#define OCI_ANNOTATION_WORKSPACE_INODES "run.tinyrun.workspace-inodes"
#define OCI_SANDBOX_WORKSPACE_SIZE (128ull << 20)   /* the minimal root's workspace and /tmp, each: */
#define OCI_SANDBOX_WORKSPACE_INODES 65536ull       /* defaults without the annotations */
struct oci_output_limits {
	uint64_t output;           /* run.tinyrun.output-limit: bytes passed on per stream */
	uint64_t request_output;   /* run.tinyrun.request-output-limit: bytes passed on by all the
	                            * tasks of the request, both streams */
	uint64_t workspace_size;   /* run.tinyrun.workspace-size: bytes of the workspace and of /tmp */
	uint64_t workspace_inodes; /* run.tinyrun.workspace-inodes: their nr_inodes */
};
#define OCI_LIMIT_BYTES_MAX (1ull << 50)    /* 1 PiB: more is a typo */
#define OCI_LIMIT_INODES_MAX (1ull << 32)
/* "N", "Nk", "Nm", "Ng" (powers of 1024), 1 <= value <= max -> *out; 0 or -EINVAL. */
int oci_size_parse(const char *s, uint64_t max, uint64_t *out);
/* ---- the time limits (oci/sandbox/annotations_limits.c, sbtime) ---------------- */

#define OCI_ANNOTATION_WALL_TIME "run.tinyrun.wall-time"
#define OCI_ANNOTATION_CPU_TIME "run.tinyrun.cpu-time"
#define OCI_ANNOTATION_REQUEST_DEADLINE "run.tinyrun.request-deadline"
#define OCI_LIMIT_SECONDS_MAX 2592000   /* 30 days: the largest time limit */
#define OCI_SANDBOX_WALL_TIME "900"     /* `spec --sandbox`'s defaults, seconds */
#define OCI_SANDBOX_CPU_TIME "900"

/* Milliseconds, 0: not set. */
struct oci_limits {
	int64_t wall_ms;           /* run.tinyrun.wall-time: the task's, from its start */
	int64_t cpu_ms;            /* run.tinyrun.cpu-time: its cgroup's CPU usage (and RLIMIT_CPU) */
	int64_t request_deadline_ms; /* run.tinyrun.request-deadline: its request's, from the
	                            * creation of the request's first container */
};
/* Seconds as the annotations take them ("2", "0.5", "1.250": at most three
 * decimals, 1 ms to OCI_LIMIT_SECONDS_MAX s) -> ms; 0 or -EINVAL. */
int oci_limits_seconds(const char *s, int64_t *ms);

struct oci_sandbox {
	bool userns_auto;          /* run.tinyrun.userns=auto: the runtime leases one host id */
	uint32_t range_first;      /* run.tinyrun.userns.range=FIRST-LAST (default 100000-165535) */
	uint32_t range_last;
	bool minimal_root;         /* run.tinyrun.rootfs=minimal: rootfs/sandbox/minimal.c builds / */
	char *request;             /* run.tinyrun.sandbox.request=<ID>: a task of ID's request */
	char *request_key_file;    /* run.tinyrun.sandbox.request-key-file=FILE: a file of the bundle
	                            * (relative, no ".."): the key a request's creator sets, its
	                            * tasks present */
	char *workspace_seed;      /* run.tinyrun.workspace.seed=DIR: a directory of the bundle
	                            * (relative, no "..") copied into a new workspace */
	struct oci_landlock landlock;
	struct oci_output_limits limits; /* oci/sandbox/annotations_output.c */
	struct oci_limits time;   /* the time limits (annotations_limits.c) */
};
/* "FIRST-LAST" -> ids; 0 or -EINVAL. */
int oci_sandbox_range_parse(const char *s, uint32_t *first, uint32_t *last);

/* ---- the whole config ------------------------------------------------- */

struct oci_config {
	char *oci_version;
	bool has_process;          /* required for create/run, optional in the spec */
	struct oci_process process;
	char *root_path;           /* as given (relative to the bundle or absolute) */
	bool root_readonly;
	char *hostname;
	char *domainname;
	struct oci_mount *mounts;
	size_t n_mounts;
	struct oci_hooks hooks;
	struct oci_kv *annotations;
	size_t n_annotations;
	bool init;                 /* annotation run.tinyrun.init=true: tinyrun-init as PID 1 */
	bool keep_groups;          /* annotation run.oci.keep_original_groups other than "0" (crun):
	                            * the caller's supplementary groups stay, no setgroups */
	bool has_linux;
	struct oci_linux linux_;   /* `linux` is a predefined macro in GNU C */
	/* oci/sandbox/config_tinyaws.c: mounts[0] has destination "/" (an overlay
	 * mounted onto the root); annotation run.tinyrun.scratch (a directory
	 * of the bundle, relative, checked) under which create makes
	 * <scratch>/<id>/{upper,work} for that overlay, or NULL */
	bool root_mount;
	char *tinyrun_scratch;
	struct oci_sandbox sandbox;/* from the run.tinyrun.* annotations */

	void *arena;               /* owns every allocation above */
};

/* Which parts of config.json a command needs (parse only those, for speed). */
enum oci_parse_parts {
	OCI_PARSE_ALL = 0,
	OCI_PARSE_HOOKS_ONLY = 1,  /* ociVersion, hooks, annotations (delete, poststop) */
};

/* An ociVersion tinyrun reads: 1.0.0 up to 1.3.x, pre-releases (1.0.0-rc5)
 * and build metadata included; the patch part may be missing ("1.1"). */
bool oci_version_supported(const char *v);
/* One `spec --oci-version` may write: the same, as full MAJOR.MINOR.PATCH
 * (no leading zeros), under 64 bytes. */
bool oci_spec_version_writable(const char *v);

/* Read and validate `path`. On error: negative errno, err->msg like
 * "config.json: .process.rlimits[1].type: unknown rlimit \"RLIMIT_FOO\"". */
int oci_config_load(const char *path, enum oci_parse_parts parts,
		    struct oci_config *cfg, struct error *err);
/* Read a whole JSON document: `path` (or stdin for "-") opened with
 * O_NONBLOCK|O_NOCTTY|O_CLOEXEC and refused unless it is a regular file
 * (a FIFO, device or directory: "<name>: not a regular file (a FIFO)"),
 * nor when larger than the parser accepts (32 MiB). *buf is malloc'd and
 * NUL-terminated. Messages start with `name`. */
int oci_read_file(const char *path, const char *name, char **buf, size_t *len,
		  struct error *err);
/* The same for a file the caller hands a command (exec -p, update -r): an
 * anonymous pipe is read to its end too, as stdin is (runc reads `-p <(...)`);
 * a named FIFO is still refused. */
int oci_read_input(const char *path, const char *name, char **buf, size_t *len,
		   struct error *err);
/* The same from a buffer; `name` is used as the message prefix ("config.json"). */
int oci_config_parse(const char *name, const char *json, size_t len,
		     enum oci_parse_parts parts, struct oci_config *cfg, struct error *err);
/* The same from a buffer with text[len] == '\0' (oci_read_file's and
 * util_read_fd's are): parsed where it is, no copy (with musl a copy of a
 * config's size maps and unmaps a malloc group). */
int oci_config_parse_text(const char *name, const char *text, size_t len,
			  enum oci_parse_parts parts, struct oci_config *cfg, struct error *err);
void oci_config_free(struct oci_config *cfg);
/* What `create` and `run` need beyond a valid config: a process, a root, a
 * mount namespace, both id mappings for a new user namespace, a new pid
 * namespace for run.tinyrun.init. "config.json: .process: ..." errors. */
int oci_config_check_create(const struct oci_config *cfg, struct error *err);
/* mounts[].destination naming a path lexically inside the rootfs (its
 * absolute path, "/tmp/b/rootfs/mnt") is taken relative to the rootfs
 * ("/mnt"), as runc does (pathrs.LexicallyStripRoot). -ENOMEM or 0. */
int oci_mounts_strip_root(struct oci_config *cfg, const char *rootfs);
/* Append N variables (malloc'd by the caller, kept) to P's env: a new
 * malloc'd array that lives until the command exits. -ENOMEM on failure. */
int oci_process_env_append(struct oci_process *p, char **vars, size_t n);

/* Release the arena handed out by oci_process_parse / oci_resources_parse
 * (every string and array of the parsed struct). NULL is a no-op. */
void oci_arena_free(void *arena);

/* Parse a process.json (the `exec --process` file): a bare "process" object. */
int oci_process_parse(const char *name, const char *json, size_t len,
		      struct oci_process *proc, void **arena, struct error *err);

/* Parse a linux.resources object (the `update -r` file). */
int oci_resources_parse(const char *name, const char *json, size_t len,
			struct oci_resources *res, void **arena, struct error *err);
/* Set the number `field` of res ("cpu.shares", "memory.limit": its path
 * below linux.resources) from `text`, a JSON integer (`update`'s flags),
 * with the range config.json allows it: err "<name>: -1 is out of range
 * (0 to ...)", "<name>: invalid value \"x\"". */
int oci_resources_set_number(struct oci_resources *res, const char *field, const char *text, const char *name,
			     struct error *err);

#endif
