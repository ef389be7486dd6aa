#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runtime/container/cr.h"
#include "runtime/container/lifecycle.h"

/* The options checkpoint and restore share (runc's spelling), then each one's own. */
#define CR_COMMON_OPTS \
	{ "image-path", 0, 'i', "DIR", "the checkpoint image directory (default: ./checkpoint)" }, \
	{ "work-path", 0, 'w', "DIR", "CRIU's work directory: its log goes there (default: the image directory)" }, \
	{ "tcp-established", 0, 't', NULL, "allow established TCP connections" }, \
	{ "ext-unix-sk", 0, 'x', NULL, "allow external unix sockets" }, \
	{ "shell-job", 0, 's', NULL, "allow a process started from a shell (a controlling terminal of the host)" }, \
	{ "file-locks", 0, 'l', NULL, "handle file locks" }, \
	{ "manage-cgroups-mode", 0, 'm', "soft|full|strict|ignore", "how CRIU dumps and restores cgroups (default: CRIU's)" }, \
	{ "empty-ns", 0, 'e', "NS", "a namespace (network, pid, mount, ipc, uts, user, cgroup) created empty at restore, not restored" }, \
	{ "auto-dedup", 0, 'a', NULL, "deduplicate memory pages against the parent images" }, \
	{ "lazy-pages", 0, 'L', NULL, "lazy migration: memory pages move on demand (CRIU's page server and lazy-pages daemon)" }

const struct cli_opt cmd_checkpoint_opts[] = {
	CR_COMMON_OPTS,
	{ "leave-running", 0, 'R', NULL, "leave the container running after the dump (default: it is deleted)" },
	{ "pre-dump", 0, 'P', NULL, "only dump the memory (for a later dump with --parent-path); the container keeps running" },
	{ "parent-path", 0, 'p', "DIR", "the images of a previous pre-dump, relative to the image directory" },
	{ "page-server", 0, 'g', "ADDRESS:PORT", "send the memory pages to (with --lazy-pages: serve them at) a CRIU page server" },
	{ "status-fd", 0, 'F', "FD", "with --lazy-pages: write a \\0 to FD (then closed) once the page server is ready" },
	{ "link-remap", 0, 'k', NULL, "allow open files that were unlinked while other links to them remain (CRIU's link remap)" },
	{ 0 },
};

const struct cli_opt cmd_restore_opts[] = {
	CR_COMMON_OPTS,
	{ "bundle", 'b', 'b', "DIR", "the bundle of the restored container (default: the current directory)" },
	{ "detach", 'd', 'd', NULL, "return once the container runs, do not wait for it" },
	{ "console-socket", 0, 'c', "PATH", "with process.terminal: send the pty master to the unix socket PATH" },
	{ "pid-file", 0, 'f', "FILE", "write the restored process's pid to FILE" },
	{ "no-pivot", 0, 'N', NULL, "accepted for runc compatibility (CRIU restores the root itself)" },
	{ "no-subreaper", 0, 'S', NULL, "accepted for runc compatibility; tinyrun never becomes a subreaper" },
	{ "lsm-profile", 0, 'P', "TYPE:NAME", "the LSM profile CRIU restores the processes with (apparmor:NAME, selinux:LABEL)" },
	{ "lsm-mount-context", 0, 'M', "CONTEXT", "the SELinux context CRIU mounts the restored mounts with" },
	{ 0 },
};

int cmd_cr_opt(const char *cmd, const struct cli_opt *table, int ch, char **argv, struct cr_opts *o)
{
	uint32_t ns;

	switch (ch) {
	case 'i': o->image_path = optarg; return 0;
	case 'w': o->work_path = optarg; return 0;
	case 't': o->tcp_established = true; return 0;
	case 'x': o->ext_unix_sk = true; return 0;
	case 's': o->shell_job = true; return 0;
	case 'l': o->file_locks = true; return 0;
	case 'a': o->auto_dedup = true; return 0;
	case 'm':
		return cr_cg_mode(optarg, &o->cg_mode) < 0 ? cli_option_error(cmd, table, ch, argv) : 0;
	case 'e':
		if (!(ns = cr_ns_flag(optarg)))
			return cli_option_error(cmd, table, ch, argv);
		o->empty_ns |= ns;
		return 0;
	case 'L': o->lazy_pages = true; return 0;
	}
	return cli_option_error(cmd, table, ch, argv);
}

void cmd_cr_defaults(struct cr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->image_path = "checkpoint";
	o->cg_mode = CRIU_CG_DEFAULT;
	o->status_fd = -1;
}

static int parse(int argc, char **argv, struct cr_opts *o)
{
	int ch;

	cmd_cr_defaults(o);
	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_checkpoint_opts, false)) != -1) {
		if (ch == 'R')
			o->leave_running = true;
		else if (ch == 'P')
			o->pre_dump = true;
		else if (ch == 'p')
			o->parent_path = optarg;
		else if (ch == 'g') {
			if (cr_parse_page_server(optarg, o->ps_address, sizeof(o->ps_address), &o->ps_port) < 0)
				return cli_option_error("checkpoint", cmd_checkpoint_opts, ch, argv);
		} else if (ch == 'k')
			o->link_remap = true;
		else if (ch == 'F') {
			int r = cr_parse_fd(optarg, &o->status_fd);

			if (r == -EBADF)
				return cli_usage_error("checkpoint", "--status-fd %s: not an fd of the caller's open for writing",
						       optarg);
			if (r < 0)
				return cli_option_error("checkpoint", cmd_checkpoint_opts, ch, argv);
		} else if (cmd_cr_opt("checkpoint", cmd_checkpoint_opts, ch, argv, o) != 0)
			return -1;
	}
	if (argc - optind != 1) {
		cli_usage_error("checkpoint", "expected exactly one container id");
		return -1;
	}
	return optind;
}

static int load_config(struct container *c, struct oci_config *cfg, char **buf, struct error *err)
{
	size_t len;
	int r;

	if ((r = container_read_file(c, "config.json", buf, &len)) < 0)
		return error_sys(err, -r, "container \"%s\": saved config", c->id);
	if ((r = oci_config_parse("config.json", *buf, len, OCI_PARSE_ALL, cfg, err)) < 0) {
		free(*buf);
		return r;
	}
	if (oci_mounts_strip_root(cfg, c->st.rootfs) < 0) {
		oci_config_free(cfg);
		free(*buf);
		return error_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

int cmd_checkpoint(struct global_opts *g, int argc, char **argv)
{
	struct cr_opts o;
	struct container c;
	struct oci_config cfg;
	struct error err;
	enum container_status s;
	char *buf;
	int i = parse(argc, argv, &o), r;

	if (i < 0)
		return 1;
	if (container_load(g->root, argv[i], true, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (s != STATUS_RUNNING && s != STATUS_PAUSED) {
		container_close(&c);
		/* runc's words */
		return cli_failf("container \"%s\" cannot be checkpointed in %s state", argv[i], container_status_name(s));
	}
	if (load_config(&c, &cfg, &buf, &err) < 0) {
		container_close(&c);
		return cli_fail(&err);
	}
	r = container_checkpoint(&c, &cfg, &o, &err);
	/* runc: a dump without --leave-running ends the container (CRIU killed it) */
	if (r == 0 && !o.leave_running && !o.pre_dump)
		lifecycle_destroy(&c, &cfg, &err);
	oci_config_free(&cfg);
	free(buf);
	container_close(&c);
	return r < 0 ? cli_fail(&err) : 0;
}
