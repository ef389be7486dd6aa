/* The sandbox annotations (run.tinyrun.*) -> struct oci_sandbox, validated
 * against the rest of the config. Unknown run.tinyrun.* keys are ignored, as
 * every other annotation is (forward compatible: run.tinyrun.init ...). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oci/parse.h"
#include "oci/sandbox/room.h"

#define KEY_USERNS "run.tinyrun.userns"
#define KEY_RANGE "run.tinyrun.userns.range"
#define KEY_ROOTFS "run.tinyrun.rootfs"
#define KEY_REQUEST "run.tinyrun.sandbox.request"
#define KEY_SEED "run.tinyrun.workspace.seed"
#define KEY_KEY_FILE OCI_ANNOTATION_REQUEST_KEY_FILE

static const struct jpath *ann(const char *key, struct jpath *buf)
{
	static const struct jpath top = { NULL, "annotations", 0 };

	*buf = (struct jpath){ &top, key, 0 };
	return buf;
}

/* "FIRST-LAST", decimal, 1 <= FIRST <= LAST <= OCI_ID_MAX */
int oci_sandbox_range_parse(const char *s, uint32_t *first, uint32_t *last)
{
	char *end;
	unsigned long long a, b;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	a = strtoull(s, &end, 10);
	if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	b = strtoull(end + 1, &end, 10);
	if (errno || *end || a < 1 || a > b || b > OCI_ID_MAX)
		return -EINVAL;
	*first = (uint32_t)a;
	*last = (uint32_t)b;
	return 0;
}

/* a container id as the runtime accepts one: letters, digits, _ + - . */
static bool id_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 1024 || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!(strchr("_+-.", *s) || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* "/name": one component, not a directory the minimal root makes */
static bool workspace_ok(const char *cwd)
{
	static const char *const taken[] = { "usr", "bin", "lib", "lib64", "etc", "tmp", "proc", "sys", "dev",
					     ".", "..", NULL };

	if (!cwd || cwd[0] != '/' || !cwd[1] || strchr(cwd + 1, '/'))
		return false;
	for (const char *const *t = taken; *t; t++)
		if (strcmp(cwd + 1, *t) == 0)
			return false;
	return true;
}

/* A path of the bundle: relative, no empty, "." or ".." component. */
static bool bundle_path_ok(const char *v)
{
	if (!*v || *v == '/' || strlen(v) >= 4096)
		return false;
	for (const char *s = v; *s;) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s == '/' && !*++s)
			return false;
	}
	return true;
}

static int read_keys(struct pctx *c, struct oci_config *cfg, const char **range)
{
	struct oci_sandbox *sb = &cfg->sandbox;
	struct jpath p;

	for (size_t i = 0; i < cfg->n_annotations; i++) {
		const char *k = cfg->annotations[i].key;
		char *v = cfg->annotations[i].value;

		if (strcmp(k, KEY_USERNS) == 0) {
			if (strcmp(v, "auto") != 0)
				return parse_err(c, ann(k, &p), "expected \"auto\", got \"%s\"", v);
			sb->userns_auto = true;
		} else if (strcmp(k, KEY_RANGE) == 0) {
			if (oci_sandbox_range_parse(v, &sb->range_first, &sb->range_last) < 0)
				return parse_err(c, ann(k, &p), "expected FIRST-LAST (1 <= FIRST <= LAST <= %u), got \"%s\"",
						 OCI_ID_MAX, v);
			*range = v;
		} else if (strcmp(k, KEY_ROOTFS) == 0) {
			if (strcmp(v, "minimal") != 0)
				return parse_err(c, ann(k, &p), "expected \"minimal\", got \"%s\"", v);
			sb->minimal_root = true;
		} else if (strcmp(k, KEY_REQUEST) == 0) {
			if (!id_ok(v))
				return parse_err(c, ann(k, &p), "not a container id: \"%s\"", v);
			sb->request = v;
		} else if (strcmp(k, KEY_SEED) == 0) {
			if (!bundle_path_ok(v))
				return parse_err(c, ann(k, &p), "expected a directory of the bundle (relative, no \"..\"), got \"%s\"", v);
			sb->workspace_seed = v;
		} else if (strcmp(k, KEY_KEY_FILE) == 0) {
			if (!bundle_path_ok(v))
				return parse_err(c, ann(k, &p), "expected a file of the bundle (relative, no \"..\"), got \"%s\"", v);
			sb->request_key_file = v;
		}
	}
	return 0;
}

