#include "runtime/container/statedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/util.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/sandbox/scratch.h"
#include "runtime/log.h"

static bool id_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_' || ch == '+' || ch == '-' || ch == '.';
}

/* Byte c as the error shows it: itself when printable ASCII, else a Go-style
 * escape (\xc3, \n, \") so the user sees which byte it is, as runc's %q does. */
static void id_byte_shown(unsigned char c, char out[5])
{
	const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '"' ? "\\\"" :
			    c == '\\' ? "\\\\" : NULL;

	if (named)
		snprintf(out, 5, "%s", named);
	else if (c >= ' ' && c < 127)
		snprintf(out, 5, "%c", c);
	else
		snprintf(out, 5, "\\x%02x", c);
}

/* The first 64 bytes of id, escaped as above, into out (at least 257 bytes). */
static const char *id_shown(const char *id, char *out)
{
	char b[5];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; id[i] && i < 64; i++) {
		id_byte_shown((unsigned char)id[i], b);
		len += (size_t)snprintf(out + len, 5, "%s", b);
	}
	return out;
}

int container_id_check(const char *id, struct error *err)
{
	size_t n = strlen(id);
	char shown[64 * 4 + 1], b[5];

	if (n == 0 || n > 1024)
		return error_set(err, EINVAL, "invalid container id \"%s\": length must be 1 to 1024",
				 id_shown(id, shown));
	if (id[0] == '.')
		return error_set(err, EINVAL, "invalid container id \"%s\": must not start with '.'",
				 id_shown(id, shown));
	for (const char *p = id; *p; p++)
		if (!id_char(*p)) {
			id_byte_shown((unsigned char)*p, b);
			return error_set(err, EINVAL, "invalid container id \"%s\": invalid character %s%s%s (a "
					 "container ID holds letters, digits and _ + - . only)", id_shown(id, shown),
					 *p == '\'' ? "\"" : "'", b, *p == '\'' ? "\"" : "'");
		}
	return 0;
}

/* Ids may be 1024 characters; file names only 255. A long id gets a
 * directory named '~' (never part of an id), its first 100 characters and
 * a hash of the id. */
#define LONG_ID 200
#define HASHED_PREFIX 100
#define HASHED_LEN (1 + HASHED_PREFIX + 1 + 16)

static void dir_name(const char *id, char *out, size_t size)
{
	uint64_t h;

	if (strlen(id) <= LONG_ID) {
		snprintf(out, size, "%s", id);
		return;
	}
	h = util_fnv1a64(id, strlen(id), UTIL_ID_HASH_BASIS);
	snprintf(out, size, "~%.*s-%016llx", HASHED_PREFIX, id, (unsigned long long)h);
}

