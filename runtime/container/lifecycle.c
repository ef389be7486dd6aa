#include "runtime/container/lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/container/bundle.h"
#include "runtime/container/hooks.h"
#include "runtime/log.h"
#include "runtime/linux/rdt.h"

int lifecycle_poststart(struct container *c, const struct oci_config *cfg, struct error *err)
{
	char *json;
	size_t len;
	int r;

	if (!cfg->hooks.n[OCI_HOOK_POSTSTART])
		return 0;
	if ((r = container_state_json(c, "running", &json, &len, err)) < 0) {
		error_prefix(err, "poststart hooks");
		return r;
	}
	r = hooks_run(&cfg->hooks, OCI_HOOK_POSTSTART, NULL, json, len, err);
	free(json);
	return r;
}

/* SIGKILL the init (if it is still ours) and wait until it is gone, unless
 * it is still there after 100 ms and CG says another freezer cgroup holds it
 * (cgroup_destroy then says so). */
static void kill_init(struct container *c, const struct cgroup *cg)
{
	int pidfd;

	if (!container_alive(c))
		return;
	pidfd = syscall(SYS_pidfd_open, c->st.pid, 0);
	if (pidfd < 0)
		return;
	if (container_alive(c) && syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };
		if (poll(&p, 1, 100) == 0 && !(cg && cgroup_frozen_elsewhere(cg, c->st.pid)))
			poll(&p, 1, 9900);
		waitpid(c->st.pid, NULL, WNOHANG);
	}
	close(pidfd);
}

int lifecycle_saved_hooks(struct container *c, struct oci_config *cfg, char **buf)
{
	size_t len;
	struct error err;

	if (container_read_file(c, "config.json", buf, &len) < 0)
		return 0;
	if (oci_config_parse("config.json", *buf, len, OCI_PARSE_HOOKS_ONLY, cfg, &err) < 0) {
		log_warn("hooks: %s", err.msg);
		free(*buf);
		return 0;
	}
	return 1;
}

static void run_poststop(struct container *c, const struct oci_config *cfg)
{
	struct oci_config own;
	char *buf = NULL, *json;
	size_t jlen;
	struct error err;

	if (!cfg) {
		if (!lifecycle_saved_hooks(c, &own, &buf))
			return;
		cfg = &own;
	}
	if (cfg->hooks.n[OCI_HOOK_POSTSTOP] && container_state_json(c, "stopped", &json, &jlen, &err) == 0) {
		hooks_run_warn(&cfg->hooks, OCI_HOOK_POSTSTOP, json, jlen);
		free(json);
	}
	if (buf) {
		oci_config_free(&own);
		free(buf);
	}
}

int lifecycle_destroy(struct container *c, const struct oci_config *cfg, struct error *err)
{
	struct cgroup cg;
	bool have_cg = c->has_state && c->st.cgroup_path &&
		       cgroup_open(c->st.cgroup_path, c->st.systemd_cgroup, &cg, err) == 0;
	int r = 0;

	/* frozen tasks do not die until thawed */
	if (have_cg && cgroup_is_frozen(&cg))
		cgroup_freeze(&cg, false, err);
	kill_init(c, have_cg ? &cg : NULL);
	if (have_cg) {
		if ((r = cgroup_destroy(&cg, err)) < 0)
			log_warn("%s", err->msg);
		cgroup_close(&cg);
	}
	if (c->has_state)
		c->st.pid = 0;
	run_poststop(c, cfg);
	/* the group named after the container, if there is one (none when the
	 * config at hand has no linux.intelRdt: `run` never made one) */
	if (!cfg || cfg->linux_.has_intel_rdt)
		rdt_remove(c->id);
	container_dir_remove(c);
	return r;
}
