#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/container/bundle.h"
#include "cli.h"
#include "runtime/container/lifecycle.h"
#include "runtime/container/notify.h"
#include "log.h"

/* Open the exec fifo for reading: the blocked container init wakes up, writes
 * one byte and goes on to exec. */
static int release(struct container *c, struct error *err)
{
	struct pollfd p;
	char b;
	int fd = openat(c->dirfd, "exec.fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return error_sys(err, errno, "container \"%s\": exec fifo", c->id);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (read(fd, &b, 1) != 1) {
		close(fd);
		return error_set(err, ECHILD, "container \"%s\": the init process exited before start", c->id);
	}
	/* the writer closes its end at exec: then the program runs. A failure
	 * before exec (a startContainer hook, exec itself) is written first. */
	char msg[1024];
	size_t len = 0;

	for (;;) {
		ssize_t n;

		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		n = read(fd, msg + len, sizeof(msg) - 1 - len);
		if (n > 0)
			len += n;
		if (n == 0 || len == sizeof(msg) - 1 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
	}
	close(fd);
	unlinkat(c->dirfd, "exec.fifo", 0);
	if (len) {
		msg[len] = 0;
		return error_set(err, ECANCELED, "container \"%s\": %s", c->id, msg);
	}
	return 0;
}

/* release() returned once the program runs: the fifo's end closes at execve */
static int poststart(struct container *c, struct error *err)
{
	struct oci_config cfg;
	char *buf;
	int r = 0;

	if (lifecycle_saved_hooks(c, &cfg, &buf)) {
		r = lifecycle_poststart(c, &cfg, err);
		oci_config_free(&cfg);
		free(buf);
	}
	return r;
}

/* runtime.md: start fails, the container is destroyed, poststop hooks run */
static int start_failed(struct container *c, struct error *err, bool destroy, int nfd)
{
	struct error e2;

	cli_fail(err);
	if (destroy)
		lifecycle_destroy(c, NULL, &e2);
	if (nfd >= 0)
		close(nfd);
	container_close(c);
	return 1;
}

int cmd_start(struct global_opts *g, int argc, char **argv)
{
	struct container c;
	struct error err;
	enum container_status s;
	int nfd;

	if (argc != 2)
		return cli_usage_error("start", "expected exactly one container id");
	if (container_load(g->root, argv[1], true, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (s != STATUS_CREATED) {
		container_close(&c);
		return cli_failf("cannot start container \"%s\": it is %s, not created", argv[1],
				 container_status_name(s));
	}
	nfd = notify_listen(c.dirfd);   /* bound before the program can send */
	/* a failing startContainer hook (ECANCELED) or poststart hook */
	if (release(&c, &err) < 0)
		return start_failed(&c, &err, err.code == ECANCELED, nfd);
	if (poststart(&c, &err) < 0)
		return start_failed(&c, &err, true, nfd);
	if (nfd >= 0) {
		notify_wait_ready(nfd, c.st.pid, -1);
		close(nfd);
	}
	container_close(&c);
	return 0;
}
