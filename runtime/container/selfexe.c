/* The real binary's path across the sealed re-exec (selfexe.h). */
#include "runtime/container/selfexe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/callerenv.h"
#include "runtime/container/selfseal.h"
#include "runtime/container/selfseal_scan.h"

static char carried[PATH_MAX];

void selfexe_take(bool marked)
{
	const char *v = callerenv_get(SELFSEAL_EXE);

	if (v && marked && strlen(v) < sizeof(carried))
		strcpy(carried, v);
	callerenv_take(SELFSEAL_EXE);
}

/* Not sealed: /proc/self/exe's link, when it still names this file. */
static int linked_path(char *buf, size_t size, struct error *err)
{
	struct stat self, named;
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		return error_sys(err, n < 0 ? errno : ENAMETOOLONG, "the tinyrun binary's path: /proc/self/exe");
	buf[n] = '\0';
	if (stat("/proc/self/exe", &self) < 0)
		return error_sys(err, errno, "the tinyrun binary's path: /proc/self/exe");
	if (buf[0] != '/' || stat(buf, &named) < 0 || named.st_dev != self.st_dev || named.st_ino != self.st_ino)
		return error_set(err, ENOENT, "the tinyrun binary's path: /proc/self/exe names %s, which is not "
				 "this binary (a memfd, deleted, replaced or out of reach)", buf);
	return 0;
}

/* Sealed: the carried path, a regular file of this copy's size. */
static int carried_path(char *buf, size_t size, struct error *err)
{
	struct stat self, named;

	if (!carried[0])
		return error_set(err, ENOENT, "the tinyrun binary's path: running from a sealed copy that does "
				 "not carry it");
	if (stat("/proc/self/exe", &self) < 0)
		return error_sys(err, errno, "the tinyrun binary's path: /proc/self/exe");
	if (carried[0] != '/' || stat(carried, &named) < 0 || !S_ISREG(named.st_mode) ||
	    named.st_size != self.st_size)
		return error_set(err, ENOENT, "the tinyrun binary's path: %s is not the binary this sealed copy "
				 "was made from (replaced since?)", carried);
	if (strlen(carried) >= size)
		return error_set(err, ENAMETOOLONG, "the tinyrun binary's path: too long");
	strcpy(buf, carried);
	return 0;
}

int selfexe_path(char *buf, size_t size, struct error *err)
{
	return selfseal_running_marked() ? carried_path(buf, size, err) : linked_path(buf, size, err);
}

const char *selfexe_env(void)
{
	static char entry[sizeof(SELFSEAL_EXE "=") + PATH_MAX];
	char path[PATH_MAX];
	struct error err;

	if (selfexe_path(path, sizeof(path), &err) < 0)
		return NULL;
	snprintf(entry, sizeof(entry), "%s=%s", SELFSEAL_EXE, path);
	return entry;
}
