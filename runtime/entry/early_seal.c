/* The program's entry point: the sealed re-exec of create, run and exec
 * (runtime/container/selfseal.h), done before libc starts when it is sure to
 * be wanted. Every create, run and exec as root of a config without a user
 * namespace re-executes from a sealed view of the binary; done from main,
 * that first process paid libc's whole start-up (the static PIE's
 * relocations and glibc's CPU and cache probes, whose cpuid instructions
 * trap to the hypervisor in a VM: 0.4-0.8 ms here) only to exec again.
 *
 * Here it is raw syscalls on the initial stack, before the static PIE is
 * relocated: only PC-relative references (the Makefile checks the object for
 * any other relocation), no global data, no libc, no errno, no TLS. It may only
 * ever add a sealed re-exec, never skip one: whenever it is unsure (another
 * command, a user, a config it cannot read, a "user" value in it, any failed
 * step) it returns and glibc's _start runs as usual; main's selfseal then
 * decides on the parsed config as before, and a process this entry started
 * carries the same mark a re-exec from main does (_TINYRUN_SEALED), which
 * selfseal_init takes and selfseal_guard checks against /proc/self/exe. */
#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/stat.h>
#include <stdbool.h>
#include <stddef.h>

#include "runtime/container/selfseal_scan.h"
#include "runtime/init/rawsys.h"

#if defined(__x86_64__)
/* glibc's _start wants the kernel's stack and rdx (rtld_fini) = 0 */
__asm__(".text\n.global tinyrun_entry\n.type tinyrun_entry,@function\ntinyrun_entry:\n"
	"xor %ebp,%ebp\nmov %rsp,%r12\nmov %rsp,%rdi\nand $-16,%rsp\ncall tinyrun_early\n"
	"mov %r12,%rsp\nxor %edx,%edx\njmp _start\n");
#elif defined(__aarch64__)
/* glibc's _start wants the kernel's sp and x0 (rtld_fini) = 0 */
__asm__(".text\n.global tinyrun_entry\n.type tinyrun_entry,%function\ntinyrun_entry:\n"
	"mov x29,#0\nmov x30,#0\nmov x19,sp\nmov x0,sp\nbl tinyrun_early\n"
	"mov sp,x19\nmov x0,#0\nb _start\n");
#else
#error "runtime/entry/early_seal.c: x86_64 and aarch64 only (build with EARLY_SEAL=0)"
#endif

#define CONFIG_MAX (64L << 20)

static bool eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* A past PREFIX, or NULL. */
static const char *skip(const char *a, const char *prefix)
{
	while (*prefix)
		if (*a++ != *prefix++)
			return NULL;
	return a;
}

static bool has(const char *s, char c)
{
	for (; *s; s++)
		if (*s == c)
			return true;
	return false;
}

struct buf {
	char s[4096];
	size_t n;
	bool full;
};

/* (no initializer: a 4 KiB one would be a memset call, and libc's memset
 * is not set up yet) */
static void buf_init(struct buf *b)
{
	b->s[0] = 0;
	b->n = 0;
	b->full = false;
}

static void put(struct buf *b, const char *s)
{
	while (*s && b->n < sizeof(b->s) - 1)
		b->s[b->n++] = *s++;
	b->full |= *s != 0;
	b->s[b->n] = 0;
}

static void put_int(struct buf *b, long v)
{
	char d[24];
	int i = sizeof(d) - 1;

	d[i] = 0;
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	put(b, d + i);
}

/* Is A one of NAMES, a list of NUL-terminated words ending with an empty
 * one? (A char array, not an array of pointers: nothing to relocate.) */
static bool one_of(const char *a, const char *names)
{
	for (const char *w = names; *w;) {
		if (eq(a, w))
			return true;
		while (*w++)
			;
	}
	return false;
}

/* The text of FILE has no "user" value (and could be read whole). A text
 * of less than 16 KiB (a usual config) is read onto the stack, one read()
 * where a mapping took an mmap and an munmap; one that grew since the statx
 * is not read whole (no: main goes on). A larger one is mapped. */
