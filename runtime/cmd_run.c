#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "oci/util.h"
#include "runtime/container/bundle.h"
#include "cli.h"
#include "runtime/container/selfseal.h"
#include "runtime/container/lifecycle.h"
#include "log.h"
#include "runtime/container/sync.h"
#include "runtime/sandbox/fence.h"
#include "runtime/container/result.h"
#include "runtime/container/result_file.h"
#include "runtime/container/wait.h"
#include "runtime/container/notify.h"
#include "runtime/sandbox/output.h"
#include "runtime/sandbox/room.h"
#include "runtime/sandbox/limits.h"
#include <sys/wait.h>

/* `tinyrun run path/to/bundle`: a directory named with a '/' (which no id may
 * hold: "./", "b/") is the bundle; the id is its base name, made unique when
 * taken. A bare "." or ".." is an id, refused as runc refuses it. */
static int id_from_bundle(struct global_opts *g, const char *path, char *id, size_t size, struct error *err)
{
	char copy[PATH_MAX], *base;

	/* "./", "." and "dir/.." name a directory too: the real one's name */
	if (!realpath(path, copy))
		snprintf(copy, sizeof(copy), "%s", path);
	base = basename(copy);
	if (!*base || !strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, ".."))
		base = "container";
	for (int n = 1; n < 10000; n++) {
		if (n == 1)
			snprintf(id, size, "%s", base);
		else
			snprintf(id, size, "%s-%d", base, n);
		if (container_id_check(id, err) < 0)
			return -EINVAL;
		if (!container_exists(g->root, id))
			return 0;
	}
	return error_set(err, EEXIST, "no free container id for bundle %s", path);
}

/* --result FILE: why it ended (result.h), one versioned JSON document
 * (oci/events.h), written atomically (result_file.h). */
static void write_result(const struct run_flags *rf, const char *id, const struct oci_exit *e)
{
	struct error err;
	char *json, *line;
	size_t len;

	if (!rf->result_file || oci_exit_json(id, e, false, &json, &len) < 0)
		return;
	if ((line = realloc(json, len + 1))) {
		line[len] = '\n';
		if (result_file_commit(rf->result_file, line, len + 1, &err) < 0)
			log_warn("%s", err.msg);
		json = line;
	}
	free(json);
}

/* Set-up failed: the task never ran; --result still says so. */
static int run_fail(const struct run_flags *rf, const char *id, struct error *err)
{
	struct oci_exit e;

	result_make(-1, NULL, NULL, &e);
	result_not_started(&e, err->msg);
	e.host_blocked = room_host_blocked();   /* the host knob that refused the user namespace, if any */
	write_result(rf, id, &e);
	return cli_fail(err);
}

/* Destroyed; with CHECK (--result's cleanupSucceeded): 1 when removed for
 * good, its cgroup (lifecycle_destroy's answer) and its state dir (with the
 * lease), else 0; without, -1 and no look (a plain run asks nothing more). */
static int destroyed(struct container *c, const struct oci_config *cfg, bool check)
{
	struct error err;
	int r = lifecycle_destroy(c, cfg, &err);

	if (!check)
		return -1;
	return r == 0 && (c->rootfd < 0 || faccessat(c->rootfd, c->name, F_OK, AT_SYMLINK_NOFOLLOW) < 0);
}

/* runtime.md: a failing poststart hook stops the container, which is then
 * destroyed (poststop hooks run), and `run` fails, --keep or not */
static int poststart_failed(struct container *c, const struct oci_config *cfg, const struct created *cr,
			    const struct run_flags *rf, struct error *err)
{
	struct oci_exit e;

	log_error("%s", err->msg);
	/* the task had started: the runtime's own start failed under it */
	result_make(-1, NULL, rf->result_file ? &cr->cg : NULL, &e);
	e.reason = "infrastructure-failure";
	e.error = err->msg;
	flock(c->dirfd, LOCK_EX);
	if (faccessat(c->dirfd, "state.json", F_OK, 0) == 0)   /* not deleted meanwhile */
		e.usage.cleanup = destroyed(c, cfg, rf->result_file != NULL);
	write_result(rf, c->id, &e);
	return 1;
}

