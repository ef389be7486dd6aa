/* Finding and reading tests/unit/fixtures/ from a unit test binary, wherever
 * it is run from: $FIXTURES, then next to this source, then relative to the
 * binary (build/tests/ -> tests/unit/fixtures). */
#ifndef TINYRUN_TEST_OCI_FIXTURES_H
#define TINYRUN_TEST_OCI_FIXTURES_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline FILE *fixture_open(const char *name, char *path, size_t size)
{
	const char *env = getenv("FIXTURES");
	char exe[PATH_MAX], *slash;
	ssize_t n;
	FILE *f;

	if (env) {
		snprintf(path, size, "%s/%s", env, name);
		if ((f = fopen(path, "re")))
			return f;
	}
	snprintf(path, size, "%s", __FILE__);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, size - (size_t)(slash ? slash + 1 - path : 0),
		 "fixtures/%s", name);
	if ((f = fopen(path, "re")))
		return f;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		snprintf(path, size, "%s/../../tests/unit/fixtures/%s", exe, name);
		if ((f = fopen(path, "re")))
			return f;
	}
	return NULL;
}

/* The whole fixture, NUL-terminated (malloc'd), or NULL with a message. */
static inline char *fixture_read(const char *name, size_t *len)
{
	char path[PATH_MAX + 64], *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f = fixture_open(name, path, sizeof(path));

	if (!f) {
		fprintf(stderr, "fixture %s: not found (set FIXTURES=dir)\n", name);
		return NULL;
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Path of a fixture (for oci_config_load). */
static inline const char *fixture_path(const char *name)
{
	static char path[PATH_MAX + 64];
	FILE *f = fixture_open(name, path, sizeof(path));

	if (f)
		fclose(f);
	return path;
}

#endif
