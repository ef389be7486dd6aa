/* config.json: read once, parse once (yajl_tree via json.c), walk the tree
 * into struct oci_config. The sections live in config_*.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "parse.h"
#include "util.h"
#include "oci/sandbox/room.h"

bool oci_version_supported(const char *v)
{
	char *end;
	unsigned long minor;

	if (strncmp(v, "1.", 2) != 0 || !(v[2] >= '0' && v[2] <= '9'))
		return false;
	minor = strtoul(v + 2, &end, 10);
	if (minor > 3)
		return false;
	if (*end == '.') {
		end++;
		if (!(*end >= '0' && *end <= '9'))
			return false;
		end += strspn(end, "0123456789");
	}
	return *end == '\0' || *end == '-' || *end == '+';
}

bool oci_spec_version_writable(const char *v)
{
	const char *p = v;

	for (int part = 0; part < 3; part++) {
		if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
			return false;
		p += strspn(p, "0123456789");
		if (part < 2 && *p++ != '.')
			return false;
	}
	/* a pre-release or build metadata: semver's characters only */
	return strlen(v) < 64 && strspn(p, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-.+") ==
	       strlen(p) && oci_version_supported(v);
}

static int parse_version(struct pctx *c, const struct json_val *root, struct oci_config *cfg)
{
	int r = parse_get_str(c, NULL, root, "ociVersion", REQ, &cfg->oci_version);

	if (r < 0)
		return r;
	if (!oci_version_supported(cfg->oci_version))
		return parse_err(c, JKEY(NULL, "ociVersion"),
			    "unsupported version \"%s\" (tinyrun supports 1.0.0 to 1.3.x)",
			    cfg->oci_version);
	return 0;
}

static int parse_root(struct pctx *c, const struct json_val *root, struct oci_config *cfg)
{
	const struct json_val *v;
	int r;

	if ((r = parse_get_obj(c, NULL, root, "root", OPT, &v)) <= 0)
		return r;
	if ((r = parse_get_str(c, JKEY(NULL, "root"), v, "path", REQ, &cfg->root_path)) < 0)
		return r;
	if (cfg->root_path[0] == '\0')
		return parse_err(c, JKEY(JKEY(NULL, "root"), "path"), "must not be empty");
	return parse_get_bool(c, JKEY(NULL, "root"), v, "readonly", &cfg->root_readonly);
}

static int parse_top(struct pctx *c, const struct json_val *root, enum oci_parse_parts parts,
		     struct oci_config *cfg)
{
	const struct json_val *v;
	int r;

	if (parse_val_type(c, NULL, root, JSON_OBJECT) < 0)
		return -EINVAL;
	if ((r = parse_version(c, root, cfg)) < 0)
		return r;
	if ((r = parse_get_obj(c, NULL, root, "hooks", OPT, &v)) < 0)
		return r;
	if (v && (r = parse_hooks(c, JKEY(NULL, "hooks"), v, &cfg->hooks)) < 0)
		return r;
	if ((r = parse_get_kv(c, NULL, root, "annotations", &cfg->annotations, &cfg->n_annotations)) < 0)
		return r;
	for (size_t i = 0; i < cfg->n_annotations; i++)   /* config.md: keys MUST NOT be empty */
		if (!cfg->annotations[i].key[0])
			return parse_err(c, JKEY(NULL, "annotations"), "empty key");
	for (size_t i = 0; i < cfg->n_annotations; i++) {   /* tinyrun's own: the init as PID 1 */
		const struct oci_kv *a = &cfg->annotations[i];

		if (!strcmp(a->key, "run.oci.keep_original_groups"))
			cfg->keep_groups = strcmp(a->value, "0") != 0;
		if (!strcmp(a->key, "run.oci.hooks.stdout") && *a->value)
			cfg->hooks.stdout_path = a->value;
		if (!strcmp(a->key, "run.oci.hooks.stderr") && *a->value)
			cfg->hooks.stderr_path = a->value;
		if (strcmp(a->key, "run.tinyrun.init"))
			continue;
		if (strcmp(a->value, "true") && strcmp(a->value, "false"))
			return parse_err(c, JKEY(NULL, "annotations"), "run.tinyrun.init: expected \"true\" or \"false\"");
		cfg->init = !strcmp(a->value, "true");
	}
	if (parts == OCI_PARSE_HOOKS_ONLY)
		return 0;