static int start_and_wait(struct container *c, struct oci_config *cfg, struct created *cr,
			  const struct run_flags *rf, struct output_relay *out)
{
	bool detach = rf->detach, keep = rf->keep, expired;
	struct sync_msg m;
	char msg[1024];
	int status, sig, raw = -1, saved, nfd = notify_listen(c->dirfd);
	bool not_started = false;
	struct result_task task = { 0 };
	struct oci_exit e = { 0 };
	long long t0;
	const char *limit = NULL;
	struct error err;

	if (!detach)
		wait_block_signals();
	t0 = util_mono_ms();
	/* without the init, a foreground run enforces the time limits (runtime/sandbox/limits.h);
	 * a request's deadline already past: the program does not start */
	expired = !detach && limits_watch_begin(&cr->limits, &cr->cg, cr->pid);
	if (!expired && sync_send(cr->sync_fd, SYNC_START, 0, NULL, 0, -1) < 0)
		log_warn("container \"%s\": init is gone", c->id);
	/* the socket closes at exec; an error (exec failed, startContainer hook) comes back on it */
	if (sync_recv(cr->sync_fd, &m, msg, sizeof(msg), NULL) == SYNC_ERROR) {
		log_error("%s", msg);
		not_started = true;
	}
	close(cr->sync_fd);
	/* after the exec (the socket's end closed then), as runtime.md step 9 */
	if (lifecycle_poststart(c, cfg, &err) < 0)
		return poststart_failed(c, cfg, cr, rf, &err);
	if (detach) {
		if (nfd >= 0) {
			notify_wait_ready(nfd, cr->pid, cr->pidfd);
			close(nfd);
		}
		return 0;
	}
	wait_relay_notify(nfd);
	out->pid = cr->pid;
	out->cg = &cr->cg;
	wait_relay_output(out);
	status = wait_container(cr->pid, cr->pidfd, cr->pty_master, &sig, &raw);
	/* tinyrun-init exits 128+N for a task killed by N: its record says which */
	task.wall_ms = (uint64_t)(util_mono_ms() - t0);
	task.has_rusage = wait_reaped_rusage(&task.ru);
	if (cfg->init && (saved = result_saved_status(c)) >= 0) {
		raw = saved;
		sig = WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
		limit = result_saved_limit(c);
	} else {
		limit = limits_fired(&cr->limits, raw);
		result_save_status(c, raw, &task, limit);
	}
	if (sig == SIGSYS)
		log_error("%s: policy violation: killed by SIGSYS", c->id);
	if (out->ended)
		log_error("%s: output limit: %s truncated, the task was ended", c->id,
			  out->truncated[0] ? out->truncated[1] ? "stdout and stderr" : "stdout" : "stderr");
	/* read before the cgroup goes (only for --result: a plain run reads nothing more);
	 * written once clean-up is known */
	if (rf->result_file) {
		result_make_task(raw, limit, &cr->cg, &task, &e);
		fence_result(c->dirfd, &e);
		output_result(out, &e);
	}
	if (rf->result_file && not_started)
		result_not_started(&e, msg);
	if (keep) {   /* stopped, with its cgroup, until `delete` */
		write_result(rf, c->id, &e);
		return status;
	}
	c->st.pid = 0;
	flock(c->dirfd, LOCK_EX);
	if (faccessat(c->dirfd, "state.json", F_OK, 0) == 0)   /* not deleted meanwhile */
		e.usage.cleanup = destroyed(c, cfg, rf->result_file != NULL);
	write_result(rf, c->id, &e);
	return status;
}

/* created, but it cannot start (runtime/sandbox/output.h's request total): undone, nothing left */
static void start_failed(struct container *c, const struct oci_config *cfg, struct created *cr)
{
	struct error e2;
	int ws;

	kill(cr->pid, SIGKILL);   /* before the EOF it would report as our death (child.c) */
	close(cr->sync_fd);
	lifecycle_destroy(c, cfg, &e2);
	waitpid(cr->pid, &ws, __WALL);
	if (cr->pidfd >= 0)
		close(cr->pidfd);
	limits_close(&cr->limits);
	cgroup_close(&cr->cg);
	container_close(c);
}

