/* The D-Bus wire format: marshalling our calls, checking and reading
 * messages (https://dbus.freedesktop.org/doc/dbus-specification.html). */
#include "runtime/cgroup/dbus_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#define MAX_ARRAY (64u << 20)   /* the specification's limit */
#define MAX_DEPTH 64            /* 32 arrays + 32 structs, as the specification */

enum {
	F_PATH = 1, F_INTERFACE, F_MEMBER, F_ERROR_NAME, F_REPLY_SERIAL, F_DESTINATION, F_SENDER,
	F_SIGNATURE, F_UNIX_FDS,
};

/* ---- writing ----------------------------------------------------------- */

void dbw_init(struct dbus_writer *w, void *buf, size_t cap)
{
	*w = (struct dbus_writer){ .p = buf, .cap = cap };
}

static void put(struct dbus_writer *w, const void *v, size_t n)
{
	if (w->overflow || n > w->cap - w->len) {
		w->overflow = true;
		return;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

void dbw_pad(struct dbus_writer *w, size_t align)
{
	static const uint8_t zero[8];

	put(w, zero, (align - w->len % align) % align);
}

void dbw_byte(struct dbus_writer *w, uint8_t v)
{
	put(w, &v, 1);
}

static void put_u32_at(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

void dbw_u32(struct dbus_writer *w, uint32_t v)
{
	uint8_t b[4];

	dbw_pad(w, 4);
	put_u32_at(b, v);
	put(w, b, 4);
}

void dbw_u64(struct dbus_writer *w, uint64_t v)
{
	uint8_t b[8];

	dbw_pad(w, 8);
	put_u32_at(b, (uint32_t)v);
	put_u32_at(b + 4, (uint32_t)(v >> 32));
	put(w, b, 8);
}

void dbw_bool(struct dbus_writer *w, bool v)
{
	dbw_u32(w, v ? 1 : 0);
}

void dbw_string(struct dbus_writer *w, const char *s)
{
	size_t n = strlen(s);

	dbw_u32(w, (uint32_t)n);
	put(w, s, n + 1);
}

void dbw_signature(struct dbus_writer *w, const char *s)
{
	size_t n = strlen(s);

	if (n > 255) {
		w->overflow = true;
		return;
	}
	dbw_byte(w, (uint8_t)n);
	put(w, s, n + 1);
}

struct dbus_array dbw_array_begin(struct dbus_writer *w, size_t elem_align)
{
	struct dbus_array a;

	dbw_u32(w, 0);
	a.at = w->len - 4;
	dbw_pad(w, elem_align);
	a.start = w->len;
	return a;
}

void dbw_array_end(struct dbus_writer *w, struct dbus_array a)
{
	if (!w->overflow)
		put_u32_at(w->p + a.at, (uint32_t)(w->len - a.start));
}

static void field(struct dbus_writer *w, uint8_t code, const char *type, const char *v)
{
	dbw_pad(w, 8);
	dbw_byte(w, code);
	dbw_signature(w, type);
	if (type[0] == 'g')
		dbw_signature(w, v);
	else
		dbw_string(w, v);
}

void dbw_method_call(struct dbus_writer *w, uint32_t serial, const char *dest, const char *path,
		     const char *iface, const char *member, const char *sig)
{
	struct dbus_array a;

	dbw_byte(w, 'l');
	dbw_byte(w, DBUS_METHOD_CALL);
	dbw_byte(w, 0);         /* flags: a reply is expected */
	dbw_byte(w, 1);         /* protocol version */
	dbw_u32(w, 0);          /* the body's length, dbw_finish's */
	dbw_u32(w, serial);
	a = dbw_array_begin(w, 8);
	field(w, F_PATH, "o", path);      /* in sd-bus's order */
	field(w, F_MEMBER, "s", member);
	if (iface)
		field(w, F_INTERFACE, "s", iface);
	if (dest)
		field(w, F_DESTINATION, "s", dest);
	if (sig && *sig)
		field(w, F_SIGNATURE, "g", sig);
	dbw_array_end(w, a);
	dbw_pad(w, 8);
	w->body = w->len;
}

int dbw_finish(struct dbus_writer *w)
{
	if (w->overflow || w->len < DBUS_FIXED_HEADER || w->len > DBUS_MAX_MESSAGE)
		return -EMSGSIZE;
	put_u32_at(w->p + 4, (uint32_t)(w->len - w->body));
	return (int)w->len;
}

/* ---- reading ----------------------------------------------------------- */

struct reader {
	const uint8_t *p;
	size_t pos, end;        /* offsets from the message's start */
	bool big;
};

static uint32_t get_u32(const uint8_t *p, bool big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Skip to the alignment; the padding must be there and zero. */
static int r_align(struct reader *r, size_t align)
{
	size_t n = (align - r->pos % align) % align;

	if (n > r->end - r->pos)
		return -EBADMSG;
	for (; n; n--)
		if (r->p[r->pos++])
			return -EBADMSG;
	return 0;
}

static int r_fixed(struct reader *r, size_t size, const uint8_t **v)
{
	if (r_align(r, size) < 0 || size > r->end - r->pos)
		return -EBADMSG;
	*v = r->p + r->pos;
	r->pos += size;
	return 0;
}

static int r_u32(struct reader *r, uint32_t *v)
{
	const uint8_t *b;

	if (r_fixed(r, 4, &b) < 0)
		return -EBADMSG;
	*v = get_u32(b, r->big);
	return 0;
}

/* n bytes, then a nul; no nul inside. */
static int r_chars(struct reader *r, size_t n, const char **s)
{
	if (n >= r->end - r->pos || r->p[r->pos + n] || memchr(r->p + r->pos, 0, n))
		return -EBADMSG;
	*s = (const char *)r->p + r->pos;
	r->pos += n + 1;
	return 0;
}

static int r_string(struct reader *r, const char **s)
{
	uint32_t n;

	if (r_u32(r, &n) < 0)
		return -EBADMSG;
	return r_chars(r, n, s);
}

/* The end of the single complete type at sig, or NULL. */
static const char *sig_next(const char *sig, int depth)
{
	if (depth > MAX_DEPTH)
		return NULL;
	switch (*sig) {
	case 'y': case 'b': case 'n': case 'q': case 'i': case 'u': case 'x': case 't':
	case 'd': case 'h': case 's': case 'o': case 'g': case 'v':
		return sig + 1;
	case 'a':
		if (sig[1] == '{') {
			const char *k = sig + 2, *v;

			if (!*k || !strchr("ybnqiuxtdhsog", *k))
				return NULL;
			if (!(v = sig_next(k + 1, depth + 1)) || *v != '}')
				return NULL;
			return v + 1;
		}
		return sig_next(sig + 1, depth + 1);
	case '(':
		sig++;
		if (*sig == ')')
			return NULL;
		while (*sig != ')')
			if (!(sig = sig_next(sig, depth + 1)))
				return NULL;
		return sig + 1;
	default:
		return NULL;
	}
}

/* A signature: all complete types, at most 255 bytes. */
static bool sig_valid(const char *sig)
{
	if (strlen(sig) > 255)
		return false;
	while (*sig)
		if (!(sig = sig_next(sig, 0)))
			return false;
	return true;
}

static int r_signature(struct reader *r, const char **s)
{
	size_t n;

	if (r->pos >= r->end)
		return -EBADMSG;
	n = r->p[r->pos++];
	if (r_chars(r, n, s) < 0 || !sig_valid(*s))
		return -EBADMSG;
	return 0;
}

/* Check and skip one value of the single complete type at *sig. */
static int r_skip(struct reader *r, const char **sig, int depth)
{
	const char *s = *sig, *e, *str;
	const uint8_t *b;
	uint32_t n;
	size_t end;

	if (depth > MAX_DEPTH)
		return -EBADMSG;
	switch (*s) {
	case 'y':
		if (r_fixed(r, 1, &b) < 0)
			return -EBADMSG;
		break;
	case 'n': case 'q':
		if (r_fixed(r, 2, &b) < 0)
			return -EBADMSG;
		break;
	case 'b':
		if (r_u32(r, &n) < 0 || n > 1)
			return -EBADMSG;
		break;
	case 'i': case 'u': case 'h':
		if (r_fixed(r, 4, &b) < 0)
			return -EBADMSG;
		break;
	case 'x': case 't': case 'd':
		if (r_fixed(r, 8, &b) < 0)
			return -EBADMSG;
		break;
	case 's': case 'o':
		if (r_string(r, &str) < 0)
			return -EBADMSG;
		break;
	case 'g':
		if (r_signature(r, &str) < 0)
			return -EBADMSG;
		break;
	case 'v':
		if (r_signature(r, &str) < 0 || !*str || *sig_next(str, 0))
			return -EBADMSG;
		if (r_skip(r, &str, depth + 1) < 0)
			return -EBADMSG;
		break;
	case 'a':
		if (!(e = sig_next(s, depth)) || r_u32(r, &n) < 0 || n > MAX_ARRAY)
			return -EBADMSG;
		if (r_align(r, strchr("xtd({", s[1]) ? 8 : s[1] == 'n' || s[1] == 'q' ? 2 :
			    s[1] == 'y' || s[1] == 'g' || s[1] == 'v' ? 1 : 4) < 0 || n > r->end - r->pos)
			return -EBADMSG;
		end = r->pos + n;
		while (r->pos < end) {
			const char *el = s + 1;
			size_t save = r->end;

			r->end = end;
			if (r_skip(r, &el, depth + 1) < 0)
				return -EBADMSG;
			r->end = save;
		}
		*sig = e;
		return 0;
	case '(': case '{':
		if (r_align(r, 8) < 0)
			return -EBADMSG;
		for (s++; *s != ')' && *s != '}';)
			if (r_skip(r, &s, depth + 1) < 0)
				return -EBADMSG;
		*sig = s + 1;
		return 0;
	default:
		return -EBADMSG;
	}
	*sig = s + 1;
	return 0;
}

int dbus_msg_size(const uint8_t *hdr, size_t *size)
{
	bool big = hdr[0] == 'B';
	uint64_t fields, body, n;

	if ((hdr[0] != 'l' && !big) || hdr[3] != 1)
		return -EBADMSG;
	body = get_u32(hdr + 4, big);
	fields = get_u32(hdr + 12, big);
	n = DBUS_FIXED_HEADER + ((fields + 7) & ~(uint64_t)7) + body;
	if (n > DBUS_MAX_MESSAGE)
		return -EMSGSIZE;
	*size = (size_t)n;
	return 0;
}

static int header_field(struct reader *r, struct dbus_msg *m)
{
	static const char types[] = { [F_PATH] = 'o', [F_INTERFACE] = 's', [F_MEMBER] = 's',
		[F_ERROR_NAME] = 's', [F_REPLY_SERIAL] = 'u', [F_DESTINATION] = 's', [F_SENDER] = 's',
		[F_SIGNATURE] = 'g', [F_UNIX_FDS] = 'u' };
	const char **strs[] = { [F_PATH] = &m->path, [F_INTERFACE] = &m->interface,
		[F_MEMBER] = &m->member, [F_ERROR_NAME] = &m->error_name,
		[F_DESTINATION] = &m->destination, [F_SENDER] = &m->sender, [F_SIGNATURE] = &m->signature };
	const char *sig;
	uint8_t code;
	uint32_t u;

	if (r_align(r, 8) < 0 || r->pos >= r->end)
		return -EBADMSG;
	code = r->p[r->pos++];
	if (r_signature(r, &sig) < 0 || !*sig || *sig_next(sig, 0))
		return -EBADMSG;
	if (code == 0)
		return -EBADMSG;
	if (code >= sizeof(types))          /* unknown: ignored, as the specification says */
		return r_skip(r, &sig, 1);
	if (sig[0] != types[code])
		return -EBADMSG;
	if (types[code] == 'u') {
		if (r_u32(r, &u) < 0)
			return -EBADMSG;
		if (code == F_REPLY_SERIAL) {
			if (!u)
				return -EBADMSG;
			m->reply_serial = u;
		} else if (u) {
			return -EBADMSG;    /* file descriptors: never asked for */
		}
		return 0;
	}
	if (*strs[code])
		return -EBADMSG;            /* twice */
	if (types[code] == 'g')
		return r_signature(r, strs[code]);
	return r_string(r, strs[code]);
}

int dbus_msg_parse(const uint8_t *p, size_t len, struct dbus_msg *m)
{
	struct reader r;
	uint32_t fields;
	size_t size;
	const char *sig;

	*m = (struct dbus_msg){ .data = p, .len = len };
	if (len < DBUS_FIXED_HEADER || dbus_msg_size(p, &size) < 0 || size != len)
		return -EBADMSG;
	m->big_endian = p[0] == 'B';
	m->type = p[1];
	m->flags = p[2];
	m->serial = get_u32(p + 8, m->big_endian);
	fields = get_u32(p + 12, m->big_endian);
	if (!m->serial || m->type < DBUS_METHOD_CALL || m->type > DBUS_SIGNAL)
		return -EBADMSG;
	r = (struct reader){ .p = p, .pos = DBUS_FIXED_HEADER, .end = DBUS_FIXED_HEADER + fields,
			     .big = m->big_endian };
	while (r.pos < r.end)
		if (header_field(&r, m) < 0)
			return -EBADMSG;
	r.end = len;
	if (r_align(&r, 8) < 0)
		return -EBADMSG;
	m->body = r.pos;
	if (!m->signature)
		m->signature = "";
	switch (m->type) {
	case DBUS_METHOD_CALL:
		if (!m->path || !m->member)
			return -EBADMSG;
		break;
	case DBUS_METHOD_RETURN:
		if (!m->reply_serial)
			return -EBADMSG;
		break;
	case DBUS_ERROR:
		if (!m->reply_serial || !m->error_name)
			return -EBADMSG;
		break;
	case DBUS_SIGNAL:
		if (!m->path || !m->interface || !m->member)
			return -EBADMSG;
		break;
	}
	/* the body: exactly its signature's values */
	for (sig = m->signature; *sig;)
		if (r_skip(&r, &sig, 0) < 0)
			return -EBADMSG;
	return r.pos == len ? 0 : -EBADMSG;
}

int dbus_msg_read(const struct dbus_msg *m, const char *sig, ...)
{
	struct reader r = { .p = m->data, .pos = m->body, .end = m->len, .big = m->big_endian };
	const char *vsig;
	va_list ap;
	int ret = 0;
	uint32_t u;

	if (strncmp(m->signature, sig, strlen(sig)))
		return -ENXIO;
	va_start(ap, sig);
	for (; *sig && !ret; sig++) {
		switch (*sig) {
		case 'u':
			ret = r_u32(&r, va_arg(ap, uint32_t *));
			break;
		case 'b':
			if ((ret = r_u32(&r, &u)) == 0)
				*va_arg(ap, bool *) = u;
			break;
		case 's': case 'o':
			ret = r_string(&r, va_arg(ap, const char **));
			break;
		case 'g':
			ret = r_signature(&r, va_arg(ap, const char **));
			break;
		case 'v':       /* a variant holding a string */
			if ((ret = r_signature(&r, &vsig)) == 0)
				ret = strcmp(vsig, "s") ? -ENXIO : r_string(&r, va_arg(ap, const char **));
			break;
		default:
			ret = -EINVAL;
		}
	}
	va_end(ap);
	return ret < 0 ? ret : 0;
}

int dbus_error_errno(const char *name)
{
	static const struct { const char *name; int err; } map[] = {
		{ "org.freedesktop.DBus.Error.Failed", EACCES },
		{ "org.freedesktop.DBus.Error.NoMemory", ENOMEM },
		{ "org.freedesktop.DBus.Error.ServiceUnknown", EHOSTUNREACH },
		{ "org.freedesktop.DBus.Error.NameHasNoOwner", ENXIO },
		{ "org.freedesktop.DBus.Error.NoReply", ETIMEDOUT },
		{ "org.freedesktop.DBus.Error.Timeout", ETIMEDOUT },
		{ "org.freedesktop.DBus.Error.TimedOut", ETIMEDOUT },
		{ "org.freedesktop.DBus.Error.AccessDenied", EACCES },
		{ "org.freedesktop.DBus.Error.AuthFailed", EACCES },
		{ "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", EACCES },
		{ "org.freedesktop.DBus.Error.InvalidArgs", EINVAL },
		{ "org.freedesktop.DBus.Error.LimitsExceeded", ENOBUFS },
		{ "org.freedesktop.DBus.Error.NotSupported", EOPNOTSUPP },
		{ "org.freedesktop.DBus.Error.UnknownMethod", EBADR },
		{ "org.freedesktop.DBus.Error.UnknownObject", EBADR },
		{ "org.freedesktop.DBus.Error.UnknownInterface", EBADR },
		{ "org.freedesktop.DBus.Error.Disconnected", ECONNRESET },
		{ "org.freedesktop.systemd1.NoSuchUnit", ENOENT },
		{ "org.freedesktop.systemd1.UnitExists", EEXIST },
	};

	for (size_t i = 0; name && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i].name))
			return map[i].err;
	return EIO;
}
