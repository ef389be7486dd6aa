#include "oci/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int util_read_fd(int fd, size_t hint, size_t max, char **out, size_t *len)
{
	size_t cap = hint ? hint : 4096, n = 0;
	char *buf;

	if (!max)
		max = SIZE_MAX - 1;
	if (cap > max + 1)
		return -EFBIG;
	if (!(buf = malloc(cap)))
		return -ENOMEM;
	for (;;) {
		/* full (a hint of the size + 1 is, before the read that sees the
		 * end): that read goes to the stack, the buffer grows only for data */
		char more[256], *to = n + 1 == cap ? more : buf + n;
		size_t room = n + 1 == cap ? sizeof(more) : cap - n - 1;
		ssize_t k;

		if (to == more && n > max) {   /* past max: no read more (a FIFO may never end) */
			free(buf);
			return -EFBIG;
		}
		k = read(fd, to, room);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (k == 0)
			break;
		if (to == more) {
			char *b;
			size_t want = cap;

			while (want - n - 1 < (size_t)k)
				want *= 2;
			if (!(b = realloc(buf, want))) {
				free(buf);
				return -ENOMEM;
			}
			buf = b;
			cap = want;
			memcpy(buf + n, more, (size_t)k);
		}
		n += (size_t)k;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int util_read_at(int dirfd, const char *path, int flags, size_t hint, size_t max,
		 char **out, size_t *len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | flags), r;

	if (fd < 0)
		return -errno;
	r = util_read_fd(fd, hint, max, out, len);
	close(fd);
	return r;
}

const char *util_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:  return "a directory";
	case S_IFIFO:  return "a FIFO";
	case S_IFCHR:  return "a character device";
	case S_IFBLK:  return "a block device";
	case S_IFSOCK: return "a socket";
	default:       return "not a regular file";
	}
}

uint64_t util_fnv1a64(const void *data, size_t n, uint64_t basis)
{
	const unsigned char *p = data;
	uint64_t h = basis;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;   /* 1099511628211 */
	}
	return h;
}

int util_buf_put(struct util_buf *b, const void *data, size_t n)
{
	if (b->oom)
		return -ENOMEM;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->oom = true;
			return -ENOMEM;
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

bool util_data_has(const char *data, const char *key)
{
	size_t n = strlen(key);

	for (const char *o = data; o && *o; o = strchr(o, ',') ? strchr(o, ',') + 1 : NULL)
		if (strncmp(o, key, n) == 0)
			return true;
	return false;
}

struct repeat_sort {
	char *const *v;
	size_t (*key_len)(const char *);
};

static int by_key_then_index(const void *a, const void *b, void *arg)
{
	const struct repeat_sort *rs = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	size_t lx = rs->key_len(rs->v[x]), ly = rs->key_len(rs->v[y]);
	int c = memcmp(rs->v[x], rs->v[y], lx < ly ? lx : ly);

	if (!c && lx != ly)
		c = lx < ly ? -1 : 1;
	return c ? c : (x < y ? -1 : 1);
}

void util_mark_repeats(char *const *v, size_t n, size_t (*key_len)(const char *), bool keep_last,
		       bool *repeat)
{
	struct repeat_sort rs = { v, key_len };
	/* a short list on the stack: the container's init calls this (its env)
	 * and each heap page it writes is a copy of the runtime's */
	size_t small[32];
	size_t *idx = n > 1 ? n <= sizeof(small) / sizeof(small[0]) ? small : malloc(n * sizeof(*idx)) : NULL;

	for (size_t i = 0; i < n; i++)
		repeat[i] = false;
	if (!idx)
		return;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), by_key_then_index, &rs);
	/* equal keys sit together, in index order */
	for (size_t k = 1; k < n; k++)
		if (key_len(v[idx[k - 1]]) == key_len(v[idx[k]]) &&
		    !memcmp(v[idx[k - 1]], v[idx[k]], key_len(v[idx[k]])))
			repeat[keep_last ? idx[k - 1] : idx[k]] = true;
	if (idx != small)
		free(idx);
}

/* "/a//b/./c/../d/" -> "/a/b/d" into out (at least strlen(in) + 2 bytes):
 * purely lexical, as Go's filepath.Clean of "/" + in. */
void util_path_clean(const char *in, char *out)
{
	size_t n = 0;

	out[n++] = '/';
	while (*in) {
		const char *s;
		size_t len;

		while (*in == '/')
			in++;
		for (s = in; *in && *in != '/'; in++)
			;
		len = (size_t)(in - s);
		if (len == 0 || (len == 1 && s[0] == '.'))
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
			continue;
		}
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, s, len);
		n += len;
	}
	out[n] = '\0';
}

bool util_path_may_be_in(const char *root, const char *path)
{
	const char *last = strrchr(root, '/') + 1;

	return !*last || strstr(path, last);
}

const char *util_path_in_root(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (n == 1)
		return path;
	if (strncmp(path, root, n) != 0)
		return NULL;
	return path[n] == '\0' ? "/" : path[n] == '/' ? path + n : NULL;
}

void util_rfc3339(const struct timespec *ts, char *buf, size_t size)
{
	long long days = ts->tv_sec / 86400, sec = ts->tv_sec % 86400, z, era, doe, yoe, doy, mp, y;
	unsigned d, m;

	/* civil date from days since 1970-01-01 (H. Hinnant's algorithm) */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y = yoe + era * 400 + (m <= 2);
	snprintf(buf, size, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%09ldZ", y, m, d,
		 sec / 3600, sec / 60 % 60, sec % 60, ts->tv_nsec);
}

ssize_t util_send_fd(int sock, const struct iovec *iov, size_t n, int fd)
{
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr mh = { .msg_iov = (struct iovec *)iov, .msg_iovlen = n };
	ssize_t sent;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while ((sent = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0)
		if (errno != EINTR)
			return -errno;
	return sent;
}

long long util_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}
