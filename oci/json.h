/* The JSON library boundary: a read-only tree for parsing and a small
 * writer for output. Only oci/json.c includes the library (yajl); swapping
 * libraries touches that one file. Internal to oci/. */
#ifndef TINYRUN_OCI_JSON_H
#define TINYRUN_OCI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_val;   /* a node of a parsed document (opaque) */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_OBJECT, JSON_ARRAY };

/* Parse NUL-terminated `text`. On error returns NULL and writes a one-line
 * reason ("parse error: premature EOF") to errbuf. Documents nested deeper
 * than JSON_MAX_DEPTH, strings with a \u0000 escape and comments (which
 * yajl would allow) are refused. */
#define JSON_MAX_DEPTH 1000
struct json_val *json_parse(const char *text, char *errbuf, size_t errlen);
void json_free(struct json_val *root);

enum json_type json_type(const struct json_val *v);
const char *json_type_name(enum json_type t);     /* "string", "object" ... */

/* Object member by key (the last one when a key repeats), NULL when absent
 * or when obj is not an object. */
const struct json_val *json_get(const struct json_val *obj, const char *key);
/* Entries of an array or object; 0 for anything else. */
size_t json_len(const struct json_val *v);
/* i-th array element or object value. */
const struct json_val *json_at(const struct json_val *v, size_t i);
/* i-th object key. */
const char *json_key(const struct json_val *obj, size_t i);

const char *json_str(const struct json_val *v);   /* NULL unless a string */
bool json_bool(const struct json_val *v);         /* true only for `true` */
const char *json_num_text(const struct json_val *v); /* the number as written */
/* Integers with the full 64-bit range, from the number's text.
 * 0, -EINVAL when not an integer literal (1.5, 1e3, "1"), -ERANGE when it does not fit. */
int json_int64(const struct json_val *v, int64_t *out);
int json_uint64(const struct json_val *v, uint64_t *out);

/* ---- output ----------------------------------------------------------- */

struct json_writer;

/* indent NULL: compact; otherwise pretty with that indent string
 * ("  ", "    ", "\t"). Empty containers print as [] and {}. */
struct json_writer *json_writer_new(const char *indent);
void json_w_object(struct json_writer *w);
void json_w_object_end(struct json_writer *w);
void json_w_array(struct json_writer *w);
void json_w_array_end(struct json_writer *w);
void json_w_key(struct json_writer *w, const char *key);
void json_w_string(struct json_writer *w, const char *s);   /* NULL writes null */
void json_w_int(struct json_writer *w, int64_t v);
void json_w_uint(struct json_writer *w, uint64_t v);
void json_w_bool(struct json_writer *w, bool v);
void json_w_null(struct json_writer *w);
/* A parsed value, written as it is (numbers keep their text). */
void json_w_value(struct json_writer *w, const struct json_val *v);
/* Hand out the text (malloc'd, NUL-terminated, no trailing newline) and free
 * the writer. Returns 0 or -ENOMEM / -EINVAL if any step failed. */
int json_writer_finish(struct json_writer *w, char **out, size_t *len);

#endif
