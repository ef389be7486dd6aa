/* The spec's name tables. Values are kernel ABI numbers; the few that older
 * headers lack are written as numbers with the constant's name beside. */
#include "tables.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "config.h"

#define N(t) (sizeof(t) / sizeof((t)[0]))

const struct oci_name oci_capabilities[] = {
	{ "CAP_CHOWN", 0 },            { "CAP_DAC_OVERRIDE", 1 },     { "CAP_DAC_READ_SEARCH", 2 },
	{ "CAP_FOWNER", 3 },           { "CAP_FSETID", 4 },           { "CAP_KILL", 5 },
	{ "CAP_SETGID", 6 },           { "CAP_SETUID", 7 },           { "CAP_SETPCAP", 8 },
	{ "CAP_LINUX_IMMUTABLE", 9 },  { "CAP_NET_BIND_SERVICE", 10 },{ "CAP_NET_BROADCAST", 11 },
	{ "CAP_NET_ADMIN", 12 },       { "CAP_NET_RAW", 13 },         { "CAP_IPC_LOCK", 14 },
	{ "CAP_IPC_OWNER", 15 },       { "CAP_SYS_MODULE", 16 },      { "CAP_SYS_RAWIO", 17 },
	{ "CAP_SYS_CHROOT", 18 },      { "CAP_SYS_PTRACE", 19 },      { "CAP_SYS_PACCT", 20 },
	{ "CAP_SYS_ADMIN", 21 },       { "CAP_SYS_BOOT", 22 },        { "CAP_SYS_NICE", 23 },
	{ "CAP_SYS_RESOURCE", 24 },    { "CAP_SYS_TIME", 25 },        { "CAP_SYS_TTY_CONFIG", 26 },
	{ "CAP_MKNOD", 27 },           { "CAP_LEASE", 28 },           { "CAP_AUDIT_WRITE", 29 },
	{ "CAP_AUDIT_CONTROL", 30 },   { "CAP_SETFCAP", 31 },         { "CAP_MAC_OVERRIDE", 32 },
	{ "CAP_MAC_ADMIN", 33 },       { "CAP_SYSLOG", 34 },          { "CAP_WAKE_ALARM", 35 },
	{ "CAP_BLOCK_SUSPEND", 36 },   { "CAP_AUDIT_READ", 37 },      { "CAP_PERFMON", 38 },
	{ "CAP_BPF", 39 },             { "CAP_CHECKPOINT_RESTORE", 40 },
};
const size_t oci_n_capabilities = N(oci_capabilities);

