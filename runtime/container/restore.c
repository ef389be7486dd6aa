/* restore: a new container made from a checkpoint image, as runc does it:
 * its state dir and cgroup (the config's limits) first, then CRIU restores
 * the process tree into that cgroup, under the bundle's rootfs (bind-mounted
 * at <state dir>/criu-root, which CRIU needs as a mount point; the mounts'
 * destinations it lacks made first, rootfs/restore_points.c); the
 * prestart/createRuntime hooks run at CRIU's "setup-namespaces", the state
 * is saved at "post-restore". On failure nothing is left. */
#include "runtime/container/restore.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/descriptors.h"
#include "oci/util.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container/create.h"
#include "runtime/container/hooks.h"
#include "runtime/criu/swrk.h"
#include "runtime/linux/terminal.h"
#include "runtime/log.h"
#include "rootfs/rootfs.h"

#define RESTORE_LOG "restore.log"

struct restore {
	const struct cr_opts *o;
	const struct oci_config *cfg;
	struct container *c;
	struct cgroup cg;
	char root[PATH_MAX];          /* the criu-root bind mount, "" when none */
	struct rootfs_restore_binds binds;   /* bind sources on their mount points meanwhile */
	char stdio[OCI_DESCRIPTORS][256];
	struct criu_inherit_fd inherit[OCI_DESCRIPTORS + 2];
	size_t n_inherit;
	int ext_fds[2];               /* the net and pid namespaces joined by path, CRIU's fds 4.. */
	size_t n_ext_fds;
	struct criu_kv join[OCI_NS_TYPES];   /* the other namespaces joined by path: CRIU joins them */
	size_t n_join;
	pid_t pid;
};

/* descriptors.json: the init's stdio pipes at dump are our own fds 0-2 now (runc) */
static int plan_stdio(struct restore *rs, int img, struct error *err)
{
	char *json;
	size_t len;
	int r;

	if ((r = util_read_at(img, "descriptors.json", 0, 256, 64 * 1024, &json, &len)) < 0)
		return error_sys(err, -r, "restore: %s/descriptors.json", rs->o->image_path);
	r = oci_descriptors_parse(json, rs->stdio, err);
	free(json);
	if (r < 0)
		return r;
	for (int i = 0; i < OCI_DESCRIPTORS; i++)
		if (strstr(rs->stdio[i], "pipe:"))
			rs->inherit[rs->n_inherit++] = (struct criu_inherit_fd){ .key = rs->stdio[i], .fd = i };
	return 0;
}

/* Namespaces joined by path, as runc: the network and pid ones were dumped as
 * external (checkpoint.c) and CRIU restores into them by the same keys, from
 * fds it inherits; the others CRIU joins by their path (join_ns); a cgroup
 * namespace CRIU cannot join: refused, as runc does. */
static int plan_namespaces(struct restore *rs, struct error *err)
{
	static const char *const criu_name[OCI_NS_TYPES] = {
		[OCI_NS_MOUNT] = "mnt", [OCI_NS_IPC] = "ipc", [OCI_NS_UTS] = "uts",
		[OCI_NS_USER] = "user", [OCI_NS_TIME] = "time",
	};
	const struct oci_namespace *ns = rs->cfg->linux_.ns;

	if (!rs->cfg->has_linux)
		return 0;
	for (int t = 0; t < OCI_NS_TYPES; t++) {
		int fd;

		if (!ns[t].present || !ns[t].path)
			continue;
		if (t == OCI_NS_CGROUP)
			return error_set(err, EINVAL, "restore: linux.namespaces: a cgroup namespace joined by path "
					 "(%s) cannot be restored: CRIU cannot join one", ns[t].path);
		if (!cr_external_ns_key(t)) {
			rs->join[rs->n_join++] = (struct criu_kv){ .key = criu_name[t], .val = ns[t].path };
			continue;
		}
		if ((fd = open(ns[t].path, O_RDONLY | O_CLOEXEC)) < 0)
			return error_sys(err, errno, "restore: %s namespace %s", t == OCI_NS_NET ? "network" : "pid",
					 ns[t].path);
		rs->inherit[rs->n_inherit++] = (struct criu_inherit_fd){
			.key = cr_external_ns_key(t), .fd = 4 + (int)rs->n_ext_fds };
		rs->ext_fds[rs->n_ext_fds++] = fd;
	}
	return 0;
}

static int mount_root(struct restore *rs, const char *rootfs, struct error *err)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s/criu-root", rs->c->dir) >= (int)sizeof(dir))
		return error_set(err, ENAMETOOLONG, "restore: %s/criu-root: too long", rs->c->dir);
	if (mkdirat(rs->c->dirfd, "criu-root", 0755) < 0)
		return error_sys(err, errno, "restore: %s", dir);
	if (mount(rootfs, dir, NULL, MS_BIND | MS_REC, NULL) < 0) {
		unlinkat(rs->c->dirfd, "criu-root", AT_REMOVEDIR);
		return error_sys(err, errno, "restore: bind mount of %s", rootfs);
	}
	snprintf(rs->root, sizeof(rs->root), "%s", dir);
	return 0;
}

