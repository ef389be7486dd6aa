/* /etc/subuid and /etc/subgid for the uid leases: see lease_subid.h. */
#include "runtime/sandbox/lease_subid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/util.h"

static int add(struct subid_ranges *s, uint64_t first, uint64_t count)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct subid_range *p = realloc(s->r, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->r = p;
		s->cap = cap;
	}
	s->r[s->n++] = (struct subid_range){ first, first + count - 1 };
	return 0;
}

/* "name:start:count": start and count plain decimals, count >= 1 */
static bool parse_line(const char *line, size_t len, uint64_t *first, uint64_t *count)
{
	const char *c1 = memchr(line, ':', len), *c2, *end = line + len;
	char num[2][24];

	if (!c1 || c1 == line || !(c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))))
		return false;
	size_t l0 = (size_t)(c2 - c1 - 1), l1 = (size_t)(end - c2 - 1);
	if (l0 == 0 || l1 == 0 || l0 >= sizeof(num[0]) || l1 >= sizeof(num[1]))
		return false;
	memcpy(num[0], c1 + 1, l0);
	num[0][l0] = '\0';
	memcpy(num[1], c2 + 1, l1);
	num[1][l1] = '\0';
	if (strspn(num[0], "0123456789") != l0 || strspn(num[1], "0123456789") != l1)
		return false;
	*first = strtoull(num[0], NULL, 10);
	*count = strtoull(num[1], NULL, 10);
	return *count > 0 && *first <= UINT32_MAX && *count <= (uint64_t)UINT32_MAX + 1;
}

int subid_parse(const char *text, struct subid_ranges *out)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		uint64_t first, count;
		int r;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (*p != '#' && parse_line(p, len, &first, &count) && (r = add(out, first, count)) < 0)
			return r;
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	return 0;
}

int subid_read(const char *path, struct subid_ranges *out, struct error *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;
	struct stat st;
	char *text;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return error_sys(err, errno, "run.tinyrun.userns: %s", path);
	if (fstat(fd, &st) < 0) {
		r = errno;
		close(fd);
		return error_sys(err, r, "run.tinyrun.userns: %s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, EINVAL, "run.tinyrun.userns: %s: not a regular file (%s)", path,
				 util_file_kind(st.st_mode));
	}
	r = util_read_fd(fd, (size_t)st.st_size + 1, SUBID_FILE_MAX, &text, NULL);
	close(fd);
	if (r == -EFBIG)
		return error_set(err, EFBIG, "run.tinyrun.userns: %s: larger than %d bytes", path, SUBID_FILE_MAX);
	if (r < 0)
		return error_sys(err, -r, "run.tinyrun.userns: %s", path);
	r = subid_parse(text, out);
	free(text);
	return r < 0 ? error_sys(err, -r, "run.tinyrun.userns: %s", path) : 0;
}

void subid_free(struct subid_ranges *s)
{
	free(s->r);
	*s = (struct subid_ranges){ 0 };
}

bool subid_contains(const struct subid_ranges *s, uint64_t id, uint64_t *skip_to)
{
	for (size_t i = 0; i < s->n; i++)
		if (id >= s->r[i].first && id <= s->r[i].last) {
			*skip_to = s->r[i].last + 1;
			return true;
		}
	return false;
}
