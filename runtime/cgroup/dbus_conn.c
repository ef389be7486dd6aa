/* A D-Bus client connection over a unix socket: connect, SASL EXTERNAL,
 * Hello, calls and their replies, each wait polled up to a deadline. */
#include "runtime/cgroup/dbus_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define BUS_SERVICE "org.freedesktop.DBus"
#define BUS_OBJECT "/org/freedesktop/DBus"
#define SASL_LINE_MAX 512

uint64_t dbus_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Wait for events on the socket until the deadline: 0 or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int r;

	for (;;) {
		if ((now = dbus_now_usec()) >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(struct dbus_conn *c, const void *buf, size_t n, uint64_t deadline)
{
	const uint8_t *p = buf;
	ssize_t k;
	int r;

	while (n) {
		k = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		} else if (k < 0 && errno == EINTR) {
			continue;
		} else if (k < 0 && errno == EAGAIN) {
			if ((r = wait_fd(c->fd, POLLOUT, deadline)) < 0)
				return r;
		} else {
			return k < 0 ? -errno : -ECONNRESET;
		}
	}
	return 0;
}

/* Receive more, into room for at least `want` bytes in all. */
static int receive(struct dbus_conn *c, size_t want, uint64_t deadline)
{
	ssize_t k;
	int r;

	if (want > c->in_cap) {
		size_t cap = want < 4096 ? 4096 : want;
		uint8_t *p = realloc(c->in, cap);

		if (!p)
			return -ENOMEM;
		c->in = p;
		c->in_cap = cap;
	}
	for (;;) {
		k = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (k > 0) {
			c->in_len += (size_t)k;
			return 0;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if ((r = wait_fd(c->fd, POLLIN, deadline)) < 0)
			return r;
	}
}

/* Drop what was read already. */
static void consume(struct dbus_conn *c)
{
	memmove(c->in, c->in + c->used, c->in_len - c->used);
	c->in_len -= c->used;
	c->used = 0;
}

int dbc_read(struct dbus_conn *c, uint64_t deadline, struct dbus_msg *m)
{
	size_t size;
	int r;

	consume(c);
	while (c->in_len < DBUS_FIXED_HEADER)
		if ((r = receive(c, DBUS_FIXED_HEADER, deadline)) < 0)
			return r;
	if ((r = dbus_msg_size(c->in, &size)) < 0)
		return r;
	while (c->in_len < size)
		if ((r = receive(c, size, deadline)) < 0)
			return r;
	if ((r = dbus_msg_parse(c->in, size, m)) < 0)
		return r;
	c->used = size;
	return 0;
}

int dbc_call(struct dbus_conn *c, struct dbus_writer *w, uint64_t deadline, dbus_msg_fn *fn, void *data,
	     struct dbus_msg *reply)
{
	uint32_t serial = ++c->serial;
	int r, len;

	if ((len = dbw_finish(w)) < 0)
		return len;
	w->p[8] = serial;
	w->p[9] = serial >> 8;
	w->p[10] = serial >> 16;
	w->p[11] = serial >> 24;
	if ((r = send_all(c, w->p, (size_t)len, deadline)) < 0)
		return r;
	for (;;) {
		if ((r = dbc_read(c, deadline, reply)) < 0)
			return r;
		if ((reply->type == DBUS_METHOD_RETURN || reply->type == DBUS_ERROR) &&
		    reply->reply_serial == serial)
			return 0;
		if (fn)
			fn(reply, data);
	}
}

/* ---- connecting ---------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* An address's value, %-unescaped into out (n bytes, nul added): its length or -EINVAL. */
static int unescape(const char *v, size_t vlen, char *out, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < vlen; i++) {
		int c = (unsigned char)v[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= vlen)
				return -EINVAL;
			if ((hi = hexval(v[i + 1])) < 0 || (lo = hexval(v[i + 2])) < 0)
				return -EINVAL;
			c = hi << 4 | lo;
			i += 2;
		}
		if (o + 1 >= n)
			return -EINVAL;
		out[o++] = (char)c;
	}
	out[o] = 0;
	return (int)o;
}

