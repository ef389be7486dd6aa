/* The cgroup v1 backend (cg1_ops), for v1 and hybrid hosts: one dir per
 * mounted hierarchy, found with one listing of /sys/fs/cgroup and a stat of
 * each known name it has (no mountinfo parsing). Co-mounted controllers
 * ("cpu,cpuacct" with cpu and cpuacct symlinks) share one hierarchy. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

const char *const cg1_names[CG1_N] = {
	"cpuset", "cpu", "cpuacct", "memory", "devices", "freezer", "blkio", "pids",
	"net_cls", "net_prio", "hugetlb", "perf_event", "rdma", "misc", "systemd", "unified",
};

static int alias[CG1_N];   /* index of the hierarchy holding this controller, -1: not mounted */
static uint32_t mounted;
static bool probed;

/* /sys/fs/cgroup, opened once per operation: the paths below it are walked
 * from there, not from "/" through sysfs each time. AT_FDCWD when it cannot
 * be opened: the absolute paths are used then, with the same results and
 * messages. O_PATH, or O_RDONLY to list it (the probe). */
static int cgroot_open(int flags)
{
	int fd = open(CG_ROOT, flags | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? AT_FDCWD : fd;
}

static void cgroot_close(int cgroot)
{
	if (cgroot >= 0)
		close(cgroot);
}

/* An absolute path below CG_ROOT, as the *at calls take it with cgroot. */
static const char *at_root(int cgroot, const char *abs)
{
	return cgroot == AT_FDCWD ? abs : abs + sizeof(CG_ROOT);
}

/* The names of cg1_names that cgroot lists (bits), or -1: unreadable. */
static int64_t listed_names(int cgroot)
{
	char buf[4096];
	ssize_t n, off;
	int64_t found = 0;

	while ((n = getdents64(cgroot, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += ((struct dirent64 *)(buf + off))->d_reclen) {
			const char *name = ((struct dirent64 *)(buf + off))->d_name;

			for (int i = 0; i < CG1_N; i++)
				if (name[0] == cg1_names[i][0] && !strcmp(name, cg1_names[i]))
					found |= 1u << i;
		}
	return n < 0 ? -1 : found;
}

/* A hierarchy is a directory under CG_ROOT on a device of its own (a
 * symlink to one: a co-mounted controller). One listing of CG_ROOT tells
 * which names are there, then one stat each of those (relative to cgroot),
 * rather than a stat by absolute path of every name. cgroot: CG_ROOT opened
 * O_RDONLY, or AT_FDCWD. */
static uint32_t probe(int cgroot)
{
	struct stat root, st[CG1_N];
	char p[64];
	int64_t names = -1;
	int i, j, r;

	if (probed)
		return mounted;
	probed = true;
	cgroup_detect();
	if (cgroot >= 0 && fstat(cgroot, &root) == 0)
		names = listed_names(cgroot);
	else if (stat(CG_ROOT, &root) < 0)
		root.st_dev = 0;
	for (i = 0; i < CG1_N; i++) {
		alias[i] = -1;
		if (names >= 0 && !(names & (1u << i)))
			continue;
		snprintf(p, sizeof(p), CG_ROOT "/%s", cg1_names[i]);
		r = fstatat(cgroot, at_root(cgroot, p), &st[i], 0);
		if (r < 0 || st[i].st_dev == root.st_dev || !S_ISDIR(st[i].st_mode))
			continue;
		for (j = 0; j < i && alias[i] < 0; j++)
			if (alias[j] == j && st[j].st_dev == st[i].st_dev)
				alias[i] = j;
		if (alias[i] < 0) {
			alias[i] = i;
			mounted |= 1u << i;
		}
	}
	return mounted;
}

uint32_t cg1_mounted(void)
{
	int cgroot;

	if (probed)
		return mounted;
	cgroot = cgroot_open(O_RDONLY);
	probe(cgroot);
	cgroot_close(cgroot);
	return mounted;
}

bool cgroup_v1_hierarchy_mounted(const char *name)
{
	for (int i = 0; probed && i < CG1_N; i++)
		if (strcmp(cg1_names[i], name) == 0)
			return alias[i] == i;
	return false;
}

static int hier_path(const struct cgroup *cg, int h, char *buf, size_t size)
{
	if ((size_t)snprintf(buf, size, CG_ROOT "/%s%s", cg1_names[h], cg->path) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int cg1_open(const struct cgroup *cg, enum cg1_hier h, struct error *err)
{
	char p[4200];
	int fd;

	cg1_mounted();
	if (alias[h] < 0 || !(cg->v1_mask & (1u << alias[h])))
		return error_set(err, ENODEV, "the %s cgroup controller is not mounted", cg1_names[h]);
	if (hier_path(cg, alias[h], p, sizeof(p)) < 0)
		return error_set(err, ENAMETOOLONG, "path too long");
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_sys(err, errno, "%s", p);
	return fd;
}

int cg1_open_all(const struct cgroup *cg, int fds[CG1_N], struct error *err)
{
	int i, fd;

	for (i = 0; i < CG1_N; i++)
		fds[i] = -1;
	for (i = 0; i < CG1_N; i++) {
		if (!(cg->v1_mask & (1u << i)))
			continue;
		fd = cg1_open(cg, (enum cg1_hier)i, err);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			cg1_close_all(fds);
			return fd;
		}
		fds[i] = fd;
	}
	for (i = 0; i < CG1_N; i++)
		if (alias[i] >= 0 && alias[i] != i)
			fds[i] = fds[alias[i]];
	return 0;
}

void cg1_close_all(int fds[CG1_N])
{
	int i;

	for (i = 0; i < CG1_N; i++) {
		if (fds[i] >= 0 && alias[i] == i)
			close(fds[i]);
		fds[i] = -1;
	}
}

/* ---- create ------------------------------------------------------------- */

/* A cpuset cgroup starts with empty cpus/mems, and no task can join it:
 * from the top down, every level of the container's path whose value is
 * empty gets its parent's, as runc does (parents made by a plain mkdir
 * included). The leaf keeps the config's values when it has them. The files
 * are walked from cgroot, below hier: the hierarchy's root there ("cpuset",
 * or its absolute path with AT_FDCWD); messages name them below hier. */
static int cpuset_fill(int cgroot, const char *hier, const char *rel, int first_new,
		       const struct oci_config *cfg, struct error *err)
{
	const struct oci_cpu *c = &cfg->linux_.resources.cpu;
	bool has_res = cfg->has_linux && cfg->linux_.has_resources && cfg->linux_.resources.has_cpu;
	bool cfg_cpus = has_res && c->cpus && *c->cpus, cfg_mems = has_res && c->mems && *c->mems;
	static const char *const file[2] = { "cpuset.cpus", "cpuset.mems" };
	char path[4200], root[96], val[2][1024] = { "", "" }, cur[1024];
	size_t len = strlen(rel), i, hl = strlen(hier) + 1;
	int k, r = 0;

	/* each level's files by their path under cgroot (no fd per level) */
	for (i = 1; r == 0 && i <= len; i++) {
		bool leaf = i == len, fresh = first_new >= 0 && (int)i > first_new;
		if (rel[i] != '/' && !leaf)
			continue;
		for (k = 0; k < 2 && r == 0; k++) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%.*s/%s", hier, (int)i, rel, file[k]) >= sizeof(path))
				return error_set(err, ENAMETOOLONG, "cpuset %.*s: path too long", (int)i, rel);
			snprintf(root, sizeof(root), "%s/%s", hier, file[k]);
			/* a dir made just now is empty: no need to read it */
			if (!fresh && cg_read(cgroot, path, cur, sizeof(cur)) < 0)
				r = error_sys(err, errno, "cpuset %s", path + hl);
			else if (!fresh && cur[0])
				snprintf(val[k], sizeof(val[k]), "%s", cur);
			else if (leaf && (k ? cfg_mems : cfg_cpus))
				continue;   /* the config's value goes in with the resources */
			else if (!val[k][0] && cg_read(cgroot, root, val[k], sizeof(val[k])) < 0)
				r = error_sys(err, errno, "cpuset: reading the root's %s", file[k]);
			else if ((r = cg_write(cgroot, path, val[k], err)) < 0 && !strncmp(err->msg, path, hl))
				memmove(err->msg, err->msg + hl, strlen(err->msg + hl) + 1);   /* the file below hier */
		}
	}
	return r;
}

/* runc's checks on a cgroup that is already there: refuse it frozen (the
 * child would hang in it, and `run` with it), or with processes in it
 * (runc 1.2 and later; 1.1 only warned). A v1 path is made hierarchy by
 * hierarchy: each one that was there already (`existing`) must be empty,
 * or another's processes would be the container's to list, signal and
 * kill (runc looks at the devices hierarchy only). */
static int check_fit(const int *fds, uint32_t existing, const char *state, struct error *err)
{
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;
	int i, r;

	if (state && strcmp(state, "THAWED") != 0)
		return error_set(err, EBUSY, "container's cgroup unexpectedly frozen (freezer.state %s)", state);
	for (i = 0; i < CG1_N; i++) {
		if (!(existing & (1u << i)) || fds[i] < 0)
			continue;
		r = cg_read_pids(fds[i], true, &pids, &n, &cap);
		free(pids);
		pids = NULL;
		if (r < 0 && r != -ENOENT && r != -ENODEV)
			return error_sys(err, -r, "%s: unable to get cgroup PIDs", cg1_names[i]);
		if (n)
			return error_set(err, EBUSY, "%s: container's cgroup is not empty: %zu process(es) found",
					 cg1_names[i], n);
	}
	return 0;
}

static int open_root(int cgroot, int h)
{
	char p[64];

	snprintf(p, sizeof(p), CG_ROOT "/%s", cg1_names[h]);
	return openat(cgroot, at_root(cgroot, p), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* mkdir the container's cgroup in hierarchy h. Usually only the leaf is
 * missing: one mkdir() by its path below cgroot; the hierarchy's root dir is
 * opened (*root) only for the slow path of missing parents. */
static int hier_mkdir(int cgroot, int h, const char *rel, int *root, int *first_new, struct error *err)
{
	char p[4200];
	const char *slash;

	*first_new = -1;
	if ((size_t)snprintf(p, sizeof(p), CG_ROOT "/%s/%s", cg1_names[h], rel) >= sizeof(p))
		return error_set(err, ENAMETOOLONG, "%s: path too long", cg1_names[h]);
	if (mkdirat(cgroot, at_root(cgroot, p), 0755) == 0) {
		slash = strrchr(rel, '/');
		*first_new = slash ? (int)(slash - rel) + 1 : 0;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return error_sys(err, errno, "mkdir %s", p);
	if ((*root = open_root(cgroot, h)) < 0)
		return error_sys(err, errno, CG_ROOT "/%s", cg1_names[h]);
	return cg_mkdir_p(*root, rel, first_new, err);
}

static int hier_open(int cgroot, int h, const char *rel, struct error *err)
{
	char p[4200];
	int fd;

	snprintf(p, sizeof(p), CG_ROOT "/%s/%s", cg1_names[h], rel);
	fd = openat(cgroot, at_root(cgroot, p), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? error_sys(err, errno, "%s", p) : fd;
}

/* The container's freezer.state in the freezer hierarchy h, for check_fit
 * (*out: NULL when there is none to read). A cgroup made just now is THAWED,
 * or FROZEN under a frozen parent: read, but by its path below cgroot, with
 * no fd for the dir (*fd: the dir when it is open already; when the file
 * cannot be read so, the dir is opened as for any hierarchy: its errors). */
static int freezer_state(int cgroot, int h, const char *rel, int *fd, char *state, size_t size,
			 const char **out, struct error *err)
{
	char p[4200];

	*out = NULL;
	if (*fd < 0) {
		snprintf(p, sizeof(p), CG_ROOT "/%s/%s/freezer.state", cg1_names[h], rel);
		if (cg_read(cgroot, at_root(cgroot, p), state, size) >= 0) {
			*out = state[0] ? state : NULL;
			return 0;
		}
		if ((*fd = hier_open(cgroot, h, rel, err)) < 0)
			return *fd;
	}
	if (cg_read(*fd, "freezer.state", state, size) > 0)
		*out = state;
	return 0;
}

/* The real hierarchies (alias targets) create needs open: devices rules,
 * and those of the resources the config sets (the emptiness check adds the
 * ones that were there already; freezer_state reads the freezer's state
 * without its dir open). */
static uint32_t cg1_wanted(const struct oci_config *cfg)
{
	const struct oci_resources *res = &cfg->linux_.resources;
	uint32_t names = 1u << CG1_DEVICES, want = 0;

	if (cfg->has_linux && cfg->linux_.has_resources) {
		if (res->has_memory)
			names |= 1u << CG1_MEMORY;
		if (res->has_cpu)
			names |= 1u << CG1_CPU | 1u << CG1_CPUACCT | 1u << CG1_CPUSET;
		if (res->has_pids)
			names |= 1u << CG1_PIDS;
		if (res->has_blkio)
			names |= 1u << CG1_BLKIO;
		if (res->n_hugepage_limits)
			names |= 1u << CG1_HUGETLB;
		if (res->has_network)
			names |= 1u << CG1_NET_CLS | 1u << CG1_NET_PRIO;
		if (res->n_rdma)
			names |= 1u << CG1_RDMA;
		if (res->n_unified)
			names |= 1u << CG1_UNIFIED;
	}
	for (int i = 0; i < CG1_N; i++)
		if ((names & (1u << i)) && alias[i] >= 0)
			want |= 1u << alias[i];
	return want;
}

int cg1_create(struct cgroup *cg, const struct oci_config *cfg, struct error *err)
{
	const char *rel = cg->path + 1, *frozen = NULL;
	char hier[64], state[32];
	int roots[CG1_N], first_new[CG1_N], fds[CG1_N], i, r = 0;
	int cgroot = cgroot_open(probed ? O_PATH : O_RDONLY);
	uint32_t mask = probe(cgroot), made = 0, existing;
	bool unit = cg->created;   /* a systemd unit made it, with the init in it */

	if (!cg->hybrid)
		mask &= ~(1u << CG1_UNIFIED);
	if (alias[CG1_DEVICES] < 0) {
		cgroot_close(cgroot);
		return error_set(err, ENODEV, "the devices cgroup controller is not mounted");
	}
	for (i = 0; i < CG1_N; i++)
		roots[i] = first_new[i] = fds[i] = -1;
	cg->v1_mask = mask;
	for (i = 0; i < CG1_N && r == 0; i++) {
		if (!(mask & (1u << i)))
			continue;
		if ((r = hier_mkdir(cgroot, i, rel, &roots[i], &first_new[i], err)) < 0) {
			error_prefix(err, "%s", cg1_names[i]);
			break;
		}
		if (first_new[i] >= 0)
			made |= 1u << i;
		if (i == alias[CG1_CPUSET]) {
			snprintf(hier, sizeof(hier), CG_ROOT "/%s", cg1_names[i]);
			if ((r = cpuset_fill(cgroot, at_root(cgroot, hier), rel, first_new[i], cfg, err)) < 0)
				break;
		}
	}
	/* per hierarchy: what delete may remove, what must be found empty */
	cg->created = unit || made;
	cg->v1_made = unit ? mask : made;
	existing = mask & ~cg->v1_made;
	/* open only the hierarchies something is written to or read from */
	uint32_t want = (cg1_wanted(cfg) | existing) & mask;
	for (i = 0; i < CG1_N && r == 0; i++)
		if ((want & (1u << i)) && (fds[i] = hier_open(cgroot, i, rel, err)) < 0)
			r = fds[i];
	if (r == 0 && (i = alias[CG1_FREEZER]) >= 0 && (mask & (1u << i)))
		r = freezer_state(cgroot, i, rel, &fds[i], state, sizeof(state), &frozen, err);
	for (i = 0; i < CG1_N; i++)
		if (alias[i] >= 0 && alias[i] != i)
			fds[i] = fds[alias[i]];
	if (r == 0)
		r = check_fit(fds, existing, frozen, err);
	if (r == 0 && cfg->has_linux && cfg->linux_.has_resources)
		r = cg1_apply(fds, &cfg->linux_.resources, false, err);
	if (r == 0)
		r = cg1_apply_devices(fds[CG1_DEVICES], cfg, err);
	cg1_close_all(fds);
	for (i = 0; i < CG1_N; i++) {
		if (r < 0 && first_new[i] >= 0 && roots[i] < 0)
			roots[i] = open_root(cgroot, i);
		if (roots[i] < 0)
			continue;
		if (r < 0)
			cg_rmdir_created(roots[i], rel, first_new[i]);
		close(roots[i]);
	}
	cgroot_close(cgroot);
	return r;
}

int cg1_open_existing(struct cgroup *cg, struct error *err)
{
	char p[4200];
	struct stat st;
	int h;

	cg->v1_mask = cg1_mounted();
	if (!cg->hybrid)
		cg->v1_mask &= ~(1u << CG1_UNIFIED);
	cg->v1_made = cg->v1_mask;   /* create refused any that was not empty */
	h = alias[CG1_DEVICES] >= 0 ? alias[CG1_DEVICES] : alias[CG1_PIDS];
	if (h < 0 || cg->unchecked)
		return 0;
	if (hier_path(cg, h, p, sizeof(p)) < 0)
		return error_set(err, ENAMETOOLONG, "path too long");
	if (stat(p, &st) < 0)
		return error_sys(err, errno, "%s", p);
	return 0;
}

int cg1_attach(const struct cgroup *cg, pid_t pid, struct error *err)
{
	char p[4200], val[16];
	int i, fd, n = snprintf(val, sizeof(val), "%d", (int)pid);

	for (i = 0; i < CG1_N; i++) {
		if (!(cg->v1_mask & (1u << i)))
			continue;
		snprintf(p, sizeof(p), CG_ROOT "/%s%s/cgroup.procs", cg1_names[i], cg->path);
		fd = open(p, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, val, n) != n) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return error_sys(err, e, "%s: write %s", p, val);
		}
		close(fd);
	}
	return 0;
}

int cg1_update(const struct cgroup *cg, const struct oci_resources *res, struct error *err)
{
	int fds[CG1_N], r;

	if ((r = cg1_open_all(cg, fds, err)) < 0)
		return r;
	r = cg1_apply(fds, res, true, err);
	cg1_close_all(fds);
	return r;
}

/* ---- freezer, kill, pids ------------------------------------------------ */

int cg1_freeze(const struct cgroup *cg, bool frozen, struct error *err)
{
	const char *want = frozen ? "FROZEN" : "THAWED";
	unsigned waited = 0, step = 0;
	char state[32];
	int fd, r = 0;

	if ((fd = cg1_open(cg, CG1_FREEZER, err)) < 0)
		return fd;
	for (;;) {
		/* Writing FROZEN again retries tasks that were busy in the kernel. */
		if (step % 8 == 0 && (r = cg_write(fd, "freezer.state", want, err)) < 0)
			break;
		if (cg_read(fd, "freezer.state", state, sizeof(state)) < 0) {
			r = error_sys(err, errno, "freezer.state");
			break;
		}
		if (!strcmp(state, want))
			break;
		if (waited >= CG_WAIT_MS) {
			r = error_set(err, ETIMEDOUT, "freezer.state: still %s after %d s", state, CG_WAIT_MS / 1000);
			if (frozen)
				cg_write(fd, "freezer.state", "THAWED", &(struct error){ 0 });
			break;
		}
		waited += cg_backoff(step++);
	}
	close(fd);
	return r;
}

/* one open of the file by its path (state and list ask it of every container) */
bool cg1_is_frozen(const struct cgroup *cg)
{
	char p[4200], state[32];

	cg1_mounted();
	if (alias[CG1_FREEZER] < 0 || !(cg->v1_mask & (1u << alias[CG1_FREEZER])) ||
	    hier_path(cg, alias[CG1_FREEZER], p, sizeof(p) - 16) < 0)
		return false;
	strcat(p, "/freezer.state");
	return cg_read(AT_FDCWD, p, state, sizeof(state)) > 0 && strcmp(state, "THAWED") != 0;
}

/* The hierarchy to list processes from. */
static int procs_fd(const struct cgroup *cg, struct error *err)
{
	static const int order[] = { CG1_PIDS, CG1_FREEZER, CG1_DEVICES, CG1_MEMORY, CG1_UNIFIED, CG1_CPU, CG1_SYSTEMD };
	size_t i;

	cg1_mounted();
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (alias[order[i]] >= 0 && (cg->v1_mask & (1u << alias[order[i]])))
			return cg1_open(cg, (enum cg1_hier)order[i], err);
	return error_set(err, ENODEV, "no cgroup hierarchy to list processes from");
}

int cg1_pids(const struct cgroup *cg, pid_t **pids, size_t *n, struct error *err)
{
	size_t cap = 0;
	int fd = procs_fd(cg, err), r;

	if (fd < 0)
		return fd;
	r = cg_read_pids(fd, true, pids, n, &cap);
	close(fd);
	if (r < 0) {
		free(*pids);
		*pids = NULL;
		*n = 0;
		return error_sys(err, -r, "cgroup.procs");
	}
	return 0;
}

int cg1_kill_all(const struct cgroup *cg, int sig, struct error *err)
{
	pid_t *pids = NULL;
	size_t n = 0, i;
	bool freezer, was_frozen = false;
	int r;

	if (sig == SIGKILL && cg->hybrid && (cg->v1_mask & (1u << CG1_UNIFIED))) {
		int fd = cg1_open(cg, CG1_UNIFIED, err);
		if (fd >= 0) {
			r = cg_write(fd, "cgroup.kill", "1", err);
			close(fd);
			if (r == 0 && !cg1_is_frozen(cg))
				return 0;
		}
	}
	cg1_mounted();
	freezer = alias[CG1_FREEZER] >= 0 && (cg->v1_mask & (1u << alias[CG1_FREEZER]));
	if (freezer) {
		was_frozen = cg1_is_frozen(cg);
		if (!was_frozen && cg1_freeze(cg, true, err) < 0)
			cg_debug("cgroup: kill: %s (signalling unfrozen)", err->msg);
	}
	r = cg1_pids(cg, &pids, &n, err);
	for (i = 0; i < n; i++)
		kill(pids[i], sig);
	free(pids);
	/* v1 frozen tasks act on SIGKILL only once thawed */
	if (freezer && (!was_frozen || sig == SIGKILL))
		cg1_freeze(cg, false, &(struct error){ 0 });
	return r;
}

/* rmdir in every hierarchy whose dir is the container's (v1_made: a dir
 * that was there before a create that fails is left), by its path below
 * CG_ROOT; -EBUSY while processes are left. */
static int rmdir_all(const struct cgroup *cg, bool retry, struct error *err)
{
	char p[4200];
	unsigned step;
	int i, r = 0, cgroot = cgroot_open(O_PATH);

	for (i = 0; i < CG1_N && r == 0; i++) {
		if (!(cg->v1_mask & cg->v1_made & (1u << i)))
			continue;
		snprintf(p, sizeof(p), CG_ROOT "/%s%s", cg1_names[i], cg->path);
		for (step = 0; (r = cg_rmdir_tree(cgroot, at_root(cgroot, p))) == -EBUSY && retry && step < 12; step++)
			cg_backoff(step);
		if (r < 0 && (r != -EBUSY || retry))
			r = error_sys(err, -r, "%s: rmdir", cg1_names[i]);
	}
	cgroot_close(cgroot);
	return r;
}

/* Is PID held frozen by a freezer cgroup outside the container's (someone
 * moved it there)? It cannot die until thawed, and that cgroup is not ours
 * to thaw: waiting out CG_WAIT_MS for it helps nobody. One below the
 * container's own (the container froze it) is thawed here. */
bool cg1_frozen_elsewhere(const struct cgroup *cg, pid_t pid, char *where, size_t size)
{
	size_t own = strlen(cg->path);
	bool below;
	char file[64], buf[4096], *l, *path;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(file, "re")))
		return false;
	where[0] = 0;
	while (fgets(buf, sizeof(buf), f))
		if ((l = strstr(buf, ":freezer:")) && (path = l + 9) && path[strcspn(path, "\n")] == '\n') {
			path[strcspn(path, "\n")] = 0;
			if (strcmp(path, cg->path) && strlen(path) < size)
				snprintf(where, size, "%s", path);
			break;
		}
	fclose(f);
	if (!where[0])
		return false;
	below = !strncmp(where, cg->path, own) && where[own] == '/';
	snprintf(buf, sizeof(buf), CG_ROOT "/freezer%s", where);
	int dir = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ssize_t n = dir < 0 || below ? -1 : cg_read(dir, "freezer.state", buf, sizeof(buf));

	if (dir >= 0 && below) {
		struct error ignored;

		cg_write(dir, "freezer.state", "THAWED", &ignored);
	}
	if (dir >= 0)
		close(dir);
	return n > 0 && strncmp(buf, "THAWED", 6) != 0;
}

int cg1_destroy(struct cgroup *cg, struct error *err)
{
	struct timespec t0, t;
	unsigned step = 0;
	pid_t *pids;
	size_t n;
	int r;

	/* usually empty already: then the rmdirs are all it takes (not when a
	 * dir is to stay: no failed rmdir tells whether processes are left) */
	r = rmdir_all(cg, false, err);
	if (r != -EBUSY && (r < 0 || !(cg->v1_mask & ~cg->v1_made)))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pids = NULL;
		n = 0;
		if ((r = cg1_pids(cg, &pids, &n, err)) < 0) {
			if (err->code != ENOENT && err->code != ENODEV)
				return r;
			n = 0;
		}
		if (!n)
			break;
		for (size_t i = 0; i < n; i++) {
			char where[256];

			if (cg1_frozen_elsewhere(cg, pids[i], where, sizeof(where))) {
				r = error_sys(err, EBUSY, "process %d is frozen in freezer cgroup %s, not the "
					      "container's", (int)pids[i], where);
				free(pids);
				return r;
			}
		}
		free(pids);
		cg1_kill_all(cg, SIGKILL, err);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > CG_WAIT_MS)
			return error_set(err, EBUSY, "processes left after SIGKILL for %d s", CG_WAIT_MS / 1000);
		cg_backoff(step++);
	}
	return rmdir_all(cg, true, err);
}

/* ---- join --------------------------------------------------------------- */

/* cgroot: CG_ROOT's fd, or AT_FDCWD */
static int open_at_hier(int cgroot, const struct cgroup *cg, int h, const char *file, int flags,
			struct error *err)
{
	char p[4200];
	int fd;

	if ((size_t)snprintf(p, sizeof(p), CG_ROOT "/%s%s%s", cg1_names[h], cg->path, file) >= sizeof(p))
		return error_set(err, ENAMETOOLONG, "cgroup path too long");
	fd = openat(cgroot, at_root(cgroot, p), flags | O_CLOEXEC);
	return fd < 0 ? error_sys(err, errno, "%s", p) : fd;
}

/* The hierarchy of controller `name` (len bytes; "name=systemd" too), or -1. */
static int hier_of(const char *name, size_t len)
{
	if (len == 12 && !strncmp(name, "name=systemd", 12))
		name += 5, len -= 5;
	for (int i = 0; i < CG1_N; i++)
		if (i != CG1_UNIFIED && strlen(cg1_names[i]) == len && !strncmp(cg1_names[i], name, len))
			return alias[i];
	return -1;
}

/* exec --cgroup: the sub-cgroup of hierarchy h ("" = the container's own),
 * after every controller named was checked by subs_check; *named: the
 * hierarchy was named (ctrl:path), not given a path for all of them. */
static const char *sub_of(const struct cgroup_join *j, int h, bool *named)
{
	*named = false;
	for (size_t i = 0; i < j->n_subs; i++) {
		const char *c = j->subs[i].ctrl;

		if (!c)
			return j->subs[i].path;
		while (*c) {
			size_t len = strcspn(c, ",");

			if (hier_of(c, len) == h)
				return *named = true, j->subs[i].path;
			c += len + (c[len] == ',');
		}
	}
	return "";
}

static int subs_check(const struct cgroup *cg, const struct cgroup_join *j, struct error *err)
{
	for (size_t i = 0; i < j->n_subs; i++)
		for (const char *c = j->subs[i].ctrl; c && *c;) {
			size_t len = strcspn(c, ",");
			int h = hier_of(c, len);

			if (h < 0 || !(cg->v1_mask & (1u << h)))
				return error_set(err, EINVAL, "exec --cgroup: unknown controller %.*s (the container's "
						 "cgroup has no such hierarchy)", (int)len, c);
			c += len + (c[len] == ',');
		}
	return 0;
}

static int open_join_fd(int cgroot, const struct cgroup *cg, int h, const char *sub, struct error *err)
{
	char file[4200];

	if ((size_t)snprintf(file, sizeof(file), "%s%s%s", *sub ? "/" : "", sub,
			     h == CG1_UNIFIED ? "" : "/tasks") >= sizeof(file))
		return error_set(err, ENAMETOOLONG, "exec --cgroup: path too long");
	if (h == CG1_UNIFIED)
		return open_at_hier(cgroot, cg, h, file, O_RDONLY | O_DIRECTORY, err);
	return open_at_hier(cgroot, cg, h, file, O_WRONLY, err);
}

/* The `tasks` file of every hierarchy, and the cgroup2 dir of a hybrid host
 * for CLONE_INTO_CGROUP; with exec --cgroup, those of the sub-cgroups. A
 * sub-cgroup given for every controller (no ctrl:) is joined where it exists
 * and the container's own cgroup elsewhere (v1 hierarchies are made one by
 * one, as crun); it must exist in one at least. */
static int v1_join_prepare(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	struct error missing = { 0 };
	bool any_sub = false, found_sub = false;
	int fd, cgroot;

	cg1_mounted();
	if (subs_check(cg, j, err) < 0)
		return -err->code;
	cgroot = cgroot_open(O_PATH);
	for (int h = 0; h < CG1_N; h++) {
		bool named;
		const char *sub;

		if (!(cg->v1_mask & (1u << h)))
			continue;
		sub = sub_of(j, h, &named);
		fd = open_join_fd(cgroot, cg, h, sub, err);
		if (fd < 0 && !named && *sub && err->code == ENOENT) {
			if (!missing.code)
				missing = *err;
			any_sub = true;
			fd = open_join_fd(cgroot, cg, h, "", err);
		} else if (!named && *sub)
			any_sub = found_sub = true;
		if (fd < 0) {
			cgroot_close(cgroot);
			cgroup_join_close(j);
			return fd;
		}
		if (h == CG1_UNIFIED)
			j->clone_dirfd = fd;
		else if (j->n < CGROUP_JOIN_MAX)
			j->tasks_fds[j->n++] = fd;
		else
			close(fd);
	}
	cgroot_close(cgroot);
	if (any_sub && !found_sub) {
		cgroup_join_close(j);
		*err = missing;
		return -err->code;
	}
	return 0;
}

static int v1_join_without_clone(const struct cgroup *cg, struct cgroup_join *j, struct error *err)
{
	/* the dir join_prepare opened (a sub-cgroup for exec --cgroup) */
	int fd = j->clone_dirfd >= 0 ? openat(j->clone_dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC)
				     : open_at_hier(AT_FDCWD, cg, CG1_UNIFIED, "/cgroup.procs", O_WRONLY, err);

	if (fd < 0 && j->clone_dirfd >= 0)
		return error_sys(err, errno, "cgroup %s: cgroup.procs", cg->path);
	if (fd < 0)
		return fd;
	j->procs_fd = fd;
	return 0;
}

/* ---- the ops ------------------------------------------------------------ */

static int v1_destroy(struct cgroup *cg, struct error *err)
{
	return cg_at(cg, cg1_destroy(cg, err), err);
}

const struct cgroup_ops cg1_ops = {
	.name = "v1",
	.create = cg1_create,
	.open = cg1_open_existing,
	.join_prepare = v1_join_prepare,
	.join_without_clone = v1_join_without_clone,
	.attach = cg1_attach,
	.apply = cg1_update,
	.freeze = cg1_freeze,
	.is_frozen = cg1_is_frozen,
	.kill_all = cg1_kill_all,
	.pids = cg1_pids,
	.stats = cg1_stats,
	.oom_kill_count = cg1_oom_kill_count,
	.oom_watch_open = cg1_oom_watch_open,
	.destroy = v1_destroy,
};
