/* Leased identities and the tasks of one request: sandbox.h. */
#include "runtime/sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/sandbox/lease.h"
#include "runtime/sandbox/limits.h"
#include "runtime/linux/pidfd.h"
#include "runtime/linux/procfs.h"
#include "runtime/log.h"

static const char *annotation(const struct container_state *st, const char *key)
{
	for (size_t i = 0; i < st->n_annotations; i++)
		if (strcmp(st->annotations[i].key, key) == 0)
			return st->annotations[i].value;
	return NULL;
}

static bool is_sandbox(const struct container *c)
{
	const char *u = annotation(&c->st, "run.tinyrun.userns"), *r = annotation(&c->st, "run.tinyrun.rootfs");

	return u && r && strcmp(u, "auto") == 0 && strcmp(r, "minimal") == 0;
}

static int open_all(struct room_join *j, pid_t pid, int pidfd)
{
	int *fds[] = { &j->user_fd, &j->net_fd, &j->ipc_fd, &j->mnt_fd };
	static const char *const names[] = { "user", "net", "ipc", "mnt" };
	static const unsigned long ioc[] = { PIDFD_GET_USER_NAMESPACE, PIDFD_GET_NET_NAMESPACE,
					     PIDFD_GET_IPC_NAMESPACE, PIDFD_GET_MNT_NAMESPACE };

	for (size_t i = 0; i < 4; i++)
		if ((*fds[i] = pidfd_ns_open(pidfd, pid, names[i], ioc[i])) < 0)
			return *fds[i];
	return 0;
}

/* May a task whose bundle holds `key` join the loaded request c? */
static int may_join(const struct container *c, const char *id, const char *bundle, const char *key,
		    uint32_t *lease, struct error *err)
{
	if (!container_alive(c))
		return error_set(err, ESRCH, "run.tinyrun.sandbox.request: container \"%s\" is not running", id);
	if (!is_sandbox(c) || container_lease_read(c->dirfd, lease) < 0)
		return error_set(err, EINVAL, "run.tinyrun.sandbox.request: container \"%s\" is not a sandbox "
				 "(run.tinyrun.userns=auto, run.tinyrun.rootfs=minimal)", id);
	return container_request_key_check(bundle, key, c, err);
}

/* The namespaces of the loaded request c, through a pidfd of its init. */
static int open_request_ns(const struct container *c, const char *id, struct room_join *j, struct error *err)
{
	int pidfd = (int)syscall(SYS_pidfd_open, c->st.pid, 0), r;
	bool zombie;

	if (pidfd < 0)
		return error_sys(err, errno, "run.tinyrun.sandbox.request: container \"%s\"", id);
	/* the pidfd names the init we recorded (not a reuse of its pid) */
	if (container_proc_start_time(c->st.pid, &zombie) != c->st.pid_start_time || zombie)
		r = error_set(err, ESRCH, "run.tinyrun.sandbox.request: container \"%s\" is not running", id);
	else if ((r = open_all(j, c->st.pid, pidfd)) < 0)
		r = error_sys(err, -r, "run.tinyrun.sandbox.request: the namespaces of \"%s\"", id);
	close(pidfd);
	return r;
}

int room_join_open(const char *root, const char *bundle, struct oci_config *cfg,
				struct room_join *j, struct error *err)
{
	const char *id = cfg->sandbox.request, *key = cfg->sandbox.request_key_file;
	struct container c = { .rootfd = -1, .dirfd = -1 };
	int r;

	*j = (struct room_join){ .user_fd = -1, .net_fd = -1, .ipc_fd = -1, .mnt_fd = -1 };
	if (!id && key) {   /* a request's first container: its tasks must present this key */
		if ((r = container_request_key_new(bundle, key, &j->key, err)) < 0)
			return r;
		j->keyed = true;
		return 0;
	}
	if (!id)
		return 0;
	if ((r = container_load(root, id, false, &c, err)) < 0) {
		error_prefix(err, "run.tinyrun.sandbox.request");
		return r;
	}
	if ((r = may_join(&c, id, bundle, key, &j->lease, err)) == 0 &&
	    (r = limits_request_read(&c, &j->request_deadline_rt_ms, err)) == 0)
		r = open_request_ns(&c, id, j, err);
	container_close(&c);
	if (r < 0) {
		room_join_close(j);
		return r;
	}
	snprintf(j->paths[0], sizeof(j->paths[0]), "/proc/self/fd/%d", j->user_fd);
	snprintf(j->paths[1], sizeof(j->paths[1]), "/proc/self/fd/%d", j->net_fd);
	snprintf(j->paths[2], sizeof(j->paths[2]), "/proc/self/fd/%d", j->ipc_fd);
	cfg->linux_.ns[OCI_NS_USER].path = j->paths[0];
	cfg->linux_.ns[OCI_NS_NET].path = j->paths[1];
	cfg->linux_.ns[OCI_NS_IPC].path = j->paths[2];
	log_debug("sandbox: a task of request %s (lease %u)", id, j->lease);
	return 0;
}

void room_join_close(struct room_join *j)
{
	int *fds[] = { &j->user_fd, &j->net_fd, &j->ipc_fd, &j->mnt_fd };

	for (size_t i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

int room_lease(struct container *c, struct oci_config *cfg, const struct room_join *j,
			    struct error *err)
{
	static struct oci_idmap uid_map, gid_map;
	uint32_t id;
	int r;

	if (!cfg->sandbox.userns_auto)
		return 0;
	if (cfg->sandbox.request)   /* the request's user namespace is joined */
		return container_lease_share(c, j->lease, err);
	if ((r = container_lease_acquire(c, &cfg->sandbox, &id, err)) < 0)
		return r;
	uid_map = (struct oci_idmap){ .container_id = cfg->process.uid, .host_id = id, .size = 1 };
	gid_map = (struct oci_idmap){ .container_id = cfg->process.gid, .host_id = id, .size = 1 };
	cfg->linux_.uid_mappings = &uid_map;
	cfg->linux_.n_uid_mappings = 1;
	cfg->linux_.gid_mappings = &gid_map;
	cfg->linux_.n_gid_mappings = 1;
	log_debug("sandbox: leased host uid/gid %u for container uid/gid %u", id, cfg->process.uid);
	return 0;
}

int room_key_record(struct container *c, const struct room_join *j, struct error *err)
{
	return j->keyed ? container_request_key_record(c, &j->key, err) : 0;
}

int room_child_limits(const struct oci_config *cfg, struct error *err)
{
	int r;

	/* the first container of a request owns the user namespace; its tasks join it */
	if (!cfg->sandbox.userns_auto || cfg->sandbox.request)
		return 0;
	if ((r = procfs_write(-1, "sys/user/max_user_namespaces", "0", 1)) < 0)
		return error_sys(err, -r, "run.tinyrun.userns: user.max_user_namespaces=0 in the container's user namespace");
	return 0;
}