static bool is_tinyaws_opt(int ch)
{
	return ch == 'T' || ch == 'e' || ch >= TA_APP;
}

/* argv without --tinyaws and the conversion options (and their values)
 * however getopt took them (-tinyaws, --tinya=IMAGE ...): the same parse
 * again, on the argv the first one left in order (options first), keeping
 * what the others used. */
static int without_tinyaws_opts(int argc, char **argv, char **out)
{
	int n = 0, from = 1, ch;

	out[n++] = argv[0];
	optind = 0;
	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_run_opts, false)) != -1) {
		for (; from < optind; from++)
			if (!is_tinyaws_opt(ch))
				out[n++] = argv[from];
	}
	for (; from < argc; from++)
		out[n++] = argv[from];
	return n;
}

/* `run --tinyaws IMAGE [conversion options] ID [-- CMD...]`: tinyaws'
 * behaviour in one command, a temporary bundle converted, run in the
 * foreground, deleted. ARGC ends before the "--". */
static int run_tinyaws(struct global_opts *g, int argc, char **argv, const struct create_opts *o,
		       const struct run_flags *rf)
{
	const char *bad = rf->detach ? "--detach" : rf->keep ? "--keep" : o->bundle ? "--bundle" :
			  o->config_file ? "--config" : rf->id ? "--id" : NULL;
	char dir[PATH_MAX], bundle[PATH_MAX], *args[64];
	struct oci_config no_userns = { 0 };
	struct error err;
	int n = 0, r;

	if (bad)
		return cli_usage_error("run", "--tinyaws: %s cannot be used with it (the job runs in the foreground, "
				       "from a temporary bundle)", bad);
	if (container_id_check(o->id, &err) < 0)
		return cli_fail(&err);
	if (argc > 60)
		return cli_usage_error("run", "--tinyaws: too many arguments");
	/* the sealed re-exec (a job has no user namespace) before anything is made */
	if (selfseal_guard(&no_userns, &err) < 0)
		return cli_fail(&err);
	rf->conv->image = rf->tinyaws;
	if (cmd_bundle_temp(rf->conv, dir, bundle) != 0)
		return 1;
	/* the same run, over the new bundle */
	n = without_tinyaws_opts(argc, argv, args);
	args[n++] = "--bundle";
	args[n++] = bundle;
	args[n] = NULL;
	optind = 0;
	r = cmd_run(g, n, args);
	cmd_bundle_temp_remove(dir);
	return r;
}

/* the index of the first "--" (argc: none) */
static int dashdash(int argc, char **argv)
{
	for (int k = 1; k < argc; k++)
		if (!strcmp(argv[k], "--"))
			return k;
	return argc;
}

/* run's options up to "--" (CMD after it for --tinyaws); without --tinyaws
 * the "--" is getopt's own, as before: the whole line parsed again */
static int parse_run(int argc, char **argv, struct create_opts *o, struct run_flags *rf, int *dd)
{
	struct tinyaws_opts *t = rf->conv;
	int i;

	*dd = dashdash(argc, argv);
	if ((i = cmd_create_parse("run", *dd, argv, o, rf)) < 0 || rf->tinyaws || *dd == argc)
		return i;
	*o = (struct create_opts){ .run_mode = true };
	*t = (struct tinyaws_opts){ .usage = "run" };
	*rf = (struct run_flags){ .conv = t };
	*dd = argc;
	optind = 0;
	return cmd_create_parse("run", argc, argv, o, rf);
}

/* From the bundle to a created container (all of it undone on failure). */
static int run_bundle(struct global_opts *g, struct create_opts *o, const struct run_flags *rf, struct container *c,
		      struct created *cr, struct bundle *b, struct output_relay *out, struct error *err)
{
	int r;

