/* The D-Bus wire format, as much of it as --systemd-cgroup needs: writing
 * method calls (little-endian; the types s o g b u t y, arrays, structs,
 * variants; 8-byte struct alignment, padding counted from the message's
 * start) and reading messages of either byte order, checked in full: every
 * length bounded, padding zero, strings nul-terminated without inner nul,
 * signatures valid, the header's fields of the right types, the whole
 * message no larger than DBUS_MAX_MESSAGE. No I/O here (dbus_conn.h). */
#ifndef TINYRUN_CGROUP_DBUS_WIRE_H
#define TINYRUN_CGROUP_DBUS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Larger messages are refused (the protocol allows 128 MiB; systemd's
 * replies here are a few hundred bytes). */
#define DBUS_MAX_MESSAGE (1u << 20)
#define DBUS_FIXED_HEADER 16        /* the fixed part, with the fields' length */

enum dbus_type { DBUS_METHOD_CALL = 1, DBUS_METHOD_RETURN = 2, DBUS_ERROR = 3, DBUS_SIGNAL = 4 };

/* ---- writing: into a caller's buffer; running out of it latches `overflow` */

struct dbus_writer {
	uint8_t *p;
	size_t len, cap;
	size_t body;            /* where the body starts (after the header's padding) */
	bool overflow;
};

struct dbus_array {
	size_t at;              /* the length's offset */
	size_t start;           /* the first element's offset */
};

void dbw_init(struct dbus_writer *w, void *buf, size_t cap);
void dbw_pad(struct dbus_writer *w, size_t align);
void dbw_byte(struct dbus_writer *w, uint8_t v);
void dbw_u32(struct dbus_writer *w, uint32_t v);
void dbw_u64(struct dbus_writer *w, uint64_t v);                /* t */
void dbw_bool(struct dbus_writer *w, bool v);
void dbw_string(struct dbus_writer *w, const char *s);         /* s and o */
void dbw_signature(struct dbus_writer *w, const char *s);      /* g, and a variant's type */
/* An array: its length, then the padding to its elements' alignment. */
struct dbus_array dbw_array_begin(struct dbus_writer *w, size_t elem_align);
void dbw_array_end(struct dbus_writer *w, struct dbus_array a);

/* The header of a method call: fields PATH, MEMBER, INTERFACE, DESTINATION
 * and SIGNATURE (when sig is not empty; sd-bus's order), padded to 8; the
 * body follows. */
void dbw_method_call(struct dbus_writer *w, uint32_t serial, const char *dest, const char *path,
		     const char *iface, const char *member, const char *sig);
/* Fill in the body's length: the message's length, or -EMSGSIZE. */
int dbw_finish(struct dbus_writer *w);

/* ---- reading ----------------------------------------------------------- */

/* A message, read in place: the strings point into its bytes. */
struct dbus_msg {
	uint8_t type, flags;
	bool big_endian;
	uint32_t serial, reply_serial;  /* reply_serial 0: none */
	const char *path, *interface, *member, *error_name, *destination, *sender;
	const char *signature;          /* "" without the field */
	const uint8_t *data;
	size_t body, len;               /* the body's offset; the whole message's length */
};

/* The whole length of the message whose first DBUS_FIXED_HEADER bytes are hdr,
 * or -EBADMSG (not a D-Bus message) / -EMSGSIZE (over DBUS_MAX_MESSAGE). */
int dbus_msg_size(const uint8_t *hdr, size_t *size);
/* Check and parse a whole message of len bytes (dbus_msg_size's). 0 or -EBADMSG. */
int dbus_msg_parse(const uint8_t *p, size_t len, struct dbus_msg *m);
/* The body's first arguments: sig is a prefix of the message's signature of
 * the types u (uint32_t *), b (bool *), s o g (const char **), and v, a
 * variant that must hold a string (const char **). 0, -ENXIO when the
 * signature (or the variant's) differs, or -EBADMSG. */
int dbus_msg_read(const struct dbus_msg *m, const char *sig, ...);

/* A bus error's errno, as sd-bus maps the common names (EIO otherwise). */
int dbus_error_errno(const char *name);

#endif
