#include "runtime/linux/rdt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define RESCTRL "/sys/fs/resctrl"
#define RDTGROUP_SUPER_MAGIC 0x7655821

static void group_path(const char *id, const struct oci_intel_rdt *r, char *buf, size_t size)
{
	snprintf(buf, size, RESCTRL "/%s", r && r->clos_id ? r->clos_id : id);
}

static int write_line(const char *dir, const char *file, const char *line, struct error *err)
{
	char path[4200];
	size_t n = strlen(line);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_sys(err, e, "linux.intelRdt: write \"%s\" to %s", line, path);
	}
	close(fd);
	return 0;
}

int rdt_prepare(const char *id, const struct oci_intel_rdt *r, bool *created, struct error *err)
{
	struct statfs sfs;
	char dir[4096];
	int rc;

	*created = false;
	if (statfs(RESCTRL, &sfs) < 0 || sfs.f_type != RDTGROUP_SUPER_MAGIC)
		return error_set(err, ENODEV, "linux.intelRdt: resctrl is not mounted at " RESCTRL);
	group_path(id, r, dir, sizeof(dir));
	if (mkdir(dir, 0755) == 0)
		*created = true;
	else if (errno != EEXIST)
		return error_sys(err, errno, "linux.intelRdt: %s", dir);
	if (r->l3_cache_schema && (rc = write_line(dir, "schemata", r->l3_cache_schema, err)) < 0)
		goto fail;
	if (r->mem_bw_schema && (rc = write_line(dir, "schemata", r->mem_bw_schema, err)) < 0)
		goto fail;
	for (size_t i = 0; i < r->n_schemata; i++)
		if ((rc = write_line(dir, "schemata", r->schemata[i], err)) < 0)
			goto fail;
	return 0;
fail:
	if (*created)
		rmdir(dir);
	return rc;
}

int rdt_attach(const char *id, const struct oci_intel_rdt *r, pid_t pid, struct error *err)
{
	char dir[4096], val[16];

	group_path(id, r, dir, sizeof(dir));
	snprintf(val, sizeof(val), "%d", (int)pid);
	return write_line(dir, "tasks", val, err);
}

void rdt_remove(const char *id)
{
	char dir[4096];

	group_path(id, NULL, dir, sizeof(dir));
	rmdir(dir);
}
