/* The cgroup v2 backend (cg2_ops): create (controllers enabled in the
 * parents), join, freeze, kill, destroy; resources in v2-resources.c, stats in
 * stats.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oci/util.h"
#include "runtime/cgroup/internal.h"

/* Enable in dir's cgroup.subtree_control every controller of its
 * cgroup.controllers that is not enabled yet (a fresh dir has none). */
static int enable_controllers(int rootfd, const char *dir, bool fresh, struct error *err)
{
	char file[4200], avail[512], enabled[512] = "", want[600] = "", *tok, *save;
	int fd = rootfd, r = 0;
	size_t len = 0;

	if (dir[0]) {
		fd = openat(rootfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return error_sys(err, errno, "%s", dir);
	}
	if (cg_read(fd, "cgroup.controllers", avail, sizeof(avail)) < 0)
		goto out;
	if (!fresh && cg_read(fd, "cgroup.subtree_control", enabled, sizeof(enabled)) < 0)
		enabled[0] = '\0';
	for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!cg_word_in(enabled, tok))
			len += snprintf(want + len, sizeof(want) - len, "%s+%s", len ? " " : "", tok);
	if (!len)
		goto out;
	if (cg_write(fd, "cgroup.subtree_control", want, err) < 0) {
		/* One by one: a controller that cannot be enabled here (busy,
		 * threaded) should not block the others. */
		snprintf(file, sizeof(file), "%s", want);
		for (tok = strtok_r(file, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (cg_write(fd, "cgroup.subtree_control", tok, err) < 0)
				cg_debug("cgroup: /%s: cannot enable %s: %s", dir, tok + 1, err->msg);
	}
out:
	if (fd != rootfd)
		close(fd);
	return r;
}

/* Top-down over every ancestor of rel ("" = the root). */
static int enable_in_ancestors(int rootfd, const char *rel, int first_new, struct error *err)
{
	char dir[4096];
	size_t i, len = strlen(rel);
	int r;

	if ((r = enable_controllers(rootfd, "", false, err)) < 0)
		return r;
	for (i = 0; i < len; i++) {
		if (rel[i] != '/')
			continue;
		memcpy(dir, rel, i);
		dir[i] = '\0';
		if ((r = enable_controllers(rootfd, dir, first_new >= 0 && (int)i >= first_new, err)) < 0)
			return r;
	}
	return 0;
}

/* runc's checks on the container's cgroup: refuse it frozen (itself or by
 * an ancestor: the child would hang in it, and `run` with it), or, when it
 * was already there, with processes in it (runc 1.2 and later; 1.1 only
 * warned). */
static int check_fit(int dirfd, bool created, struct error *err)
{
	char buf[256];
	uint64_t frozen = 0;
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;

	if ((cg_read(dirfd, "cgroup.events", buf, sizeof(buf)) > 0 && cg_kv_lookup(buf, "frozen", &frozen) == 0 &&
	     frozen) || cg2_is_frozen(dirfd))
		return error_set(err, EBUSY, "container's cgroup unexpectedly frozen");
	if (created)
		return 0;
	cg_read_pids(dirfd, true, &pids, &n, &cap);
	free(pids);
	if (n)
		return error_set(err, EBUSY, "container's cgroup is not empty: %zu process(es) found", n);
	return 0;
}

int cg2_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err)
{
	const char *rel = cg->path + 1;
	int rootfd, first_new = -1, r;

	rootfd = open(CG_ROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_sys(err, errno, CG_ROOT);
	if ((r = cg_mkdir_p(rootfd, rel, &first_new, err)) < 0)
		goto out;
	cg->created = cg->created || first_new >= 0;   /* a systemd unit made it for us */
	if ((r = enable_in_ancestors(rootfd, rel, first_new, err)) < 0)
		goto fail;
	cg->v2_dirfd = openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->v2_dirfd < 0) {
		r = error_sys(err, errno, "open");
		goto fail;
	}
	if ((r = check_fit(cg->v2_dirfd, cg->created, err)) < 0)
		goto fail;
	if (cfg->has_linux && cfg->linux_.has_resources &&
	    (r = cg2_apply(cg->v2_dirfd, &cfg->linux_.resources, false, err)) < 0)
		goto fail;
	if ((r = cg2_apply_devices(cg->v2_dirfd, cfg, err)) < 0) {
		if (!cg_users_unit(cg) || (r != -EPERM && r != -EACCES))
			goto fail;
		/* a rootless caller's (no CAP_BPF on the host), as runc's rootless
		 * manager: the device nodes are the host's, bound */
		cg_debug("cgroup: rootless: %s (skipped)", err->msg);
		r = 0;
	}
	if (cg->created && (r = cg2_delegate_to_user(cg->v2_dirfd, cfg, err)) < 0)
		goto fail;
	goto out;
fail:
	if (cg->v2_dirfd >= 0)
		close(cg->v2_dirfd);
	cg->v2_dirfd = -1;
	cg_rmdir_created(rootfd, rel, first_new);
out:
	close(rootfd);
	return r;
}

int cg2_open(struct cgroup *cg, struct error *err)
{
	char p[4200];

	snprintf(p, sizeof(p), CG_ROOT "%s", cg->path);
	cg->v2_dirfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->v2_dirfd < 0)
		return error_sys(err, errno, "%s", p);
	return 0;
}

