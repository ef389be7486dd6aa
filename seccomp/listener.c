/* linux.seccomp.listenerPath: hand the notify fd to a seccomp agent, with
 * the containerProcessState, in one connection (config-linux.md). */
#include "seccomp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/process-state.h"
#include "oci/util.h"

static int connect_to(const char *path, struct error *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return error_set(err, ENAMETOOLONG, "seccomp: listenerPath %s: longer than %zu bytes",
				 path, sizeof(addr.sun_path) - 1);
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_sys(err, errno, "seccomp: socket");
	while (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (errno == EINTR)
			continue;
		int e = errno;
		close(fd);
		/* runc's words (its suite and its users grep for them) */
		return error_sys(err, e, "seccomp: failed to connect with seccomp agent specified in the seccomp profile (listenerPath %s)", path);
	}
	return fd;
}

/* The fd goes with the first sendmsg only; the rest of the payload follows. */
static int send_with_fd(int sock, const char *data, size_t len, int fd)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	while (iov.iov_len > 0) {
		ssize_t n = util_send_fd(sock, &iov, 1, fd);

		if (n < 0)
			return (int)n;
		fd = -1;
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= (size_t)n;
	}
	return 0;
}

int seccomp_send_listener(const char *listener_path, const char *listener_metadata,
			  const char *state_json, pid_t pid, int notify_fd, struct error *err)
{
	char *json;
	size_t len;
	int sock, r;

	r = oci_container_process_state_json(state_json, pid, listener_metadata, &json, &len);
	if (r < 0)
		return error_sys(err, -r, "seccomp: building the container process state");
	sock = connect_to(listener_path, err);
	if (sock < 0) {
		free(json);
		return sock;
	}
	r = send_with_fd(sock, json, len, notify_fd);
	if (r < 0)
		r = error_sys(err, -r, "seccomp: sending the notify fd to listenerPath %s", listener_path);
	close(sock);
	free(json);
	return r;
}
