#include "runtime/linux/fdsend.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/util.h"

/* SO_SNDTIMEO bounds both waits of a unix stream socket: connect() to a
 * listener whose backlog is full (unix_stream_connect sleeps for the send
 * timeout; a non-blocking connect would fail at once with EAGAIN, no poll()
 * can wait for it) and a sendmsg() that finds no room. Either ends in
 * EAGAIN once it is over. */
static int connect_bounded(const char *path, const char *opt, struct error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = FDSEND_TIMEOUT_S };
	int s, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return error_set(err, ENAMETOOLONG, "%s %s: path too long", opt, path);
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return error_sys(err, errno, "%s %s", opt, path);
	if (setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0) {
		while ((r = connect(s, (struct sockaddr *)&sa, sizeof(sa))) < 0 && errno == EINTR)
			;
		if (r == 0)
			return s;
	}
	r = errno;
	close(s);
	if (r == EAGAIN)
		return error_set(err, ETIMEDOUT, "%s %s: the listener accepted no connection within %d s", opt,
				 path, FDSEND_TIMEOUT_S);
	return error_sys(err, r, "%s %s", opt, path);
}

int fdsend_to(const char *path, const char *opt, const char *name, int fd, struct error *err)
{
	int s = connect_bounded(path, opt, err), r;

	if (s < 0)
		return s;
	r = (int)util_send_fd(s, &(struct iovec){ (void *)name, strlen(name) }, 1, fd);
	close(s);
	if (r == -EAGAIN)
		return error_set(err, ETIMEDOUT, "%s %s: send: the listener read nothing within %d s", opt, path,
				 FDSEND_TIMEOUT_S);
	return r < 0 ? error_sys(err, -r, "%s %s: send", opt, path) : 0;
}
