/* A D-Bus client connection, just enough for --systemd-cgroup: a unix
 * socket to the bus (an address "unix:path=..." or "unix:abstract=...",
 * ';'-separated alternatives tried in turn), SASL EXTERNAL with the uid the
 * bus reads off the socket (no identity sent, as sd-bus),
 * Hello, then calls answered by their METHOD_RETURN or ERROR, every wait
 * bounded by a deadline (CLOCK_MONOTONIC microseconds, dbus_now_usec). */
#ifndef TINYRUN_CGROUP_DBUS_CONN_H
#define TINYRUN_CGROUP_DBUS_CONN_H

#include <stdint.h>

#include "runtime/cgroup/dbus_wire.h"

#define DBUS_SYSTEM_BUS_DEFAULT "unix:path=/run/dbus/system_bus_socket"

struct dbus_conn {
	int fd;
	uint32_t serial;        /* the last one sent */
	uint8_t *in;            /* what was received; the first `used` bytes are read already */
	size_t in_len, in_cap, used;
};

/* A message other than the awaited reply (a signal, say), while waiting. */
typedef void dbus_msg_fn(const struct dbus_msg *m, void *data);

uint64_t dbus_now_usec(void);

/* Connect, authenticate, Hello. 0, or -errno (and nothing left open). */
int dbc_open(struct dbus_conn *c, const char *address, uint64_t deadline);
void dbc_close(struct dbus_conn *c);

/* Send the message w holds (made with any serial: the next one is put in)
 * and wait for its reply, passing every other message to fn. 0 and *reply
 * (DBUS_METHOD_RETURN or DBUS_ERROR, valid until the next dbc_* call), or
 * -errno: -ETIMEDOUT after the deadline, -EBADMSG for a malformed message,
 * -ECONNRESET when the bus hung up. */
int dbc_call(struct dbus_conn *c, struct dbus_writer *w, uint64_t deadline, dbus_msg_fn *fn, void *data,
	     struct dbus_msg *reply);
/* The next message, valid until the next dbc_* call. 0 or -errno as dbc_call. */
int dbc_read(struct dbus_conn *c, uint64_t deadline, struct dbus_msg *m);
/* org.freedesktop.DBus.AddMatch(rule): 0, or -errno (a bus error mapped). */
int dbc_add_match(struct dbus_conn *c, const char *rule, uint64_t deadline);

#endif