	/* the sealed re-exec before the parse when the text settles it (selfseal.h) */
	if ((r = bundle_read(o->bundle ? o->bundle : ".", o->config_file, b, err)) < 0)
		return r;
	if ((r = selfseal_guard_text(b->json, b->len, err)) < 0 || (r = bundle_parse(b, err)) < 0) {
		free(b->json);
		return r;
	}
	if ((r = selfseal_guard(&b->cfg, err)) < 0)
		goto fail;
	o->bundle = b->path;
	o->config_path = b->config_path;
	o->foreground = !rf->detach;   /* it waits: it can enforce the time limits (runtime/sandbox/limits.h) */
	cmd_create_socket_activation(o, &b->cfg);
	if (rf->detach && b->cfg.process.terminal && !o->console_socket) {
		r = error_set(err, EINVAL, "process.terminal is true: --console-socket is required with --detach");
		goto fail;
	}
	/* run.tinyrun.output-limit: the task's stdout and stderr are our pipes */
	if ((r = output_open(out, &b->cfg, rf->detach, err)) == 0 && out->on)
		o->output_fds = out->child;
	if (r == 0)
		r = cmd_create_notify(g, o, &b->cfg, err);
	if (r == 0 && (r = container_create(g, o, &b->cfg, b->json, b->len, c, cr, err)) == 0 &&
	    (r = output_started(out, &b->cfg, g->root, c, err)) < 0)
		start_failed(c, &b->cfg, cr);
	if (r == 0)
		return 0;
fail:
	bundle_free(b);
	return r;
}

int cmd_run(struct global_opts *g, int argc, char **argv)
{
	struct create_opts o = { .run_mode = true };
	struct tinyaws_opts t = { .usage = "run" };
	struct run_flags rf = { .conv = &t };
	char derived[1100];
	struct bundle b;
	struct stat st;
	struct container c;
	struct created cr;
	struct result_file resf;
	struct output_relay out = { .fd = { -1, -1 }, .child = { -1, -1 }, .request_fd = -1 };
	struct error err;
	int dd, i = parse_run(argc, argv, &o, &rf, &dd), r;

	if (i < 0)
		return 1;
	if (dd - i != 1)
		return cli_usage_error("run", "expected exactly one container id or bundle path%s",
				       rf.tinyaws && dd - i > 1 ? " (with --tinyaws the command goes after --)" : "");
	o.id = argv[i];
	if (rf.tinyaws) {
		t.cmd = dd < argc ? argv + dd + 1 : NULL;
		t.n_cmd = dd < argc ? argc - dd - 1 : 0;
		return run_tinyaws(g, dd, argv, &o, &rf);
	}
	if (rf.conv_opt)
		return cli_usage_error("run", "--%s goes with --tinyaws", rf.conv_opt);
	/* with --bundle the argument is the id, whatever it holds; without, a
	 * directory named with a '/' is the bundle (anything else: an id) */
	if (!o.bundle && strchr(argv[i], '/') && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
		o.bundle = argv[i];
		if (rf.id)
			o.id = rf.id;
		else if (id_from_bundle(g, argv[i], derived, sizeof(derived), &err) < 0)
			return cli_fail(&err);
		else
			o.id = derived;
	}
	if (container_id_check(o.id, &err) < 0)
		return cli_fail(&err);
	if (rf.result && rf.detach)
		return cli_usage_error("run", "--result cannot be used with --detach (a detached container's "
				       "verdict is the last line of events)");
	/* before anything is made: a result that cannot be written is refused now */
	if (rf.result && result_file_open(rf.result, &resf, &err) < 0)
		return cli_fail(&err);
	rf.result_file = rf.result ? &resf : NULL;
	r = run_bundle(g, &o, &rf, &c, &cr, &b, &out, &err);
	if (r < 0) {
		output_close(&out);
		r = run_fail(&rf, o.id, &err);
		if (rf.result)
			result_file_close(&resf);
		return r;
	}
	if (rf.detach && o.id == derived)
		printf("%s\n", o.id);
	fflush(stdout);
	r = start_and_wait(&c, &b.cfg, &cr, &rf, &out);
	output_close(&out);
	/* main returns next: the pidfd, cgroup fds, state dir and config go with the process */
	if (rf.result)
		result_file_close(&resf);
	return r;
}