static void unmount_root(struct restore *rs)
{
	if (!rs->root[0])
		return;
	if (umount2(rs->root, MNT_DETACH) < 0)
		log_warn("restore: umount %s: %s", rs->root, strerror(errno));
	unlinkat(rs->c->dirfd, "criu-root", AT_REMOVEDIR);
	rs->root[0] = '\0';
}

static int run_create_hooks(struct restore *rs, pid_t pid, struct error *err)
{
	const struct oci_hooks *h = &rs->cfg->hooks;
	char *json;
	size_t len;
	int r;

	if (!h->n[OCI_HOOK_PRESTART] && !h->n[OCI_HOOK_CREATE_RUNTIME])
		return 0;
	rs->c->st.pid = pid;
	if ((r = container_state_json(rs->c, "created", &json, &len, err)) < 0)
		return r;
	r = hooks_run(h, OCI_HOOK_PRESTART, NULL, json, len, err);
	if (r == 0)
		r = hooks_run(h, OCI_HOOK_CREATE_RUNTIME, NULL, json, len, err);
	free(json);
	return r;
}

static int on_notify(void *arg, const struct criu_resp *resp, int fd, struct error *err)
{
	struct restore *rs = arg;
	int r = 0;

	log_debug("criu: %s (pid %d)", resp->notify_script, (int)resp->notify_pid);
	if (!strcmp(resp->notify_script, "setup-namespaces")) {
		r = run_create_hooks(rs, resp->notify_pid, err);
	} else if (!strcmp(resp->notify_script, "post-restore")) {
		rs->pid = resp->notify_pid;
		r = container_record_pid(rs->c->dirfd, "init", rs->pid, NULL, err);
	} else if (!strcmp(resp->notify_script, "orphan-pts-master") && fd >= 0) {
		/* the restored terminal's master: to --console-socket, as runc */
		if (rs->o->console_socket)
			r = terminal_send(rs->o->console_socket, fd, err);
	}
	if (fd >= 0)
		close(fd);
	return r;
}

static int call_criu(struct restore *rs, const char *criu, struct criu_opts *co, struct error *err)
{
	struct criu_kv cg_root = { .key = "", .val = rs->cg.path };
	struct criu_swrk s;
	struct criu_resp resp;
	int r;

	if ((r = criu_swrk_start(&s, criu, rs->ext_fds, rs->n_ext_fds, err)) < 0)
		return r;
	/* criu itself in the container's cgroup before it forks the tree (runc) */
	if (rs->cg.path && (r = cgroup_attach(&rs->cg, s.pid, err)) < 0) {
		criu_swrk_end(&s);
		return r;
	}
	if (rs->cg.path && cgroup_detect() == CGROUP_MODE_V2) {
		co->cg_root = &cg_root;
		co->n_cg_root = 1;
	}
	r = criu_swrk_call(&s, CRIU_REQ_RESTORE, co, on_notify, rs, &resp, err);
	criu_swrk_end(&s);
	if (r == 0 && resp.restore_pid > 0)
		rs->pid = resp.restore_pid;
	if (r == 0 && rs->pid <= 0)
		r = error_set(err, ESRCH, "restore: criu named no restored process");
	if (r < 0)
		cr_log_hint(rs->o, RESTORE_LOG, err);
	return r;
}

