/* The container's Landlock fence (fence.h). */
#include "runtime/sandbox/fence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "runtime/linux/landlock.h"
#include "runtime/log.h"

#define R OCI_LANDLOCK_READ
#define W OCI_LANDLOCK_WRITE
#define X OCI_LANDLOCK_EXEC

/* The minimal root's mounts (rootfs/sandbox/minimal.c), what each mount allows:
 * the image's read-only binds read and execute, /etc (noexec) read, the
 * workspace (added by fence_apply) and /tmp everything, /dev/shm (noexec)
 * read and write, the five host devices read and write, /proc read (the
 * task's own /proc/self). Below / only listing directories: the root's
 * layout is no secret (`ls /` works, as before the fence), and no file
 * outside the rules opens, a config mount added on top included. */
static const struct landlock_rule sandbox_rules[] = {
	{ "/", OCI_LANDLOCK_LIST, false, false },
	{ "/usr", R | X, true, false }, { "/bin", R | X, true, false },
	{ "/lib", R | X, true, false }, { "/lib64", R | X, true, false },
	{ "/etc", R, true, false }, { "/tmp", R | W | X, true, false }, { "/dev/shm", R | W, true, false },
	{ "/dev/null", R | W, true, true }, { "/dev/zero", R | W, true, true }, { "/dev/full", R | W, true, true },
	{ "/dev/random", R | W, true, true }, { "/dev/urandom", R | W, true, true }, { "/proc", R, true, false },
};
#define N_SANDBOX (sizeof(sandbox_rules) / sizeof(sandbox_rules[0]))

bool fence_asked(const struct oci_config *cfg)
{
	return cfg->sandbox.minimal_root || cfg->sandbox.landlock.set;
}

int fence_plan(const struct oci_config *cfg)
{
	int abi;

	if (!fence_asked(cfg))
		return -1;
	abi = landlock_abi();
	if (abi > 0)
		return abi < LANDLOCK_ABI_KNOWN ? abi : LANDLOCK_ABI_KNOWN;
	log_warn("Landlock: %s: the container runs without it (landlockAbi 0 in the result)",
		 abi == -EOPNOTSUPP ? "disabled at boot (lsm=)" : "not in this kernel (landlock_create_ruleset)");
	return 0;
}

int fence_record(int dirfd, int abi, struct error *err)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d\n", abi), fd;

	if (abi < 0)
		return 0;
	fd = openat(dirfd, "landlock-abi", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, (size_t)n) != n) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return error_sys(err, e, "landlock-abi");
	}
	close(fd);
	return 0;
}

int fence_apply(const struct oci_config *cfg, int abi, struct error *err)
{
	const struct oci_landlock *ll = &cfg->sandbox.landlock;
	struct landlock_rule rules[N_SANDBOX + 1 + OCI_LANDLOCK_RULES_MAX];
	unsigned int scope = ll->scope;
	size_t n = 0;

	if (abi <= 0)
		return 0;
	if (cfg->sandbox.minimal_root) {
		memcpy(rules, sandbox_rules, sizeof(sandbox_rules));
		n = N_SANDBOX;
		rules[n++] = (struct landlock_rule){ cfg->process.cwd, R | W | X, false, false };
		/* a task reaches no process and no abstract socket outside its own domain */
		scope |= OCI_LANDLOCK_SCOPE_SIGNAL | OCI_LANDLOCK_SCOPE_ABSTRACT_UNIX;
		/* every mount is nosuid: no_new_privs changes nothing there, and
		 * landlock_restrict_self needs it (the profile sets it anyway) */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return error_sys(err, errno, "Landlock: no_new_privs");
	}
	for (size_t i = 0; i < ll->n_rules; i++)
		rules[n++] = (struct landlock_rule){ ll->rules[i].path, ll->rules[i].access, false, false };
	return landlock_restrict(abi, rules, n, scope, err);
}

int fence_recorded(int dirfd)
{
	char buf[16] = "";
	int fd = openat(dirfd, "landlock-abi", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;
	long v;
	char *end;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf || (*end && *end != '\n') || v < 0 || v > LANDLOCK_ABI_KNOWN ? -1 : (int)v;
}

void fence_result(int dirfd, struct oci_exit *e)
{
	int abi = fence_recorded(dirfd);

	e->landlock_asked = abi >= 0;
	e->landlock_abi = abi < 0 ? 0 : abi;
}
