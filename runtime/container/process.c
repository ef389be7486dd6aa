#include "runtime/container/process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/log.h"
#include "runtime/linux/procfs.h"
#include "runtime/container/selfseal.h"
#include "oci/passwd.h"
#include "oci/shebang.h"
#include "oci/tables.h"
#include "oci/util.h"

int process_apply_limits(const struct oci_process *p, struct error *err)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl = { .rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard };

		if (setrlimit(p->rlimits[i].resource, &rl) < 0)
			return error_sys(err, errno, "process.rlimits[%zu] %s (soft %llu, hard %llu)", i,
					 oci_name_of(oci_rlimits, oci_n_rlimits, p->rlimits[i].resource),
					 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	}
	return 0;
}

void process_raise_hard_limits(const struct oci_process *p)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl;

		if (getrlimit(p->rlimits[i].resource, &rl) == 0 && p->rlimits[i].hard > rl.rlim_max) {
			rl.rlim_max = p->rlimits[i].hard;
			setrlimit(p->rlimits[i].resource, &rl);
		}
	}
}

int process_cap_last_cap(void)
{
	static int last = -1;

	if (last >= 0)
		return last;
	/* the kernel itself: PR_CAPBSET_READ of a capability it does not know
	 * is EINVAL; no file (an image's fake /proc/sys/kernel/cap_last_cap)
	 * is read, and nothing but the bounding set is asked */
	last = CAP_LAST_CAP;
	while (last < 63 && prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) >= 0)
		last++;
	while (last > 0 && prctl(PR_CAPBSET_READ, last, 0, 0, 0) < 0)
		last--;
	return last;
}

int process_close_fds(int first, const int *keep, size_t n, struct error *err)
{
	int sorted[9], k = 0, from = first;

	if (n > sizeof(sorted) / sizeof(sorted[0]))
		return error_set(err, E2BIG, "internal: too many fds to keep");
	for (size_t i = 0; i < n; i++) {
		int j = k;

		if (keep[i] < first)
			continue;
		while (j > 0 && sorted[j - 1] > keep[i]) {
			sorted[j] = sorted[j - 1];
			j--;
		}
		sorted[j] = keep[i];
		k++;
	}
	for (int i = 0; i <= k; i++) {
		unsigned int to = i < k ? (unsigned int)sorted[i] - 1 : ~0U;

		if (i < k && sorted[i] < from) /* a duplicate */
			continue;
		if ((i == k || sorted[i] > from) && syscall(SYS_close_range, from, to, 0) < 0)
			return error_sys(err, errno, "close the runtime's fds");
		if (i < k)
			from = sorted[i] + 1;
	}
	return 0;
}

