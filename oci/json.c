/* The only file that knows the JSON library: yajl's parser (with callbacks
 * building a tree of our own) for reading, yajl_gen for writing. */
#include "json.h"
#include "util.h"

#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

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

/* The tree: one yajl pass with callbacks (the strict parser of strict_json,
 * so the same texts pass), its nodes and strings cut from a few big blocks
 * freed together. yajl_tree would lex the text a second time and malloc
 * every node, key and string. */
struct json_val {
	unsigned char type;          /* enum json_type */
	bool truth;                  /* JSON_BOOL: true */
	size_t len;                  /* entries of an array or object */
	union {
		const char *s;           /* JSON_STRING, JSON_NUMBER: the text */
		struct json_val **vals;  /* JSON_ARRAY, JSON_OBJECT */
	} u;
	const char **keys;           /* JSON_OBJECT */
};

struct tblock {
	struct tblock *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

/* the root's block comes first: json_free finds the chain from the root */
struct tree {
	struct tblock *head, *cur;
	struct json_val root;
};

struct frame {
	struct json_val *node;
	size_t start;                /* its first entry in b->items */
};

struct item { const char *key; struct json_val *val; };

/* yajl's own allocations during one parse (its handle, lexer, bytestack and
 * the lexer's 2 KB buffer: ~3 KB for a config) come from tree_parse's stack:
 * musl's malloc maps a group for each of those sizes and unmaps it again at
 * each parse (4 syscalls per parse). Past the buffer, malloc. */
struct ya_stack {
	size_t used, size;
	unsigned char *buf;          /* aligned for any type */
};

/* on tree_parse's stack (26 KB: no malloc'd 16 KB, which musl's malloc maps and unmaps at
 * each parse), with its first items inline */
#define INLINE_ITEMS 256
struct builder {
	struct tree *t;
	struct item *items;          /* inline until more are needed */
	size_t n_items, cap_items;
	struct item inline_items[INLINE_ITEMS];
	struct frame frames[JSON_MAX_DEPTH];
	size_t depth;
	const char *key;             /* the object key the next value goes under */
	bool have_root;
	struct ya_stack ya;          /* yajl's memory: */
	alignas(max_align_t) unsigned char ya_mem[6144];
};

#define YA_HDR sizeof(max_align_t)   /* the block's size, before it */

static size_t ya_span(size_t n)
{
	return (YA_HDR + n + YA_HDR - 1) & ~(YA_HDR - 1);
}

static bool ya_mine(const struct ya_stack *a, const void *p)
{
	return (const unsigned char *)p >= a->buf && (const unsigned char *)p < a->buf + a->size;
}

static size_t ya_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - YA_HDR, sizeof(n));
	return n;
}

static bool ya_last(const struct ya_stack *a, const void *p)
{
	return (const unsigned char *)p - YA_HDR + ya_span(ya_size(p)) == a->buf + a->used;
}

static void *ya_malloc(void *ctx, size_t n)
{
	struct ya_stack *a = ctx;
	unsigned char *p;

	if (n > a->size || ya_span(n) > a->size - a->used)
		return malloc(n);
	p = a->buf + a->used;
	memcpy(p, &n, sizeof(n));
	a->used += ya_span(n);
	return p + YA_HDR;
}

static void ya_free(void *ctx, void *p)
{
	struct ya_stack *a = ctx;

	if (!ya_mine(a, p))
		free(p);
	else if (ya_last(a, p))   /* else left until the parse ends */
		a->used = (size_t)((unsigned char *)p - YA_HDR - a->buf);
}

static void *ya_realloc(void *ctx, void *p, size_t n);

static yajl_alloc_funcs ya_funcs(struct ya_stack *a, unsigned char *mem, size_t size)
{
	a->used = 0;
	a->size = size;
	a->buf = mem;
	return (yajl_alloc_funcs){ .malloc = ya_malloc, .realloc = ya_realloc, .free = ya_free, .ctx = a };
}

