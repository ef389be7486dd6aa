/* state.json (tinyrun's per-container record) and the state object `state`
 * prints, plus the small JSON string escaper the runtime's logs use. */
#include "state.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static int kv_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct oci_kv *const *)a)->key, (*(const struct oci_kv *const *)b)->key);
}

/* Sorted by key, as Go prints a map. */
static int write_annotations(struct json_writer *w, const struct container_state *st, bool sorted)
{
	const struct oci_kv **kv;

	if (st->n_annotations == 0)
		return 0;
	kv = malloc(st->n_annotations * sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (size_t i = 0; i < st->n_annotations; i++)
		kv[i] = &st->annotations[i];
	if (sorted)
		qsort(kv, st->n_annotations, sizeof(*kv), kv_cmp);
	json_w_key(w, "annotations");
	json_w_object(w);
	for (size_t i = 0; i < st->n_annotations; i++) {
		json_w_key(w, kv[i]->key);
		json_w_string(w, kv[i]->value ? kv[i]->value : "");
	}
	json_w_object_end(w);
	free(kv);
	return 0;
}

static void write_str(struct json_writer *w, const char *key, const char *value)
{
	json_w_key(w, key);
	json_w_string(w, value ? value : "");
}

/* pretty: what `runc state` prints (same keys, same order, two-space indent).
 * Otherwise: compact, with tinyrun's own fields for the state dir. */
int oci_state_to_json(const struct container_state *st, const char *status,
		      bool pretty, char **out, size_t *len, struct error *err)
{
	struct json_writer *w = json_writer_new(pretty ? "  " : NULL);
	int r;

	json_w_object(w);
	write_str(w, "ociVersion", st->oci_version);
	write_str(w, "id", st->id);
	json_w_key(w, "pid");
	json_w_int(w, st->pid);
	if (pretty || status)
		write_str(w, "status", status);
	write_str(w, "bundle", st->bundle);
	write_str(w, "rootfs", st->rootfs);
	write_str(w, "created", st->created);
	if (w && (r = write_annotations(w, st, pretty)) < 0) {
		json_writer_finish(w, out, len);
		return error_set(err, -r, "state: out of memory");
	}
	write_str(w, "owner", st->owner);
	if (!pretty) {
		json_w_key(w, "pid_start_time");
		json_w_uint(w, st->pid_start_time);
		if (st->cgroup_path)
			write_str(w, "cgroup_path", st->cgroup_path);
		json_w_key(w, "systemd_cgroup");
		json_w_bool(w, st->systemd_cgroup != 0);
		if (st->systemd_cgroup == 2) {
			json_w_key(w, "systemd_user");
			json_w_bool(w, true);
		}
	}
	json_w_object_end(w);
	if ((r = json_writer_finish(w, out, len)) < 0)
		return error_set(err, -r, "state: cannot write JSON");
	return 0;
}

/* Strings in state.json may be "" (owner): copy them as they are. */
static int state_str(struct pctx *c, const struct json_val *root, const char *key, bool req,
		     char **out)
{
	const struct json_val *v = parse_member(root, key);

	if (!v)
		return req ? parse_err(c, JKEY(NULL, key), "required") : 0;
	return parse_val_str(c, JKEY(NULL, key), v, out);
}

static int state_fields(struct pctx *c, const struct json_val *root, struct container_state *st)
{
	bool systemd = false, user = false;
	int64_t pid = 0;
	int r;

	if ((r = parse_val_type(c, NULL, root, JSON_OBJECT)) < 0 ||
	    (r = state_str(c, root, "ociVersion", REQ, &st->oci_version)) < 0 ||
	    (r = state_str(c, root, "id", REQ, &st->id)) < 0 ||
	    (r = parse_get_i64(c, NULL, root, "pid", OPT, 0, INT_MAX, &pid)) < 0 ||
	    (r = parse_get_u64(c, NULL, root, "pid_start_time", OPT, UINT64_MAX, &st->pid_start_time)) < 0 ||
	    (r = state_str(c, root, "bundle", OPT, &st->bundle)) < 0 ||
	    (r = state_str(c, root, "rootfs", OPT, &st->rootfs)) < 0 ||
	    (r = state_str(c, root, "created", OPT, &st->created)) < 0 ||
	    (r = state_str(c, root, "owner", OPT, &st->owner)) < 0 ||
	    (r = state_str(c, root, "cgroup_path", OPT, &st->cgroup_path)) < 0 ||
	    (r = parse_get_bool(c, NULL, root, "systemd_cgroup", &systemd)) < 0 ||
	    (r = parse_get_bool(c, NULL, root, "systemd_user", &user)) < 0 ||
	    (r = parse_get_kv(c, NULL, root, "annotations", &st->annotations, &st->n_annotations)) < 0)
		return r;
	st->pid = (pid_t)pid;
	st->systemd_cgroup = systemd ? 1 + user : 0;
	return 0;
}

int oci_state_parse(const char *name, const char *json, size_t len,
		    struct container_state *st, struct error *err)
{
	struct pctx c = { .name = name, .err = err };
	struct json_val *root;
	int r;

	memset(st, 0, sizeof(*st));
	if (!(c.a = arena_new(len * 2)))
		return error_set(err, ENOMEM, "%s: out of memory", name);
	if ((r = parse_buffer(&c, json, len, &root)) < 0) {
		arena_free(c.a);
		return r;
	}
	r = state_fields(&c, root, st);
	json_free(root);
	if (r < 0) {
		arena_free(c.a);
		memset(st, 0, sizeof(*st));
		return r;
	}
	st->arena = c.a;
	return 0;
}

void oci_state_free(struct container_state *st)
{
	arena_free(st->arena);
	memset(st, 0, sizeof(*st));
}

/* ---- oci_json_escape ---------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Escapes as Go's encoding/json does (runc's output): <, >, & and U+2028/9
 * as \u, invalid UTF-8 as \ufffd. The result includes the quotes. */
int oci_json_escape(char *buf, size_t size, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char tmp[8];

#define PUT(str, n) do { \
		if (len + (n) >= size) \
			return -1; \
		memcpy(buf + len, (str), (n)); \
		len += (n); \
	} while (0)

	if (len >= size)
		return -1;
	PUT("\"", 1);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			PUT("\\ufffd", 6);
			p++;
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			PUT(p[2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			p += 3;
		} else if (n > 1) {
			PUT(p, n);
			p += n;
		} else if (*p == '"' || *p == '\\') {
			tmp[0] = '\\', tmp[1] = (char)*p++;
			PUT(tmp, 2);
		} else if (*p == '\n' || *p == '\r' || *p == '\t') {
			tmp[0] = '\\', tmp[1] = *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't';
			p++;
			PUT(tmp, 2);
		} else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
			memcpy(tmp, "\\u00", 4);
			tmp[4] = hex[*p >> 4], tmp[5] = hex[*p & 15];
			p++;
			PUT(tmp, 6);
		} else {
			PUT(p, 1);
			p++;
		}
	}
	PUT("\"", 1);
#undef PUT
	buf[len] = '\0';
	return (int)len;
}