/* Wait until cgroup.events says `key want` (or the time is up). */
static int wait_event(int dirfd, const char *key, uint64_t want, long deadline)
{
	struct pollfd pfd = { .events = POLLPRI };
	char buf[256];
	uint64_t v;
	ssize_t n;

	pfd.fd = openat(dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (pfd.fd < 0)
		return -errno;
	for (;;) {
		n = pread(pfd.fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			n = -errno;
			break;
		}
		buf[n] = '\0';
		if (cg_kv_lookup(buf, key, &v) == 0 && v == want) {
			n = 0;
			break;
		}
		long left = deadline - util_mono_ms();
		if (left <= 0) {
			n = -ETIMEDOUT;
			break;
		}
		/* kernfs notifies with POLLPRI; the cap covers a missed one */
		poll(&pfd, 1, left < 100 ? (int)left : 100);
	}
	close(pfd.fd);
	return (int)n;
}

int cg2_freeze(int dirfd, bool frozen, struct error *err)
{
	int r;

	if ((r = cg_write(dirfd, "cgroup.freeze", frozen ? "1" : "0", err)) < 0)
		return r;
	r = wait_event(dirfd, "frozen", frozen, util_mono_ms() + CG_WAIT_MS);
	if (r < 0 && frozen) {
		struct error e2;
		cg_write(dirfd, "cgroup.freeze", "0", &e2);
		return error_sys(err, -r, "cgroup.freeze: waiting for frozen");
	}
	if (r < 0)
		return error_sys(err, -r, "cgroup.freeze: waiting for thawed");
	return 0;
}

bool cg2_is_frozen(int dirfd)
{
	char buf[8];

	return cg_read(dirfd, "cgroup.freeze", buf, sizeof(buf)) > 0 && buf[0] == '1';
}

static void signal_pids(const pid_t *pids, size_t n, int sig)
{
	size_t i;

	for (i = 0; i < n; i++)
		kill(pids[i], sig);
}

int cg2_kill_all(int dirfd, int sig, struct error *err)
{
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;
	bool was_frozen;
	int r;

	if (sig == SIGKILL) {
		r = cg_write(dirfd, "cgroup.kill", "1", err);
		if (r != -ENOENT)
			return r;
	}
	/* Frozen meanwhile so a forking process cannot escape the list. */
	was_frozen = cg2_is_frozen(dirfd);
	if (!was_frozen && cg2_freeze(dirfd, true, err) < 0)
		cg_debug("cgroup: kill: %s (signalling unfrozen)", err->msg);
	r = cg_read_pids(dirfd, true, &pids, &n, &cap);
	if (r == 0)
		signal_pids(pids, n, sig);
	else
		error_sys(err, -r, "cgroup.procs");
	free(pids);
	if (!was_frozen)
		cg_write(dirfd, "cgroup.freeze", "0", &(struct error){ 0 });
	return r;
}

int cg2_destroy(struct cgroup *cg, struct error *err)
{
	long deadline = util_mono_ms() + CG_WAIT_MS;
	unsigned step = 0;
	int rootfd, r;
	char buf[256];
	uint64_t populated = 1;

	if (cg->v2_dirfd < 0 && cg2_open(cg, err) < 0)
		return err->code == ENOENT ? 0 : -err->code;
	if (cg_read(cg->v2_dirfd, "cgroup.events", buf, sizeof(buf)) >= 0)
		cg_kv_lookup(buf, "populated", &populated);
	while (populated) {
		if ((r = cg2_kill_all(cg->v2_dirfd, SIGKILL, err)) < 0 && r != -ENOENT && r != -ENODEV)
			return r;
		r = wait_event(cg->v2_dirfd, "populated", 0, util_mono_ms() + 200 < deadline ? util_mono_ms() + 200 : deadline);
		if (r == 0)
			break;
		if (r != -ETIMEDOUT)
			return r == -ENOENT ? 0 : error_sys(err, -r, "cgroup.events");
		if (util_mono_ms() >= deadline)
			return error_set(err, EBUSY, "processes left after SIGKILL for %d s", CG_WAIT_MS / 1000);
	}
	close(cg->v2_dirfd);
	cg->v2_dirfd = -1;
	rootfd = open(CG_ROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_sys(err, errno, CG_ROOT);
	while ((r = cg_rmdir_tree(rootfd, cg->path + 1)) == -EBUSY && util_mono_ms() < deadline)
		cg_backoff(step++);
	close(rootfd);
	if (r < 0)
		return error_sys(err, -r, "rmdir");
	return 0;
}

/* ---- join, attach, pids ------------------------------------------------- */

/* clone3(CLONE_INTO_CGROUP) into the container's dir. */
static int v2_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	const char *sub = j->n_subs ? j->subs[0].path : "";

	if (j->n_subs > 1 || (j->n_subs && j->subs[0].ctrl))
		return error_set(err, EINVAL, "exec --cgroup: cgroup v2 takes one path, without a controller");
	if (cg->v2_dirfd < 0)
		return *sub ? error_set(err, ENODEV, "exec --cgroup %s: the container has no cgroup", sub) : 0;
	if (*sub) {
		/* below the container's cgroup only (cgroupfs has no symlinks; ".." refused) */
		j->clone_dirfd = openat(cg->v2_dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (j->clone_dirfd < 0)
			return error_sys(err, errno, "exec --cgroup: cgroup %s/%s", cg->path, sub);
		return 0;
	}
	if ((j->clone_dirfd = dup(cg->v2_dirfd)) < 0)
		return error_sys(err, errno, "cgroup: dup");
	return 0;
}

static int v2_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	/* the dir join_prepare opened (a sub-cgroup for exec --cgroup) */
	int fd = openat(j->clone_dirfd >= 0 ? j->clone_dirfd : cg->v2_dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return error_sys(err, errno, "cgroup %s: cgroup.procs", cg->path);
	j->procs_fd = fd;
	return 0;
}

static int v2_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	return cg_writef(cg->v2_dirfd, "cgroup.procs", err, "%d", (int)pid);
}

static int v2_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	size_t cap = 0;
	int r = cg_read_pids(cg->v2_dirfd, true, pids, n, &cap);

	if (r < 0) {
		free(*pids);
		*pids = NULL;
		*n = 0;
		return error_sys(err, -r, "cgroup.procs");
	}
	return 0;
}

