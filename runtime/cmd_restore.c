#include <errno.h>
#include <getopt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "runtime/container/lifecycle.h"
#include "runtime/container/restore.h"
#include "runtime/container/wait.h"

static int parse(int argc, char **argv, struct cr_opts *o)
{
	int ch;

	cmd_cr_defaults(o);
	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_restore_opts, false)) != -1) {
		switch (ch) {
		case 'b': o->bundle = optarg; break;
		case 'd': o->detach = true; break;
		case 'c': o->console_socket = optarg; break;
		case 'f': o->pid_file = optarg; break;
		case 'N': o->no_pivot = true; break;
		case 'S': break;
		case 'P': o->lsm_profile = optarg; break;
		case 'M': o->lsm_mount_context = optarg; break;
		default:
			if (cmd_cr_opt("restore", cmd_restore_opts, ch, argv, o) != 0)
				return -1;
		}
	}
	if (argc - optind != 1) {
		cli_usage_error("restore", "expected exactly one container id");
		return -1;
	}
	return optind;
}

/* In the foreground: wait as run does (signals forwarded), then delete. */
static int wait_restored(struct container *c, const struct oci_config *cfg, pid_t pid)
{
	struct error err;
	int pidfd = syscall(SYS_pidfd_open, pid, 0), sig, status;

	status = wait_container(pid, pidfd, -1, &sig, NULL);
	if (pidfd >= 0)
		close(pidfd);
	lifecycle_destroy(c, cfg, &err);
	return status;
}

int cmd_restore(struct global_opts *g, int argc, char **argv)
{
	struct cr_opts o;
	struct bundle b;
	struct container c;
	struct error err;
	pid_t pid;
	int i = parse(argc, argv, &o), r;

	if (i < 0)
		return 1;
	if (container_id_check(argv[i], &err) < 0)
		return cli_fail(&err);
	if (bundle_load(o.bundle ? o.bundle : ".", NULL, &b, &err) < 0)
		return cli_fail(&err);
	if (!o.detach)
		wait_block_signals();
	if (container_restore(g, &o, argv[i], &b, &c, &pid, &err) < 0) {
		bundle_free(&b);
		return cli_fail(&err);
	}
	r = o.detach ? 0 : wait_restored(&c, &b.cfg, pid);
	container_close(&c);
	bundle_free(&b);
	return r;
}