int process_drop_bounding(const struct oci_process *p, struct error *err)
{
	int last = process_cap_last_cap();

	/* as runc: a set that is not given is empty */
	for (int cap = 0; cap <= last; cap++) {
		if (p->caps.bounding & (1ULL << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return error_sys(err, errno, "drop capability %d from the bounding set", cap);
	}
	return 0;
}

static int set_groups(const struct oci_process *p, enum setgroups_mode mode, struct error *err)
{
	gid_t groups[1024];
	size_t n = p->n_additional_gids;

	if (mode == SETGROUPS_KEEP) {
		if (n)
			log_warn("process.user.additionalGids ignored: run.oci.keep_original_groups keeps the caller's groups");
		return 0;
	}
	if (mode == SETGROUPS_DENIED) {
		if (n)
			return error_set(err, EPERM, "process.user.additionalGids: not allowed when setgroups is denied in the user namespace");
		return 0;
	}
	if (n > sizeof(groups) / sizeof(groups[0]))
		return error_set(err, E2BIG, "process.user.additionalGids: too many groups");
	for (size_t i = 0; i < n; i++)
		groups[i] = p->additional_gids[i];
	if (setgroups(n, groups) == 0)
		return 0;
	/* root of a user namespace that denies setgroups (unshare
	 * --map-root-user): the caller's groups stay, as runc does there,
	 * unless the config asks for some. errno first: the read below may
	 * change it. */
	int e = errno;
	bool denied = e == EPERM && procfs_setgroups_denied();

	if (denied && !n)
		return 0;
	return error_sys(err, e, denied ? "process.user.additionalGids: setgroups denied in the user namespace" : "setgroups");
}

/* HELD: the caller's (a local: the child writes no page of the runtime's
 * data for it, each one a copy-on-write fault); a permitted set of all when
 * capget fails */
static void held_caps(struct process_caps *held)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cur[2] = { 0 };

	if (syscall(SYS_capget, &hdr, cur) < 0) {
		held->permitted = ~0ULL;
		held->inheritable = 0;
		return;
	}
	held->permitted = cur[0].permitted | (uint64_t)cur[1].permitted << 32;
	held->inheritable = cur[0].inheritable | (uint64_t)cur[1].inheritable << 32;
}

static int set_caps(const struct oci_process *p, const struct process_caps *cur, struct error *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	const struct oci_caps *c = &p->caps;
	int last = process_cap_last_cap();
	uint64_t known = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
	uint64_t e = c->effective & known, pm = c->permitted & known, in = c->inheritable & known;
	uint64_t held = cur->permitted;

	/* config.md: capabilities that cannot be granted are skipped, not fatal
	 * (process_warn_ungrantable said so while the --log file was open) */
	e &= held;
	pm &= held;
	in &= held | cur->inheritable;
	for (int i = 0; i < 2; i++) {
		data[i].effective = (uint32_t)(e >> (32 * i));
		data[i].permitted = (uint32_t)(pm >> (32 * i));
		data[i].inheritable = (uint32_t)(in >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return error_sys(err, errno, "process.capabilities: capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return error_sys(err, errno, "process.capabilities.ambient: clear");
	for (int cap = 0; cap <= last; cap++) {
		if (!(c->ambient & (1ULL << cap)))
			continue;
		/* as runc: an ambient capability missing from the inheritable or
		 * permitted set cannot be raised; that is not an error (and
		 * not tried: the kernel's EPERM is known from the sets above) */
		int e = 0;

		if (!(pm & in & (1ULL << cap)))
			e = EPERM;
		else if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
			e = errno;
		/* strerror only when it is printed: it takes glibc's locale locks,
		 * data pages the child would copy (the stock config's three
		 * ambient capabilities come here at every start) */
		if (e && log_debug_enabled())
			log_debug("process.capabilities.ambient: %s not raised: %s",
				  oci_name_of(oci_capabilities, oci_n_capabilities, cap), strerror(e));
	}
	return 0;
}

/* Who may reopen /proc/self/fd/0..2 (a pty, pipes): the process user, as
 * runc's fixStdioPermissions. Only the uid changes (devpts may give gid=tty);
 * /dev/null is left alone. An owner or gid unmapped in a user namespace, or a
 * read-only /dev, leaves the fd as it is. */
static int own_stdio(uid_t uid, struct error *err)
{
	/* root reaches its stdio whoever owns it (and in a user namespace,
	 * chown to 0 of a file it does not own fails anyway) */
	if (uid == 0)
		return 0;
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;

		if (fstat(fd, &st) < 0)
			continue;   /* closed by the caller */
		if (st.st_uid == uid || (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)))
			continue;
		if (fchown(fd, uid, -1) < 0 && errno != EINVAL && errno != EPERM && errno != EROFS)
			return error_sys(err, errno, "stdio: chown fd %d to process.user.uid %u", fd, uid);
	}
	return 0;
}

/* As runc: chdir while still root (a cwd only the runtime may enter); when
 * that is denied, *later: try again as the user (a root_squash NFS home). */
static int cwd_as_root(const struct oci_process *p, bool *later, struct error *err)
{
	*later = false;
	if (chdir(p->cwd) == 0)
		return 0;
	if (errno != EACCES && errno != EPERM)
		return error_sys(err, errno, "process.cwd %s", p->cwd);
	*later = true;
	return 0;
}

static int cwd_check(const struct oci_process *p, bool later, struct error *err)
{
	char buf[PATH_MAX];

	if (later && chdir(p->cwd) < 0)
		return error_sys(err, errno, "process.cwd %s", p->cwd);
	/* CVE-2024-21626: a cwd reached through an inherited fd (/proc/self/fd/N)
	 * lies outside the container's root; getcwd() then fails with ENOENT
	 * ("(unreachable)"). Only that, as runc: a filter loaded as root may
	 * deny getcwd itself (runtime-tools' linux_seccomp), and every host fd
	 * is closed by now anyway (setup.h, step 1). */
	if (!getcwd(buf, sizeof(buf)) && errno == ENOENT)
		return error_set(err, EPERM, "process.cwd %s: outside the container", p->cwd);
	return 0;
}

void process_warn_ungrantable(const struct oci_process *p, struct process_caps *cur)
{
	int last = process_cap_last_cap();
	uint64_t known = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
	uint64_t held, missing;

	held_caps(cur);    /* the one capget: set_caps uses it too */
	held = cur->permitted;
	missing = (p->caps.effective | p->caps.permitted) & known & ~held;

	/* what set_caps will hold: an ambient capability needs both sets */
	uint64_t raisable = (p->caps.permitted & held) & (p->caps.inheritable & (held | cur->inheritable));
	uint64_t no_amb = p->caps.ambient & known & ~raisable;

	for (int cap = 0; missing && cap <= last; cap++)
		if (missing & (1ULL << cap))
			log_warn("process.capabilities: %s cannot be granted (the runtime lacks it), skipped",
				 oci_name_of(oci_capabilities, oci_n_capabilities, cap));
	/* runc's wording, at debug level: runc and crun say nothing, and the
	 * stock `runc spec` config (ambient without inheritable) would warn
	 * three times at every start about what no one can act on; the
	 * process starts without it */
	for (int cap = 0; no_amb && log_debug_enabled() && cap <= last; cap++)
		if (no_amb & (1ULL << cap))
			log_debug("process.capabilities.ambient: can't raise ambient capability %s: %s",
				  oci_name_of(oci_capabilities, oci_n_capabilities, cap), strerror(EPERM));
}

int process_become_user(const struct oci_process *p, enum setgroups_mode groups, const struct process_caps *held,
			struct error *err)
{
	bool later;
	int r;

	if ((r = cwd_as_root(p, &later, err)) < 0 || (r = own_stdio(p->uid, err)) < 0 ||
	    (r = set_groups(p, groups, err)) < 0)
		return r;
	/* to uid 0 no capability is dropped: KEEPCAPS only for another uid */
	if (p->uid != 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return error_sys(err, errno, "prctl(PR_SET_KEEPCAPS)");
	if (setresgid(p->gid, p->gid, p->gid) < 0)
		return error_sys(err, errno, "process.user.gid %u", p->gid);
	if (setresuid(p->uid, p->uid, p->uid) < 0)
		return error_sys(err, errno, "process.user.uid %u", p->uid);
	/* the retry runs with the user's rights only: no effective capability yet */
	if ((r = cwd_check(p, later, err)) < 0)
		return r;
	if (p->uid != 0)
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if ((r = set_caps(p, held, err)) < 0)
		return r;
	/* config.md: an unspecified umask SHOULD NOT change the caller's */
	if (p->has_umask)
		umask(p->umask);
	return 0;
}

static const char *env_path(const struct oci_process *p)
{
	for (size_t i = p->n_env; i-- > 0;)          /* the last one, as the process sees it */
		if (!strncmp(p->env[i], "PATH=", 5))
			return p->env[i] + 5;
	return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

static int check_exec(const char *path, struct stat *sb)
{
	if (stat(path, sb) < 0)
		return -errno;
	if (S_ISDIR(sb->st_mode))
		return -EISDIR;
	if (access(path, X_OK) < 0 && faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return -EACCES;
	return 0;
}

int process_find_exec(const struct oci_process *p, char *path, size_t size, struct stat *st, struct error *err)
{
	const char *name = p->args[0], *dirs, *end;
	int r = -ENOENT;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(path, size, "%s", name) >= size)
			return error_set(err, ENAMETOOLONG, "process.args[0]: path too long");
		/* runc's (Go's exec.LookPath) wording: a missing file is "stat
		 * PATH: no such file or directory", a directory or a file without
		 * x "permission denied" */
		r = check_exec(path, st);
		if (r == -EISDIR)
			r = -EACCES;
		if (r == -ENOENT || r == -ENOTDIR)
			return error_sys_lc(err, -r, "exec: \"%s\": stat %s", name, name);
		return r < 0 ? error_sys_lc(err, -r, "exec: \"%s\"", name) : 0;
	}
	for (dirs = env_path(p); ; dirs = end + 1) {
		size_t dl;

		end = strchrnul(dirs, ':');
		dl = end - dirs;
		if ((size_t)snprintf(path, size, "%.*s%s%s", (int)dl, dirs, dl ? "/" : "", name) < size) {
			int rr = check_exec(path, st);
			if (rr == 0)
				return 0;
			if (rr != -ENOENT && rr != -ENOTDIR)
				r = rr;
		}
		if (!*end)
			break;
	}
	if (r == -ENOENT)
		return error_set(err, ENOENT, "exec: \"%s\": executable file not found in $PATH", name);
	return error_sys_lc(err, -r == EISDIR ? EACCES : -r, "exec: \"%s\"", name);
}

int process_set_oom_score(const struct oci_process *p, struct error *err)
{
	char buf[16];
	int n, r;

	if (!p->has_oom_score_adj)
		return 0;
	n = snprintf(buf, sizeof(buf), "%d", p->oom_score_adj);
	r = procfs_write(-1, "self/oom_score_adj", buf, n);
	return r < 0 ? error_sys(err, -r, "process.oomScoreAdj %d", p->oom_score_adj) : 0;
}

/* execve resets caught signals; ignored ones and the mask are inherited. The
 * caller's (nohup, a shell's `&`) and the runtime's own (SIGPIPE, the mask of
 * a foreground run/exec) must not reach the container's process. */
void process_reset_signals(void)
{
	/* the kernel's own calls: glibc refuses its reserved signals (32, 33),
	 * which a caller may have left ignored too */
	struct { void (*handler)(int); unsigned long flags; void (*restorer)(void); uint64_t mask; }
		dfl = { SIG_DFL, 0, NULL, 0 };
	uint64_t ign = 1ULL << (SIGPIPE - 1), none = 0;
	char buf[4096], *line;

	if (procfs_read(-1, "thread-self/status", buf, sizeof(buf)) > 0 && (line = strstr(buf, "\nSigIgn:")))
		ign |= strtoull(line + 8, NULL, 16);
	for (int s = 1; s <= 64; s++)
		if (ign & (1ULL << (s - 1)))
			syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof(dfl.mask));
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
}

int process_set_no_new_privs(const struct oci_process *p, struct error *err)
{
	if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_sys(err, errno, "process.noNewPrivileges");
	return 0;
}

void process_join_keyring(const char *id)
{
	char name[1100];

	/* joins the keyring of that name when it exists and we may search it,
	 * else makes it: exec finds the one its container's init made */
	long key;

	snprintf(name, sizeof(name), "_ses.%s", id);
	key = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name);
	/* possessor: all; user: view, read, search, link (runc's 0x3f1b0000), so
	 * that a process exec'd later finds it by name */
	if (key > 0)
		syscall(SYS_keyctl, KEYCTL_SETPERM, key, 0x3f1b0000);
}

/* A file of the image the child reads: opened O_NONBLOCK (a FIFO or a
 * device must not hold the child: an open or a read that blocks would hang
 * run/create), its mode in *st; the caller reads it only when it is a
 * regular file. -errno when it cannot be opened. */
static int open_image_file(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, st) < 0) {
		close(fd);
		return -EIO;
	}
	return fd < 0 ? -errno : fd;
}

