/* Parent <-> container child messages over a SOCK_SEQPACKET socketpair:
 * a fixed header, an optional payload (error text, state JSON) and an
 * optional fd (the pty master). Who sends which when, and what each side
 * does in between: HACKING.md, "The sync protocol, message by message". */
#ifndef TINYRUN_SYNC_H
#define TINYRUN_SYNC_H

#include <stddef.h>
#include <stdint.h>

enum sync_type {
	SYNC_NS_READY = 1,   /* child -> parent: new user ns exists, write the id maps */
	SYNC_MAPS_DONE,      /* parent -> child */
	SYNC_PID,            /* child -> parent: value = the container init's pid (after a fork) */
	SYNC_HOOKS,          /* child -> parent: rootfs ready, run prestart + createRuntime */
	SYNC_HOOKS_DONE,     /* parent -> child, payload: state JSON for createContainer */
	SYNC_START_STATE,    /* parent -> child, payload: state JSON for startContainer */
	SYNC_PTY,            /* child -> parent, fd: the pty master */
	SYNC_CREATED,        /* child -> parent: waiting for start */
	SYNC_START,          /* parent -> child (run): go */
	SYNC_ERROR,          /* child -> parent, payload: message */
	SYNC_SECCOMP_FD,     /* child -> parent, fd: the seccomp notify listener fd */
	SYNC_SAVED,          /* parent -> child (create): state.json saved, the child may outlive us */
	SYNC_IDMAP,          /* child -> parent, value: mounts[] index, fd: its tree to idmap */
	SYNC_IDMAP_DONE,     /* parent -> child */
	SYNC_NETDEV,         /* child -> parent: in its final network ns, move linux.netDevices in */
	SYNC_NETDEV_DONE,    /* parent -> child */
	SYNC_BIND_SRC,       /* parent -> child, before SYNC_MAPS_DONE, value: mounts[] index, fd: its
			      * source opened through the child's root (rootfs_bind_sources_reopen) */
};

struct sync_msg {
	uint32_t type;
	int32_t value;
};

/* The one size of a message's payload buffer, its NUL included: the largest
 * payload is the state JSON for the createContainer/startContainer hooks
 * (parent.c refuses a bigger state before sending it). */
#define SYNC_PAYLOAD_MAX 65536

/* Send one message: header, `len` bytes of payload (none when payload is
 * NULL), `pass_fd` attached by SCM_RIGHTS when >= 0. Returns 0 or a negative
 * errno (-EMSGSIZE for a payload of SYNC_PAYLOAD_MAX bytes or more). */
int sync_send(int fd, enum sync_type type, int value, const void *payload, size_t len, int pass_fd);
/* Receive one message; payload (NUL-terminated, `size` bytes with the NUL,
 * may be NULL for none) and fd (may be NULL: a passed fd is then closed)
 * optional. Returns the type, 0 on EOF, negative errno on error: -EPROTO for
 * a message shorter than its header, -EMSGSIZE for one whose payload does not
 * fit (a passed fd is closed then). */
int sync_recv(int fd, struct sync_msg *msg, char *payload, size_t size, int *recv_fd);

/* ---- the fd messages (SYNC_PTY, SYNC_SECCOMP_FD), for create and exec ---- */

#include <sys/types.h>

struct container;
struct error;
struct oci_seccomp;

/* Child: the fork into a pid namespace joined or made after clone (create's
 * slow path, child.c; a rootless exec, exec.c): the caller forks (fork(), or
 * clone3 with `clone_flags` when non-zero: CLONE_PARENT), sends SYNC_PID with
 * the new pid and exits; the new process returns 0 once that message is out
 * (its own first message must follow it on the shared socket). A failed
 * fork: -errno, err set with `what`. */
int sync_fork_handoff(int sync_fd, unsigned long long clone_flags, const char *what, struct error *err);

/* Child: send `fd` in a message of `type` and close it (in every case);
 * `what` names the step in the error. */
int sync_send_fd(int sync_fd, enum sync_type type, int fd, const char *what, struct error *err);

/* SYNC_PTY: the pty master `fd` goes to the --console-socket (then is
 * closed) or, without one, to *pty_master for the caller to keep. */
int sync_answer_pty(const char *console_socket, int fd, int *pty_master, struct error *err);
/* SYNC_SECCOMP_FD: the notify listener `fd` goes to linux.seccomp.listenerPath
 * with c's state (`status` as given, c->st.pid as the caller set it) and
 * `pid`, the process the filter is in. fd is closed in every case; none
 * passed (fd < 0) is an error. */
int sync_answer_seccomp_fd(const struct container *c, const struct oci_seccomp *s, const char *status, pid_t pid,
			   int fd, struct error *err);

#endif