/* Exactly what dir_name makes for a long id, nothing else. */
static bool hashed_name(const char *s)
{
	if (strlen(s) != HASHED_LEN || s[0] != '~' || s[1] == '.' || s[1 + HASHED_PREFIX] != '-')
		return false;
	for (int i = 1; i <= HASHED_PREFIX; i++)
		if (!id_char(s[i]))
			return false;
	for (int i = HASHED_LEN - 16; i < HASHED_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int container_ref_check(const char *ref, struct error *err)
{
	if (hashed_name(ref))
		return 0;
	return container_id_check(ref, err);
}

static int set_dir(struct container *c, const char *root, const char *ref, struct error *err)
{
	if (hashed_name(ref))
		snprintf(c->name, sizeof(c->name), "%s", ref);
	else
		dir_name(ref, c->name, sizeof(c->name));
	if (snprintf(c->dir, sizeof(c->dir), "%s/%s", root, c->name) >= (int)sizeof(c->dir))
		return error_set(err, ENAMETOOLONG, "--root %s: path too long", root);
	return 0;
}

static int mkdir_root(const char *root, struct error *err)
{
	char path[4096];

	if (mkdir(root, 0711) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT || strlen(root) >= sizeof(path))
		return error_sys(err, errno, "--root %s", root);
	strcpy(path, root);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return error_sys(err, errno, "--root %s: mkdir %s", root, path);
		*p = '/';
	}
	if (mkdir(root, 0711) < 0 && errno != EEXIST)
		return error_sys(err, errno, "--root %s", root);
	return 0;
}

/* Whoever may write to --root may plant or swap a state dir, and with it the
 * pid `kill` signals and the hooks `delete` runs: a root another user owns,
 * or that group/others may write to, is refused. With the sticky bit (a
 * shared /tmp-like root) only state dirs of our own euid are used. */
static int root_open(const char *root, bool *shared, struct error *err)
{
	struct stat sb;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return error_sys(err, errno, "--root %s", root);
	if (fstat(fd, &sb) < 0) {
		error_sys(err, errno, "--root %s", root);
		close(fd);
		return -1;
	}
	*shared = (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0;
	if (sb.st_uid != 0 && sb.st_uid != geteuid()) {
		error_set(err, EPERM, "--root %s is owned by uid %u, not by the caller: refused", root,
			  (unsigned)sb.st_uid);
	} else if (*shared && !(sb.st_mode & S_ISVTX)) {
		error_set(err, EPERM, "--root %s is writable by %s (mode %04o): refused (chmod go-w it)", root,
			  sb.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(sb.st_mode & 07777));
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

/* <root>/<name>, no symlink followed, not someone else's in a shared root. */
static int open_dir(struct container *c, bool shared, bool lock, struct error *err)
{
	struct stat sb;

	c->dirfd = openat(c->rootfd, c->name, (lock ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dirfd < 0) {
		int e = errno;

		if (e == ENOENT)
			return error_set(err, ENOENT, "container \"%s\" does not exist", c->id);
		if ((e == ELOOP || e == ENOTDIR) && fstatat(c->rootfd, c->name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(sb.st_mode))
			return error_set(err, ELOOP, "container \"%s\": state dir %s is a symlink: refused",
					 c->id, c->dir);
		return error_sys(err, e, "%s", c->dir);
	}
	/* the owner matters only in a shared (sticky) root */
	if (shared && fstat(c->dirfd, &sb) < 0)
		return error_sys(err, errno, "%s", c->dir);
	if (shared && sb.st_uid != geteuid())
		return error_set(err, EPERM, "container \"%s\": state dir %s is owned by uid %u: refused",
				 c->id, c->dir, (unsigned)sb.st_uid);
	if (lock && flock(c->dirfd, LOCK_EX) < 0)
		return error_sys(err, errno, "lock %s", c->dir);
	return 0;
}

static void container_init(struct container *c, const char *id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->rootfd = c->dirfd = c->peek_rootfd = -1;
}

int container_record_write(int dirfd, const char *name, const char *text, struct error *err)
{
	size_t len = strlen(text);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		int e = fd < 0 ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return error_sys(err, e, "state dir: %s", name);
	}
	close(fd);
	return 0;
}

int container_record_pid(int dirfd, const char *name, pid_t pid, uint64_t *start_time, struct error *err)
{
	char buf[64];
	bool zombie;
	uint64_t start = container_proc_start_time(pid, &zombie);

	if (start_time)
		*start_time = start;
	snprintf(buf, sizeof(buf), "%d %llu\n", (int)pid, (unsigned long long)start);
	return container_record_write(dirfd, name, buf, err);
}

int container_record_cgroup(const struct container *c, const char *path, struct error *err)
{
	char buf[4200];

	if ((size_t)snprintf(buf, sizeof(buf), "%d %s\n", c->st.systemd_cgroup, path) >= sizeof(buf))
		return error_set(err, ENAMETOOLONG, "state dir: cgroup: path too long");
	return container_record_write(c->dirfd, "cgroup", buf, err);
}

/* Never over an existing state dir. Where the filesystem has no
 * RENAME_NOREPLACE (EINVAL: 9p, some FUSE and NFS), a plain rename does the
 * same for a directory: it replaces only an empty one, and every state dir
 * holds its creator's record from the start (ENOTEMPTY is EEXIST here). */
static int publish_rename(int rootfd, const char *tmp, const char *name)
{
	if (renameat2(rootfd, tmp, rootfd, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	if (renameat(rootfd, tmp, rootfd, name) == 0)
		return 0;
	if (errno == ENOTEMPTY)
		errno = EEXIST;
	return -1;
}

/* The state dir appears under its name already locked and holding the
 * creator's pid and start time: made as ".new.<pid>.<name>" (no id starts
 * with a dot), locked, recorded, then renamed into place (never over an
 * existing one). So every state dir without state.json says who makes it,
 * and `gc` can tell a live create from a crashed one (gc.h). */
static int publish_dir(struct container *c, struct error *err)
{
	pid_t self = getpid();
	char tmp[320];
	int r;

	snprintf(tmp, sizeof(tmp), ".new.%d.%s", (int)self, c->name);
	if (mkdirat(c->rootfd, tmp, 0711) < 0)
		return error_sys(err, errno, "create %s/%s", c->dir, tmp);
	c->dirfd = openat(c->rootfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dirfd < 0 || flock(c->dirfd, LOCK_EX) < 0)
		r = error_sys(err, errno, "create %s", c->dir);
	else if ((r = container_record_pid(c->dirfd, "creator", self, NULL, err)) < 0)
		;
	else if (publish_rename(c->rootfd, tmp, c->name) < 0)
		r = errno == EEXIST ? error_set(err, EEXIST, "container \"%s\" already exists", c->id)
				    : error_sys(err, errno, "create %s", c->dir);
	else
		return 0;
	if (c->dirfd >= 0)
		unlinkat(c->dirfd, "creator", 0);
	unlinkat(c->rootfd, tmp, AT_REMOVEDIR);
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
	return r;
}

int container_dir_create(const char *root, const char *id, struct container *c, struct error *err)
{
	bool shared;
	int r;

	container_init(c, id);
	if ((r = container_id_check(id, err)) < 0 || (r = set_dir(c, root, id, err)) < 0)
		return r;
	/* made only when missing: a mkdir of the existing root is a lookup for EEXIST */
	if ((c->rootfd = root_open(root, &shared, err)) < 0 && err->code == ENOENT) {
		if ((r = mkdir_root(root, err)) < 0)
			return r;
		c->rootfd = root_open(root, &shared, err);
	}
	if (c->rootfd < 0)
		return err->code ? -err->code : -EPERM;
	if (faccessat(c->rootfd, c->name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return error_set(err, EEXIST, "container \"%s\" already exists", id);
	return publish_dir(c, err);
}

int container_dir_name(const char *root, const char *id, struct container *c, struct error *err)
{
	container_init(c, id);
	return set_dir(c, root, id, err);
}

int container_root_check(const char *root, struct error *err)
{
	bool shared;
	int fd = root_open(root, &shared, err);

	if (fd < 0)
		return err->code == ENOENT ? 0 : -err->code;
	close(fd);
	return 0;
}

bool container_exists(const char *root, const char *id)
{
	struct container c;
	struct stat sb;
	struct error err;
	bool shared, r;

	/* a root that is missing (or refused: create says why) holds nothing */
	container_init(&c, id);
	if (set_dir(&c, root, id, &err) < 0 || (c.rootfd = root_open(root, &shared, &err)) < 0)
		return false;
	r = fstatat(c.rootfd, c.name, &sb, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
	close(c.rootfd);
	return r;
}

/* A regular file of the state dir (O_NONBLOCK: a FIFO put there neither
 * blocks the open nor is read), at most `max` bytes: fstat says its size
 * before anything is allocated (a sparse 8 GiB state.json is refused, not
 * read), -EFBIG with *len its size. One read when it has the size fstat said:
 * a short read of a regular file is its end (`list` reads one per container). */
static int read_file_fd(int fd, size_t max, char **buf, size_t *len);

static int read_file_at(int dirfd, const char *name, size_t max, char **buf, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : read_file_fd(fd, max, buf, len);
}

/* <name>/FILE beneath a root fd, no symlink on the way (the state dir itself
 * included): one openat2 instead of the dir's open, the file's and a close. */
static int read_file_beneath(int rootfd, const char *name, const char *file, size_t max, char **buf,
			     size_t *len)
{
	struct open_how how = { .flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	char path[512];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", name, file) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : read_file_fd(fd, max, buf, len);
}

/* Reads and closes fd. */
static int read_file_fd(int fd, size_t max, char **buf, size_t *len)
{
	struct stat sb;
	size_t hint;
	int r;
	ssize_t n;

	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)sb.st_size > max) {
		close(fd);
		*len = (size_t)sb.st_size;
		return -EFBIG;
	}
	if (!(*buf = malloc((size_t)sb.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *buf, (size_t)sb.st_size + 1);
	if (n >= 0 && n <= sb.st_size) {
		close(fd);
		(*buf)[n] = '\0';
		*len = (size_t)n;
		return 0;
	}
	/* it grew meanwhile: read it whole from the start, still at most max */
	free(*buf);
	*buf = NULL;
	hint = (size_t)sb.st_size * 2 + 2 < max + 1 ? (size_t)sb.st_size * 2 + 2 : max + 1;
	r = lseek(fd, 0, SEEK_SET) < 0 ? -errno : util_read_fd(fd, hint, max, buf, len);
	close(fd);
	if (r == -EFBIG)
		*len = max + 1;
	return r == -ENOMEM || r == -EFBIG ? r : r < 0 ? -EIO : 0;
}

int container_read_file(const struct container *c, const char *name, char **buf, size_t *len)
{
	return read_file_at(c->dirfd, name, OCI_JSON_MAX_SIZE, buf, len);   /* config.json's cap */
}

static int load_state(struct container *c, const char *id, struct error *err);

int container_load(const char *root, const char *id, bool lock, struct container *c, struct error *err)
{
	bool shared;
	int r;

	container_init(c, id);
	if ((r = container_ref_check(id, err)) < 0 || (r = set_dir(c, root, id, err)) < 0)
		return r;
	if ((c->rootfd = root_open(root, &shared, err)) < 0) {
		if (err->code == ENOENT)   /* no root: no container */
			return error_set(err, ENOENT, "container \"%s\" does not exist", id);
		return -err->code;
	}
	if ((r = open_dir(c, shared, lock, err)) < 0)
		return r;
	return load_state(c, id, err);
}

int container_root_open(const char *root, bool *shared, struct error *err)
{
	return root_open(root, shared, err);
}

int container_load_at(int rootfd, bool shared, const char *root, const char *id, struct container *c,
		      struct error *err)
{
	int r;

	container_init(c, id);
	if ((r = container_ref_check(id, err)) < 0 || (r = set_dir(c, root, id, err)) < 0)
		return r;
	if (!shared) {   /* only root writes the root: no dir fd, no owner to check */
		c->peek_rootfd = rootfd;
		return load_state(c, id, err);
	}
	c->rootfd = rootfd;
	r = open_dir(c, shared, false, err);
	c->rootfd = -1;   /* the caller's */
	return r < 0 ? r : load_state(c, id, err);
}

/* Why state.json could not be read, naming the container and the cap. */
static int state_read_error(struct container *c, const char *id, int r, size_t len, struct error *err)
{
	if (r == -EFBIG)
		return error_set(err, EFBIG, "container \"%s\": %s/state.json: too large (%zu bytes, at most %d MiB)",
				 id, c->dir, len, CONTAINER_STATE_MAX >> 20);
	return error_sys(err, -r, "container \"%s\": %s/state.json", id, c->dir);
}

static int load_state(struct container *c, const char *id, struct error *err)
{
	char *buf = NULL, name[256];
	size_t len = 0;
	int r;

	r = c->peek_rootfd >= 0 ? read_file_beneath(c->peek_rootfd, c->name, "state.json", CONTAINER_STATE_MAX,
						    &buf, &len)
				: read_file_at(c->dirfd, "state.json", CONTAINER_STATE_MAX, &buf, &len);
	if (r == -ENOENT)
		return 0;      /* still being created */
	if (c->peek_rootfd >= 0 && (r == -ELOOP || r == -EXDEV || r == -ENOTDIR))
		return error_set(err, ELOOP, "container \"%s\": state dir %s is a symlink or not a dir: refused",
				 id, c->dir);
	/* the state's own defects (not a regular file, too large, not a
	 * state), never a passing one (ENOMEM, EIO), make it unusable */
	c->bad_state = r == -EINVAL || r == -EFBIG;
	if (r < 0)
		return state_read_error(c, id, r, len, err);
	r = oci_state_parse("state.json", buf, len, &c->st, err);
	free(buf);
	if (r < 0) {
		c->bad_state = r == -EINVAL;
		error_prefix(err, "container \"%s\"", id);
		return r;
	}
	c->has_state = true;
	/* the state must be that of the container named: a hashed name stands
	 * for the id in it, which must be a valid id that hashes to it */
	if (!c->st.id || container_id_check(c->st.id, err) < 0) {
		c->bad_state = true;
		return error_set(err, EINVAL, "container \"%s\": its state holds no valid id", id);
	}
	dir_name(c->st.id, name, sizeof(name));
	if (strcmp(name, c->name) || (!hashed_name(id) && strcmp(c->st.id, id)))
		return error_set(err, EINVAL, "container \"%s\": its state is that of \"%.64s\"", id, c->st.id);
	if (hashed_name(id))
		c->id = c->st.id;
	return 0;
}

bool container_state_unusable(struct container *c)
{
	struct error err;

	c->bad_state = false;
	if (load_state(c, c->id, &err) < 0 && c->bad_state)
		log_warn("%s", err.msg);
	if (c->has_state && c->st.arena)
		oci_state_free(&c->st);
	c->has_state = false;
	return c->bad_state;
}

int container_save_state(struct container *c, struct error *err)
{
	char *json;
	size_t len;
	int fd, r;

	if ((r = oci_state_to_json(&c->st, NULL, false, &json, &len, err)) < 0)
		return r;
	if (len > CONTAINER_STATE_MAX) {   /* what is read back is capped (load_state) */
		free(json);
		return error_set(err, EFBIG, "%s/state.json: too large (%zu bytes, at most %d MiB): a state holds "
				 "the config's annotations", c->dir, len, CONTAINER_STATE_MAX >> 20);
	}
	fd = openat(c->dirfd, "state.json.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, json, len) != (ssize_t)len) {
		r = error_sys(err, errno, "%s/state.json", c->dir);
		free(json);
		if (fd >= 0)
			close(fd);
		return r;
	}
	free(json);
	close(fd);
	if (renameat(c->dirfd, "state.json.tmp", c->dirfd, "state.json") < 0)
		return error_sys(err, errno, "%s/state.json", c->dir);
	c->has_state = true;
	return 0;
}

/* Every file the state dir may hold. */
static const char *const state_files[] = { "state.json", "state.json.tmp", "config.json", "exec.fifo",
					   "no-new-keyring", "exit-status", "landlock-abi" /* runtime/sandbox/fence.h */,
					   "creator", "cgroup", "init",
					   "uid-lease.tmp", "request-key" /* runtime/sandbox/request_key.h */,
					   "output-total" /* runtime/sandbox/output.h: a request's bytes passed on */,
					   "request-deadline" /* runtime/sandbox/limits.h */,
					   "uid-lease" /* the lease returns with the record: runtime/sandbox/lease.h */,
					   "notify" /* notify.h: a dir */, "scratch" /* runtime/sandbox/scratch.h */ };
#define N_STATE_FILES (sizeof(state_files) / sizeof(state_files[0]))

/* Which of state_files the dir holds (bit i: state_files[i]), from one
 * listing: a run's dir holds 6 of them, and an unlink or open of each absent
 * one was a syscall. All bits when the dir cannot be listed. */
_Static_assert(N_STATE_FILES <= 32, "one bit a state file");

static int state_file_index(const char *name)
{
	for (size_t i = 0; i < N_STATE_FILES; i++)
		if (strcmp(state_files[i], name) == 0)
			return (int)i;
	return -1;
}

static uint32_t state_files_present(int dirfd)
{
	char buf[4096];
	uint32_t present = 0;
	ssize_t n;

	while ((n = getdents64(dirfd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n; off += ((struct dirent64 *)(buf + off))->d_reclen) {
			int i = state_file_index(((struct dirent64 *)(buf + off))->d_name);

			if (i >= 0)
				present |= 1u << i;
		}
	return n < 0 ? UINT32_MAX : present;
}

static bool state_file_in(uint32_t present, const char *name)
{
	return present & (1u << state_file_index(name));
}

static void remove_files(struct container *c, uint32_t present)
{
	struct error err;

	if (state_file_in(present, "scratch") && scratch_remove(c->dirfd, &err) < 0)   /* a job's overlay upper/work (runtime/sandbox/scratch.h) */
		log_warn("%s", err.msg);
	for (size_t i = 0; i < N_STATE_FILES; i++)
		if ((present & (1u << i)) && strcmp(state_files[i], "notify") && strcmp(state_files[i], "scratch"))
			unlinkat(c->dirfd, state_files[i], 0);
	/* NOTIFY_SOCKET's (notify.h) */
	if (state_file_in(present, "notify") && unlinkat(c->dirfd, "notify", AT_REMOVEDIR) < 0 &&
	    errno == ENOTEMPTY && unlinkat(c->dirfd, "notify/notify", 0) == 0)
		unlinkat(c->dirfd, "notify", AT_REMOVEDIR);
}

void container_dir_remove(struct container *c)
{
	remove_files(c, state_files_present(c->dirfd));
	if (c->rootfd < 0)
		return;
	/* a listing that missed a file (the dir's offset moved on): every name once more */
	if (unlinkat(c->rootfd, c->name, AT_REMOVEDIR) < 0 && errno == ENOTEMPTY) {
		remove_files(c, UINT32_MAX);
		unlinkat(c->rootfd, c->name, AT_REMOVEDIR);
	}
}

void container_close(struct container *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	if (c->rootfd >= 0)
		close(c->rootfd);
	c->dirfd = c->rootfd = -1;
	if (c->has_state && c->st.arena)   /* create fills st with borrowed strings */
		oci_state_free(&c->st);
	c->has_state = false;
}

uint64_t container_proc_start_time(pid_t pid, bool *zombie)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	int fd, field;
	ssize_t n;

	*zombie = false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');   /* comm may hold spaces and parens */
	if (!p || p[1] != ' ')
		return 0;
	p += 2;
	*zombie = (*p == 'Z' || *p == 'X');
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		start = strtoull(p, NULL, 10);
	return start;
}

bool container_alive(const struct container *c)
{
	bool zombie;
	uint64_t start;

	if (!c->has_state || c->st.pid <= 0)
		return false;
	start = container_proc_start_time(c->st.pid, &zombie);
	return start != 0 && !zombie && start == c->st.pid_start_time;
}

static bool exec_fifo_beneath(const struct container *c)
{
	char path[512];

	return (size_t)snprintf(path, sizeof(path), "%s/exec.fifo", c->name) < sizeof(path) &&
	       faccessat(c->peek_rootfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

enum container_status container_status(const struct container *c)
{
	struct cgroup cg;
	struct error err;
	bool paused = false;

	if (!c->has_state)
		return STATUS_CREATING;
	if (!container_alive(c))
		return STATUS_STOPPED;
	if (c->peek_rootfd >= 0 ? exec_fifo_beneath(c) : faccessat(c->dirfd, "exec.fifo", F_OK, 0) == 0)
		return STATUS_CREATED;
	if (c->st.cgroup_path && cgroup_open_unchecked(c->st.cgroup_path, c->st.systemd_cgroup, &cg, &err) == 0) {
		paused = cgroup_is_frozen(&cg);
		cgroup_close(&cg);
	}
	return paused ? STATUS_PAUSED : STATUS_RUNNING;
}

const char *container_status_name(enum container_status s)
{
	static const char *const names[] = { "creating", "created", "running", "paused", "stopped" };

	return names[s];
}

int container_write_pid_file(const char *path, pid_t pid, struct error *err)
{
	char tmp[4096], buf[32];
	int fd, n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return error_set(err, ENAMETOOLONG, "--pid-file %s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_sys(err, errno, "--pid-file %s", path);
	n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (write(fd, buf, n) != n) {
		close(fd);
		unlink(tmp);
		return error_sys(err, errno, "--pid-file %s", path);
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return error_sys(err, errno, "--pid-file %s", path);
	}
	return 0;
}