/* ": permission denied" (runc's execve error, lower-case): podman, docker
 * and containerd make that exit 126 */
static int not_regular(const char *exe, const char *path, mode_t mode, int depth, struct error *err)
{
	if (depth == 0)
		return error_sys_lc(err, EACCES, "process.args[0]: %s: not a regular file (%s)", exe,
				    util_file_kind(mode));
	return error_sys_lc(err, EACCES, "process.args[0]: %s: interpreter %s: not a regular file (%s)", exe, path,
			    util_file_kind(mode));
}

/* The interpreter of the "#!" script `path` (`depth` interpreters down from
 * `exe`; `st`: its stat, so that no FIFO or device is even opened), "" when
 * it is not one or cannot be read (execute-only: execve says the rest).
 * Fails when it is not a regular file: execve would refuse it anyway. */
static int script_interpreter(const char *exe, const char *path, const struct stat *st, int depth,
			      char *interp, size_t size, struct error *err)
{
	char buf[OCI_SHEBANG_MAX];
	ssize_t n;
	int fd;

	interp[0] = 0;
	if (!S_ISREG(st->st_mode))
		return not_regular(exe, path, st->st_mode, depth, err);
	/* no second fstat (a syscall of every start): a FIFO or device put in
	 * its place since the stat neither blocks this O_NONBLOCK open and read
	 * nor gets past execve, which refuses what is not a regular file */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	oci_shebang_interpreter(buf, n > 0 ? (size_t)n : 0, interp, size);
	return 0;
}