static bool no_userns_in(const char *file)
{
	struct statx st;
	char small[16384];
	sl fd = sys6(__NR_openat, AT_FDCWD, (sl)file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0), m;
	bool ok = false;

	if (fd < 0)
		return false;
	if (sys5(__NR_statx, fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &st) == 0 &&
	    (st.stx_mode & S_IFMT) == S_IFREG && st.stx_size > 0 && (sl)st.stx_size <= CONFIG_MAX) {
		if (st.stx_size < sizeof(small)) {
			ok = sys3(__NR_read, fd, (sl)small, (sl)st.stx_size + 1) == (sl)st.stx_size &&
			     !selfseal_text_may_declare_userns(small, (size_t)st.stx_size);
		} else {
			m = sys6(__NR_mmap, 0, (sl)st.stx_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if ((unsigned long)m < -4095UL) {
				ok = !selfseal_text_may_declare_userns((const char *)m, (size_t)st.stx_size);
				sys3(__NR_munmap, m, st.stx_size, 0);
			}
		}
	}
	sys3(__NR_close, fd, 0, 0);
	return ok;
}

/* Every fd here is O_CLOEXEC: the execve closes them; only a failure closes them itself. */
static void close_all(sl *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			sys3(__NR_close, fds[i], 0, 0);
}

/* The detached read-only overlay over the binary's directory (and /dev below
 * it) that main's selfseal makes first; an O_PATH fd of the binary in it.
 * PASS gets SELFSEAL_EXE=<the binary's path>: the sealed copy cannot learn
 * it from /proc/self/exe (runtime/container/selfexe.h). */
static sl overlay_view(struct buf *pass, sl open_fds[4])
{
	struct buf exe, low;
	sl n, dir, bottom, fs = -1, mnt = -1, fd = -1;
	char *name;

	buf_init(&exe);
	buf_init(&low);
	n = sys6(__NR_readlinkat, AT_FDCWD, (sl)"/proc/self/exe", (sl)exe.s, sizeof(exe.s) - 1, 0, 0);
	if (n <= 0 || exe.s[0] != '/' || n >= (sl)sizeof(exe.s) - 1)
		return -1;
	exe.s[n] = 0;
	put(pass, SELFSEAL_EXE "=");
	put(pass, exe.s);
	if (pass->full)
		return -1;
	for (name = exe.s + n; name[-1] != '/'; name--)
		;
	name[-1] = 0;   /* exe.s: the directory ("" for /), name: the file */
	dir = sys3(__NR_openat, AT_FDCWD, exe.s[0] ? exe.s : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	bottom = sys3(__NR_openat, AT_FDCWD, "/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0 && bottom >= 0 && (fs = sys3(__NR_fsopen, "overlay", FSOPEN_CLOEXEC, 0)) >= 0) {
		put(&low, "/proc/self/fd/");
		put_int(&low, dir);
		put(&low, ":/proc/self/fd/");
		put_int(&low, bottom);
		if (sys5(__NR_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", low.s, 0) == 0 &&
		    sys5(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0) == 0)
			mnt = sys3(__NR_fsmount, fs, FSMOUNT_CLOEXEC,
				   MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID);
		if (mnt >= 0)
			fd = sys3(__NR_openat, mnt, name, O_PATH | O_CLOEXEC);
	}
	open_fds[0] = dir, open_fds[1] = bottom, open_fds[2] = fs, open_fds[3] = mnt;
	if (fd < 0)
		close_all(open_fds, 4);
	return fd;
}

/* The options that take their value as the next word (--opt=VALUE is one). */
static const char global_vals[] = "--root\0--log\0--log-format\0--cgroup-manager\0";
static const char create_vals[] = "--bundle\0-b\0--config\0--pid-file\0--console-socket\0"
				  "--pidfd-socket\0--preserve-fds\0--id\0--app\0--result\0";
static const char exec_vals[] = "--process\0-p\0--console-socket\0--env\0-e\0--cwd\0--user\0-u\0"
				"--additional-gids\0-g\0--cap\0-c\0--process-label\0--apparmor\0"
				"--pid-file\0--pidfd-socket\0--preserve-fds\0--cgroup\0";

static bool dir_like(const char *a)
{
	return has(a, '/') || eq(a, ".") || eq(a, "..");
}

/* exec ... ID: the saved config under --root (options go before ID). */
static bool exec_config(int i, int argc, char **argv, const char *root, struct buf *cfg)
{
	for (; i < argc && argv[i][0] == '-'; i++)
		if (eq(argv[i], "--"))
			return false;
		else if (one_of(argv[i], exec_vals))
			i++;
	if (i >= argc || dir_like(argv[i]))
		return false;
	put(cfg, root);
	put(cfg, "/");
	put(cfg, argv[i]);
	put(cfg, "/config.json");
	return !cfg->full;
}

/* create/run: --bundle (or run's lone bundle path, cmd_run.c) and --config. */
static bool bundle_config(int i, int argc, char **argv, struct buf *cfg)
{
	const char *bundle = NULL, *config = "config.json", *pos = NULL, *v;

	for (; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			pos = pos ? pos : a;
			continue;
		}
		if (skip(a, "--tinyaws") || eq(a, "--"))
			return false;
		if ((v = skip(a, "--bundle=")))
			bundle = v;
		else if ((v = skip(a, "--config=")))
			config = v;
		else if (!one_of(a, create_vals))
			continue;
		else if (!next)
			return false;
		else if (eq(a, "--bundle") || eq(a, "-b"))
			bundle = next, i++;
		else if (eq(a, "--config"))
			config = next, i++;
		else
			i++;
	}
	if (!bundle && pos && dir_like(pos))
		bundle = pos;
	if (config[0] != '/') {
		put(cfg, bundle ? bundle : ".");
		put(cfg, "/");
	}
	put(cfg, config);
	return !cfg->full;
}

/* Which config decides: the bundle's for create and run, the saved one for
 * exec; false for any other command, or when unsure. */
static bool config_of(int argc, char **argv, struct buf *cfg)
{
	const char *root = "/run/tinyrun", *v;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if ((v = skip(argv[i], "--root=")))
			root = v;
		else if (eq(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (one_of(argv[i], global_vals))
			i++;
	}
	if (i >= argc)
		return false;
	if (eq(argv[i], "exec"))
		return exec_config(i + 1, argc, argv, root, cfg);
	if (eq(argv[i], "create") || eq(argv[i], "run"))
		return bundle_config(i + 1, argc, argv, cfg);
	return false;
}

void tinyrun_early(long *sp);

void tinyrun_early(long *sp)
{
	int argc = (int)sp[0], n = 0;
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
	struct buf cfg, pass;
	sl fd, open_fds[4];

	buf_init(&cfg);
	buf_init(&pass);
	for (char **e = envp; *e; e++, n++)
		if (skip(*e, SELFSEAL_MARK "="))
			return;
	if (!config_of(argc, argv, &cfg) || sys6(__NR_geteuid, 0, 0, 0, 0, 0, 0) != 0 || !no_userns_in(cfg.s))
		return;
	if ((fd = overlay_view(&pass, open_fds)) < 0)
		return;
	char *env[n + 3];
	int k = 0;

	for (char **e = envp; *e; e++)
		if (!skip(*e, SELFSEAL_EXE "="))   /* only ours: the first one is taken */
			env[k++] = *e;
	env[k++] = SELFSEAL_MARK "=1";
	env[k++] = pass.s;
	env[k] = NULL;
	sys5(__NR_execveat, fd, "", argv, env, AT_EMPTY_PATH);
	sys3(__NR_close, fd, 0, 0);
	close_all(open_fds, 4);
}