static void *ya_realloc(void *ctx, void *p, size_t n)
{
	struct ya_stack *a = ctx;
	size_t old;
	void *q;

	if (!p)
		return ya_malloc(ctx, n);
	if (!ya_mine(a, p))
		return realloc(p, n);
	old = ya_size(p);
	if (ya_last(a, p) && n <= a->size &&
	    ya_span(n) <= a->size - (size_t)((unsigned char *)p - YA_HDR - a->buf)) {
		a->used = (size_t)((unsigned char *)p - YA_HDR - a->buf) + ya_span(n);
		memcpy((unsigned char *)p - YA_HDR, &n, sizeof(n));
		return p;
	}
	if (!(q = ya_malloc(ctx, n)))
		return NULL;
	memcpy(q, p, old < n ? old : n);
	ya_free(ctx, p);
	return q;
}

/* The largest block of the last tree freed, for the next parse: `list` parses a
 * state.json per container, and musl's malloc mapped and unmapped a group for each
 * block (an mmap, an munmap and fresh pages a container). One block; one thread. */
static struct tblock *spare;

static struct tblock *tblock_new(size_t size)
{
	struct tblock *b;

	if (spare && spare->size >= size) {
		b = spare;
		spare = NULL;
	} else if ((b = malloc(sizeof(*b) + size))) {
		b->size = size;
	} else {
		return NULL;
	}
	b->next = NULL;
	b->used = 0;
	return b;
}

static void tblock_free(struct tblock *b)
{
	if (spare && spare->size >= b->size) {
		free(b);
		return;
	}
	free(spare);
	spare = b;
}

static void *t_alloc(struct tree *t, size_t size, size_t align)
{
	struct tblock *c = t->cur, *nb;
	size_t at = (c->used + align - 1) & ~(align - 1), bs;

	if (at <= c->size && c->size - at >= size) {
		c->used = at + size;
		return c->data + at;
	}
	if (size > SIZE_MAX / 4)
		return NULL;
	bs = c->size * 2 > size ? c->size * 2 : size;
	if (!(nb = tblock_new(bs)))
		return NULL;
	c->next = nb;
	t->cur = nb;
	nb->used = size;
	return nb->data;
}

