/* The protobuf wire format, as much of it as CRIU's RPC (rpc.proto) needs:
 * varints, length-delimited fields (strings, nested messages) on the way out;
 * a field-by-field reader on the way back. No schema: rpc.c names the fields. */
#ifndef TINYRUN_CRIU_PB_H
#define TINYRUN_CRIU_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oci/util.h"

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

/* Writers append to a util_buf (its oom flag says whether all went in). */
void pb_put_varint(struct util_buf *b, uint64_t v);
void pb_put_uint(struct util_buf *b, uint32_t field, uint64_t v);
/* int32 as protobuf encodes it: a negative value sign-extended to 64 bits. */
void pb_put_int32(struct util_buf *b, uint32_t field, int32_t v);
void pb_put_bool(struct util_buf *b, uint32_t field, bool v);
void pb_put_bytes(struct util_buf *b, uint32_t field, const void *data, size_t len);
void pb_put_string(struct util_buf *b, uint32_t field, const char *s);

/* One field read from a message. */
struct pb_field {
	uint32_t num;
	enum pb_wire wire;
	uint64_t v;              /* PB_VARINT, PB_I64, PB_I32 */
	const uint8_t *data;     /* PB_LEN */
	size_t len;
};

struct pb_reader {
	const uint8_t *p, *end;
};

void pb_reader_init(struct pb_reader *r, const void *data, size_t len);
/* The next field: 1, 0 at the end, -EBADMSG when the bytes are not a message. */
int pb_next(struct pb_reader *r, struct pb_field *f);

#endif