void process_runtime_binary(dev_t *dev, ino_t *ino)
{
	struct stat self;

	if (selfseal_self_id(dev, ino))   /* the sealed check's fd said it */
		return;
	if (stat("/proc/self/exe", &self) == 0) {
		*dev = self.st_dev;
		*ino = self.st_ino;
	}
}

int process_check_not_runtime(const char *exe, const struct stat *exe_st, dev_t self_dev, ino_t self_ino,
			      struct error *err)
{
	char path[PATH_MAX], interp[PATH_MAX];
	struct stat sb = *exe_st;
	int r;

	snprintf(path, sizeof(path), "%s", exe);
	for (int depth = 0; depth < 6 && path[0]; depth++) {   /* the kernel nests #! 5 deep */
		if (depth > 0 && stat(path, &sb) < 0)
			return 0;   /* execve says what is missing */
		if (sb.st_dev == self_dev && sb.st_ino == self_ino)
			return error_set(err, EPERM, "exec \"%s\": refusing to run the runtime's own binary in the container", exe);
		if ((r = script_interpreter(exe, path, &sb, depth, interp, sizeof(interp), err)) < 0)
			return r;
		snprintf(path, sizeof(path), "%s", interp);
	}
	return 0;
}

/* The home of `uid` in the container's /etc/passwd (read as root, before
 * the uid change), "/" when there is none or it is not a regular file (a
 * FIFO or a device is ignored, never waited on): runc's default for HOME.
 * At most 1 MiB of it is read. */
