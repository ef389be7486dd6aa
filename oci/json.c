/* The only file that knows the JSON library: yajl_tree for reading,
 * yajl_gen for writing. */
#include "json.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

/* struct json_val is yajl's node; the cast keeps yajl out of json.h. */
#define Y(v) ((yajl_val)(v))

/* Where a \u0000 escape is in a parsed (hence valid) text, or NULL: the
 * tree holds C strings, which would silently end at the NUL. */
static const char *nul_escape(const char *text)
{
	for (const char *p = text; (p = strstr(p, "\\u0000")); p++) {
		size_t slashes = 1;

		while ((size_t)(p - text) >= slashes && p[-(ptrdiff_t)slashes] == '\\')
			slashes++;
		if (slashes % 2)   /* "\\u0000" is a backslash and "u0000" */
			return p;
	}
	return NULL;
}

/* Where [ and { nest deeper than JSON_MAX_DEPTH, or NULL. yajl parses
 * iteratively but frees its tree recursively: a deep document would
 * overflow the stack. */
static const char *too_deep(const char *text)
{
	size_t depth = 0;
	bool in_str = false;

	for (const char *p = text; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '[' || *p == '{') {
			if (++depth > JSON_MAX_DEPTH)
				return p;
		} else if ((*p == ']' || *p == '}') && depth > 0) {
			depth--;
		}
	}
	return NULL;
}

