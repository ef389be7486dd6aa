#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- paths and errors --------------------------------------------------- */

static bool is_ident(const char *k)
{
	if (!isalpha((unsigned char)*k) && *k != '_')
		return false;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_')
			return false;
	return true;
}

void parse_jpath_format(const struct jpath *p, char *buf, size_t size)
{
	const struct jpath *frames[64];
	size_t n = 0, len = 0;

	buf[0] = '\0';
	for (; p && n < 64; p = p->up)
		frames[n++] = p;
	while (n-- > 0 && len < size) {
		const struct jpath *f = frames[n];
		int w;

		if (!f->key)
			w = snprintf(buf + len, size - len, "[%zu]", f->idx);
		else if (is_ident(f->key))
			w = snprintf(buf + len, size - len, ".%s", f->key);
		else
			w = snprintf(buf + len, size - len, "[\"%s\"]", f->key);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* Names and values from the document may hold control characters: the
 * message stays one line. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int parse_err(struct pctx *c, const struct jpath *p, const char *fmt, ...)
{
	char path[512], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	one_line(msg);
	if (!p)
		return error_set(c->err, EINVAL, "%s: %s", c->name, msg);
	parse_jpath_format(p, path, sizeof(path));
	one_line(path);
	return error_set(c->err, EINVAL, "%s: %s: %s", c->name, path, msg);
}

void *parse_alloc(struct pctx *c, size_t n, size_t size)
{
	void *p = NULL;
	size_t total = n * size;

	if (size == 0 || n <= SIZE_MAX / size)
		p = arena_alloc(c->a, total > 0 ? total : 1);
	if (!p)
		error_set(c->err, ENOMEM, "%s: out of memory", c->name);
	return p;
}

char *parse_strdup(struct pctx *c, const char *s)
{
	char *d = arena_strdup(c->a, s);

	if (!d)
		error_set(c->err, ENOMEM, "%s: out of memory", c->name);
	return d;
}

const struct json_val *parse_member(const struct json_val *obj, const char *key)
{
	const struct json_val *v = json_get(obj, key);

	return v && json_type(v) != JSON_NULL ? v : NULL;
}

/* ---- values -------------------------------------------------------------- */

int parse_val_type(struct pctx *c, const struct jpath *p, const struct json_val *v, enum json_type t)
{
	if (json_type(v) == t)
		return 0;
	return parse_err(c, p, "expected %s", json_type_name(t));
}

int parse_val_str(struct pctx *c, const struct jpath *p, const struct json_val *v, char **out)
{
	if (parse_val_type(c, p, v, JSON_STRING) < 0)
		return -EINVAL;
	*out = parse_strdup(c, json_str(v));
	return *out ? 0 : -ENOMEM;
}

static int not_integer(struct pctx *c, const struct jpath *p, const struct json_val *v)
{
	(void)v;
	return parse_err(c, p, "expected integer");
}

int parse_val_i64(struct pctx *c, const struct jpath *p, const struct json_val *v,
	    int64_t min, int64_t max, int64_t *out)
{
	int64_t n;
	int r;

	if (json_type(v) != JSON_NUMBER)
		return not_integer(c, p, v);
	r = json_int64(v, &n);
	if (r == -EINVAL)
		return not_integer(c, p, v);
	if (r < 0 || n < min || n > max)
		return parse_err(c, p, "%s is out of range (%" PRId64 " to %" PRId64 ")",
			    json_num_text(v), min, max);
	*out = n;
	return 0;
}

int parse_val_u64(struct pctx *c, const struct jpath *p, const struct json_val *v,
	    uint64_t max, uint64_t *out)
{
	uint64_t n;
	int r;

	if (json_type(v) != JSON_NUMBER)
		return not_integer(c, p, v);
	r = json_uint64(v, &n);
	if (r == -EINVAL)
		return not_integer(c, p, v);
	if (r < 0 || n > max)
		return parse_err(c, p, "%s is out of range (0 to %" PRIu64 ")", json_num_text(v), max);
	*out = n;
	return 0;
}

int parse_val_name(struct pctx *c, const struct jpath *p, const struct json_val *v,
	     const struct oci_name *t, size_t n, const char *what, int *out)
{
	int value;

	if (parse_val_type(c, p, v, JSON_STRING) < 0)
		return -EINVAL;
	value = oci_name_lookup(t, n, json_str(v));
	if (value < 0)
		return parse_err(c, p, "unknown %s \"%s\"", what, json_str(v));
	*out = value;
	return 0;
}

/* ---- members ------------------------------------------------------------ */

/* The member, or NULL; `*r` is 0 when absent and optional, <0 when required. */
static const struct json_val *want(struct pctx *c, const struct jpath *p,
				   const struct json_val *obj, const char *key, bool req, int *r)
{
	const struct json_val *v = parse_member(obj, key);

	*r = 0;
	if (!v && req)
		*r = parse_err(c, JKEY(p, key), "required");
	return v;
}

int parse_get_obj(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, const struct json_val **out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	*out = NULL;
	if (!v)
		return r;
	if (parse_val_type(c, JKEY(p, key), v, JSON_OBJECT) < 0)
		return -EINVAL;
	*out = v;
	return 1;
}

int parse_get_arr(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, const struct json_val **out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	*out = NULL;
	if (!v)
		return r;
	if (parse_val_type(c, JKEY(p, key), v, JSON_ARRAY) < 0)
		return -EINVAL;
	*out = v;
	return 1;
}

int parse_get_str(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, char **out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	if (!v)
		return r;
	if (!req && json_type(v) == JSON_STRING && json_str(v)[0] == '\0')
		return 0;   /* like Go's zero value: "" is the same as absent */
	return parse_val_str(c, JKEY(p, key), v, out) < 0 ? -EINVAL : 1;
}

int parse_get_bool(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool *out)
{
	const struct json_val *v = parse_member(obj, key);

	if (!v)
		return 0;
	if (parse_val_type(c, JKEY(p, key), v, JSON_BOOL) < 0)
		return -EINVAL;
	*out = json_bool(v);
	return 1;
}

int parse_get_i64(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, int64_t min, int64_t max, int64_t *out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	if (!v)
		return r;
	return parse_val_i64(c, JKEY(p, key), v, min, max, out) < 0 ? -EINVAL : 1;
}

int parse_get_u64(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint64_t max, uint64_t *out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	if (!v)
		return r;
	return parse_val_u64(c, JKEY(p, key), v, max, out) < 0 ? -EINVAL : 1;
}

int parse_get_u32(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint32_t *out)
{
	uint64_t v;
	int r = parse_get_u64(c, p, obj, key, req, UINT32_MAX, &v);

	if (r > 0)
		*out = (uint32_t)v;
	return r;
}

int parse_get_u16(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint16_t *out)
{
	uint64_t v;
	int r = parse_get_u64(c, p, obj, key, req, UINT16_MAX, &v);

	if (r > 0)
		*out = (uint16_t)v;
	return r;
}

int parse_get_i32(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, int32_t *out)
{
	int64_t v;
	int r = parse_get_i64(c, p, obj, key, req, INT32_MIN, INT32_MAX, &v);

	if (r > 0)
		*out = (int32_t)v;
	return r;
}

int parse_get_name(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool req, const struct oci_name *t, size_t n,
	     const char *what, int *out)
{
	int r;
	const struct json_val *v = want(c, p, obj, key, req, &r);

	if (!v)
		return r;
	return parse_val_name(c, JKEY(p, key), v, t, n, what, out) < 0 ? -EINVAL : 1;
}

int parse_get_strv(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool req, char ***out, size_t *n)
{
	const struct json_val *arr;
	const struct jpath *kp = JKEY(p, key);
	char **v;
	size_t len;
	int r;

	if ((r = parse_get_arr(c, p, obj, key, req, &arr)) <= 0)
		return r;
	len = json_len(arr);
	v = parse_alloc(c, len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		if (parse_val_str(c, JIDX(kp, i), json_at(arr, i), &v[i]) < 0)
			return -EINVAL;
	*out = v;
	*n = len;
	return 1;
}

static int by_key_then_index(const void *a, const void *b, void *map)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int d = strcmp(json_key(map, i), json_key(map, j));

	return d ? d : (i > j) - (i < j);
}

/* For each member of map: true when its key appears again later in the
 * object (the last one wins, as when Go decodes into a map). Sorted, so a
 * map with many keys stays fast. NULL with the error set on ENOMEM. */
static bool *repeated_keys(struct pctx *c, const struct json_val *map)
{
	size_t n = json_len(map);
	size_t *idx = parse_alloc(c, n, sizeof(*idx));
	bool *rep = parse_alloc(c, n, sizeof(*rep));

	if (!idx || !rep)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), by_key_then_index, (void *)map);
	for (size_t i = 0; i + 1 < n; i++)
		rep[idx[i]] = strcmp(json_key(map, idx[i]), json_key(map, idx[i + 1])) == 0;
	return rep;
}

