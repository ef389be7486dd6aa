#include "runtime/criu/pb.h"

#include <errno.h>
#include <string.h>

void pb_put_varint(struct util_buf *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	do {
		out[n] = v & 0x7f;
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	util_buf_put(b, out, n);
}

static void put_key(struct util_buf *b, uint32_t field, enum pb_wire wire)
{
	pb_put_varint(b, (uint64_t)field << 3 | wire);
}

void pb_put_uint(struct util_buf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, PB_VARINT);
	pb_put_varint(b, v);
}

void pb_put_int32(struct util_buf *b, uint32_t field, int32_t v)
{
	pb_put_uint(b, field, (uint64_t)(int64_t)v);
}

void pb_put_bool(struct util_buf *b, uint32_t field, bool v)
{
	pb_put_uint(b, field, v ? 1 : 0);
}

void pb_put_bytes(struct util_buf *b, uint32_t field, const void *data, size_t len)
{
	put_key(b, field, PB_LEN);
	pb_put_varint(b, len);
	util_buf_put(b, data, len);
}

void pb_put_string(struct util_buf *b, uint32_t field, const char *s)
{
	pb_put_bytes(b, field, s, strlen(s));
}

void pb_reader_init(struct pb_reader *r, const void *data, size_t len)
{
	r->p = data;
	r->end = r->p + len;
}

static int get_varint(struct pb_reader *r, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -EBADMSG;
		uint8_t byte = *r->p++;

		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return 0;
	}
	return -EBADMSG;
}

static int get_fixed(struct pb_reader *r, size_t n, uint64_t *v)
{
	if ((size_t)(r->end - r->p) < n)
		return -EBADMSG;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return 0;
}

int pb_next(struct pb_reader *r, struct pb_field *f)
{
	uint64_t key, len;

	if (r->p >= r->end)
		return 0;
	if (get_varint(r, &key) < 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -EBADMSG;
	memset(f, 0, sizeof(*f));
	f->num = (uint32_t)(key >> 3);
	f->wire = (enum pb_wire)(key & 7);
	switch (f->wire) {
	case PB_VARINT:
		return get_varint(r, &f->v) < 0 ? -EBADMSG : 1;
	case PB_I64:
		return get_fixed(r, 8, &f->v) < 0 ? -EBADMSG : 1;
	case PB_I32:
		return get_fixed(r, 4, &f->v) < 0 ? -EBADMSG : 1;
	case PB_LEN:
		if (get_varint(r, &len) < 0 || len > (uint64_t)(r->end - r->p))
			return -EBADMSG;
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	}
	return -EBADMSG;
}