/* ---- the ops ------------------------------------------------------------ */

static int v2_apply(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	return cg2_apply(cg->v2_dirfd, res, true, err);
}

static int v2_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	return cg2_freeze(cg->v2_dirfd, frozen, err);
}

static bool v2_is_frozen(const struct cgroup *cg)
{
	return cg2_is_frozen(cg->v2_dirfd);
}

static int v2_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	return cg2_kill_all(cg->v2_dirfd, sig, err);
}

static int v2_stats(const struct cgroup *cg, struct cgroup_stats *st, struct error *err)
{
	return cg2_stats(cg->v2_dirfd, st, err);
}

static int v2_destroy(struct cgroup *cg, struct error *err)
{
	return cg_at(cg, cg2_destroy(cg, err), err);
}

const struct cgroup_ops cg2_ops = {
	.name = "v2",
	.create = cg2_create,
	.open = cg2_open,
	.join_prepare = v2_join_prepare,
	.join_without_clone = v2_join_without_clone,
	.attach = v2_attach,
	.apply = v2_apply,
	.freeze = v2_freeze,
	.is_frozen = v2_is_frozen,
	.kill_all = v2_kill_all,
	.pids = v2_pids,
	.stats = v2_stats,
	.oom_kill_count = cg2_oom_kill_count,
	.oom_watch_open = cg2_oom_watch_open,
	.destroy = v2_destroy,
};