static void passwd_home(uid_t uid, char *home, size_t size)
{
	struct oci_passwd_scan scan;
	struct stat st;
	char buf[4096];
	size_t total = 0;
	ssize_t n = 0;
	int fd = open_image_file("/etc/passwd", &st);

	oci_passwd_scan_init(&scan, uid, home, size);
	if (fd < 0)
		return;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	while (total < (1 << 20) && (n = read(fd, buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		if (oci_passwd_scan_feed(&scan, buf, (size_t)n))
			break;
	}
	if (n == 0)
		oci_passwd_scan_end(&scan);
	close(fd);
}

static size_t env_name_len(const char *kv)
{
	return strcspn(kv, "=");
}

/* keep[i]: entry i is the last one of its name (as runc's prepareEnv, Go's
 * dedupEnv) and not an empty HOME. Returns whether HOME stays. */
static bool env_keep(char *const *env, size_t n, bool *keep)
{
	bool home = false;

	util_mark_repeats(env, n, env_name_len, true, keep);
	for (size_t i = 0; i < n; i++) {
		keep[i] = !keep[i];
		if (keep[i] && !strncmp(env[i], "HOME=", 5)) {
			keep[i] = env[i][5] != '\0';
			home = keep[i];
		}
	}
	return home;
}

/* process.env as the process gets it: each name once, its last value; an
 * empty or missing HOME is the user's home from the container's passwd. */
char **process_env_final(const struct oci_process *p, struct process_env *room)
{
	bool heap = !room || p->n_env > PROCESS_ENV_INLINE;
	bool *keep = heap ? calloc(p->n_env ? p->n_env : 1, sizeof(*keep)) : room->keep;
	char **env = NULL, *home = NULL;
	bool all = true, has_home;
	size_t n = 0;

	if (!keep)
		return p->env;
	has_home = env_keep(p->env, p->n_env, keep);
	for (size_t i = 0; i < p->n_env; i++)
		all &= keep[i];
	if (!(all && has_home)) {
		env = heap ? calloc(p->n_env + 2, sizeof(*env)) : memset(room->slot, 0, sizeof(room->slot));
		home = has_home ? NULL : heap ? malloc(sizeof(room->home)) : room->home;
	}
	if (env && (has_home || home)) {
		for (size_t i = 0; i < p->n_env; i++)
			if (keep[i])
				env[n++] = p->env[i];
		if (home) {
			memcpy(home, "HOME=", 5);
			passwd_home(p->uid, home + 5, sizeof(room->home) - 5);
			env[n] = home;
		}
	} else if (heap) {
		free(env);
		free(home);
		env = NULL;
	}
	if (heap)
		free(keep);
	return env ? env : p->env;
}