int parse_get_kv(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	   const char *key, struct oci_kv **out, size_t *n)
{
	const struct json_val *map;
	const struct jpath *kp = JKEY(p, key);
	struct oci_kv *kv;
	bool *rep;
	size_t len;
	int r;

	if ((r = parse_get_obj(c, p, obj, key, OPT, &map)) <= 0)
		return r;
	len = json_len(map);
	kv = parse_alloc(c, len, sizeof(*kv));
	if (!kv || !(rep = repeated_keys(c, map)))
		return -ENOMEM;
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		struct oci_kv *e = &kv[*n];

		if (rep[i])
			continue;
		if (!(e->key = parse_strdup(c, json_key(map, i))))
			return -ENOMEM;
		if (parse_val_str(c, JKEY(kp, json_key(map, i)), json_at(map, i), &e->value) < 0)
			return -EINVAL;
		(*n)++;
	}
	*out = kv;
	return 1;
}

int parse_get_array_of(struct pctx *c, const struct jpath *p, const struct json_val *obj,
		 const char *key, size_t size, void *out, size_t *n, elem_fn fn, void *ud)
{
	const struct json_val *arr;
	const struct jpath *kp = JKEY(p, key);
	unsigned char *elems;
	size_t len;
	int r;

	if ((r = parse_get_arr(c, p, obj, key, OPT, &arr)) <= 0)
		return r;
	len = json_len(arr);
	elems = parse_alloc(c, len, size);
	if (!elems)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		const struct json_val *v = json_at(arr, i);

		if (parse_val_type(c, JIDX(kp, i), v, JSON_OBJECT) < 0)
			return -EINVAL;
		if ((r = fn(c, JIDX(kp, i), v, elems + i * size, ud)) < 0)
			return r;
	}
	*(void **)out = elems;
	*n = len;
	return 1;
}

