/* The key of a sandbox request: request_key.h. */
#include "runtime/sandbox/request_key.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/config.h"

#define ANN OCI_ANNOTATION_REQUEST_KEY_FILE

/* `file` beneath the bundle: no symlink, no magic link, no way out. */
static int open_beneath(const char *bundle, const char *file)
{
	struct open_how how = { .flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int dir = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (dir < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, dir, file, &how, sizeof(how));
	fd = fd < 0 ? -errno : fd;
	close(dir);
	return fd;
}

/* The key, hashed with `salt`, into out (the key itself wiped). */
static int hash_file(const char *bundle, const char *file, const uint8_t *salt, uint8_t *out, struct error *err)
{
	uint8_t key[OCI_SANDBOX_KEY_MAX + 1];
	struct oci_sha256 s;
	struct stat sb;
	ssize_t n;
	int fd = open_beneath(bundle, file);

	if (fd < 0)
		return error_sys(err, -fd, ANN ": open %s in the bundle", file);
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return error_set(err, EINVAL, ANN ": %s in the bundle: not a regular file", file);
	}
	n = read(fd, key, sizeof(key));
	close(fd);
	if (n < 0)
		return error_sys(err, errno, ANN ": read %s in the bundle", file);
	if (n < OCI_SANDBOX_KEY_MIN || n > OCI_SANDBOX_KEY_MAX) {
		explicit_bzero(key, sizeof(key));
		return error_set(err, EINVAL, ANN ": %s in the bundle: a key is %d to %d bytes", file,
				 OCI_SANDBOX_KEY_MIN, OCI_SANDBOX_KEY_MAX);
	}
	oci_sha256_init(&s);
	oci_sha256_update(&s, salt, REQUEST_KEY_SALT);
	oci_sha256_update(&s, key, (size_t)n);
	oci_sha256_final(&s, out);
	explicit_bzero(key, sizeof(key));
	return 0;
}

int container_request_key_new(const char *bundle, const char *file, struct request_key *k, struct error *err)
{
	if (getrandom(k->salt, sizeof(k->salt), 0) != (ssize_t)sizeof(k->salt))
		return error_sys(err, errno ? errno : EIO, ANN ": getrandom");
	return hash_file(bundle, file, k->salt, k->hash, err);
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static int nibble(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

static int unhex(const char *s, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = nibble(s[2 * i]), lo = hi < 0 ? -1 : nibble(s[2 * i + 1]);

		if (lo < 0)
			return -EINVAL;
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* the record's text: "sha256 SALT HASH\n", each in lower-case hex */
#define SALT_AT 7
#define HASH_AT (SALT_AT + 2 * REQUEST_KEY_SALT + 1)
#define RECORD_LEN (HASH_AT + 2 * OCI_SHA256_LEN + 1)

int container_request_key_record(struct container *c, const struct request_key *k, struct error *err)
{
	char salt[2 * REQUEST_KEY_SALT + 1], hash[2 * OCI_SHA256_LEN + 1], text[RECORD_LEN + 1];

	hex(salt, k->salt, REQUEST_KEY_SALT);
	hex(hash, k->hash, OCI_SHA256_LEN);
	snprintf(text, sizeof(text), "sha256 %s %s\n", salt, hash);
	return container_record_write(c->dirfd, REQUEST_KEY_RECORD, text, err);
}

static int read_record(const struct container *c, struct request_key *k)
{
	size_t len;
	char *text;
	int r = container_read_file(c, REQUEST_KEY_RECORD, &text, &len);

	if (r < 0)
		return r;
	if (len != RECORD_LEN || memcmp(text, "sha256 ", SALT_AT) != 0 || text[HASH_AT - 1] != ' ' ||
	    text[RECORD_LEN - 1] != '\n' || unhex(text + SALT_AT, k->salt, REQUEST_KEY_SALT) < 0 ||
	    unhex(text + HASH_AT, k->hash, OCI_SHA256_LEN) < 0)
		r = -EINVAL;
	free(text);
	return r;
}

int container_request_key_check(const char *bundle, const char *file, const struct container *request,
				struct error *err)
{
	const char *id = request->st.id;
	uint8_t got[OCI_SHA256_LEN];
	struct request_key k;
	int r = read_record(request, &k);

	if (r == -ENOENT)
		return error_set(err, ENOENT, "run.tinyrun.sandbox.request: container \"%s\" takes no tasks "
				 "(it was created without " ANN ")", id);
	if (r < 0)
		return error_sys(err, -r, "run.tinyrun.sandbox.request: container \"%s\": its %s", id, REQUEST_KEY_RECORD);
	if (!file)   /* oci/sandbox/annotations_sandbox.c refuses this config already */
		return error_set(err, EACCES, "run.tinyrun.sandbox.request: needs " ANN " (the key of request \"%s\")", id);
	if ((r = hash_file(bundle, file, k.salt, got, err)) < 0)
		return r;
	if (!oci_equal_const_time(got, k.hash, OCI_SHA256_LEN))
		return error_set(err, EACCES, ANN ": %s is not the key of request \"%s\"", file, id);
	return 0;
}
