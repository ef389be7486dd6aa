#include "statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

int container_id_check(const char *id, struct error *err)
{
	size_t n = strlen(id);

	if (n == 0 || n > 1024)
		return error_set(err, EINVAL, "invalid container id \"%.64s\": length must be 1 to 1024", id);
	if (id[0] == '.')
		return error_set(err, EINVAL, "invalid container id \"%s\": must not start with '.'", id);
	for (const char *p = id; *p; p++) {
		char ch = *p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '_' || ch == '+' || ch == '-' || ch == '.')
			continue;
		return error_set(err, EINVAL,
				 "invalid container id \"%.64s\": only letters, digits and _ + - . are allowed", id);
	}
	return 0;
}

/* Ids may be 1024 characters; file names only 255. A long id gets a
 * directory named '~' (never part of an id) and a hash of the id. */
static void dir_name(const char *id, char *out, size_t size)
{
	uint64_t h = 1469598103934665603ULL;

	if (strlen(id) <= 200) {
		snprintf(out, size, "%s", id);
		return;
	}
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(out, size, "~%.100s-%016llx", id, (unsigned long long)h);
}

static int set_dir(struct container *c, const char *root, const char *id, struct error *err)
{
	char name[256];

	dir_name(id, name, sizeof(name));
	if (snprintf(c->dir, sizeof(c->dir), "%s/%s", root, name) >= (int)sizeof(c->dir))
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

static int lock_dir(struct container *c, struct error *err)
{
	c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		return errno == ENOENT ? error_set(err, ENOENT, "container \"%s\" does not exist", c->id)
				       : error_sys(err, errno, "%s", c->dir);
	if (flock(c->dirfd, LOCK_EX) < 0)
		return error_sys(err, errno, "lock %s", c->dir);
	return 0;
}

int container_dir_create(const char *root, const char *id, struct container *c, struct error *err)
{
	int r;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->dirfd = -1;
	if ((r = container_id_check(id, err)) < 0 || (r = set_dir(c, root, id, err)) < 0)
		return r;
	if ((r = mkdir_root(root, err)) < 0)
		return r;
	if (mkdir(c->dir, 0711) < 0)
		return errno == EEXIST ? error_set(err, EEXIST, "container \"%s\" already exists", id)
				       : error_sys(err, errno, "create %s", c->dir);
	if ((r = lock_dir(c, err)) < 0) {
		rmdir(c->dir);
		return r;
	}
	return 0;
}

static int read_file_at(int dirfd, const char *name, char **buf, size_t *len)
{
	struct stat sb;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !(*buf = malloc(sb.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *buf, sb.st_size);
	close(fd);
	if (n < 0) {
		free(*buf);
		return -EIO;
	}
	(*buf)[n] = 0;
	*len = n;
	return 0;
}

int container_load(const char *root, const char *id, bool lock, struct container *c, struct error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->dirfd = -1;
	if (id[0] == '~') {        /* `list` names a hashed directory; the id is in the state */
		if (snprintf(c->dir, sizeof(c->dir), "%s/%s", root, id) >= (int)sizeof(c->dir))
			return error_set(err, ENAMETOOLONG, "--root %s: path too long", root);
	} else if ((r = container_id_check(id, err)) < 0 || (r = set_dir(c, root, id, err)) < 0) {
		return r;
	}
	if (lock) {
		if ((r = lock_dir(c, err)) < 0)
			return r;
	} else {
		c->dirfd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (c->dirfd < 0)
			return errno == ENOENT ? error_set(err, ENOENT, "container \"%s\" does not exist", id)
					       : error_sys(err, errno, "%s", c->dir);
	}
	r = read_file_at(c->dirfd, "state.json", &buf, &len);
	if (r == -ENOENT)
		return 0;      /* still being created */
	if (r < 0)
		return error_sys(err, -r, "%s/state.json", c->dir);
	r = oci_state_parse("state.json", buf, len, &c->st, err);
	free(buf);
	if (r < 0) {
		error_prefix(err, "container \"%s\"", id);
		return r;
	}
	c->has_state = true;
	if (id[0] == '~')
		c->id = c->st.id;
	return 0;
}

int container_save_state(struct container *c, struct error *err)
{
	char *json;
	size_t len;
	int fd, r;

	if ((r = oci_state_to_json(&c->st, NULL, false, &json, &len, err)) < 0)
		return r;
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

void container_dir_remove(struct container *c)
{
	static const char *const files[] = { "state.json", "state.json.tmp", "config.json", "exec.fifo",
					     "no-new-keyring" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(c->dirfd, files[i], 0);
	rmdir(c->dir);
}

void container_close(struct container *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
	if (c->has_state && c->st.arena)   /* create fills st with borrowed strings */
		oci_state_free(&c->st);
	c->has_state = false;
}

uint64_t proc_start_time(pid_t pid, bool *zombie)
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
	start = proc_start_time(c->st.pid, &zombie);
	return start != 0 && !zombie && start == c->st.pid_start_time;
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
	if (faccessat(c->dirfd, "exec.fifo", F_OK, 0) == 0)
		return STATUS_CREATED;
	if (c->st.cgroup_path && cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, &err) == 0) {
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

int write_pid_file(const char *path, pid_t pid, struct error *err)
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