	if ((r = parse_root(c, root, cfg)) < 0 ||
	    (r = parse_get_str(c, NULL, root, "hostname", OPT, &cfg->hostname)) < 0 ||
	    (r = parse_get_str(c, NULL, root, "domainname", OPT, &cfg->domainname)) < 0)
		return r;
	if ((r = parse_get_obj(c, NULL, root, "process", OPT, &v)) < 0)
		return r;
	cfg->has_process = v != NULL;
	if (v && (r = parse_process(c, JKEY(NULL, "process"), v, &cfg->process)) < 0)
		return r;
	if ((r = parse_mounts(c, root, cfg)) < 0)
		return r;
	if ((r = parse_get_obj(c, NULL, root, "linux", OPT, &v)) < 0)
		return r;
	cfg->has_linux = v != NULL;
	if (v && (r = parse_linux(c, JKEY(NULL, "linux"), v, &cfg->linux_)) < 0)
		return r;
	if ((r = parse_root_mount(c, cfg)) < 0)
		return r;
	/* the room's annotations first: run.tinyrun.userns=auto stands for the mappings */
	if ((r = oci_room_parse(c, cfg)) < 0)
		return r;
	return parse_validate(c, cfg);
}

/* text is NUL-terminated, len its length (sizes the arena). */
static int config_from_text(const char *name, const char *text, size_t len,
			    enum oci_parse_parts parts, struct oci_config *cfg, struct error *err)
{
	struct pctx c = { .name = name, .err = err };
	struct json_val *root;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	c.a = arena_new(len + len / 2);
	if (!c.a)
		return error_set(err, ENOMEM, "%s: out of memory", name);
	if ((r = parse_document(&c, text, len, &root)) < 0) {
		arena_free(c.a);
		return r;
	}
	r = parse_top(&c, root, parts, cfg);
	json_free(root);
	if (r < 0) {
		arena_free(c.a);
		memset(cfg, 0, sizeof(*cfg));
		return r;
	}
	cfg->arena = c.a;
	return 0;
}

/* The whole of fd in one buffer, NUL-terminated, at most OCI_JSON_MAX_SIZE
 * bytes; usually a single read(). */
static int read_all(int fd, const struct stat *st, const char *name, char **out, size_t *len,
		    struct error *err)
{
	size_t hint = st && st->st_size > 0 ? (size_t)st->st_size + 1 : 16384;
	int r = util_read_fd(fd, hint, OCI_JSON_MAX_SIZE, out, len);

	if (r == -EFBIG)
		return error_set(err, EFBIG, "%s: too large (at most %d MiB)", name, OCI_JSON_MAX_SIZE >> 20);
	if (r == -ENOMEM)
		return error_set(err, ENOMEM, "%s: out of memory", name);
	if (r < 0)
		return error_sys(err, -r, "%s: read", name);
	return 0;
}

/* An anonymous pipe (the other end is the caller's: stdin, `-p <(...)`), not
 * a named FIFO on a filesystem, which may never see a writer. */
static bool is_pipe(int fd, const struct stat *st)
{
	struct statfs fs;

	return S_ISFIFO(st->st_mode) && fstatfs(fd, &fs) == 0 && fs.f_type == PIPEFS_MAGIC;
}

