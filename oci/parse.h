/* Helpers shared by the config*.c section parsers: JSON paths for error
 * messages, typed member getters that validate as they copy into the arena.
 * Internal to oci/.
 *
 * Getter convention: return 1 when the member is present (and valid), 0 when
 * it is absent or null (an error "required" instead when `req`), or a
 * negative errno with c->err filled as "<name>: <path>: <reason>".
 * An optional string member that is "" counts as absent (Go's zero value,
 * which is how runc reads it). */
#ifndef TINYRUN_OCI_PARSE_H
#define TINYRUN_OCI_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "config.h"
#include "json.h"
#include "tables.h"

struct pctx {
	const char *name;      /* message prefix: "config.json" */
	struct arena *a;
	struct error *err;
};

/* A path into the document as a chain of stack frames; formatted only when
 * an error is reported. NULL is the document root. */
struct jpath {
	const struct jpath *up;
	const char *key;       /* member name, or NULL for an array index */
	size_t idx;
};
#define JKEY(parent, k) (&(const struct jpath){ (parent), (k), 0 })
#define JIDX(parent, i) (&(const struct jpath){ (parent), NULL, (i) })

enum { OPT = 0, REQ = 1 };

/* Largest uid/gid accepted (process.user, additionalGids), as runc: beyond
 * it is 4294967295, (uid_t)-1, which setresuid() takes for "unchanged". */
#define OCI_ID_MAX 2147483647u
/* What the kernel's dev_t holds (MINORBITS 20): larger numbers would be
 * truncated by mknod into another device. */
#define OCI_DEV_MAJOR_MAX 4095
#define OCI_DEV_MINOR_MAX 1048575

int parse_err(struct pctx *c, const struct jpath *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write the path (".linux.namespaces[2].type") into buf. */
void parse_jpath_format(const struct jpath *p, char *buf, size_t size);

void *parse_alloc(struct pctx *c, size_t n, size_t size);   /* zeroed n*size, error set on NULL */
char *parse_strdup(struct pctx *c, const char *s);

/* obj's member `key`, NULL when absent, null, or obj is not an object. */
const struct json_val *parse_member(const struct json_val *obj, const char *key);

/* ---- a value at path p ------------------------------------------------- */
int parse_val_type(struct pctx *c, const struct jpath *p, const struct json_val *v, enum json_type t);
int parse_val_str(struct pctx *c, const struct jpath *p, const struct json_val *v, char **out);
int parse_val_i64(struct pctx *c, const struct jpath *p, const struct json_val *v,
	    int64_t min, int64_t max, int64_t *out);
int parse_val_u64(struct pctx *c, const struct jpath *p, const struct json_val *v,
	    uint64_t max, uint64_t *out);
/* Look a string up in a name table: error `unknown <what> "NAME"`. */
int parse_val_name(struct pctx *c, const struct jpath *p, const struct json_val *v,
	     const struct oci_name *t, size_t n, const char *what, int *out);

/* ---- members of obj (obj at path p) ------------------------------------ */
int parse_get_obj(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, const struct json_val **out);
int parse_get_arr(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, const struct json_val **out);
int parse_get_str(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, char **out);
int parse_get_bool(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool *out);
int parse_get_i64(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, int64_t min, int64_t max, int64_t *out);
int parse_get_u64(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint64_t max, uint64_t *out);
int parse_get_u32(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint32_t *out);
int parse_get_u16(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, uint16_t *out);
int parse_get_i32(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	    const char *key, bool req, int32_t *out);
int parse_get_name(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool req, const struct oci_name *t, size_t n,
	     const char *what, int *out);
/* Array of strings, NULL-terminated as well. */
int parse_get_strv(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	     const char *key, bool req, char ***out, size_t *n);
/* Object of strings -> key/value pairs. */
int parse_get_kv(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	   const char *key, struct oci_kv **out, size_t *n);

/* Array of objects / object of objects into a zeroed arena array of `size`
 * byte elements, calling fn on each element (already checked to be an object). */
typedef int (*elem_fn)(struct pctx *c, const struct jpath *p, const struct json_val *v,
		       void *elem, void *ud);
typedef int (*entry_fn)(struct pctx *c, const struct jpath *p, const char *key,
			const struct json_val *v, void *elem, void *ud);
int parse_get_array_of(struct pctx *c, const struct jpath *p, const struct json_val *obj,
		 const char *key, size_t size, void *out, size_t *n, elem_fn fn, void *ud);
int parse_get_map_of(struct pctx *c, const struct jpath *p, const struct json_val *obj,
	       const char *key, size_t size, void *out, size_t *n, entry_fn fn, void *ud);

/* "0-3,7": a list of CPU or node numbers. */
bool parse_cpu_list_valid(const char *s);
/* The same check; *count: the numbers listed (a range counts each), *max:
 * the largest one (both 0 for an empty list). */
bool parse_cpu_list(const char *s, unsigned long *count, unsigned long *max);

/* ---- section parsers (config_*.c) --------------------------------------- */
int parse_process(struct pctx *c, const struct jpath *p, const struct json_val *v,
		  struct oci_process *proc);
int parse_mounts(struct pctx *c, const struct json_val *root, struct oci_config *cfg);
int parse_hooks(struct pctx *c, const struct jpath *p, const struct json_val *v,
		struct oci_hooks *hooks);
int parse_linux(struct pctx *c, const struct jpath *p, const struct json_val *v,
		struct oci_linux *l);
int parse_resources(struct pctx *c, const struct jpath *p, const struct json_val *v,
		    struct oci_resources *res);
int parse_seccomp(struct pctx *c, const struct jpath *p, const struct json_val *v,
		  struct oci_seccomp *s);
int parse_idmaps(struct pctx *c, const struct jpath *p, const struct json_val *obj,
		 const char *key, struct oci_idmap **out, size_t *n);
/* Checks across sections (namespaces vs mappings, hostname, sysctl ...). */
int parse_validate(struct pctx *c, const struct oci_config *cfg);
/* the room's parsers (mounts[] onto "/", the run.tinyrun.* annotations): oci/sandbox/room.h */
/* annotations_limits.c: the time limits (and RLIMIT_CPU from run.tinyrun.cpu-time) */
int oci_limits_parse(struct pctx *c, struct oci_config *cfg);

/* Parse `text` (NUL-terminated, `len` bytes before the NUL) with the JSON
 * library: error "<name>: invalid JSON: ...". A NUL byte inside the text or
 * more than OCI_JSON_MAX_SIZE bytes is an error too. */
#define OCI_JSON_MAX_SIZE (32 << 20)
int parse_document(struct pctx *c, const char *text, size_t len, struct json_val **root);
/* The same for a buffer that may lack the NUL. */
int parse_buffer(struct pctx *c, const char *json, size_t len, struct json_val **root);

#endif
