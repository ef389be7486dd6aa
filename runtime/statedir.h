/* The per-container state directory under --root:
 *   <root>/<id>/state.json   tinyrun's state (oci/state.h), replaced atomically
 *   <root>/<id>/config.json  the config as given at create (hooks for delete)
 *   <root>/<id>/exec.fifo    exists while the container is "created"
 * The directory fd is flock()ed by every command that changes the container. */
#ifndef TINYRUN_STATEDIR_H
#define TINYRUN_STATEDIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "oci/error.h"
#include "oci/state.h"

struct container {
	const char *id;
	int dirfd;                  /* <root>/<id>, locked, or -1 */
	char dir[4096];
	bool has_state;             /* state.json was read */
	struct container_state st;
};

enum container_status {
	STATUS_CREATING, STATUS_CREATED, STATUS_RUNNING, STATUS_PAUSED, STATUS_STOPPED,
};

int container_id_check(const char *id, struct error *err);
/* Make <root>/<id> (the root too if needed) and lock it; fails when the id exists. */
int container_dir_create(const char *root, const char *id, struct container *c, struct error *err);
/* Open and read an existing container; lock it when `lock`. */
int container_load(const char *root, const char *id, bool lock, struct container *c, struct error *err);
int container_save_state(struct container *c, struct error *err);
/* Remove the state dir and its files. */
void container_dir_remove(struct container *c);
void container_close(struct container *c);

enum container_status container_status(const struct container *c);
const char *container_status_name(enum container_status s);

/* field 22 of /proc/<pid>/stat (start time in clock ticks), 0 when gone;
 * *zombie set when the process is a zombie or dead. */
uint64_t proc_start_time(pid_t pid, bool *zombie);
/* Is the recorded init process still the one we started (and not a zombie)? */
bool container_alive(const struct container *c);

/* Write "<pid>" to path atomically (temp + rename), as runc does. */
int write_pid_file(const char *path, pid_t pid, struct error *err);

#endif
