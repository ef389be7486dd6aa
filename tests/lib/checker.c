/* checker [-o FILE] [KEY...]: print what this process sees, one key=value
 * line each, for bats assertions. Built static so it runs in any rootfs.
 * Run it as process.args[0] itself: any exec in between (sh -c) recomputes
 * the capability sets.
 *
 * Keys: pid ppid uid euid suid gid egid sgid groups umask cwd hostname
 * domainname CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp
 * oom_score_adj fds rlimit.<NAME> (e.g. rlimit.NOFILE=1024:2048).
 * Capability sets print as sorted names (CAP_KILL,CAP_CHOWN...), empty when
 * none; groups and fds as comma-separated numbers. With KEY arguments only
 * those keys (or key prefixes ending in '.') are printed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

static const struct { const char *name; int res; } rlimits[] = {
	{ "CPU", RLIMIT_CPU }, { "FSIZE", RLIMIT_FSIZE }, { "DATA", RLIMIT_DATA },
	{ "STACK", RLIMIT_STACK }, { "CORE", RLIMIT_CORE }, { "RSS", RLIMIT_RSS },
	{ "NPROC", RLIMIT_NPROC }, { "NOFILE", RLIMIT_NOFILE },
	{ "MEMLOCK", RLIMIT_MEMLOCK }, { "AS", RLIMIT_AS }, { "LOCKS", RLIMIT_LOCKS },
	{ "SIGPENDING", RLIMIT_SIGPENDING }, { "MSGQUEUE", RLIMIT_MSGQUEUE },
	{ "NICE", RLIMIT_NICE }, { "RTPRIO", RLIMIT_RTPRIO }, { "RTTIME", RLIMIT_RTTIME },
};

static int nkeys;
static char **keys;
static FILE *out;

static int wanted(const char *key)
{
	if (nkeys == 0)
		return 1;
	for (int i = 0; i < nkeys; i++) {
		size_t n = strlen(keys[i]);

		if (strcmp(keys[i], key) == 0)
			return 1;
		if (n && keys[i][n - 1] == '.' && strncmp(keys[i], key, n) == 0)
			return 1;
	}
	return 0;
}

static void put(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(const char *key, const char *fmt, ...)
{
	va_list ap;

	if (!wanted(key))
		return;
	fprintf(out, "%s=", key);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void put_caps(const char *key, uint64_t mask)
{
	char buf[2048] = "";
	size_t len = 0;

	for (unsigned i = 0; i < 64; i++) {
		char num[16];
		const char *name;

		if (!(mask & (1ULL << i)))
			continue;
		if (i < sizeof(cap_names) / sizeof(cap_names[0])) {
			name = cap_names[i];
		} else {
			snprintf(num, sizeof(num), "CAP_%u", i);
			name = num;
		}
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "", name);
	}
	put(key, "%s", buf);
}

/* Lines of /proc/self/status this program reports. */
static void status_fields(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[512];

	if (!f) {
		put("status_error", "%s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *val;

		if (!colon)
			continue;
		*colon = 0;
		val = colon + 1;
		val += strspn(val, " \t");
		val[strcspn(val, "\n")] = 0;
		if (strncmp(line, "Cap", 3) == 0)
			put_caps(line, strtoull(val, NULL, 16));
		else if (!strcmp(line, "NoNewPrivs") || !strcmp(line, "Seccomp") ||
			 !strcmp(line, "Umask"))
			put(strcmp(line, "Umask") ? line : "umask", "%s", val);
	}
	fclose(f);
}

static void ids(void)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[256];
	char buf[4096] = "";
	size_t len = 0;
	int n;

	getresuid(&ru, &eu, &su);
	getresgid(&rg, &eg, &sg);
	put("uid", "%u", ru);
	put("euid", "%u", eu);
	put("suid", "%u", su);
	put("gid", "%u", rg);
	put("egid", "%u", eg);
	put("sgid", "%u", sg);
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "," : "", groups[i]);
	put("groups", "%s", buf);
}

static void limits(void)
{
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++) {
		struct rlimit rl;
		char key[32], soft[32], hard[32];

		if (getrlimit(rlimits[i].res, &rl) < 0)
			continue;
		snprintf(key, sizeof(key), "rlimit.%s", rlimits[i].name);
		if (rl.rlim_cur == RLIM_INFINITY)
			strcpy(soft, "unlimited");
		else
			snprintf(soft, sizeof(soft), "%" PRIu64, (uint64_t)rl.rlim_cur);
		if (rl.rlim_max == RLIM_INFINITY)
			strcpy(hard, "unlimited");
		else
			snprintf(hard, sizeof(hard), "%" PRIu64, (uint64_t)rl.rlim_max);
		put(key, "%s:%s", soft, hard);
	}
}

/* Open fds, not counting the directory stream used to list them nor the
 * output file of -o. */
static void fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	char buf[4096] = "";
	size_t len = 0;
	int nums[1024], n = 0;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && n < 1024) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d) || (out != stdout && fd == fileno(out)))
			continue;
		nums[n++] = fd;
	}
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
			int t = nums[j];
			nums[j] = nums[j - 1];
			nums[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? "," : "", nums[i]);
	put("fds", "%s", buf);
}

static void misc(void)
{
	char buf[4096];
	struct utsname u;
	FILE *f;

	put("pid", "%d", getpid());
	put("ppid", "%d", getppid());
	if (getcwd(buf, sizeof(buf)))
		put("cwd", "%s", buf);
	if (uname(&u) == 0) {
		put("hostname", "%s", u.nodename);
		put("domainname", "%s", u.domainname);
	}
	f = fopen("/proc/self/oom_score_adj", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			put("oom_score_adj", "%s", buf);
		}
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	int i = 1;

	out = stdout;
	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = fopen(argv[2], "we");
		if (!out) {
			fprintf(stderr, "checker: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		i = 3;
	}
	keys = argv + i;
	nkeys = argc - i;
	fds(); /* first: before stdio opens anything of its own */
	misc();
	ids();
	status_fields();
	limits();
	return fclose(out) == 0 ? 0 : 1;
}
