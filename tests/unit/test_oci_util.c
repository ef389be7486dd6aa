/* oci/util.h: the one whole-file reader, FNV-1a, the growable buffer and the
 * RFC 3339 time. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oci/util.h"
#include "unit.h"

/* The loop the state dir and cgroup names were hashed with before util_fnv1a64. */
static uint64_t old_id_hash(const char *id)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static void test_fnv(void)
{
	char id[1025];

	CHECK(util_fnv1a64("", 0, UTIL_FNV1A64_BASIS) == 0xcbf29ce484222325ULL);
	CHECK(util_fnv1a64("a", 1, UTIL_FNV1A64_BASIS) == 0xaf63dc4c8601ec8cULL);
	CHECK(util_fnv1a64("foobar", 6, UTIL_FNV1A64_BASIS) == 0x85944171f73967e8ULL);
	memset(id, 'x', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	id[7] = '\xe9';
	CHECK(util_fnv1a64(id, strlen(id), UTIL_ID_HASH_BASIS) == old_id_hash(id));
	CHECK(util_fnv1a64("c1", 2, UTIL_ID_HASH_BASIS) == old_id_hash("c1"));
}

/* A pipe of n bytes 'a'..'z' repeated (written by a child: more than a pipe holds). */
static int pipe_of(size_t n)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	if (fork() == 0) {
		close(p[0]);
		for (size_t i = 0; i < n; i++) {
			char c = 'a' + i % 26;
			if (write(p[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

static void test_read_fd(void)
{
	char *buf = NULL;
	size_t len = 0;
	int fd = pipe_of(100000), ok = 1;

	CHECK(util_read_fd(fd, 16, 0, &buf, &len) == 0);
	CHECK(len == 100000 && buf && buf[len] == '\0');
	for (size_t i = 0; buf && i < len; i++)
		ok &= buf[i] == 'a' + (int)(i % 26);
	CHECK(ok);
	free(buf);
	close(fd);

	/* max: exactly max bytes is fine, one more is -EFBIG, *out untouched */
	fd = pipe_of(4096);
	buf = NULL;
	CHECK(util_read_fd(fd, 0, 4096, &buf, NULL) == 0 && strlen(buf) == 4096);
	free(buf);
	close(fd);
	fd = pipe_of(4097);
	buf = (char *)"untouched";
	CHECK(util_read_fd(fd, 0, 4096, &buf, &len) == -EFBIG);
	CHECK_STR(buf, "untouched");
	close(fd);
	/* a hint over max is refused before reading */
	CHECK(util_read_fd(0, 100, 10, &buf, &len) == -EFBIG);

	fd = pipe_of(0);
	CHECK(util_read_fd(fd, 1, 0, &buf, &len) == 0 && len == 0 && buf[0] == '\0');
	free(buf);
	close(fd);
	CHECK(util_read_fd(-1, 0, 0, &buf, &len) == -EBADF);
}

static void test_read_at(void)
{
	char dir[] = "/tmp/test_oci_util.XXXXXX", *buf = NULL;
	size_t len;
	int dfd, fd;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = openat(dfd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	CHECK(write(fd, "hello\n", 6) == 6);
	close(fd);
	CHECK(symlinkat("f", dfd, "l") == 0);
	CHECK(util_read_at(dfd, "f", 0, 0, 0, &buf, &len) == 0 && len == 6);
	CHECK_STR(buf, "hello\n");
	free(buf);
	CHECK(util_read_at(dfd, "missing", 0, 0, 0, &buf, &len) == -ENOENT);
	CHECK(util_read_at(dfd, "l", O_NOFOLLOW, 0, 0, &buf, &len) == -ELOOP);
	unlinkat(dfd, "l", 0);
	unlinkat(dfd, "f", 0);
	close(dfd);
	rmdir(dir);
}

static void test_buf(void)
{
	struct util_buf b = { 0 };
	char big[5000];

	CHECK(util_buf_put(&b, "ab", 2) == 0 && b.len == 2);
	CHECK_STR(b.p, "ab");
	CHECK(util_buf_put(&b, NULL, 0) == 0 && b.len == 2);
	memset(big, 'z', sizeof(big));
	CHECK(util_buf_put(&b, big, sizeof(big)) == 0 && b.len == 5002 && b.cap > 5002);
	CHECK(b.p[5002] == '\0' && b.p[5001] == 'z' && b.p[1] == 'b');
	b.oom = true;
	CHECK(util_buf_put(&b, "c", 1) == -ENOMEM && b.len == 5002);
	free(b.p);
}

static size_t name_len(const char *kv)
{
	return strcspn(kv, "=");
}

/* util_mark_repeats: by key, the last (env) or the first (paths) kept */
static void test_mark_repeats(void)
{
	char *env[] = { "A=1", "B=2", "A=3", "AB=4", "B=", "A=5" };
	char *paths[] = { "/x", "/y", "/x", "/x/" };
	bool r[6];

	util_mark_repeats(env, 6, name_len, true, r);
	CHECK(r[0] && r[1] && r[2] && !r[3] && !r[4] && !r[5]);
	util_mark_repeats(paths, 4, strlen, false, r);
	CHECK(!r[0] && !r[1] && r[2] && !r[3]);
	util_mark_repeats(paths, 1, strlen, false, r);
	CHECK(!r[0]);
}

/* util_rfc3339: as gmtime_r says, across leap days, centuries and 2038 */
static void test_rfc3339(void)
{
	static const time_t at[] = { 0, 59, 86399, 951782400, 951868799, 978307200, 1709164800,
				     1735689599, 2147483647, 4107542400, 4107455999, 253402300799 };
	char got[64], want[64];
	struct tm tm;

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct timespec ts = { .tv_sec = at[i], .tv_nsec = 7 };

		gmtime_r(&at[i], &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S.000000007Z", &tm);
		util_rfc3339(&ts, got, sizeof(got));
		CHECK_STR(got, want);
	}
	/* every day of a leap year (2024), at 01:01:01 */
	for (time_t t = 1704067200; t < 1735689600; t += 86400) {
		struct timespec ts = { .tv_sec = t + 3661 };

		gmtime_r(&ts.tv_sec, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S.000000000Z", &tm);
		util_rfc3339(&ts, got, sizeof(got));
		CHECK_STR(got, want);
	}
}

int main(void)
{
	test_fnv();
	test_read_fd();
	test_read_at();
	test_buf();
	test_mark_repeats();
	test_rfc3339();
	return unit_report("test_oci_util");
}