static size_t line_of(const char *text, const char *at)
{
	size_t line = 1;

	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* yajl_tree_parse turns yajl_allow_comments on (and cannot be told
 * otherwise), but config.json is JSON: "//" and "/ * * /" comments are not.
 * So the text first goes through yajl's own parser with its defaults
 * (comments off, UTF-8 checked), without callbacks; its verbose error goes
 * to ebuf as yajl_tree_parse would write it. */
static bool strict_json(const char *text, char *ebuf, size_t elen, size_t *err_at)
{
	yajl_handle h = yajl_alloc(NULL, NULL, NULL);
	size_t len = strlen(text);
	yajl_status st;

	if (!h) {
		ebuf[0] = '\0';   /* "out of memory" */
		return false;
	}
	st = yajl_parse(h, (const unsigned char *)text, len);
	*err_at = yajl_get_bytes_consumed(h);
	if (st == yajl_status_ok) {
		st = yajl_complete_parse(h);
		*err_at = len;
	}
	if (st != yajl_status_ok) {
		unsigned char *e = yajl_get_error(h, 1, (const unsigned char *)text, len);

		snprintf(ebuf, elen, "%s", e ? (const char *)e : "");
		yajl_free_error(h, e);
	}
	yajl_free(h);
	return st == yajl_status_ok;
}

/* ", line L, column C, near 'TEXT'": the end of the token the parser stopped at
 * (columns from 1), and the
 * text around it on its line (at most 20 characters either side). */
static void where(const char *text, size_t at, char *out, size_t size)
{
	size_t len = strlen(text), start, end, k = 0, col;
	const char *line_start = text;
	char near[48];

	if (at > len)
		at = len;
	for (const char *p = text; p < text + at; p++)
		if (*p == '\n')
			line_start = p + 1;
	start = at - (size_t)(line_start - text) > 20 ? at - 20 : (size_t)(line_start - text);
	for (end = at; end < len && end < at + 20 && text[end] != '\n' && text[end] != '\r'; end++)
		;
	for (size_t i = start; i < end && k < sizeof(near) - 1; i++)
		near[k++] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' ' : text[i];
	near[k] = '\0';
	col = at - (size_t)(line_start - text);
	snprintf(out, size, ", line %zu, column %zu%s%s%s", line_of(text, text + at), col ? col : 1,
		 k ? ", near '" : "", near, k ? "'" : "");
}

struct json_val *json_parse(const char *text, char *errbuf, size_t errlen)
{
	char ebuf[512] = "", loc[128] = "";
	size_t err_at = 0;
	const char *at = too_deep(text);
	yajl_val root = NULL;
	size_t n;

	if (at) {
		snprintf(errbuf, errlen, "nested deeper than %d levels, line %zu",
			 JSON_MAX_DEPTH, line_of(text, at));
		return NULL;
	}
	if (strict_json(text, ebuf, sizeof(ebuf), &err_at))
		root = yajl_tree_parse(text, ebuf, sizeof(ebuf));
	else
		where(text, err_at, loc, sizeof(loc));
	if (root && (at = nul_escape(text))) {
		snprintf(errbuf, errlen, "\\u0000 (a NUL character) in a string, line %zu",
			 line_of(text, at));
		yajl_tree_free(root);
		return NULL;
	}
	if (root)
		return (struct json_val *)root;
	n = strcspn(ebuf, "\n");
	while (n > 0 && (ebuf[n - 1] == ' ' || (loc[0] && ebuf[n - 1] == '.')))
		n--;
	if (n == 0)
		snprintf(errbuf, errlen, "out of memory");
	else
		snprintf(errbuf, errlen, "%.*s%s", (int)n, ebuf, loc);
	return NULL;
}

void json_free(struct json_val *root)
{
	yajl_tree_free(Y(root));
}

enum json_type json_type(const struct json_val *v)
{
	switch (Y(v)->type) {
	case yajl_t_string: return JSON_STRING;
	case yajl_t_number: return JSON_NUMBER;
	case yajl_t_object: return JSON_OBJECT;
	case yajl_t_array:  return JSON_ARRAY;
	case yajl_t_true:
	case yajl_t_false:  return JSON_BOOL;
	default:            return JSON_NULL;
	}
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = {
		[JSON_NULL] = "null", [JSON_BOOL] = "boolean", [JSON_NUMBER] = "number",
		[JSON_STRING] = "string", [JSON_OBJECT] = "object", [JSON_ARRAY] = "array",
	};
	return names[t];
}

const struct json_val *json_get(const struct json_val *obj, const char *key)
{
	yajl_val o = Y(obj);

	if (!o || o->type != yajl_t_object)
		return NULL;
	for (size_t i = o->u.object.len; i-- > 0;)
		if (strcmp(o->u.object.keys[i], key) == 0)
			return (const struct json_val *)o->u.object.values[i];
	/* runc's Go decoder also takes a member whose name differs only in
	 * case ("pagesize" for "pageSize"); an exact name wins */
	for (size_t i = o->u.object.len; i-- > 0;)
		if (strcasecmp(o->u.object.keys[i], key) == 0)
			return (const struct json_val *)o->u.object.values[i];
	return NULL;
}

size_t json_len(const struct json_val *v)
{
	if (Y(v)->type == yajl_t_array)
		return Y(v)->u.array.len;
	if (Y(v)->type == yajl_t_object)
		return Y(v)->u.object.len;
	return 0;
}

const struct json_val *json_at(const struct json_val *v, size_t i)
{
	if (Y(v)->type == yajl_t_array)
		return (const struct json_val *)Y(v)->u.array.values[i];
	return (const struct json_val *)Y(v)->u.object.values[i];
}

const char *json_key(const struct json_val *obj, size_t i)
{
	return Y(obj)->u.object.keys[i];
}

const char *json_str(const struct json_val *v)
{
	return Y(v)->type == yajl_t_string ? Y(v)->u.string : NULL;
}

bool json_bool(const struct json_val *v)
{
	return Y(v)->type == yajl_t_true;
}

const char *json_num_text(const struct json_val *v)
{
	return Y(v)->type == yajl_t_number ? Y(v)->u.number.r : NULL;
}

/* An integer literal: optional '-' then digits only (JSON already forbids
 * leading '+' and leading zeros). */
static const char *int_text(const struct json_val *v)
{
	const char *s = json_num_text(v), *p;

	if (!s)
		return NULL;
	p = s + (*s == '-');
	if (*p == '\0' || p[strspn(p, "0123456789")] != '\0')
		return NULL;
	return s;
}

int json_int64(const struct json_val *v, int64_t *out)
{
	const char *s = int_text(v);
	long long n;

	if (!s)
		return -EINVAL;
	errno = 0;
	n = strtoll(s, NULL, 10);
	if (errno)
		return -ERANGE;
	*out = n;
	return 0;
}

int json_uint64(const struct json_val *v, uint64_t *out)
{
	const char *s = int_text(v);
	unsigned long long n;

	if (!s)
		return -EINVAL;
	if (*s == '-')
		return -ERANGE;
	errno = 0;
	n = strtoull(s, NULL, 10);
	if (errno)
		return -ERANGE;
	*out = n;
	return 0;
}

/* ---- output ----------------------------------------------------------- */

#define MAX_DEPTH 128

struct json_writer {
	yajl_gen g;
	struct util_buf out;         /* what yajl printed */
	bool pretty, failed;
	unsigned depth;
	size_t open_at[MAX_DEPTH];   /* buffer offset just after the '[' or '{' */
	bool items[MAX_DEPTH];       /* anything written inside yet */
};

static void w_print(void *ctx, const char *s, size_t n)
{
	struct json_writer *w = ctx;

	if (util_buf_put(&w->out, s, n) < 0)
		w->failed = true;
}

struct json_writer *json_writer_new(const char *indent)
{
	struct json_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->g = yajl_gen_alloc(NULL);
	if (!w->g) {
		free(w);
		return NULL;
	}
	yajl_gen_config(w->g, yajl_gen_print_callback, w_print, w);
	if (indent) {
		w->pretty = true;
		yajl_gen_config(w->g, yajl_gen_beautify, 1);
		yajl_gen_config(w->g, yajl_gen_indent_string, indent);
	}
	return w;
}

static void w_check(struct json_writer *w, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok)
		w->failed = true;
}