static char *t_strndup(struct tree *t, const unsigned char *s, size_t n)
{
	char *p = t_alloc(t, n + 1, 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static void tree_free(struct tree *t)
{
	struct tblock *c, *next;

	for (c = t ? t->head : NULL; c; c = next) {   /* t is inside head: read it first */
		next = c->next;
		tblock_free(c);
	}
}

/* A new node where the next value goes: the root, or an entry of the open container. */
static struct json_val *b_add(struct builder *b, unsigned char type)
{
	struct json_val *v;

	if (b->depth == 0) {
		if (b->have_root)
			return NULL;
		b->have_root = true;
		v = &b->t->root;
	} else {
		if (b->n_items == b->cap_items) {
			size_t cap = b->cap_items * 2;
			struct item *p = b->items == b->inline_items ? malloc(cap * sizeof(*p))
							 : realloc(b->items, cap * sizeof(*p));

			if (!p)
				return NULL;
			if (b->items == b->inline_items)
				memcpy(p, b->inline_items, sizeof(b->inline_items));
			b->items = p;
			b->cap_items = cap;
		}
		if (!(v = t_alloc(b->t, sizeof(*v), alignof(struct json_val))))
			return NULL;
		b->items[b->n_items].key = b->key;
		b->items[b->n_items].val = v;
		b->n_items++;
		b->key = NULL;
	}
	memset(v, 0, sizeof(*v));
	v->type = type;
	return v;
}

static int cb_null(void *ctx)
{
	return b_add(ctx, JSON_NULL) != NULL;
}

static int cb_bool(void *ctx, int truth)
{
	struct json_val *v = b_add(ctx, JSON_BOOL);

	if (v)
		v->truth = truth != 0;
	return v != NULL;
}

static int cb_text(struct builder *b, unsigned char type, const unsigned char *s, size_t n)
{
	struct json_val *v = b_add(b, type);

	return v && (v->u.s = t_strndup(b->t, s, n)) != NULL;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	return cb_text(ctx, JSON_NUMBER, (const unsigned char *)s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return cb_text(ctx, JSON_STRING, s, n);
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
	struct builder *b = ctx;

	return (b->key = t_strndup(b->t, s, n)) != NULL;
}

static int cb_open(struct builder *b, unsigned char type)
{
	struct json_val *v;

	if (b->depth >= JSON_MAX_DEPTH || !(v = b_add(b, type)))
		return 0;   /* too deep: json_parse's slow path says where */
	b->frames[b->depth].node = v;
	b->frames[b->depth].start = b->n_items;
	b->depth++;
	return 1;
}

static int cb_close(struct builder *b)
{
	struct frame *f = &b->frames[--b->depth];
	struct json_val *v = f->node;
	size_t n = b->n_items - f->start;

	v->len = n;
	if (n) {
		if (!(v->u.vals = t_alloc(b->t, n * sizeof(*v->u.vals), alignof(struct json_val *))))
			return 0;
		if (v->type == JSON_OBJECT &&
		    !(v->keys = t_alloc(b->t, n * sizeof(*v->keys), alignof(const char *))))
			return 0;
		for (size_t i = 0; i < n; i++) {
			v->u.vals[i] = b->items[f->start + i].val;
			if (v->keys)
				v->keys[i] = b->items[f->start + i].key;
		}
	}
	b->n_items = f->start;
	return 1;
}

static int cb_start_map(void *ctx) { return cb_open(ctx, JSON_OBJECT); }
static int cb_start_array(void *ctx) { return cb_open(ctx, JSON_ARRAY); }
static int cb_end(void *ctx) { return cb_close(ctx); }

static const yajl_callbacks tree_callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/* The tree of a valid text no deeper than JSON_MAX_DEPTH; NULL otherwise (or
 * out of memory), json_parse then finds the reason as it always did. */
static size_t tree_first(size_t len)
{
	return sizeof(struct tree) + 2 * len + 4096;   /* 19 KB of text: ~40 KB of nodes and strings */
}

static struct tree *tree_parse(const char *text, size_t len)
{
	struct builder bs, *b = &bs;
	struct tblock *blk;
	yajl_handle h = NULL;
	bool ok = false;

	if (!(blk = tblock_new(tree_first(len))))
		return NULL;
	b->items = b->inline_items;
	b->cap_items = INLINE_ITEMS;
	b->n_items = b->depth = 0;
	b->key = NULL;
	b->have_root = false;
	b->t = (struct tree *)blk->data;
	blk->used = sizeof(struct tree);
	b->t->head = b->t->cur = blk;
	yajl_alloc_funcs afs = ya_funcs(&b->ya, b->ya_mem, sizeof(b->ya_mem));
	h = yajl_alloc(&tree_callbacks, &afs, b);
	if (h && yajl_parse(h, (const unsigned char *)text, len) == yajl_status_ok &&
	    yajl_complete_parse(h) == yajl_status_ok)
		ok = b->have_root && b->depth == 0;
	if (h)
		yajl_free(h);
	if (b->items != b->inline_items)
		free(b->items);
	if (!ok) {
		tree_free(b->t);
		return NULL;
	}
	return b->t;
}

struct json_val *json_parse(const char *text, char *errbuf, size_t errlen)
{
	char ebuf[512] = "", loc[128] = "";
	size_t err_at = 0, n;
	const char *at;
	struct tree *t = tree_parse(text, strlen(text));

	if (t && !nul_escape(text))
		return &t->root;
	tree_free(t);
	/* the reason, in the order it was always looked for: the depth (before
	 * yajl, which would free a deep tree recursively), the strict parse, a
	 * \u0000, else memory */
	if ((at = too_deep(text))) {
		snprintf(errbuf, errlen, "nested deeper than %d levels, line %zu",
			 JSON_MAX_DEPTH, line_of(text, at));
		return NULL;
	}
	if (!strict_json(text, ebuf, sizeof(ebuf), &err_at)) {
		where(text, err_at, loc, sizeof(loc));
	} else if ((at = nul_escape(text))) {
		snprintf(errbuf, errlen, "\\u0000 (a NUL character) in a string, line %zu",
			 line_of(text, at));
		return NULL;
	} else {
		ebuf[0] = '\0';
	}
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
	if (root)
		tree_free((struct tree *)((char *)root - offsetof(struct tree, root)));
}

enum json_type json_type(const struct json_val *v)
{
	return (enum json_type)v->type;
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
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = obj->len; i-- > 0;)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->u.vals[i];
	/* runc's Go decoder also takes a member whose name differs only in
	 * case ("pagesize" for "pageSize"); an exact name wins */
	for (size_t i = obj->len; i-- > 0;)
		if (strcasecmp(obj->keys[i], key) == 0)
			return obj->u.vals[i];
	return NULL;
}

size_t json_len(const struct json_val *v)
{
	return v->type == JSON_ARRAY || v->type == JSON_OBJECT ? v->len : 0;
}

const struct json_val *json_at(const struct json_val *v, size_t i)
{
	return v->u.vals[i];
}

const char *json_key(const struct json_val *obj, size_t i)
{
	return obj->keys[i];
}

const char *json_str(const struct json_val *v)
{
	return v->type == JSON_STRING ? v->u.s : NULL;
}

bool json_bool(const struct json_val *v)
{
	return v->type == JSON_BOOL && v->truth;
}

const char *json_num_text(const struct json_val *v)
{
	return v->type == JSON_NUMBER ? v->u.s : NULL;
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

/* One malloc'd block for the writer, yajl_gen's memory and the text's first
 * KB, which json_writer_finish hands out as the text (moved to the block's
 * start): with musl each of the three was a malloc group mapped and unmapped
 * at every state.json. */
struct json_writer {
	yajl_gen g;
	struct util_buf out;         /* what yajl printed: in `first`, then malloc'd */
	bool pretty, failed;
	unsigned depth;
	size_t open_at[MAX_DEPTH];   /* buffer offset just after the '[' or '{' */
	bool items[MAX_DEPTH];       /* anything written inside yet */
	struct ya_stack ya;          /* yajl_gen's memory (~600 bytes): */
	alignas(max_align_t) unsigned char ya_mem[1024];
	char first[1024];
};

static void w_print(void *ctx, const char *s, size_t n)
{
	struct json_writer *w = ctx;

	if (w->out.p == w->first && w->out.len + n + 1 > w->out.cap) {
		struct util_buf heap = { 0 };   /* past `first`: to the heap */

		if (util_buf_put(&heap, w->first, w->out.len) < 0) {
			w->failed = true;
			return;
		}
		w->out = heap;
	}
	if (util_buf_put(&w->out, s, n) < 0)
		w->failed = true;
}

struct json_writer *json_writer_new(const char *indent)
{
	struct json_writer *w = malloc(sizeof(*w));
	yajl_alloc_funcs afs;

	if (!w)
		return NULL;
	memset(w, 0, offsetof(struct json_writer, ya));
	w->out.p = w->first;
	w->out.cap = sizeof(w->first);
	w->first[0] = '\0';
	afs = ya_funcs(&w->ya, w->ya_mem, sizeof(w->ya_mem));
	w->g = yajl_gen_alloc(&afs);
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
	bool inline_text = w && w->out.p == w->first;
	int r = 0;

	if (!w)
		return -ENOMEM;
	yajl_gen_free(w->g);
	if (w->failed || w->depth != 0 || w->out.len == 0) {
		r = w->failed ? -ENOMEM : -EINVAL;
		if (!inline_text)
			free(w->out.p);
		free(w);
		return r;
	}
	while (w->out.len > 0 && w->out.p[w->out.len - 1] == '\n')
		w->out.p[--w->out.len] = '\0';
	if (len)
		*len = w->out.len;
	if (!inline_text) {
		*out = w->out.p;
		free(w);
		return 0;
	}
	/* the text, in the block itself: to its start, the block is the caller's */
	memmove(w, w->first, w->out.len + 1);
	*out = (char *)w;
	return 0;
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