static int read_file(const char *path, const char *name, bool pipes, char **buf, size_t *len,
		     struct error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct stat st;
	int fd, r;

	*buf = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOCTTY: a
	 * tty must not become our controlling terminal. Checked on the fd. */
	fd = is_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
		      : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return error_sys(err, errno, "%s", name);
	if (fstat(fd, &st) < 0) {
		r = error_sys(err, errno, "%s: fstat", name);
		close(fd);
		return r;
	}
	if (!is_stdin && !S_ISREG(st.st_mode) && !(pipes && is_pipe(fd, &st))) {
		close(fd);
		return error_set(err, EINVAL, "%s: not a regular file (%s)", name, util_file_kind(st.st_mode));
	}
	if (!is_stdin && !S_ISREG(st.st_mode))   /* a pipe: read it to its end, as stdin */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	r = read_all(fd, S_ISREG(st.st_mode) ? &st : NULL, name, buf, len, err);
	close(fd);
	return r;
}

int oci_read_file(const char *path, const char *name, char **buf, size_t *len, struct error *err)
{
	return read_file(path, name, false, buf, len, err);
}

int oci_read_input(const char *path, const char *name, char **buf, size_t *len, struct error *err)
{
	return read_file(path, name, true, buf, len, err);
}

int oci_config_load(const char *path, enum oci_parse_parts parts,
		    struct oci_config *cfg, struct error *err)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char *text = NULL;
	size_t len = 0;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	if ((r = oci_read_file(path, path, &text, &len, err)) < 0)
		return r;
	r = config_from_text(name, text, len, parts, cfg, err);
	free(text);
	return r;
}

int oci_config_parse(const char *name, const char *json, size_t len,
		     enum oci_parse_parts parts, struct oci_config *cfg, struct error *err)
{
	char *text = malloc(len + 1);
	int r;

	memset(cfg, 0, sizeof(*cfg));
	if (!text)
		return error_set(err, ENOMEM, "%s: out of memory", name);
	memcpy(text, json, len);
	text[len] = '\0';
	r = config_from_text(name, text, len, parts, cfg, err);
	free(text);
	return r;
}

int oci_config_parse_text(const char *name, const char *text, size_t len,
			  enum oci_parse_parts parts, struct oci_config *cfg, struct error *err)
{
	return config_from_text(name, text, len, parts, cfg, err);   /* it zeroes cfg */
}

void oci_config_free(struct oci_config *cfg)
{
	arena_free(cfg->arena);
	memset(cfg, 0, sizeof(*cfg));
}

/* Shared by oci_process_parse and oci_resources_parse: a document whose root
 * is the object `fn` parses. */
typedef int (*root_fn)(struct pctx *c, const struct jpath *p, const struct json_val *v, void *out);

static int parse_fragment(const char *name, const char *json, size_t len, root_fn fn,
			  void *out, void **arena, struct error *err)
{
	struct pctx c = { .name = name, .err = err };
	struct json_val *root;
	int r;

	*arena = NULL;
	c.a = arena_new(len + len / 2);
	if (!c.a)
		return error_set(err, ENOMEM, "%s: out of memory", name);
	if ((r = parse_buffer(&c, json, len, &root)) < 0) {
		arena_free(c.a);
		return r;
	}
	r = parse_val_type(&c, NULL, root, JSON_OBJECT);
	if (r == 0)
		r = fn(&c, NULL, root, out);
	json_free(root);
	if (r < 0) {
		arena_free(c.a);
		return r;
	}
	*arena = c.a;
	return 0;
}

static int process_root(struct pctx *c, const struct jpath *p, const struct json_val *v, void *out)
{
	return parse_process(c, p, v, out);
}

static int resources_root(struct pctx *c, const struct jpath *p, const struct json_val *v, void *out)
{
	return parse_resources(c, p, v, out);
}

int oci_process_parse(const char *name, const char *json, size_t len,
		      struct oci_process *proc, void **arena, struct error *err)
{
	int r;

	memset(proc, 0, sizeof(*proc));
	if ((r = parse_fragment(name, json, len, process_root, proc, arena, err)) < 0)
		memset(proc, 0, sizeof(*proc));
	return r;
}

int oci_resources_parse(const char *name, const char *json, size_t len,
			struct oci_resources *res, void **arena, struct error *err)
{
	int r;

	memset(res, 0, sizeof(*res));
	if ((r = parse_fragment(name, json, len, resources_root, res, arena, err)) < 0)
		memset(res, 0, sizeof(*res));
	return r;
}
