/* Compiled filters cached on disk, one file per distinct profile.
 *
 * The key is a canonical byte serialisation of everything the BPF depends
 * on: the profile, the computed seccomp(2) flags, the libseccomp version and
 * the kernel (machine, release). The file name is the key's FNV-1a 64 hash;
 * the file holds the key itself, so a hash collision is only a miss.
 *
 * File: "TRSCMP1\n", u32 key_len, n_insns, flags, notify, skipped_len, then
 * key, instructions, skipped syscall names ('\n'-separated), and a trailing
 * hash64 over all of it (a torn or corrupted file is a miss).
 *
 * Every start hashes the key (~7 KB for the default profile) and checks the
 * file (~15 KB): hash64 takes 8 bytes a multiply where byte-wise FNV-1a takes
 * one, and the key is written into a buffer sized for it in advance. Neither
 * hash is a defence: the key itself is compared byte for byte. */
#include "seccomp.h"
#include "oci/callerenv.h"
#include "oci/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAGIC "TRSCMP1\n"
#define MAX_FILE (4u << 20)

/* ---- the hash of the file name and of the file's check ------------------- */

/* FNV-1a's step on 64-bit words (then on the tail's bytes), finished with
 * murmur3's fmix64 so that every input bit reaches the name's low bits. */
static uint64_t hash64(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = UTIL_FNV1A64_BASIS ^ (n * 0x9e3779b97f4a7c15ULL), w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; n; p++, n--)
		h = (h ^ *p) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* ---- the key and file are built in a util_buf ---------------------------- */

/* util_buf_put's work without its call when the buffer has room (the key's
 * thousand small fields); b->oom is checked once at the end */
static inline void put(struct util_buf *b, const void *data, size_t n)
{
	if (!b->oom && b->len + n + 1 <= b->cap) {
		if (n)
			memcpy(b->p + b->len, data, n);
		b->len += n;
		b->p[b->len] = '\0';
		return;
	}
	(void)util_buf_put(b, data, n);
}

static void put_u32(struct util_buf *b, uint32_t v) { put(b, &v, sizeof(v)); }
static void put_u64(struct util_buf *b, uint64_t v) { put(b, &v, sizeof(v)); }

static void put_str(struct util_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u32(b, s ? (uint32_t)n : UINT32_MAX);  /* NULL differs from "" */
	put(b, s, n);
}

/* ---- key ---------------------------------------------------------------- */

/* This program's GNU build id (the linker's hash of the binary), from its
 * PT_NOTE segments in memory: no file is read. */
static struct { const unsigned char *p; size_t n; } build_id;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const char *name = p + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
			    nh->n_descsz) {
				build_id.p = (const unsigned char *)desc;
				build_id.n = nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;   /* the first object is the program itself: stop there */
}

static void put_rule(struct util_buf *b, const struct oci_seccomp_rule *r)
{
	put_u64(b, r->n_names);
	for (size_t i = 0; i < r->n_names; i++)
		put_str(b, r->names[i]);
	put_u32(b, r->action);
	put_u32(b, r->has_errno_ret);
	put_u32(b, r->errno_ret);
	put_u64(b, r->n_args);
	for (size_t i = 0; i < r->n_args; i++) {
		put_u32(b, r->args[i].index);
		put_u64(b, r->args[i].value);
		put_u64(b, r->args[i].value_two);
		put_u32(b, r->args[i].op);
	}
}

/* listenerPath and listenerMetadata are left out: they do not change the BPF. */
int seccomp_cache_key(const struct oci_seccomp *s, unsigned int flags, bool notify,
		      unsigned char **key, size_t *len)
{
	const struct scmp_version *v = seccomp_version();
	/* room for the default profile's key (~7 KB) at once; a bigger one grows */
	struct util_buf b = { .p = malloc(16384), .cap = 16384 };
	struct utsname u;

	if (!b.p)
		b.cap = 0;
	if (uname(&u) < 0) {
		free(b.p);
		return -errno;
	}
	/* the cache outlives this binary (a directory of its own, shared by
	 * every tinyrun build on the host): a filter is only reused by the
	 * build that compiled it */
	if (!build_id.n)
		dl_iterate_phdr(find_build_id, &build_id);
	if (!build_id.n) {
		free(b.p);
		return -ENOENT;     /* no build id: no cache */
	}
	put_str(&b, "tinyrun seccomp cache 4");   /* 2: -ENOSYS stub; 3: build id; 4: hash64 */
	put_u32(&b, (uint32_t)build_id.n);
	put(&b, build_id.p, build_id.n);
	put_u32(&b, v->major);
	put_u32(&b, v->minor);
	put_u32(&b, v->micro);
	put_str(&b, u.machine);
	put_str(&b, u.release);
	put_u32(&b, flags);
	put_u32(&b, notify);
	put_u32(&b, s->default_action);
	put_u32(&b, s->has_default_errno_ret);
	put_u32(&b, s->default_errno_ret);
	put_u64(&b, s->n_architectures);
	for (size_t i = 0; i < s->n_architectures; i++)
		put_str(&b, s->architectures[i]);
	put_u64(&b, s->n_syscalls);
	for (size_t i = 0; i < s->n_syscalls; i++)
		put_rule(&b, &s->syscalls[i]);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*key = (unsigned char *)b.p;
	*len = b.len;
	return 0;
}

static void cache_path(char *out, size_t size, const char *dir, const unsigned char *key, size_t len)
{
	snprintf(out, size, "%s/%016llx.bpf", dir,
		 (unsigned long long)hash64(key, len));
}

