#include "oci/callerenv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *none[] = { NULL };
static char **caller = none;   /* the private copy: callerenv_get, callerenv_list */
static char **view;            /* what `environ` points at after the capture */

int callerenv_capture(char *const *envp)
{
	extern char **environ;
	size_t n = 0, size = 0;
	char **c, **v, *p;

	for (; envp && envp[n]; n++)
		size += strlen(envp[n]) + 1;
	c = malloc((n + 1) * sizeof(*c));
	v = malloc((n + 1) * sizeof(*v));
	p = malloc(size ? size : 1);
	if (!c || !v || !p) {
		free(c);
		free(v);
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(envp[i]) + 1;

		c[i] = v[i] = memcpy(p, envp[i], len);
		p += len;
	}
	c[n] = v[n] = NULL;
	caller = c;
	view = v;
	environ = view;
	return 0;
}

/* The index of NAME in the copy, or -1 */
static long find(const char *name)
{
	size_t len = strlen(name);

	for (long i = 0; caller[i]; i++)
		if (!strncmp(caller[i], name, len) && caller[i][len] == '=')
			return i;
	return -1;
}

const char *callerenv_get(const char *name)
{
	long i = find(name);

	return i < 0 ? NULL : caller[i] + strlen(name) + 1;
}

char *const *callerenv_list(void)
{
	return caller;
}

static void drop(char **list, const char *entry)
{
	size_t i = 0;

	while (list[i] && list[i] != entry)
		i++;
	for (; list[i]; i++)
		list[i] = list[i + 1];
}

bool callerenv_take(const char *name)
{
	long i;
	bool found = false;

	while ((i = find(name)) >= 0) {
		char *entry = caller[i];

		drop(view, entry);
		drop(caller, entry);
		found = true;
	}
	return found;
}