static int make_state(const struct global_opts *g, struct restore *rs, const char *id, const char *bundle,
		      const char *rootfs, const char *json, size_t len, struct error *err)
{
	static char created_at[64];
	struct timespec now;
	int r, fd;

	clock_gettime(CLOCK_REALTIME, &now);
	util_rfc3339(&now, created_at, sizeof(created_at));
	rs->c->st = (struct container_state){
		.oci_version = rs->cfg->oci_version, .id = (char *)id, .bundle = (char *)bundle,
		.rootfs = (char *)rootfs, .created = created_at, .owner = "",
		.annotations = rs->cfg->annotations, .n_annotations = rs->cfg->n_annotations,
		.systemd_cgroup = cli_cgroup_manager(g),
	};
	fd = openat(rs->c->dirfd, "config.json", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	r = fd >= 0 && write(fd, json, len) == (ssize_t)len ? 0 : error_sys(err, errno, "%s/config.json", rs->c->dir);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return r;
	if ((r = cgroup_plan(id, rs->cfg, rs->c->st.systemd_cgroup, &rs->cg, err)) < 0)
		return r;
	if ((r = container_record_cgroup(rs->c, rs->cg.path, err)) < 0 ||
	    (r = cgroup_make(&rs->cg, rs->cfg, err)) < 0)
		return r;
	/* the state outlives rs->cg (closed once restored) */
	if (rs->cg.path && !(rs->c->st.cgroup_path = strdup(rs->cg.path)))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int finish(struct restore *rs, struct error *err)
{
	bool zombie;
	int r;

	rs->c->st.pid = rs->pid;
	rs->c->st.pid_start_time = container_proc_start_time(rs->pid, &zombie);
	if ((r = container_save_state(rs->c, err)) < 0)
		return r;
	if (rs->o->pid_file && (r = container_write_pid_file(rs->o->pid_file, rs->pid, err)) < 0)
		return r;
	flock(rs->c->dirfd, LOCK_UN);
	return 0;
}

static void undo(struct restore *rs)
{
	if (rs->pid > 0) {
		kill(rs->pid, SIGKILL);
		waitpid(rs->pid, NULL, __WALL);
	}
	rootfs_restore_binds_undo(&rs->binds);
	unmount_root(rs);
	container_teardown(rs->c, &rs->cg, 0);
	cgroup_close(&rs->cg);
}

/* The restored pty's master goes to --console-socket only (runc's rule for
 * a detached terminal; tinyrun relays no pty in the foreground either). */
/* runc: CRIU before 3.16 cannot restore with another LSM profile */
static int check_lsm(const char *criu, int version, const struct cr_opts *o, struct error *err)
{
	if ((!o->lsm_profile && !o->lsm_mount_context) || version >= 316)
		return 0;
	return error_set(err, ENOTSUP, "restore: %s requires at least CRIU 3.16 (%s is %d.%d)",
			 o->lsm_profile ? "--lsm-profile" : "--lsm-mount-context", criu, version / 100, version % 100);
}

static int check_terminal(const struct oci_config *cfg, const struct cr_opts *o, struct error *err)
{
	if (cfg->process.terminal && !o->console_socket)
		return error_set(err, EINVAL, "restore: process.terminal is true: --console-socket is required");
	if (!cfg->process.terminal && o->console_socket)
		return error_set(err, EINVAL, "restore: --console-socket given but process.terminal is false");
	return 0;
}

int container_restore(const struct global_opts *g, const struct cr_opts *o, const char *id, struct bundle *b,
		      struct container *c, pid_t *pid, struct error *err)
{
	struct restore rs = { .o = o, .cfg = &b->cfg, .c = c, .cg = { .v2_dirfd = -1 } };
	static char rootfs[PATH_MAX];   /* the state's, for the caller's wait and delete */
	char criu[PATH_MAX];
	struct cr_ext_mounts m = { 0 };
	struct criu_opts co;
	int img = -1, work = -1, version, r;

	if ((r = check_terminal(&b->cfg, o, err)) < 0 ||
	    (r = cr_criu_path("restore", criu, sizeof(criu), &version, err)) < 0 ||
	    (r = check_lsm(criu, version, o, err)) < 0 ||
	    (r = container_resolve_rootfs(&b->cfg, b->path, rootfs, err)) < 0)
		return r;
	if ((r = cr_open_dirs(o, false, &img, &work, err)) < 0)
		return r;
	if ((r = plan_stdio(&rs, img, err)) < 0 || (r = plan_namespaces(&rs, err)) < 0 ||
	    (r = cr_ext_mounts(&b->cfg, 0, b->path, rootfs, &m, err)) < 0)
		goto out;
	if ((r = container_dir_create(g->root, id, c, err)) < 0)
		goto out;
	if ((r = make_state(g, &rs, id, b->path, rootfs, b->json, b->len, err)) < 0 ||
	    (r = mount_root(&rs, rootfs, err)) < 0 ||
	    (r = rootfs_restore_mountpoints(&b->cfg, rootfs, b->path, &rs.binds, err)) < 0)
		goto fail;
	cr_base_opts(o, b->cfg.annotations, b->cfg.n_annotations, img, work, RESTORE_LOG, &co);
	co.root = rs.root;
	co.lsm_profile = o->lsm_profile;
	co.lsm_mount_context = o->lsm_mount_context;
	co.rst_sibling = true;       /* the restored init is our child, as a created one */
	co.evasive_devices = true;
	co.ext_mnt = m.kv;
	co.n_ext_mnt = m.n;
	co.inherit_fd = rs.inherit;
	co.n_inherit_fd = rs.n_inherit;
	co.join_ns = rs.join;
	co.n_join_ns = rs.n_join;
	if ((r = call_criu(&rs, criu, &co, err)) < 0 || (r = finish(&rs, err)) < 0)
		goto fail;
	rootfs_restore_binds_undo(&rs.binds);
	unmount_root(&rs);
	*pid = rs.pid;
	cgroup_close(&rs.cg);
	goto out;
fail:
	undo(&rs);
	container_close(c);
out:
	cr_ext_mounts_free(&m);
	for (size_t i = 0; i < rs.n_ext_fds; i++)
		close(rs.ext_fds[i]);
	close(img);
	if (work >= 0)
		close(work);
	return r;
}
