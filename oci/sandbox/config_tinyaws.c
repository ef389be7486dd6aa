/* The root overlay of tinyaws bundles (SPEC-NOTES "tinyaws jobs"):
 *  - a mounts[] entry whose destination is "/" is mounted onto the root
 *    itself, inside the container's mount namespace; only as mounts[0] (so
 *    every later entry lands on it) and only an overlay;
 *  - annotation run.tinyrun.scratch=DIR: create makes <bundle>/DIR/<id>/
 *    {upper,work} (runtime/sandbox/scratch.c) and adds upperdir=/workdir=
 *    for them to that overlay, so one bundle runs as many containers at once;
 *    delete removes it. DIR is checked here: it names a place the runtime
 *    creates and later removes. */
#include <errno.h>
#include <string.h>
#include <sys/mount.h>

#include "oci/parse.h"
#include "oci/sandbox/room.h"
#include "oci/util.h"
#include "oci/sandbox/tinyaws.h"

bool oci_dest_is_root(const char *d)
{
	int depth = 0;

	while (*d) {
		size_t n = strcspn(d, "/");

		if (n == 2 && d[0] == '.' && d[1] == '.')
			depth = depth ? depth - 1 : 0;
		else if (n && !(n == 1 && d[0] == '.'))
			depth++;
		d += n;
		while (*d == '/')
			d++;
	}
	return depth == 0;
}

/* A character that overlay's option syntax (',' ':' '\\' '=') or a shell
 * reading the path would take for something else. */
bool oci_overlay_path_char_ok(char ch)
{
	return ch > ' ' && ch != 0x7f && !strchr(",:\\=\"'", ch);
}

int oci_scratch_dir_check(const char *s, const char **why)
{
	if (!*s)
		return (*why = "must not be empty"), -1;
	if (s[0] == '/')
		return (*why = "must be relative to the bundle"), -1;
	if (strlen(s) > 256)
		return (*why = "longer than 256 characters"), -1;
	for (const char *p = s; *p; p++)
		if (!oci_overlay_path_char_ok(*p))
			return (*why = "holds a character an overlay option cannot (space, control, , : \\ = quotes)"), -1;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return (*why = "must not hold empty, . or .. components"), -1;
		p += n;
		if (*p == '/' && !*++p)
			return (*why = "must not end with /"), -1;
	}
	return 0;
}

static int check_root_entry(struct pctx *c, const struct oci_mount *m)
{
	const struct jpath *p = JIDX(JKEY(NULL, "mounts"), 0);

	if (!m->type || strcmp(m->type, "overlay") != 0 || m->is_bind || (m->flags & (MS_BIND | MS_REMOUNT)))
		return parse_err(c, JKEY(p, "type"), "a mount onto \"/\" must be of type overlay");
	if (m->n_uid_mappings || m->idmap || m->ridmap || m->tmpcopyup)
		return parse_err(c, JKEY(p, "options"), "a mount onto \"/\" takes no idmap or tmpcopyup");
	if (!util_data_has(m->data, "lowerdir="))
		return parse_err(c, JKEY(p, "options"), "an overlay onto \"/\" needs lowerdir=");
	return 0;
}

int parse_root_mount(struct pctx *c, struct oci_config *cfg)
{
	const char *why;

	for (size_t i = 0; i < cfg->n_mounts; i++) {
		if (!oci_dest_is_root(cfg->mounts[i].destination))
			continue;
		if (i != 0)
			return parse_err(c, JKEY(JIDX(JKEY(NULL, "mounts"), i), "destination"),
					 "a mount onto \"/\" must be the first entry of mounts");
		if (check_root_entry(c, &cfg->mounts[0]) < 0)
			return -EINVAL;
		cfg->root_mount = true;
	}
	for (size_t i = 0; i < cfg->n_annotations; i++) {
		if (strcmp(cfg->annotations[i].key, OCI_ANNOTATION_SCRATCH) != 0)
			continue;
		cfg->tinyrun_scratch = cfg->annotations[i].value;
		if (oci_scratch_dir_check(cfg->tinyrun_scratch, &why) < 0)
			return parse_err(c, JKEY(JKEY(NULL, "annotations"), OCI_ANNOTATION_SCRATCH), "%s", why);
		if (!cfg->root_mount)
			return parse_err(c, JKEY(JKEY(NULL, "annotations"), OCI_ANNOTATION_SCRATCH),
					 "needs an overlay mount onto \"/\" as mounts[0]");
		if (util_data_has(cfg->mounts[0].data, "upperdir=") || util_data_has(cfg->mounts[0].data, "workdir="))
			return parse_err(c, JKEY(JIDX(JKEY(NULL, "mounts"), 0), "options"),
					 "upperdir=/workdir= are made per container with " OCI_ANNOTATION_SCRATCH);
	}
	return 0;
}