/* One "unix:key=value,..." entry (len bytes): 0 with the socket connected, or -errno. */
static int connect_entry(struct dbus_conn *c, const char *e, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *kv = e + 5, *end = e + len, *next;
	socklen_t salen = 0;
	int fd, n;

	if (len < 5 || memcmp(e, "unix:", 5))
		return -EINVAL;
	for (; kv < end; kv = next + 1) {
		const char *eq;

		next = memchr(kv, ',', (size_t)(end - kv));
		if (!next)
			next = end;
		eq = memchr(kv, '=', (size_t)(next - kv));
		if (!eq)
			return -EINVAL;
		if (eq - kv == 4 && !memcmp(kv, "path", 4)) {
			if ((n = unescape(eq + 1, (size_t)(next - eq - 1), sa.sun_path, sizeof(sa.sun_path))) <= 0)
				return -EINVAL;
			salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
		} else if (eq - kv == 8 && !memcmp(kv, "abstract", 8)) {
			if ((n = unescape(eq + 1, (size_t)(next - eq - 1), sa.sun_path + 1, sizeof(sa.sun_path) - 1)) < 0)
				return -EINVAL;
			salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
		}
		/* guid= and others: not needed */
	}
	if (!salen)
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	c->fd = fd;
	return 0;
}

static int connect_address(struct dbus_conn *c, const char *address)
{
	const char *e = address, *semi;
	int r = -EINVAL;

	for (;; e = semi + 1) {
		semi = strchr(e, ';');
		if (!semi)
			semi = e + strlen(e);
		if (semi > e && (r = connect_entry(c, e, (size_t)(semi - e))) == 0)
			return 0;
		if (!*semi)
			return r;
	}
}

/* A line of the SASL exchange, "\r\n" cut off, into line. */
static int sasl_line(struct dbus_conn *c, char *line, size_t n, uint64_t deadline)
{
	uint8_t *crlf;
	int r;

	for (;;) {
		crlf = c->in_len >= 2 ? memmem(c->in, c->in_len, "\r\n", 2) : NULL;
		if (crlf)
			break;
		if (c->in_len >= SASL_LINE_MAX)
			return -EBADMSG;
		if ((r = receive(c, SASL_LINE_MAX, deadline)) < 0)
			return r;
	}
	if ((size_t)(crlf - c->in) >= n)
		return -EBADMSG;
	memcpy(line, c->in, (size_t)(crlf - c->in));
	line[crlf - c->in] = 0;
	c->used = (size_t)(crlf - c->in) + 2;
	consume(c);
	return 0;
}

/* SASL EXTERNAL without an authorization identity, as sd-bus: the bus takes
 * the uid from the socket (SO_PEERCRED), which in a user namespace is not our
 * euid (rootless podman's root is the user's uid there). Pipelined: the
 * server's DATA challenge is answered before it comes. */
static int authenticate(struct dbus_conn *c, uint64_t deadline)
{
	static const char hello[] = "\0AUTH EXTERNAL\r\nDATA\r\n";
	char line[SASL_LINE_MAX];
	int r;

	if ((r = send_all(c, hello, sizeof(hello) - 1, deadline)) < 0)
		return r;
	for (;;) {
		if ((r = sasl_line(c, line, sizeof(line), deadline)) < 0)
			return r;
		if (!strncmp(line, "OK ", 3))
			return send_all(c, "BEGIN\r\n", 7, deadline);
		if (!strncmp(line, "REJECTED", 8))
			return -EACCES;
		if (strcmp(line, "DATA") && strncmp(line, "DATA ", 5))
			return -EBADMSG;
	}
}

/* org.freedesktop.DBus.MEMBER() or MEMBER(arg): 0, or -errno (a bus error mapped). */
static int bus_call(struct dbus_conn *c, const char *member, const char *arg, uint64_t deadline)
{
	uint8_t buf[1024];
	struct dbus_writer w;
	struct dbus_msg reply;
	int r;

	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 0, BUS_SERVICE, BUS_OBJECT, BUS_SERVICE, member, arg ? "s" : "");
	if (arg)
		dbw_string(&w, arg);
	if ((r = dbc_call(c, &w, deadline, NULL, NULL, &reply)) < 0)
		return r;
	return reply.type == DBUS_ERROR ? -dbus_error_errno(reply.error_name) : 0;
}

int dbc_open(struct dbus_conn *c, const char *address, uint64_t deadline)
{
	int r;

	*c = (struct dbus_conn){ .fd = -1 };
	if ((r = connect_address(c, address)) < 0 || (r = authenticate(c, deadline)) < 0 ||
	    (r = bus_call(c, "Hello", NULL, deadline)) < 0) {
		dbc_close(c);
		return r;
	}
	return 0;
}

void dbc_close(struct dbus_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	*c = (struct dbus_conn){ .fd = -1 };
}

int dbc_add_match(struct dbus_conn *c, const char *rule, uint64_t deadline)
{
	return bus_call(c, "AddMatch", rule, deadline);
}
