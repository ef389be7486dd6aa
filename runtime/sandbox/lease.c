/* Leased host ids: see lease.h. */
#include "runtime/sandbox/lease.h"
#include "runtime/sandbox/lease_subid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int container_lease_read(int state_dirfd, uint32_t *id)
{
	char buf[32], *end;
	unsigned long v;
	ssize_t n;
	int fd = openat(state_dirfd, LEASE_RECORD, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v > UINT32_MAX)
		return -EINVAL;
	*id = (uint32_t)v;
	return 0;
}

int container_lease_release(int state_dirfd)
{
	if (unlinkat(state_dirfd, LEASE_RECORD, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* Locked by someone (create, delete, a command in progress)? */
static bool dir_locked(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool locked;

	if (fd < 0)
		return true;
	locked = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return locked;
}

bool container_lease_held(int rootfd, const char *name)
{
	int dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct container c = { .rootfd = -1, .dirfd = -1 };
	struct error err;
	char root[64];
	bool held;

	if (dirfd < 0)
		return false;
	if (dir_locked(dirfd)) {
		close(dirfd);
		return true;
	}
	close(dirfd);
	/* unlocked: held while its init lives (created, running, paused) */
	snprintf(root, sizeof(root), "/proc/self/fd/%d", rootfd);
	if (container_load(root, name, false, &c, &err) < 0)
		return false;
	held = c.st.pid > 0 && container_alive(&c);
	container_close(&c);
	return held;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The ids in [first, last] held by the other state dirs, sorted. */
static int held_ids(struct container *c, uint32_t first, uint32_t last, uint32_t **out, size_t *n)
{
	int fd = openat(c->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t cap = 0;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		uint32_t id;
		int dfd;

		if (e->d_name[0] == '.' || strcmp(e->d_name, c->name) == 0 ||
		    (dfd = openat(c->rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		int r = container_lease_read(dfd, &id);

		close(dfd);
		if (r < 0 || id < first || id > last || !container_lease_held(c->rootfd, e->d_name))
			continue;
		if (*n == cap) {
			uint32_t *p = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(uint32_t));

			if (!p) {
				closedir(d);
				return -ENOMEM;
			}
			*out = p;
		}
		(*out)[(*n)++] = id;
	}
	closedir(d);
	qsort(*out, *n, sizeof(uint32_t), cmp_u32);
	return 0;
}

/* Written and renamed under the lease lock, never fsync'ed: a lease is held
 * only while its container's init lives, and no init outlives a crash of the
 * host, so the record need not outlive one either; a flush here would hold
 * the lock, and every other sandbox's start, for a disk write (an ext4 root). */
static int write_record(struct container *c, uint32_t id, struct error *err)
{
	char buf[32];
	int fd, n = snprintf(buf, sizeof(buf), "%u\n", id);

	fd = openat(c->dirfd, LEASE_RECORD ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_sys(err, errno, "%s/%s", c->dir, LEASE_RECORD);
	if (write(fd, buf, n) != n) {
		int e = errno ? errno : EIO;

		close(fd);
		unlinkat(c->dirfd, LEASE_RECORD ".tmp", 0);
		return error_sys(err, e, "%s/%s", c->dir, LEASE_RECORD);
	}
	close(fd);
	if (renameat(c->dirfd, LEASE_RECORD ".tmp", c->dirfd, LEASE_RECORD) < 0) {
		int e = errno;

		unlinkat(c->dirfd, LEASE_RECORD ".tmp", 0);
		return error_sys(err, e, "%s/%s", c->dir, LEASE_RECORD);
	}
	return 0;
}

static int lock_leases(struct container *c, struct error *err)
{
	int fd = openat(c->rootfd, LEASE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_sys(err, errno, "%s: lock", LEASE_LOCK);
	if (flock(fd, LOCK_EX) < 0) {
		int e = errno;

		close(fd);
		return error_sys(err, e, "%s: lock", LEASE_LOCK);
	}
	return fd;
}

/* The lowest id of [first, last] neither held nor in a subordinate range:
 * 0 and *pick, or -EBUSY. held is sorted. */
static int lowest_free(uint32_t first, uint32_t last, const uint32_t *held, size_t n,
		       const struct subid_ranges *sub, uint32_t *pick)
{
	uint64_t id = first, skip;
	size_t i = 0;

	while (id <= last) {
		if (subid_contains(sub, id, &skip)) {
			id = skip;
			continue;
		}
		while (i < n && held[i] < id)
			i++;
		if (i < n && held[i] == id) {
			id++;
			continue;
		}
		*pick = (uint32_t)id;
		return 0;
	}
	return -EBUSY;
}

/* Every range of /etc/subuid and /etc/subgid, read now (they change). */
static int subid_ranges_read(struct subid_ranges *sub, struct error *err)
{
	int r = subid_read("/etc/subuid", sub, err);

	if (r == 0)
		r = subid_read("/etc/subgid", sub, err);
	if (r < 0)
		subid_free(sub);
	return r;
}

int container_lease_acquire(struct container *c, const struct oci_sandbox *sb, uint32_t *id,
			    struct error *err)
{
	struct subid_ranges sub = { 0 };
	uint32_t *held, pick = 0;
	size_t n;
	int lock, r;

	if ((r = subid_ranges_read(&sub, err)) < 0)
		return r;
	if ((lock = lock_leases(c, err)) < 0) {
		subid_free(&sub);
		return lock;
	}
	if ((r = held_ids(c, sb->range_first, sb->range_last, &held, &n)) < 0) {
		close(lock);
		subid_free(&sub);
		return error_sys(err, -r, "%s: scan the uid leases", c->dir);
	}
	r = lowest_free(sb->range_first, sb->range_last, held, n, &sub, &pick);
	free(held);
	subid_free(&sub);
	if (r < 0)
		r = error_set(err, EBUSY, "run.tinyrun.userns: no free id in %u-%u (every one is leased to a live "
			      "container or listed in /etc/subuid or /etc/subgid)", sb->range_first, sb->range_last);
	else if ((r = write_record(c, pick, err)) == 0)
		*id = pick;
	close(lock);   /* the record is in the dir: the next picker sees it */
	return r;
}

int container_lease_share(struct container *c, uint32_t id, struct error *err)
{
	return write_record(c, id, err);
}
