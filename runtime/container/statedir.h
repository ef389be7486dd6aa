/* The per-container state directory under --root:
 *   <root>/<id>/state.json   tinyrun's state (oci/state.h), replaced atomically
 *   <root>/<id>/config.json  the config as given at create (hooks for delete)
 *   <root>/<id>/exec.fifo    exists while the container is "created"
 *   <root>/<id>/creator      "<pid> <start time>" of the creating tinyrun   (gc.h)
 *   <root>/<id>/cgroup       "<systemd 0|1> <cgroup path>", before the cgroup is made
 *   <root>/<id>/init         "<pid> <start time>" of the child, once cloned
 *   <root>/<id>/exit-status  run.tinyrun.init: the task's wait status (init.c), and the
 *                            time limit that ended it (runtime/sandbox/limits.h)
 *   <root>/<id>/request-deadline  a request's deadline, CLOCK_REALTIME ms (runtime/sandbox/limits.h)
 * The directory fd is flock()ed by every command that changes the container. */
#ifndef TINYRUN_STATEDIR_H
#define TINYRUN_STATEDIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/cli.h"
#include "oci/error.h"
#include "oci/parse.h"
#include "oci/state.h"

/* The most state.json may hold, written or read: fstat checks it before
 * anything is read (list reads every container's). Twice the largest
 * config.json (OCI_JSON_MAX_SIZE): a state holds the config's annotations,
 * which a valid config may fill (runc has no cap), so no config that parses
 * is refused for its state; a sparse or runaway file still is. */
#define CONTAINER_STATE_MAX (2 * OCI_JSON_MAX_SIZE)

struct container {
	const char *id;
	int rootfd;                 /* --root, or -1 */
	int dirfd;                  /* <root>/<name>, opened O_NOFOLLOW below rootfd, locked, or -1 */
	int peek_rootfd;            /* `list` of a root only root writes: the caller's --root fd, and
	                             * no dirfd (state files read as <name>/FILE beneath it), or -1 */
	char name[256];             /* the state dir's name: the id, or '~' + a hash for a long id */
	char dir[4096];             /* <root>/<name>, for messages */
	bool has_state;             /* state.json was read */
	bool bad_state;             /* state.json is there but unusable (cannot be read, too large, not
	                             * a state, no valid id): a load fails, but its records still say
	                             * what to clean (delete --force, gc) */
	struct container_state st;
};

enum container_status {
	STATUS_CREATING, STATUS_CREATED, STATUS_RUNNING, STATUS_PAUSED, STATUS_STOPPED,
};

/* The one check of an id every command takes (README: 1-1024 characters
 * from letters, digits and _ + - ., not starting with a dot). */
int container_id_check(const char *id, struct error *err);
/* What a command may name a container by: a valid id, or the name of the
 * hashed state dir of a long id as `ls <root>` shows it ('~', up to 100 id
 * characters, '-', 16 hex digits; its state must hash back to that name). */
int container_ref_check(const char *ref, struct error *err);
/* `list`: 0 when root is missing or fine to use, else why not. */
int container_root_check(const char *root, struct error *err);
/* Is there a state dir (or anything) by the name of `id` under root? */
bool container_exists(const char *root, const char *id);
/* Read a file of the state dir (no symlink followed); *buf is malloc'd. */
int container_read_file(const struct container *c, const char *name, char **buf, size_t *len);
/* Make <root>/<id> (the root too if needed) and lock it; fails when the id exists.
 * Every state dir is opened O_NOFOLLOW relative to an fd of --root, which is
 * refused when another user owns it or group/others may write to it without
 * the sticky bit (with it, state dirs not owned by the caller are refused). */
int container_dir_create(const char *root, const char *id, struct container *c, struct error *err);
/* Open and read an existing container (`id` passes container_ref_check);
 * lock it when `lock`. */
int container_load(const char *root, const char *id, bool lock, struct container *c, struct error *err);
/* `list`: the checked fd of --root once (-1 with err set, ENOENT when there is
 * none), then each container read through it, unlocked; the container keeps
 * only its state dir fd (rootfd -1: the caller closes its fd). */
int container_root_open(const char *root, bool *shared, struct error *err);
int container_load_at(int rootfd, bool shared, const char *root, const char *id, struct container *c,
		      struct error *err);
/* gc: has the locked dir c a state.json that cannot be used (bad_state,
 * said in a warning)? false for none (a create) and for a sound one. */
bool container_state_unusable(struct container *c);
int container_save_state(struct container *c, struct error *err);
/* The records of a create in progress (gc.h reads them): `name` in the
 * state dir holding text, or "<pid> <start time>\n" of pid. */
/* Only c->name and c->dir for id (no fd opened). */
int container_dir_name(const char *root, const char *id, struct container *c, struct error *err);
int container_record_write(int dirfd, const char *name, const char *text, struct error *err);
int container_record_pid(int dirfd, const char *name, pid_t pid, uint64_t *start_time, struct error *err);
/* "cgroup": "<c->st.systemd_cgroup> <path>\n", where the cgroup will be,
 * written once planned and before it is made: gc and delete find it even
 * when the create or restore dies half-way. */
int container_record_cgroup(const struct container *c, const char *path, struct error *err);
/* Remove the state dir and its files. */
void container_dir_remove(struct container *c);
void container_close(struct container *c);

enum container_status container_status(const struct container *c);
const char *container_status_name(enum container_status s);

/* field 22 of /proc/<pid>/stat (start time in clock ticks), 0 when gone;
 * *zombie set when the process is a zombie or dead. */
uint64_t container_proc_start_time(pid_t pid, bool *zombie);
/* Is the recorded init process still the one we started (and not a zombie)? */
bool container_alive(const struct container *c);

/* Write "<pid>" to path atomically (temp + rename), as runc does. */
int container_write_pid_file(const char *path, pid_t pid, struct error *err);

#endif