/* ---- skipped names ------------------------------------------------------ */

void seccomp_skipped_add(struct seccomp_skipped *sk, const char *name)
{
	size_t n = strlen(name);
	char *p = realloc(sk->text, sk->len + n + 2);

	if (!p)
		return;   /* only a debug replay is lost */
	memcpy(p + sk->len, name, n);
	p[sk->len + n] = '\n';
	p[sk->len + n + 1] = '\0';
	sk->text = p;
	sk->len += n + 1;
}

static void skipped_replay(const char *text, size_t len, void (*debug)(const char *))
{
	char msg[160];
	size_t i = 0;

	while (debug && i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		snprintf(msg, sizeof(msg), "seccomp: unknown syscall \"%.*s\" skipped", (int)n, text + i);
		debug(msg);
		i += n + 1;
	}
}

/* ---- read --------------------------------------------------------------- */

struct header {
	char magic[8];
	uint32_t key_len, n_insns, flags, notify, skipped_len;
};

static int read_file(const char *path, unsigned char **data, size_t *len)
{
	struct stat st;
	size_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r;

	if (fd < 0)
		return -errno;
	/* a file someone else could have written is not trusted as a filter */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size > MAX_FILE) {
		close(fd);
		return -EPERM;
	}
	r = util_read_fd(fd, (size_t)st.st_size + 1, MAX_FILE, (char **)data, &n);
	close(fd);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || n != (size_t)st.st_size) {
		if (r == 0)
			free(*data);
		return -EIO;
	}
	*len = n;
	return 0;
}

/* 0 on a hit (out filled), negative on a miss of any kind. */
int seccomp_cache_get(const char *dir, const unsigned char *key, size_t key_len,
		      void (*debug)(const char *), struct seccomp_prog *out)
{
	char path[4096];
	unsigned char *data = NULL;
	struct header h;
	uint64_t sum;
	size_t len = 0;
	int r;

	cache_path(path, sizeof(path), dir, key, key_len);
	r = read_file(path, &data, &len);
	if (r < 0)
		return r;
	r = -EBADMSG;
	if (len < sizeof(h) + sizeof(sum))
		goto out;
	memcpy(&h, data, sizeof(h));
	memcpy(&sum, data + len - sizeof(sum), sizeof(sum));
	size_t insn_bytes = (size_t)h.n_insns * sizeof(struct sock_filter);
	if (memcmp(h.magic, MAGIC, 8) != 0 || h.n_insns == 0 || h.n_insns > BPF_MAXINSNS ||
	    sizeof(h) + (size_t)h.key_len + insn_bytes + h.skipped_len + sizeof(sum) != len ||
	    hash64(data, len - sizeof(sum)) != sum)
		goto out;
	if (h.key_len != key_len || memcmp(data + sizeof(h), key, key_len) != 0)
		goto out;   /* another profile with the same hash */
	out->filter = malloc(insn_bytes);
	if (!out->filter) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(out->filter, data + sizeof(h) + key_len, insn_bytes);
	out->len = (unsigned short)h.n_insns;
	out->flags = h.flags;
	out->notify = h.notify;
	skipped_replay((const char *)data + sizeof(h) + key_len + insn_bytes, h.skipped_len, debug);
	r = 0;
out:
	free(data);
	return r;
}

/* ---- write -------------------------------------------------------------- */

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Write to a temporary file and rename it into place, so a reader sees a
 * whole entry or none. Errors are returned for a debug note only. */
int seccomp_cache_put(const char *dir, const unsigned char *key, size_t key_len,
		      const struct seccomp_prog *prog, const struct seccomp_skipped *sk)
{
	struct header h = { .key_len = (uint32_t)key_len, .n_insns = prog->len, .flags = prog->flags,
			    .notify = prog->notify, .skipped_len = (uint32_t)sk->len };
	struct util_buf b = { 0 };
	char path[4096], tmp[4096];
	uint64_t sum;
	int fd, r;

	memcpy(h.magic, MAGIC, 8);
	put(&b, &h, sizeof(h));
	put(&b, key, key_len);
	put(&b, prog->filter, (size_t)prog->len * sizeof(struct sock_filter));
	put(&b, sk->text, sk->len);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	sum = hash64(b.p, b.len);
	put(&b, &sum, sizeof(sum));

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		goto out;
	}
	cache_path(path, sizeof(path), dir, key, key_len);
	snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = b.oom ? -ENOMEM : write_all(fd, b.p, b.len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
out:
	free(b.p);
	return r;
}

/* ---- where ---------------------------------------------------------------- */

const char *seccomp_cache_dir(char *buf, size_t size, bool user, void (*debug)(const char *msg))
{
	const char *xdg = callerenv_get("XDG_RUNTIME_DIR"), *why = NULL;
	char msg[4200];
	struct stat st;
	int fd;

	if (!user)
		snprintf(buf, size, "/run/tinyrun-cache");
	else if (xdg && xdg[0] == '/' && (size_t)snprintf(buf, size, "%s/tinyrun-cache", xdg) < size)
		;
	else
		return NULL;
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		why = strerror(errno);
	else if ((fd = open(buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		why = strerror(errno);
	else {
		if (fstat(fd, &st) < 0)
			why = strerror(errno);
		else if (st.st_uid != geteuid())
			why = "owned by another user";
		else if (st.st_mode & 022)
			why = "writable by group or others";
		close(fd);
	}
	if (!why)
		return buf;
	if (debug) {
		snprintf(msg, sizeof(msg), "seccomp: cache %s not used: %s", buf, why);
		debug(msg);
	}
	return NULL;
}
