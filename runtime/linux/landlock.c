/* Landlock with raw syscalls (landlock.h). The uapi structs are written
 * here, so an older linux/landlock.h (the build host's) does not cap the ABI. */
#include "runtime/linux/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/config.h"

#define CREATE_RULESET_VERSION 1u
#define RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ull << 0)
#define FS_WRITE_FILE (1ull << 1)
#define FS_READ_FILE (1ull << 2)
#define FS_READ_DIR (1ull << 3)
#define FS_ABI1_ALL ((1ull << 13) - 1)  /* up to MAKE_SYM */
#define FS_REFER (1ull << 13)           /* ABI 2 */
#define FS_TRUNCATE (1ull << 14)        /* ABI 3 */
#define FS_IOCTL_DEV (1ull << 15)       /* ABI 5 */
/* what may be granted on a file that is not a directory */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
/* w: everything that changes a file or a directory's entries (no device ioctl) */
#define FS_WRITE_RIGHTS ((FS_ABI1_ALL & ~(FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)) | FS_REFER | FS_TRUNCATE)

#define SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)  /* ABI 6 */
#define SCOPE_SIGNAL (1ull << 1)                /* ABI 6 */

struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;    /* ABI 4 */
	uint64_t scoped;                /* ABI 6 */
};

struct path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);

	return v > 0 ? (int)v : -errno;
}

static uint64_t handled_fs(int abi)
{
	return FS_ABI1_ALL | (abi >= 2 ? FS_REFER : 0) | (abi >= 3 ? FS_TRUNCATE : 0) | (abi >= 5 ? FS_IOCTL_DEV : 0);
}

static uint64_t rights(unsigned int access)
{
	return (access & OCI_LANDLOCK_READ ? FS_READ_FILE | FS_READ_DIR : 0) |
	       (access & OCI_LANDLOCK_LIST ? FS_READ_DIR : 0) |
	       (access & OCI_LANDLOCK_WRITE ? FS_WRITE_RIGHTS : 0) |
	       (access & OCI_LANDLOCK_EXEC ? FS_EXECUTE : 0);
}

/* The ruleset's size as that ABI knows it (older kernels take a larger one
 * only when the rest is zero: say exactly what is meant). */
static size_t attr_size(int abi)
{
	return abi >= 6 ? sizeof(struct ruleset_attr) : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
}

/* The rule as it always was: every right on a directory, on anything else
 * only FS_FILE_RIGHTS. A rule not marked as a file goes without an fstat:
 * the kernel refuses a directory's rights on a file with EINVAL (the rights
 * are all handled, so that is its only EINVAL here), and the rule is added
 * again with the file's rights. */
static int add_rule(int ruleset, int abi, const struct landlock_rule *rule, struct error *err)
{
	struct path_beneath_attr pb = { .allowed_access = rights(rule->access) & handled_fs(abi) };
	int r = 0;

	pb.parent_fd = open(rule->path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return rule->optional && errno == ENOENT ? 0 : error_sys(err, errno, "Landlock: open %s", rule->path);
	if (rule->file) {
		struct stat st;

		if (fstat(pb.parent_fd, &st) < 0)
			r = error_sys(err, errno, "Landlock: stat %s", rule->path);
		else if (!S_ISDIR(st.st_mode))
			pb.allowed_access &= FS_FILE_RIGHTS;
	}
	if (r == 0 && pb.allowed_access && syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &pb, 0) < 0) {
		if (errno == EINVAL && (pb.allowed_access & ~FS_FILE_RIGHTS)) {
			pb.allowed_access &= FS_FILE_RIGHTS;
			if (pb.allowed_access &&
			    syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &pb, 0) < 0)
				r = error_sys(err, errno, "Landlock: rule for %s", rule->path);
		} else {
			r = error_sys(err, errno, "Landlock: rule for %s", rule->path);
		}
	}
	close(pb.parent_fd);
	return r;
}

int landlock_restrict(int abi, const struct landlock_rule *rules, size_t n, unsigned int scope,
		      struct error *err)
{
	struct ruleset_attr attr = { .handled_access_fs = handled_fs(abi) };
	int ruleset, r = 0;

	if (abi >= 6)
		attr.scoped = (scope & OCI_LANDLOCK_SCOPE_SIGNAL ? SCOPE_SIGNAL : 0) |
			      (scope & OCI_LANDLOCK_SCOPE_ABSTRACT_UNIX ? SCOPE_ABSTRACT_UNIX_SOCKET : 0);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0);
	if (ruleset < 0)
		return error_sys(err, errno, "Landlock: create the ruleset (ABI %d)", abi);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_rule(ruleset, abi, &rules[i], err);
	if (r == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		r = error_sys(err, errno, "Landlock: restrict the process");
	close(ruleset);
	return r;
}
