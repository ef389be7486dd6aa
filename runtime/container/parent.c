/* The runtime's answers to the container's first process while it is made
 * (parent.h), one message at a time. */
#include "runtime/container/parent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "rootfs/rootfs.h"
#include "runtime/container/hooks.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/netdev.h"
#include "runtime/linux/procfs.h"

static int send_state(struct container *c, const char *status, int sync_fd, enum sync_type type,
		      struct error *err)
{
	char *json;
	size_t len;
	int r = container_state_json(c, status, &json, &len, err);

	if (r < 0)
		return r;
	if (len >= SYNC_PAYLOAD_MAX)
		r = error_set(err, E2BIG, "state JSON too large for hooks");
	else if (sync_send(sync_fd, type, 0, json, len, -1) < 0)
		r = error_set(err, EPIPE, "container init exited during hooks");
	free(json);
	return r;
}

/* prestart + createRuntime here (host pid); createContainer and
 * startContainer in the container get its own view of the pid (runc does). */
static int run_create_hooks(struct container *c, const struct oci_config *cfg, int sync_fd, struct error *err)
{
	pid_t host_pid = c->st.pid;
	char *json;
	size_t len;
	int r;

	hooks_output_release();   /* the child has its own */
	if ((r = container_state_json(c, "creating", &json, &len, err)) < 0)
		return r;
	r = hooks_run(&cfg->hooks, OCI_HOOK_PRESTART, NULL, json, len, err);
	if (r == 0)
		r = hooks_run(&cfg->hooks, OCI_HOOK_CREATE_RUNTIME, NULL, json, len, err);
	free(json);
	if (r < 0)
		return r;
	c->st.pid = procfs_ns_pid(host_pid);
	r = send_state(c, "creating", sync_fd, SYNC_HOOKS_DONE, err);
	if (r == 0 && cfg->hooks.n[OCI_HOOK_START_CONTAINER])
		r = send_state(c, "created", sync_fd, SYNC_START_STATE, err);
	c->st.pid = host_pid;
	return r;
}

/* linux.netDevices, asked by the init (out->pid) once it is in its network
 * namespace: a pidfd of it, proven to be the init recorded (its start time),
 * so a pid reused meanwhile cannot name some other namespace. */
static int move_net_devices(const struct oci_config *cfg, const struct created *out, struct error *err)
{
	int pidfd = (int)syscall(SYS_pidfd_open, out->pid, 0), r;
	bool zombie;

	if (pidfd < 0)
		return error_sys(err, errno, "linux.netDevices: the container's init");
	if (container_proc_start_time(out->pid, &zombie) != out->pid_start_time || zombie)
		r = error_set(err, ESRCH, "linux.netDevices: the container's init exited");
	else
		r = netdev_move_all(&cfg->linux_, out->pid, pidfd, err);
	close(pidfd);
	return r;
}

/* The bind sources the container's root cannot reach (rootfs/hostfds.c),
 * opened again through the child's root: its mounts are the ones they name. */
static int send_bind_sources(int sync_fd, const struct created *out, struct error *err)
{
	int *fds = out->bind_srcs, root, r = 0;
	size_t n = out->n_mounts, i = n;

	while (fds && i < 2 * n && fds[i] < 0)
		i++;
	if (!fds || i == 2 * n)
		return 0;
	if ((root = procfs_root_of(out->pid)) < 0)
		return error_sys(err, -root, "bind sources: the container's root (/proc/%d/root)", (int)out->pid);
	rootfs_bind_sources_reopen(fds, n, root);
	close(root);
	for (i = 0; r == 0 && i < n; i++) {
		if (fds[n + i] < 0)
			continue;
		if (sync_send(sync_fd, SYNC_BIND_SRC, (int)i, NULL, 0, fds[n + i]) < 0)
			r = error_set(err, EPROTO, "internal: sync");
		close(fds[n + i]);
		fds[n + i] = -1;
	}
	return r;
}

int parent_maps_done(int sync_fd, const struct oci_config *cfg, const struct created *out, struct error *err)
{
	int r;

	if ((r = ns_write_id_maps(out->pid, &cfg->linux_, err)) < 0 || (r = send_bind_sources(sync_fd, out, err)) < 0)
		return r;
	sync_send(sync_fd, SYNC_MAPS_DONE, 0, NULL, 0, -1);
	return 0;
}

int parent_answer_child(struct container *c, const struct oci_config *cfg, const struct create_opts *o,
			struct created *out, int sync_fd, struct error *err)
{
	/* the child's only payload is its error's text (SYNC_ERROR, err.msg):
	 * not SYNC_PAYLOAD_MAX, whose 64 KiB would take sync_recv's frame below
	 * it into a page of stack no one had touched (a fault at every create) */
	char payload[sizeof(err->msg)];
	struct sync_msg m;
	int r, fd;

	for (;;) {
		r = sync_recv(sync_fd, &m, payload, sizeof(payload), &fd);
		switch (r) {
		case SYNC_NS_READY:
			if ((r = parent_maps_done(sync_fd, cfg, out, err)) < 0)
				return r;
			break;
		case SYNC_PID:
			waitpid(out->pid, NULL, 0);   /* the intermediate process */
			out->pid = m.value;
			c->st.pid = m.value;
			if ((r = container_record_pid(c->dirfd, "init", out->pid, &out->pid_start_time, err)) < 0)
				return r;
			if (out->pidfd >= 0)
				close(out->pidfd);
			out->pidfd = -1;
			break;
		case SYNC_NETDEV:
			if ((r = move_net_devices(cfg, out, err)) < 0)
				return r;
			sync_send(sync_fd, SYNC_NETDEV_DONE, 0, NULL, 0, -1);
			break;
		case SYNC_HOOKS:
			c->st.pid = out->pid;
			if ((r = run_create_hooks(c, cfg, sync_fd, err)) < 0)
				return r;
			break;
		case SYNC_PTY:
			if ((r = sync_answer_pty(o->console_socket, fd, &out->pty_master, err)) < 0)
				return r;
			break;
		case SYNC_IDMAP:
			r = fd < 0 ? error_set(err, EPROTO, "internal: idmap request without a tree")
				   : rootfs_idmap_apply(cfg, (size_t)m.value, fd, err);
			if (fd >= 0)
				close(fd);
			if (r < 0)
				return r;
			sync_send(sync_fd, SYNC_IDMAP_DONE, 0, NULL, 0, -1);
			break;
		case SYNC_SECCOMP_FD:
			c->st.pid = out->pid;
			if ((r = sync_answer_seccomp_fd(c, &cfg->linux_.seccomp, "creating", out->pid, fd, err)) < 0)
				return r;
			break;
		case SYNC_CREATED:
			return 0;
		case SYNC_ERROR:
			return error_set(err, ECANCELED, "%s", payload);
		default:
			return error_set(err, ECHILD, "container init exited before it was created");
		}
	}
}
