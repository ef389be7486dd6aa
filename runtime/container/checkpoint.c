/* checkpoint: the container's process tree dumped by CRIU into an image dir,
 * with what runc tells CRIU about a container (its root, its cgroup for the
 * freezer, the mounts and namespaces from outside it) and runc's
 * descriptors.json for restore. */
#include "runtime/container/cr.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/descriptors.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/criu/swrk.h"
#include "runtime/log.h"

#define DUMP_LOG "dump.log"

/* runc's keys for a namespace the container joined by path (restore passes it back) */
static int add_external_ns(const struct oci_config *cfg, enum oci_ns_type t, const char *name, char out[][128],
			   size_t *n, struct error *err)
{
	struct stat sb;

	if (!cfg->has_linux || !cfg->linux_.ns[t].present || !cfg->linux_.ns[t].path)
		return 0;
	if (stat(cfg->linux_.ns[t].path, &sb) < 0)
		return error_sys(err, errno, "checkpoint: namespace %s", cfg->linux_.ns[t].path);
	snprintf(out[(*n)++], 128, "%s[%llu]:%s", name, (unsigned long long)sb.st_ino, cr_external_ns_key(t));
	return 0;
}

/* cgroup2 (or v1's freezer hierarchy): CRIU freezes the tree there */
static void freeze_cgroup(const struct container *c, char *out, size_t size)
{
	out[0] = '\0';
	if (!c->st.cgroup_path || c->st.systemd_cgroup)
		return;
	if (cgroup_detect() == CGROUP_MODE_V2)
		snprintf(out, size, "/sys/fs/cgroup%s", c->st.cgroup_path);
	else
		snprintf(out, size, "/sys/fs/cgroup/freezer%s", c->st.cgroup_path);
	if (access(out, F_OK) < 0)
		out[0] = '\0';
}

/* descriptors.json: the init's fds 0-2, as runc writes it */
static int write_descriptors(const struct container *c, int img, struct error *err)
{
	char link[64], target[3][PATH_MAX], *json;
	const char *fds[OCI_DESCRIPTORS];
	size_t len;
	ssize_t n;
	int fd, r;

	for (int i = 0; i < OCI_DESCRIPTORS; i++) {
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)c->st.pid, i);
		n = readlink(link, target[i], sizeof(target[i]) - 1);
		target[i][n > 0 ? n : 0] = '\0';
		fds[i] = target[i];
	}
	if ((r = oci_descriptors_to_json(fds, &json, &len)) < 0)
		return error_set(err, -r, "checkpoint: descriptors.json: out of memory");
	fd = openat(img, "descriptors.json", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	r = fd >= 0 && write(fd, json, len) == (ssize_t)len ? 0 : error_sys(err, errno, "checkpoint: descriptors.json");
	if (fd >= 0)
		close(fd);
	free(json);
	return r;
}

/* runc: --parent-path is relative to the image dir and names a directory */
static int check_parent(const struct cr_opts *o, int img, struct error *err)
{
	struct stat sb;

	if (o->parent_path[0] == '/')
		return error_set(err, EINVAL, "checkpoint: --parent-path must be relative");
	if (fstatat(img, o->parent_path, &sb, 0) < 0)
		return error_sys(err, errno, "checkpoint: invalid --parent-path: %s/%s", o->image_path, o->parent_path);
	if (!S_ISDIR(sb.st_mode))
		return error_set(err, ENOTDIR, "checkpoint: invalid --parent-path: %s/%s: Not a directory", o->image_path,
				 o->parent_path);
	return 0;
}

/* lazy migration: CRIU's page server is up (criu 3.15+ says so with a
 * notification); as runc, a \0 on --status-fd, then it is closed */
static int dump_notify(void *arg, const struct criu_resp *r, int fd, struct error *err)
{
	int *status_fd = arg;

	(void)err;
	if (fd >= 0)
		close(fd);
	if (*status_fd >= 0 && strcmp(r->notify_script, "status-ready") == 0) {
		if (write(*status_fd, "", 1) != 1)
			log_warn("checkpoint: --status-fd %d: %s", *status_fd, strerror(errno));
		close(*status_fd);
		*status_fd = -1;
	}
	return 0;
}

static int dump(const char *criu, struct container *c, const struct cr_opts *o, struct criu_opts *co,
		struct error *err)
{
	int status_fd = o->lazy_pages ? o->status_fd : -1;
	struct criu_swrk s;
	struct criu_resp resp;
	int r;

	if ((r = criu_swrk_start(&s, criu, NULL, 0, err)) < 0)
		return r;
	log_debug("criu %s: pid %d, root %s, images %s", o->pre_dump ? "pre-dump" : "dump", (int)c->st.pid,
		  c->st.rootfs, o->image_path);
	r = criu_swrk_call(&s, o->pre_dump ? CRIU_REQ_PRE_DUMP : CRIU_REQ_DUMP, co, dump_notify, &status_fd, &resp,
			   err);
	criu_swrk_end(&s);
	if (r < 0)
		cr_log_hint(o, DUMP_LOG, err);
	return r;
}

int container_checkpoint(struct container *c, const struct oci_config *cfg, const struct cr_opts *o,
			 struct error *err)
{
	char criu[PATH_MAX], freezer[PATH_MAX], ext[2][128];
	const char *external[2];
	struct cr_ext_mounts m = { 0 };
	struct criu_opts co;
	size_t n_ext = 0;
	int img = -1, work = -1, r;

	if ((r = cr_criu_path("checkpoint", criu, sizeof(criu), NULL, err)) < 0)
		return r;
	if ((r = add_external_ns(cfg, OCI_NS_NET, "net", ext, &n_ext, err)) < 0 ||
	    (r = add_external_ns(cfg, OCI_NS_PID, "pid", ext, &n_ext, err)) < 0)
		return r;
	if ((r = cr_open_dirs(o, true, &img, &work, err)) < 0)
		return r;
	if (o->parent_path && (r = check_parent(o, img, err)) < 0)
		goto out;
	cr_base_opts(o, c->st.annotations, c->st.n_annotations, img, work, DUMP_LOG, &co);
	co.pid = c->st.pid;
	co.root = c->st.rootfs;
	if (o->ps_address[0]) {
		co.ps_address = o->ps_address;
		co.ps_port = o->ps_port;
	}
	co.leave_running = o->leave_running || o->pre_dump;
	if (o->parent_path) {
		co.parent_img = o->parent_path;
		co.track_mem = true;
	}
	if (o->pre_dump)
		co.track_mem = true;
	freeze_cgroup(c, freezer, sizeof(freezer));
	co.freeze_cgroup = freezer[0] ? freezer : NULL;
	for (size_t i = 0; i < n_ext; i++)
		external[i] = ext[i];
	co.external = external;
	co.n_external = n_ext;
	if (!o->pre_dump) {
		if ((r = cr_ext_mounts(cfg, c->st.pid, NULL, NULL, &m, err)) < 0 ||
		    (r = write_descriptors(c, img, err)) < 0)
			goto out;
		co.ext_mnt = m.kv;
		co.n_ext_mnt = m.n;
	}
	r = dump(criu, c, o, &co, err);
out:
	cr_ext_mounts_free(&m);
	close(img);
	if (work >= 0)
		close(work);
	return r;
}