const struct oci_name oci_rlimits[] = {
	{ "RLIMIT_AS", RLIMIT_AS },             { "RLIMIT_CORE", RLIMIT_CORE },
	{ "RLIMIT_CPU", RLIMIT_CPU },           { "RLIMIT_DATA", RLIMIT_DATA },
	{ "RLIMIT_FSIZE", RLIMIT_FSIZE },       { "RLIMIT_LOCKS", RLIMIT_LOCKS },
	{ "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },   { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
	{ "RLIMIT_NICE", RLIMIT_NICE },         { "RLIMIT_NOFILE", RLIMIT_NOFILE },
	{ "RLIMIT_NPROC", RLIMIT_NPROC },       { "RLIMIT_RSS", RLIMIT_RSS },
	{ "RLIMIT_RTPRIO", RLIMIT_RTPRIO },     { "RLIMIT_RTTIME", RLIMIT_RTTIME },
	{ "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING }, { "RLIMIT_STACK", RLIMIT_STACK },
};
const size_t oci_n_rlimits = N(oci_rlimits);

const struct oci_name oci_namespaces[] = {
	{ "cgroup", OCI_NS_CGROUP }, { "ipc", OCI_NS_IPC },   { "mount", OCI_NS_MOUNT },
	{ "network", OCI_NS_NET },   { "pid", OCI_NS_PID },   { "time", OCI_NS_TIME },
	{ "user", OCI_NS_USER },     { "uts", OCI_NS_UTS },
};
const size_t oci_n_namespaces = N(oci_namespaces);

/* Canonical names first (oci_name_of finds them), then aliases. */
const struct oci_name oci_signals[] = {
	{ "SIGHUP", SIGHUP },     { "SIGINT", SIGINT },       { "SIGQUIT", SIGQUIT },
	{ "SIGILL", SIGILL },     { "SIGTRAP", SIGTRAP },     { "SIGABRT", SIGABRT },
	{ "SIGBUS", SIGBUS },     { "SIGFPE", SIGFPE },       { "SIGKILL", SIGKILL },
	{ "SIGUSR1", SIGUSR1 },   { "SIGSEGV", SIGSEGV },     { "SIGUSR2", SIGUSR2 },
	{ "SIGPIPE", SIGPIPE },   { "SIGALRM", SIGALRM },     { "SIGTERM", SIGTERM },
	{ "SIGSTKFLT", SIGSTKFLT }, { "SIGCHLD", SIGCHLD },   { "SIGCONT", SIGCONT },
	{ "SIGSTOP", SIGSTOP },   { "SIGTSTP", SIGTSTP },     { "SIGTTIN", SIGTTIN },
	{ "SIGTTOU", SIGTTOU },   { "SIGURG", SIGURG },       { "SIGXCPU", SIGXCPU },
	{ "SIGXFSZ", SIGXFSZ },   { "SIGVTALRM", SIGVTALRM }, { "SIGPROF", SIGPROF },
	{ "SIGWINCH", SIGWINCH }, { "SIGIO", SIGIO },         { "SIGPWR", SIGPWR },
	{ "SIGSYS", SIGSYS },
	{ "SIGIOT", SIGIOT },     { "SIGPOLL", SIGPOLL },     { "SIGCLD", SIGCHLD },
};
const size_t oci_n_signals = N(oci_signals);

const struct oci_name oci_hook_names[] = {
	{ "prestart", OCI_HOOK_PRESTART },
	{ "createRuntime", OCI_HOOK_CREATE_RUNTIME },
	{ "createContainer", OCI_HOOK_CREATE_CONTAINER },
	{ "startContainer", OCI_HOOK_START_CONTAINER },
	{ "poststart", OCI_HOOK_POSTSTART },
	{ "poststop", OCI_HOOK_POSTSTOP },
};
const size_t oci_n_hook_names = N(oci_hook_names);

const struct oci_name oci_seccomp_actions[] = {
	{ "SCMP_ACT_ALLOW", OCI_SECCOMP_ALLOW },
	{ "SCMP_ACT_ERRNO", OCI_SECCOMP_ERRNO },
	{ "SCMP_ACT_KILL", OCI_SECCOMP_KILL },
	{ "SCMP_ACT_KILL_PROCESS", OCI_SECCOMP_KILL_PROCESS },
	{ "SCMP_ACT_KILL_THREAD", OCI_SECCOMP_KILL_THREAD },
	{ "SCMP_ACT_LOG", OCI_SECCOMP_LOG },
	{ "SCMP_ACT_NOTIFY", OCI_SECCOMP_NOTIFY },
	{ "SCMP_ACT_TRACE", OCI_SECCOMP_TRACE },
	{ "SCMP_ACT_TRAP", OCI_SECCOMP_TRAP },
};
const size_t oci_n_seccomp_actions = N(oci_seccomp_actions);

const struct oci_name oci_seccomp_operators[] = {
	{ "SCMP_CMP_EQ", OCI_SECCOMP_OP_EQ }, { "SCMP_CMP_GE", OCI_SECCOMP_OP_GE },
	{ "SCMP_CMP_GT", OCI_SECCOMP_OP_GT }, { "SCMP_CMP_LE", OCI_SECCOMP_OP_LE },
	{ "SCMP_CMP_LT", OCI_SECCOMP_OP_LT }, { "SCMP_CMP_MASKED_EQ", OCI_SECCOMP_OP_MASKED_EQ },
	{ "SCMP_CMP_NE", OCI_SECCOMP_OP_NE },
};
const size_t oci_n_seccomp_operators = N(oci_seccomp_operators);

const struct oci_name oci_seccomp_archs[] = {
	{ "SCMP_ARCH_AARCH64", 0 },     { "SCMP_ARCH_ARM", 1 },         { "SCMP_ARCH_LOONGARCH64", 2 },
	{ "SCMP_ARCH_M68K", 3 },        { "SCMP_ARCH_MIPS", 4 },        { "SCMP_ARCH_MIPS64", 5 },
	{ "SCMP_ARCH_MIPS64N32", 6 },   { "SCMP_ARCH_MIPSEL", 7 },      { "SCMP_ARCH_MIPSEL64", 8 },
	{ "SCMP_ARCH_MIPSEL64N32", 9 }, { "SCMP_ARCH_PARISC", 10 },     { "SCMP_ARCH_PARISC64", 11 },
	{ "SCMP_ARCH_PPC", 12 },        { "SCMP_ARCH_PPC64", 13 },      { "SCMP_ARCH_PPC64LE", 14 },
	{ "SCMP_ARCH_RISCV64", 15 },    { "SCMP_ARCH_S390", 16 },       { "SCMP_ARCH_S390X", 17 },
	{ "SCMP_ARCH_SH", 18 },         { "SCMP_ARCH_SHEB", 19 },       { "SCMP_ARCH_X32", 20 },
	{ "SCMP_ARCH_X86", 21 },        { "SCMP_ARCH_X86_64", 22 },
};
const size_t oci_n_seccomp_archs = N(oci_seccomp_archs);

const struct oci_name oci_seccomp_flags[] = {
	{ "SECCOMP_FILTER_FLAG_LOG", 2 },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", 4 },
	{ "SECCOMP_FILTER_FLAG_TSYNC", 1 },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", 32 },
};
const size_t oci_n_seccomp_flags = N(oci_seccomp_flags);

const struct oci_name oci_sched_policies[] = {
	{ "SCHED_OTHER", 0 }, { "SCHED_FIFO", 1 }, { "SCHED_RR", 2 }, { "SCHED_BATCH", 3 },
	{ "SCHED_ISO", 4 },   { "SCHED_IDLE", 5 }, { "SCHED_DEADLINE", 6 },
};
const size_t oci_n_sched_policies = N(oci_sched_policies);

const struct oci_name oci_sched_flags[] = {
	{ "SCHED_FLAG_RESET_ON_FORK", 0x01 },  { "SCHED_FLAG_RECLAIM", 0x02 },
	{ "SCHED_FLAG_DL_OVERRUN", 0x04 },     { "SCHED_FLAG_KEEP_POLICY", 0x08 },
	{ "SCHED_FLAG_KEEP_PARAMS", 0x10 },    { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
	{ "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 },
};
const size_t oci_n_sched_flags = N(oci_sched_flags);

const struct oci_name oci_ioprio_classes[] = {
	{ "IOPRIO_CLASS_RT", 1 }, { "IOPRIO_CLASS_BE", 2 }, { "IOPRIO_CLASS_IDLE", 3 },
};
const size_t oci_n_ioprio_classes = N(oci_ioprio_classes);

const struct oci_name oci_mempolicy_modes[] = {
	{ "MPOL_DEFAULT", 0 },        { "MPOL_PREFERRED", 1 },       { "MPOL_BIND", 2 },
	{ "MPOL_INTERLEAVE", 3 },     { "MPOL_LOCAL", 4 },           { "MPOL_PREFERRED_MANY", 5 },
	{ "MPOL_WEIGHTED_INTERLEAVE", 6 },
};
const size_t oci_n_mempolicy_modes = N(oci_mempolicy_modes);

const struct oci_name oci_mempolicy_flags[] = {
	{ "MPOL_F_NUMA_BALANCING", 1 << 13 },
	{ "MPOL_F_RELATIVE_NODES", 1 << 14 },
	{ "MPOL_F_STATIC_NODES", 1 << 15 },
};
const size_t oci_n_mempolicy_flags = N(oci_mempolicy_flags);

const struct oci_name oci_personality_domains[] = {
	{ "LINUX", 0x0000 /* PER_LINUX */ }, { "LINUX32", 0x0008 /* PER_LINUX32 */ },
};
const size_t oci_n_personality_domains = N(oci_personality_domains);

const struct oci_name oci_rootfs_propagations[] = {
	{ "private", OCI_ROOTFS_PROP_PRIVATE },       { "rprivate", OCI_ROOTFS_PROP_RPRIVATE },
	{ "shared", OCI_ROOTFS_PROP_SHARED },         { "rshared", OCI_ROOTFS_PROP_RSHARED },
	{ "slave", OCI_ROOTFS_PROP_SLAVE },           { "rslave", OCI_ROOTFS_PROP_RSLAVE },
	{ "unbindable", OCI_ROOTFS_PROP_UNBINDABLE }, { "runbindable", OCI_ROOTFS_PROP_RUNBINDABLE },
};
const size_t oci_n_rootfs_propagations = N(oci_rootfs_propagations);

/* ---- mount options ------------------------------------------------------ */

/* Sorted by strcmp (oci_mount_option_find bisects; a unit test checks). */
#define MOUNT_OPTIONS(X) \
	X("async",          OCI_MOPT_CLEAR,       MS_SYNCHRONOUS) \
	X("atime",          OCI_MOPT_CLEAR,       MS_NOATIME) \
	X("bind",           OCI_MOPT_BIND,        MS_BIND) \
	X("defaults",       OCI_MOPT_NOTHING,     0) \
	X("dev",            OCI_MOPT_CLEAR,       MS_NODEV) \
	X("diratime",       OCI_MOPT_CLEAR,       MS_NODIRATIME) \
	X("dirsync",        OCI_MOPT_SET,         MS_DIRSYNC) \
	X("exec",           OCI_MOPT_CLEAR,       MS_NOEXEC) \
	X("idmap",          OCI_MOPT_IDMAP,       0) \
	X("iversion",       OCI_MOPT_SET,         MS_I_VERSION) \
	X("lazytime",       OCI_MOPT_SET,         MS_LAZYTIME) \
	X("loud",           OCI_MOPT_CLEAR,       MS_SILENT) \
	X("mand",           OCI_MOPT_SET,         MS_MANDLOCK) \
	X("noatime",        OCI_MOPT_SET,         MS_NOATIME) \
	X("nodev",          OCI_MOPT_SET,         MS_NODEV) \
	X("nodiratime",     OCI_MOPT_SET,         MS_NODIRATIME) \
	X("noexec",         OCI_MOPT_SET,         MS_NOEXEC) \
	X("noiversion",     OCI_MOPT_CLEAR,       MS_I_VERSION) \
	X("nolazytime",     OCI_MOPT_CLEAR,       MS_LAZYTIME) \
	X("nomand",         OCI_MOPT_CLEAR,       MS_MANDLOCK) \
	X("norelatime",     OCI_MOPT_CLEAR,       MS_RELATIME) \
	X("nostrictatime",  OCI_MOPT_CLEAR,       MS_STRICTATIME) \
	X("nosuid",         OCI_MOPT_SET,         MS_NOSUID) \
	X("nosymfollow",    OCI_MOPT_SET,         MS_NOSYMFOLLOW) \
	X("private",        OCI_MOPT_PROPAGATION, OCI_PROP_PRIVATE) \
	X("ratime",         OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NOATIME) \
	X("rbind",          OCI_MOPT_BIND,        MS_BIND | MS_REC) \
	X("rdev",           OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NODEV) \
	X("rdiratime",      OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NODIRATIME) \
	X("relatime",       OCI_MOPT_SET,         MS_RELATIME) \
	X("remount",        OCI_MOPT_SET,         MS_REMOUNT) \
	X("rexec",          OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NOEXEC) \
	X("ridmap",         OCI_MOPT_RIDMAP,      0) \
	X("rnoatime",       OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NOATIME) \
	X("rnodev",         OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NODEV) \
	X("rnodiratime",    OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NODIRATIME) \
	X("rnoexec",        OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NOEXEC) \
	X("rnorelatime",    OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_RELATIME) \
	X("rnostrictatime", OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_STRICTATIME) \
	X("rnosuid",        OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NOSUID) \
	X("rnosymfollow",   OCI_MOPT_ATTR_SET,    MOUNT_ATTR_NOSYMFOLLOW) \
	X("ro",             OCI_MOPT_SET,         MS_RDONLY) \
	X("rprivate",       OCI_MOPT_PROPAGATION, OCI_PROP_RPRIVATE) \
	X("rrelatime",      OCI_MOPT_ATTR_SET,    MOUNT_ATTR_RELATIME) \
	X("rro",            OCI_MOPT_ATTR_SET,    MOUNT_ATTR_RDONLY) \
	X("rrw",            OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_RDONLY) \
	X("rshared",        OCI_MOPT_PROPAGATION, OCI_PROP_RSHARED) \
	X("rslave",         OCI_MOPT_PROPAGATION, OCI_PROP_RSLAVE) \
	X("rstrictatime",   OCI_MOPT_ATTR_SET,    MOUNT_ATTR_STRICTATIME) \
	X("rsuid",          OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NOSUID) \
	X("rsymfollow",     OCI_MOPT_ATTR_CLEAR,  MOUNT_ATTR_NOSYMFOLLOW) \
	X("runbindable",    OCI_MOPT_PROPAGATION, OCI_PROP_RUNBINDABLE) \
	X("rw",             OCI_MOPT_CLEAR,       MS_RDONLY) \
	X("shared",         OCI_MOPT_PROPAGATION, OCI_PROP_SHARED) \
	X("silent",         OCI_MOPT_SET,         MS_SILENT) \
	X("slave",          OCI_MOPT_PROPAGATION, OCI_PROP_SLAVE) \
	X("strictatime",    OCI_MOPT_SET,         MS_STRICTATIME) \
	X("suid",           OCI_MOPT_CLEAR,       MS_NOSUID) \
	X("symfollow",      OCI_MOPT_CLEAR,       MS_NOSYMFOLLOW) \
	X("sync",           OCI_MOPT_SET,         MS_SYNCHRONOUS) \
	X("tmpcopyup",      OCI_MOPT_TMPCOPYUP,   0) \
	X("unbindable",     OCI_MOPT_PROPAGATION, OCI_PROP_UNBINDABLE)

#define AS_NAME(name, kind, value) name,
#define AS_ENTRY(name, kind, value) { name, kind, value },

const char *const oci_mount_options[] = { MOUNT_OPTIONS(AS_NAME) };
const size_t oci_n_mount_options = N(oci_mount_options);
const struct oci_mount_option oci_mount_option_table[] = { MOUNT_OPTIONS(AS_ENTRY) };

static int mopt_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct oci_mount_option *)elem)->name);
}

