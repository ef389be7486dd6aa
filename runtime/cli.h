/* Command-line plumbing shared by the commands. */
#ifndef TINYRUN_CLI_H
#define TINYRUN_CLI_H

#include <stdbool.h>

#include "oci/error.h"

struct global_opts {
	const char *root;          /* --root, default /run/tinyrun */
	const char *log_path;      /* --log */
	bool json_log;             /* --log-format json */
	bool debug;
	bool systemd_cgroup;
};

struct command {
	const char *name;
	int (*run)(struct global_opts *g, int argc, char **argv);
	const char *summary;
	const char *usage;         /* options text for `COMMAND --help` */
};

/* Print `tinyrun: <msg>` (and to --log), return the exit status 1. */
int cli_fail(const struct error *err);
int cli_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error for a command: message + hint, exit status 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_print_help(const struct command *cmd);
/* True when argv has --help / -h before any "--"; prints help. */
bool cli_wants_help(const struct command *cmd, int argc, char **argv);

/* Every command, in runtime/cmd_*.c */
int cmd_create(struct global_opts *g, int argc, char **argv);
int cmd_start(struct global_opts *g, int argc, char **argv);
int cmd_state(struct global_opts *g, int argc, char **argv);
int cmd_kill(struct global_opts *g, int argc, char **argv);
int cmd_delete(struct global_opts *g, int argc, char **argv);
int cmd_run(struct global_opts *g, int argc, char **argv);
int cmd_exec(struct global_opts *g, int argc, char **argv);
int cmd_list(struct global_opts *g, int argc, char **argv);
int cmd_ps(struct global_opts *g, int argc, char **argv);
int cmd_pause(struct global_opts *g, int argc, char **argv);
int cmd_resume(struct global_opts *g, int argc, char **argv);
int cmd_update(struct global_opts *g, int argc, char **argv);
int cmd_events(struct global_opts *g, int argc, char **argv);
int cmd_spec(struct global_opts *g, int argc, char **argv);
int cmd_features(struct global_opts *g, int argc, char **argv);

extern const struct command commands[];

#endif