static int check_userns(struct pctx *c, const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;
	struct jpath p;

	if (!l->ns[OCI_NS_USER].present || l->ns[OCI_NS_USER].path)
		return parse_err(c, ann(KEY_USERNS, &p), "needs a new user namespace in .linux.namespaces");
	if (l->n_uid_mappings || l->n_gid_mappings)
		return parse_err(c, ann(KEY_USERNS, &p),
				 "the runtime leases the mapping: .linux.uidMappings and .linux.gidMappings must be empty");
	if (!cfg->has_process)
		return 0;
	if (cfg->process.uid > OCI_ID_MAX || cfg->process.uid != cfg->process.gid)
		return parse_err(c, ann(KEY_USERNS, &p), "needs .process.user.uid equal to .process.user.gid (the one mapped id)");
	if (cfg->process.n_additional_gids)
		return parse_err(c, ann(KEY_USERNS, &p), "one mapped id: .process.user.additionalGids must be empty");
	return 0;
}

static int check_request(struct pctx *c, const struct oci_config *cfg)
{
	const struct oci_linux *l = &cfg->linux_;
	struct jpath p;

	if (!cfg->sandbox.userns_auto || !cfg->sandbox.minimal_root)
		return parse_err(c, ann(KEY_REQUEST, &p), "needs \"" KEY_USERNS "\": \"auto\" and \"" KEY_ROOTFS "\": \"minimal\"");
	if (!cfg->sandbox.request_key_file)
		return parse_err(c, ann(KEY_REQUEST, &p), "needs \"" KEY_KEY_FILE "\" (the request's key, "
				 "which its creator set)");
	if (!l->ns[OCI_NS_NET].present || l->ns[OCI_NS_NET].path || !l->ns[OCI_NS_IPC].present ||
	    l->ns[OCI_NS_IPC].path || !l->ns[OCI_NS_PID].present || l->ns[OCI_NS_PID].path)
		return parse_err(c, ann(KEY_REQUEST, &p),
				 "needs network, ipc and pid namespaces without paths (the runtime joins the request's)");
	return 0;
}

int oci_room_parse(struct pctx *c, struct oci_config *cfg)
{
	struct oci_sandbox *sb = &cfg->sandbox;
	const char *range = NULL;
	struct jpath p;
	int r;

	sb->range_first = OCI_SANDBOX_RANGE_FIRST;
	sb->range_last = OCI_SANDBOX_RANGE_LAST;
	if ((r = read_keys(c, cfg, &range)) < 0 || (r = oci_limits_parse(c, cfg)) < 0)
		return r;
	if (range && !sb->userns_auto)
		return parse_err(c, ann(KEY_RANGE, &p), "needs \"" KEY_USERNS "\": \"auto\"");
	if (sb->userns_auto && (r = check_userns(c, cfg)) < 0)
		return r;
	if (sb->minimal_root) {
		if (!cfg->linux_.ns[OCI_NS_MOUNT].present || cfg->linux_.ns[OCI_NS_MOUNT].path)
			return parse_err(c, ann(KEY_ROOTFS, &p), "needs a new mount namespace");
		if (cfg->linux_.n_devices)
			return parse_err(c, ann(KEY_ROOTFS, &p), "the minimal /dev is fixed: .linux.devices must be empty");
		if (cfg->has_process && !workspace_ok(cfg->process.cwd))
			return parse_err(c, ann(KEY_ROOTFS, &p), "the workspace is .process.cwd: one directory below / "
					 "other than usr bin lib lib64 etc tmp proc sys dev, got \"%s\"", cfg->process.cwd);
		if (cfg->process.terminal)
			return parse_err(c, ann(KEY_ROOTFS, &p), "the minimal /dev has no pts: .process.terminal must be false");
	}
	if (sb->request && (r = check_request(c, cfg)) < 0)
		return r;
	if (sb->request_key_file && (!sb->userns_auto || !sb->minimal_root))
		return parse_err(c, ann(KEY_KEY_FILE, &p), "needs \"" KEY_USERNS "\": \"auto\" and \"" KEY_ROOTFS "\": \"minimal\"");
	if (sb->workspace_seed && !sb->minimal_root)
		return parse_err(c, ann(KEY_SEED, &p), "needs \"" KEY_ROOTFS "\": \"minimal\" (the workspace it fills)");
	if (sb->workspace_seed && sb->request)
		return parse_err(c, ann(KEY_SEED, &p), "a task of a request shares the request's workspace: no seed");
	if ((r = oci_landlock_parse(c, cfg)) < 0)
		return r;
	return oci_output_parse(c, cfg);
}
