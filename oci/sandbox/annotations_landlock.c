/* run.tinyrun.landlock -> struct oci_landlock (config.h): the task's
 * Landlock ruleset, for any bundle (the sandbox profile's own ruleset is
 * derived from its mounts by the runtime; these rules are added to it).
 *
 *   VALUE  = ENTRY [";" ENTRY]...
 *   ENTRY  = ACCESS ":" PATH ["," PATH]...     ACCESS: r, w, x, each at most once
 *          | "scope:" NAME ["," NAME]...       NAME: signal, abstract-unix
 *
 * e.g. "rx:/usr,/etc;rwx:/tmp,/work;r:/proc;scope:signal,abstract-unix".
 * PATHs are absolute paths of the container, without "." or ".." or empty
 * components; everything not listed is denied. */
#include <errno.h>
#include <string.h>

#include "oci/parse.h"
#include "oci/sandbox/room.h"

#define KEY_LANDLOCK "run.tinyrun.landlock"

static int bad(struct pctx *c, const char *fmt, const char *what)
{
	static const struct jpath top = { NULL, "annotations", 0 };
	const struct jpath p = { &top, KEY_LANDLOCK, 0 };

	return parse_err(c, &p, fmt, what);
}

/* "r", "rx", "rwx" ...: each letter once; 0 when not such a set */
static unsigned int access_bits(const char *s, size_t n)
{
	unsigned int bits = 0;

	for (size_t i = 0; i < n; i++) {
		const char *at = strchr("rwx", s[i]);
		unsigned int b = at && s[i] ? 1u << (at - "rwx") : 0;

		if (!b || bits & b)
			return 0;
		bits |= b;
	}
	return bits;
}

/* absolute, no empty, "." or ".." component, no trailing "/" but "/" itself */
static bool path_ok(const char *v)
{
	if (*v != '/' || strlen(v) >= 4096)
		return false;
	if (!v[1])
		return true;
	for (const char *s = v + 1;;) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (!*s)
			return true;
		s++;
	}
}

static int add_scope(struct pctx *c, struct oci_landlock *ll, const char *name)
{
	if (!strcmp(name, "signal"))
		ll->scope |= OCI_LANDLOCK_SCOPE_SIGNAL;
	else if (!strcmp(name, "abstract-unix"))
		ll->scope |= OCI_LANDLOCK_SCOPE_ABSTRACT_UNIX;
	else
		return bad(c, "unknown scope \"%s\" (signal, abstract-unix)", name);
	return 0;
}

static int add_path(struct pctx *c, struct oci_landlock *ll, char *path, unsigned int access)
{
	if (!path_ok(path))
		return bad(c, "expected an absolute path without \".\", \"..\" or empty components, got \"%s\"", path);
	if (ll->n_rules == OCI_LANDLOCK_RULES_MAX)
		return bad(c, "more than %s paths", "64");
	ll->rules[ll->n_rules++] = (struct oci_landlock_rule){ path, access };
	return 0;
}

/* One ENTRY (NUL-terminated, modified in place). */
static int parse_entry(struct pctx *c, struct oci_landlock *ll, char *e)
{
	char *colon = strchr(e, ':'), *item, *save = NULL;
	bool scope;
	unsigned int access = 0;
	int r;

	if (!colon || colon == e || !colon[1])
		return bad(c, "expected ACCESS:PATH[,PATH...] or scope:NAME[,NAME...], got \"%s\"", e);
	*colon = 0;
	scope = !strcmp(e, "scope");
	if (!scope && !(access = access_bits(e, (size_t)(colon - e))))
		return bad(c, "expected an access of r, w and x (each once) or \"scope\", got \"%s\"", e);
	if (colon[strlen(colon + 1)] == ',' || strstr(colon + 1, ",,"))
		return bad(c, "an empty item in \"%s\"", colon + 1);
	for (item = strtok_r(colon + 1, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if ((r = scope ? add_scope(c, ll, item) : add_path(c, ll, item, access)) < 0)
			return r;
	return 0;
}

static int parse_value(struct pctx *c, struct oci_landlock *ll, const char *value)
{
	char *copy = parse_strdup(c, value), *e, *save = NULL;
	int r;

	if (!copy)
		return -ENOMEM;
	if (!*copy || *copy == ';' || copy[strlen(copy) - 1] == ';' || strstr(copy, ";;"))
		return bad(c, "an empty entry in \"%s\"", value);
	if (!(ll->rules = parse_alloc(c, OCI_LANDLOCK_RULES_MAX, sizeof(ll->rules[0]))))
		return -ENOMEM;
	for (e = strtok_r(copy, ";", &save); e; e = strtok_r(NULL, ";", &save))
		if ((r = parse_entry(c, ll, e)) < 0)
			return r;
	return 0;
}

int oci_landlock_parse(struct pctx *c, struct oci_config *cfg)
{
	struct oci_landlock *ll = &cfg->sandbox.landlock;
	const char *value = NULL;
	int r;

	for (size_t i = 0; i < cfg->n_annotations; i++)
		if (!strcmp(cfg->annotations[i].key, KEY_LANDLOCK))
			value = cfg->annotations[i].value;
	if (!value)
		return 0;
	if ((r = parse_value(c, ll, value)) < 0)
		return r;
	/* landlock_restrict_self needs it (or CAP_SYS_ADMIN, which a task that
	 * is fenced in should not have); the sandbox profile sets it */
	if (cfg->has_process && !cfg->process.no_new_privileges && !cfg->sandbox.minimal_root)
		return bad(c, "needs .process.noNewPrivileges: %s (landlock_restrict_self)", "true");
	ll->set = true;
	return 0;
}
