/* Command-line plumbing shared by the commands. */
#ifndef TINYRUN_CLI_H
#define TINYRUN_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "oci/error.h"

struct global_opts {
	const char *root;          /* --root, default /run/tinyrun ($XDG_RUNTIME_DIR/tinyrun: main.c) */
	bool root_given;           /* --root was on the command line */
	const char *log_path;      /* --log */
	bool json_log;             /* --log-format json */
	bool debug;
	bool systemd_cgroup;
	bool no_cgroup;             /* --cgroup-manager disabled (crun): the container gets no cgroup */
	int rootless;               /* --rootless: 1 true, 0 false, -1 auto (the default) */
	bool users_runtime;         /* a user's, not the host root's: euid != 0, or root of
	                             * the user's own user namespace (main.c's users_root);
	                             * its default --root and seccomp cache are in XDG_RUNTIME_DIR */
};

/* One option of a command. Each command's table drives its parser
 * (cli_getopt), `COMMAND --help`, `help CMD`, the man page (`help --man`)
 * and bash completion (`help --options CMD`): they cannot disagree. */
struct cli_opt {
	const char *name;          /* long name; NULL ends a table */
	char shrt;                 /* short letter, or 0 */
	int val;                   /* what cli_getopt returns for it */
	const char *arg;           /* its value's placeholder (DIR, N, ...); NULL: a flag */
	const char *help;          /* what it does, with units */
};

struct command {
	const char *name;
	int (*run)(struct global_opts *g, int argc, char **argv);
	const char *summary;
	const char *synopsis;      /* after "tinyrun [global options] "; lines split by \n */
	const struct cli_opt *opts;
	const char *notes;         /* more text for --help and the man page, or NULL */
};

/* getopt_long_only over a command's table; '+' in front of the short
 * options when options stop at the first argument (exec, ps). */
int cli_getopt(int argc, char **argv, const struct cli_opt *opts, bool stop_at_arg);
/* The error for what cli_getopt returned: a bad value names the option and
 * prints the value once; else an unknown or incomplete option. Returns 1. */
int cli_option_error(const char *cmd, const struct cli_opt *opts, int ch, char **argv);
const struct command *cli_find_command(const char *name);
/* `tinyrun help ...`: CMD, --man (roff for the man page), --options CMD. */
int cli_help(int argc, char **argv);
void cli_print_globals(FILE *out);

/* The cgroup manager of create, run and restore (runtime's enum
 * cgroup_manager): 0 cgroupfs; with --systemd-cgroup 1, the system's systemd,
 * or 2, a rootless caller's own systemd, as runc decides it: --rootless
 * true, or (auto) users_runtime (a user other than root, or a user's root in
 * a user namespace of its own with XDG_RUNTIME_DIR set). */
static inline int cli_cgroup_manager(const struct global_opts *g)
{
	if (!g->systemd_cgroup)
		return 0;
	return (g->rootless >= 0 ? g->rootless : g->users_runtime) ? 2 : 1;
}

/* Print `tinyrun: <msg>` (and to --log), return the exit status 1. */
int cli_fail(const struct error *err);
int cli_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error for a command: message + hint, exit status 1. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_print_help(const struct command *cmd);
/* True when argv has --help / -h before any "--"; prints help. */
bool cli_wants_help(const struct command *cmd, int argc, char **argv);

struct create_opts;
struct oci_config;
struct tinyaws_opts;

/* The options only `run` has. */
struct result_file;
struct run_flags {
	bool detach;
	bool keep;                 /* --keep: the stopped container stays until delete */
	const char *id;            /* --id, with a bundle path */
	const char *result;        /* --result FILE: why the process ended, as JSON */
	struct result_file *result_file;   /* it, checked and opened (result_file.h) */
	const char *tinyaws;       /* --tinyaws IMAGE: a one-shot tinyaws job */
	struct tinyaws_opts *conv; /* its conversion options (bundle tinyaws'), NULL: not taken */
	const char *conv_opt;      /* the first of them given ("--type"), for the error without --tinyaws */
};

/* runtime/cmd_create.c, shared with cmd_run.c. Parse create/run options
 * (anywhere on the line, as runc) into o, and run's own into rf (NULL for create); returns the index of the first positional
 * argument or -1 after printing a usage error. */