static void w_item(struct json_writer *w)
{
	if (w->depth > 0)
		w->items[w->depth - 1] = true;
}

static void w_open(struct json_writer *w, bool object)
{
	if (!w)
		return;
	w_item(w);
	w_check(w, object ? yajl_gen_map_open(w->g) : yajl_gen_array_open(w->g));
	if (w->failed || w->depth >= MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->open_at[w->depth] = w->out.len - (w->pretty ? 1 : 0);   /* pretty adds "\n" */
	w->items[w->depth] = false;
	w->depth++;
}

/* yajl's pretty printer writes "[\n\n]" for an empty array: cut it back to "[]". */
static void w_close(struct json_writer *w, bool object)
{
	bool empty;

	if (!w || w->failed || w->depth == 0) {
		if (w)
			w->failed = true;
		return;
	}
	w->depth--;
	empty = !w->items[w->depth];
	w_check(w, object ? yajl_gen_map_close(w->g) : yajl_gen_array_close(w->g));
	if (w->pretty && empty && !w->failed) {
		w->out.len = w->open_at[w->depth];
		w_print(w, object ? "}" : "]", 1);
	}
}

void json_w_object(struct json_writer *w) { w_open(w, true); }
void json_w_object_end(struct json_writer *w) { w_close(w, true); }
void json_w_array(struct json_writer *w) { w_open(w, false); }
void json_w_array_end(struct json_writer *w) { w_close(w, false); }

void json_w_key(struct json_writer *w, const char *key)
{
	if (!w)
		return;
	w_item(w);
	w_check(w, yajl_gen_string(w->g, (const unsigned char *)key, strlen(key)));
}

void json_w_string(struct json_writer *w, const char *s)
{
	if (!w)
		return;
	if (!s) {
		json_w_null(w);
		return;
	}
	w_item(w);
	w_check(w, yajl_gen_string(w->g, (const unsigned char *)s, strlen(s)));
}

void json_w_int(struct json_writer *w, int64_t v)
{
	if (!w)
		return;
	w_item(w);
	w_check(w, yajl_gen_integer(w->g, (long long)v));
}

void json_w_uint(struct json_writer *w, uint64_t v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%" PRIu64, v);

	if (!w)
		return;
	w_item(w);
	w_check(w, yajl_gen_number(w->g, num, (size_t)n));
}

void json_w_bool(struct json_writer *w, bool v)
{
	if (!w)
		return;
	w_item(w);
	w_check(w, yajl_gen_bool(w->g, v));
}

void json_w_null(struct json_writer *w)
{
	if (!w)
		return;
	w_item(w);
	w_check(w, yajl_gen_null(w->g));
}

int json_writer_finish(struct json_writer *w, char **out, size_t *len)
{
	int r = 0;

	if (!w)
		return -ENOMEM;
	if (w->failed || w->depth != 0 || !w->out.p) {
		r = w->failed ? -ENOMEM : -EINVAL;
		free(w->out.p);
	} else {
		while (w->out.len > 0 && w->out.p[w->out.len - 1] == '\n')
			w->out.p[--w->out.len] = '\0';
		*out = w->out.p;
		if (len)
			*len = w->out.len;
	}
	yajl_gen_free(w->g);
	free(w);
	return r;
}

void json_w_value(struct json_writer *w, const struct json_val *v)
{
	if (!w)
		return;
	switch (json_type(v)) {
	case JSON_NULL: json_w_null(w); break;
	case JSON_BOOL: json_w_bool(w, json_bool(v)); break;
	case JSON_STRING: json_w_string(w, json_str(v)); break;
	case JSON_NUMBER: {
		const char *t = json_num_text(v);
		w_item(w);
		w_check(w, yajl_gen_number(w->g, t, strlen(t)));
		break;
	}
	case JSON_ARRAY:
		json_w_array(w);
		for (size_t i = 0; i < json_len(v); i++)
			json_w_value(w, json_at(v, i));
		json_w_array_end(w);
		break;
	case JSON_OBJECT:
		json_w_object(w);
		for (size_t i = 0; i < json_len(v); i++) {
			json_w_key(w, json_key(v, i));
			json_w_value(w, json_at(v, i));
		}
		json_w_object_end(w);
		break;
	}
}