int parse_get_map_of(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	       const char *key, size_t size, void *out, size_t *n, entry_fn fn, void *ud)
{
	const struct json_val *map;
	const struct jpath *kp = JKEY(p, key);
	unsigned char *elems;
	bool *rep;
	size_t len;
	int r;

	if ((r = parse_get_obj(c, p, obj, key, OPT, &map)) <= 0)
		return r;
	len = json_len(map);
	elems = parse_alloc(c, len, size);
	if (!elems || !(rep = repeated_keys(c, map)))
		return -ENOMEM;
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		const struct json_val *v = json_at(map, i);
		const struct jpath *ep = JKEY(kp, json_key(map, i));

		if (rep[i])
			continue;
		if (parse_val_type(c, ep, v, JSON_OBJECT) < 0)
			return -EINVAL;
		if ((r = fn(c, ep, json_key(map, i), v, elems + *n * size, ud)) < 0)
			return r;
		(*n)++;
	}
	*(void **)out = elems;
	return 1;
}

/* ---- misc --------------------------------------------------------------- */

static bool parse_num(const char **s, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return false;
	errno = 0;
	*out = strtoul(*s, &end, 10);
	if (errno)
		return false;
	*s = end;
	return true;
}

bool parse_cpu_list(const char *s, unsigned long *count, unsigned long *max)
{
	unsigned long a, b;

	*count = *max = 0;
	if (*s == '\0')
		return true;
	for (;;) {
		if (!parse_num(&s, &a))
			return false;
		b = a;
		if (*s == '-') {
			s++;
			if (!parse_num(&s, &b) || b < a)
				return false;
		}
		*count += b - a + 1;
		if (b > *max)
			*max = b;
		if (*s == '\0')
			return true;
		if (*s++ != ',')
			return false;
	}
}

bool parse_cpu_list_valid(const char *s)
{
	unsigned long count, max;

	return parse_cpu_list(s, &count, &max);
}

int parse_document(struct pctx *c, const char *text, size_t len, struct json_val **root)
{
	size_t nul = strlen(text);
	char why[256];

	*root = NULL;
	if (len > OCI_JSON_MAX_SIZE)
		return error_set(c->err, EFBIG, "%s: %zu bytes is too large (at most %d MiB)",
				 c->name, len, OCI_JSON_MAX_SIZE >> 20);
	if (nul < len)
		return error_set(c->err, EINVAL, "%s: invalid JSON: NUL byte at offset %zu", c->name, nul);
	*root = json_parse(text, why, sizeof(why));
	if (!*root)
		return error_set(c->err, EINVAL, "%s: invalid JSON: %s", c->name, why);
	return 0;
}

int parse_buffer(struct pctx *c, const char *json, size_t len, struct json_val **root)
{
	char *copy = malloc(len + 1);
	int r;

	if (!copy)
		return error_set(c->err, ENOMEM, "%s: out of memory", c->name);
	memcpy(copy, json, len);
	copy[len] = '\0';
	r = parse_document(c, copy, len, root);
	free(copy);
	return r;
}