int cmd_create_parse(const char *cmd, int argc, char **argv, struct create_opts *o, struct run_flags *rf);
/* systemd socket activation, as runc: with LISTEN_FDS=N in our environment
 * (and LISTEN_PID ours or unset), fds 3..3+N-1 go to the container before the
 * --preserve-fds ones, whose env gets LISTEN_FDS=N and LISTEN_PID=1. */
void cmd_create_socket_activation(struct create_opts *o, struct oci_config *cfg);
/* NOTIFY_SOCKET in our environment: the container's side of it (notify.h). */
int cmd_create_notify(const struct global_opts *g, struct create_opts *o, struct oci_config *cfg,
		      struct error *err);
/* runtime/cmd_bundle.c, shared with `run --tinyaws`: a tinyaws job as a bundle. */
/* The conversion's options, in `bundle tinyaws`'s table and in `run`'s (for
 * --tinyaws; P prefixes their help there): one parser, cmd_bundle_opt. Their
 * values are not letters (but -e's), so they never meet run's. */
enum { TA_APP = 0x100, TA_TYPE, TA_SERVICE, TA_MEMORY, TA_CPU, TA_SECCOMP, TA_NO_OVERLAY, TA_NO_LIMITS,
       TA_NO_SECCOMP, TA_NO_NAMESPACES, TA_SANDBOX, TA_WALL_TIME, TA_CPU_TIME, TA_REQUEST_DEADLINE };
#define TINYAWS_CONVERT_OPTS(P) \
	{ "app", 0, TA_APP, "DIR", P "the job's app dir (start.sh, tinyaws.build): copied to /app" }, \
	{ "type", 0, TA_TYPE, "nano|micro|small|medium|large", P "25/50/100/200/400 % CPU, 128/256/512/1024/2048 MiB" }, \
	{ "service", 0, TA_SERVICE, NULL, P "a service: 1024 MiB by default instead of 512" }, \
	{ "memory", 0, TA_MEMORY, "MB", P "memory limit in MiB (over --type)" }, \
	{ "cpu", 0, TA_CPU, "PERCENT", P "CPU limit in % of one CPU (over --type; period 100000 µs)" }, \
	{ "env", 'e', 'e', "K=V", P "a variable for the job (repeatable); nothing else of ours passes" }, \
	{ "seccomp", 0, TA_SECCOMP, "FILE", P "the seccomp profile (else $TINYAWS_SECCOMP_PROFILE, seccomp-default.json next to " \
	  "the real tinyrun binary (an error where that cannot be known), /etc/tinyaws/seccomp-default.json, tinyrun's default)" }, \
	{ "no-overlay", 0, TA_NO_OVERLAY, NULL, P "no overlay: the image's top-level entries bound read-only on a read-only " \
	  "root made in the bundle (the image is never written); /app a bind of the copy" }, \
	{ "no-limits", 0, TA_NO_LIMITS, NULL, P "no memory, CPU or pids limit" }, \
	{ "no-seccomp", 0, TA_NO_SECCOMP, NULL, P "no seccomp filter" }, \
	{ "no-namespaces", 0, TA_NO_NAMESPACES, NULL, P "only a mount namespace (the host's pid, network, ipc, uts)" }, \
	{ "sandbox", 0, TA_SANDBOX, NULL, P "the sandbox profile (spec --sandbox): a leased uid, the image's minimal root, " \
	  "/app a copy of the app in the workspace tmpfs; seccomp default (or --seccomp strict); no layer can be off" }, \
	{ "wall-time", 0, TA_WALL_TIME, "SECONDS", P "with --sandbox: the job's wall-clock limit (default " \
	  OCI_SANDBOX_WALL_TIME ")" }, \
	{ "cpu-time", 0, TA_CPU_TIME, "SECONDS", P "with --sandbox: the CPU time of all the job's processes (default " \
	  OCI_SANDBOX_CPU_TIME ")" }, \
	{ "request-deadline", 0, TA_REQUEST_DEADLINE, "SECONDS", P "with --sandbox: a deadline from the job's create " \
	  "(default: none)" }
