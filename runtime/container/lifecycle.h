/* Steps shared by the lifecycle commands (start, run, delete, kill). */
#ifndef TINYRUN_LIFECYCLE_H
#define TINYRUN_LIFECYCLE_H

#include <stdbool.h>

#include "runtime/container/create.h"
#include "runtime/container/statedir.h"

/* The options only `run` has. */
struct run_flags {
	bool detach;
	bool keep;                 /* --keep: the stopped container stays until delete */
	const char *id;            /* --id, with a bundle path */
};

/* Parse create/run options (anywhere on the line, as runc) into o, and run's
 * own into rf (NULL for create); returns the index of the first positional
 * argument or -1 after printing a usage error. */
int create_opts_parse(const char *cmd, int argc, char **argv, struct create_opts *o, struct run_flags *rf);
/* systemd socket activation, as runc: with LISTEN_FDS=N in our environment
 * (and LISTEN_PID ours or unset), fds 3..3+N-1 go to the container before the
 * --preserve-fds ones, whose env gets LISTEN_FDS=N and LISTEN_PID=1. */
void create_socket_activation(struct create_opts *o, struct oci_config *cfg);
/* Run poststart hooks with status "running". */
void lifecycle_poststart(struct container *c, const struct oci_config *cfg);
/* The copy of config.json saved at create, parsed for hooks only.
 * Returns 1 when loaded (*buf to free). */
int lifecycle_saved_hooks(struct container *c, struct oci_config *cfg, char **buf);
/* Kill what is left, remove the cgroup, run poststop hooks, remove the state. */
int lifecycle_destroy(struct container *c, const struct oci_config *cfg_or_null, struct error *err);

#endif