const struct oci_mount_option *oci_mount_option_find(const char *name)
{
	return bsearch(name, oci_mount_option_table, N(oci_mount_option_table),
		       sizeof(oci_mount_option_table[0]), mopt_cmp);
}

/* ---- lookups ------------------------------------------------------------ */

int oci_name_lookup(const struct oci_name *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].value;
	return -1;
}

const char *oci_name_of(const struct oci_name *t, size_t n, int value)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == value)
			return t[i].name;
	return NULL;
}

/* "RTMIN", "RTMIN+3", "RTMAX-2" (already without "SIG"), or -1. */
static int rt_signal(const char *s)
{
	int base, sign = 0;
	char *end;
	long off = 0;

	if (strncmp(s, "RTMIN", 5) == 0)
		base = SIGRTMIN, sign = 1;
	else if (strncmp(s, "RTMAX", 5) == 0)
		base = SIGRTMAX, sign = -1;
	else
		return -1;
	s += 5;
	if (*s) {
		if ((sign > 0 && *s != '+') || (sign < 0 && *s != '-') || !isdigit((unsigned char)s[1]))
			return -1;
		errno = 0;
		off = strtol(s + 1, &end, 10);
		if (errno || *end)
			return -1;
	}
	if (off > SIGRTMAX - SIGRTMIN)
		return -1;
	return base + sign * (int)off;
}

/* Like runc: a number, or a name in any case with or without "SIG". */
int oci_signal_parse(const char *s)
{
	char up[32], name[36];
	size_t i;
	int sig;

	if (isdigit((unsigned char)*s)) {
		char *end;
		long n;

		errno = 0;
		n = strtol(s, &end, 10);
		return errno || *end || n > SIGRTMAX ? -1 : (int)n;
	}
	for (i = 0; s[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)s[i]);
	if (s[i])
		return -1;
	up[i] = '\0';
	strcpy(name, strncmp(up, "SIG", 3) == 0 ? "" : "SIG");
	strcat(name, up);
	sig = oci_name_lookup(oci_signals, oci_n_signals, name);
	return sig >= 0 ? sig : rt_signal(name + 3);
}