struct tinyaws_opts {
	const char *usage;         /* "bundle" or "run": the command its usage errors name */
	const char *image, *app, *out, *type, *seccomp;
	bool service, no_overlay, no_limits, no_seccomp, no_namespaces;
	bool sandbox_off;          /* TINYAWS_SANDBOX=0 turned them all off */
	bool sandbox;              /* --sandbox: the sandbox profile (oci_spec_sandbox_with) */
	long memory_mb, cpu_percent;   /* 0: from --type/--service */
	const char *wall_time, *cpu_time, *request_deadline;   /* --sandbox's time limits, seconds */
	char **env;
	size_t n_env;
	char *const *cmd;          /* after "--" */
	int n_cmd;
};
/* spec --sandbox's (and bundle tinyaws --sandbox's) output and disk limits
 * (runtime/cmd_spec.c): the option's value, checked, into o: 1, 0 when CH is
 * not one of them, -1 after a usage error naming it. */
enum { SPEC_OUTPUT_LIMIT = 0x310, SPEC_REQUEST_OUTPUT_LIMIT, SPEC_WORKSPACE_SIZE, SPEC_WORKSPACE_INODES };
#define SPEC_OUTPUT_OPTS \
	{ "output-limit", 0, SPEC_OUTPUT_LIMIT, "BYTES", "with --sandbox: `run` passes on at most BYTES of each of " \
	  "stdout and stderr, then ends the task (reason output-limit; default: no limit, the task writes to run's own)" }, \
	{ "workspace-size", 0, SPEC_WORKSPACE_SIZE, "BYTES", "with --sandbox: the size of the workspace and of /tmp, " \
	  "each (default 128m; k, m, g suffixes)" }, \
	{ "workspace-inodes", 0, SPEC_WORKSPACE_INODES, "N", "with --sandbox: the inodes of the workspace and of /tmp, " \
	  "each (default 65536)" }
struct oci_sandbox_output_opts;
int cmd_spec_output_opt(const char *cmd, int ch, const char *arg, struct oci_sandbox_output_opts *o);
/* One conversion option CH (its value optarg) of command CMD into t: 1,
 * 0 when CH is not one of them, -1 after a usage error naming it. */
int cmd_bundle_opt(const char *cmd, int ch, struct tinyaws_opts *t);
/* Convert (messages printed); 0 or 1. */
int cmd_bundle_tinyaws(const struct tinyaws_opts *t);
/* `run --tinyaws IMAGE [options]`: convert t (its out ignored) into
 * <dir>/bundle, dir a new temporary directory (size PATH_MAX); 0 or 1 (printed). */
int cmd_bundle_temp(struct tinyaws_opts *t, char *dir, char *bundle);
/* Remove that directory (what the job left in it too). */
void cmd_bundle_temp_remove(const char *dir);
/* TINYAWS_SANDBOX=0 in our environment: every layer off. */
void cmd_bundle_sandbox_env(struct tinyaws_opts *t);
/* Every command, in runtime/cmd_*.c */
int cmd_bundle(struct global_opts *g, int argc, char **argv);
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
int cmd_gc(struct global_opts *g, int argc, char **argv);
int cmd_features(struct global_opts *g, int argc, char **argv);
int cmd_check(struct global_opts *g, int argc, char **argv);
int cmd_checkpoint(struct global_opts *g, int argc, char **argv);
int cmd_restore(struct global_opts *g, int argc, char **argv);
/* cmd_checkpoint.c: the options checkpoint and restore share (cr.h's struct) */
struct cr_opts;
void cmd_cr_defaults(struct cr_opts *o);
int cmd_cr_opt(const char *cmd, const struct cli_opt *table, int ch, char **argv, struct cr_opts *o);

extern const struct command cli_commands[];
/* Each command's options, in its runtime/cmd_<name>.c; the global ones and
 * the empty table in cli.c. */
extern const struct cli_opt cmd_create_opts[], cmd_run_opts[], cmd_kill_opts[], cmd_delete_opts[],
	cmd_exec_opts[], cmd_ps_opts[], cmd_list_opts[], cmd_update_opts[], cmd_events_opts[],
	cmd_spec_opts[], cmd_bundle_opts[], cmd_check_opts[], cli_no_opts[], cli_global_opts[],
	cmd_checkpoint_opts[], cmd_restore_opts[];

#endif
