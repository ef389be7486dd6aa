/* mounts: config.md "Mounts", "Linux mount options", "POSIX-platform Mounts".
 * Options are translated here, once, the way runc reads them. */
#include <errno.h>
#include <string.h>
#include <sys/mount.h>

#include "parse.h"
#include "util.h"

static void apply_option(struct oci_mount *m, const struct oci_mount_option *o)
{
	switch (o->kind) {
	case OCI_MOPT_NOTHING:
		break;
	case OCI_MOPT_SET:
		m->flags |= o->value;
		m->clear_flags &= ~o->value;
		break;
	case OCI_MOPT_CLEAR:
		m->flags &= ~o->value;
		m->clear_flags |= o->value;
		break;
	case OCI_MOPT_BIND:
		m->flags |= o->value;
		m->is_bind = true;
		break;
	case OCI_MOPT_PROPAGATION:
		m->propagation = (enum oci_propagation)o->value;
		break;
	case OCI_MOPT_ATTR_SET:
		m->attr_set |= o->value;
		m->attr_clr &= ~(uint64_t)o->value;
		/* mount_setattr(2): an atime mode in attr_set needs the whole
		 * MOUNT_ATTR__ATIME field in attr_clr. */
		if ((o->value & ~(uint64_t)MOUNT_ATTR__ATIME) == 0)
			m->attr_clr |= MOUNT_ATTR__ATIME;
		break;
	case OCI_MOPT_ATTR_CLEAR:
		m->attr_set &= ~(uint64_t)o->value;
		m->attr_clr |= o->value;
		break;
	case OCI_MOPT_TMPCOPYUP:
		m->tmpcopyup = true;
		break;
	case OCI_MOPT_IDMAP:
		m->idmap = true;
		break;
	case OCI_MOPT_RIDMAP:
		m->ridmap = true;
		break;
	}
}

/* Known options set flags; the rest become the mount data, comma-joined. */
static int translate_options(struct pctx *c, struct oci_mount *m)
{
	size_t data_len = 0;
	char *d;

	for (size_t i = 0; i < m->n_options; i++) {
		const struct oci_mount_option *o = oci_mount_option_find(m->options[i]);

		if (o)
			apply_option(m, o);
		else
			data_len += strlen(m->options[i]) + 1;
	}
	if (data_len == 0)
		return 0;
	d = m->data = parse_alloc(c, data_len, 1);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_options; i++) {
		size_t n;

		if (oci_mount_option_find(m->options[i]))
			continue;
		if (d != m->data)
			*d++ = ',';
		n = strlen(m->options[i]);
		memcpy(d, m->options[i], n);
		d += n;
	}
	*d = '\0';
	return 0;
}

/* Relative destinations are deprecated but accepted, relative to "/" (runc). */
static int parse_destination(struct pctx *c, const struct jpath *p, const struct json_val *v,
			     struct oci_mount *m)
{
	size_t n;
	char *abs;
	int r;

	if ((r = parse_get_str(c, p, v, "destination", REQ, &m->destination)) < 0)
		return r;
	if (m->destination[0] == '/')
		return 0;
	n = strlen(m->destination);
	if (!(abs = parse_alloc(c, n + 2, 1)))
		return -ENOMEM;
	abs[0] = '/';
	memcpy(abs + 1, m->destination, n + 1);
	m->destination_given = m->destination;
	m->destination = abs;
	return 0;
}

static int mount_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		     void *elem, void *ud)
{
	struct oci_mount *m = elem;
	int r;

	(void)ud;
	if ((r = parse_destination(c, p, v, m)) < 0 ||
	    (r = parse_get_str(c, p, v, "type", OPT, &m->type)) < 0 ||
	    (r = parse_get_str(c, p, v, "source", OPT, &m->source)) < 0 ||
	    (r = parse_get_strv(c, p, v, "options", OPT, &m->options, &m->n_options)) < 0 ||
	    (r = translate_options(c, m)) < 0 ||
	    (r = parse_idmaps(c, p, v, "uidMappings", &m->uid_mappings, &m->n_uid_mappings)) < 0 ||
	    (r = parse_idmaps(c, p, v, "gidMappings", &m->gid_mappings, &m->n_gid_mappings)) < 0)
		return r;
	if ((m->n_uid_mappings > 0) != (m->n_gid_mappings > 0))
		return parse_err(c, JKEY(p, m->n_uid_mappings ? "gidMappings" : "uidMappings"),
			    "required with %s", m->n_uid_mappings ? "uidMappings" : "gidMappings");
	return 0;
}

int parse_mounts(struct pctx *c, const struct json_val *root, struct oci_config *cfg)
{
	int r = parse_get_array_of(c, NULL, root, "mounts", sizeof(struct oci_mount), &cfg->mounts,
			     &cfg->n_mounts, mount_one, NULL);

	return r < 0 ? r : 0;
}

int oci_mounts_strip_root(struct oci_config *cfg, const char *rootfs)
{
	char *root = arena_alloc(cfg->arena, strlen(rootfs) + 2);

	if (!root)
		return -ENOMEM;
	util_path_clean(rootfs, root);
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		struct oci_mount *m = &cfg->mounts[i];
		const char *in;
		char *d;

		if (!util_path_may_be_in(root, m->destination))
			continue;
		if (!(d = arena_alloc(cfg->arena, strlen(m->destination) + 2)))
			return -ENOMEM;
		util_path_clean(m->destination, d);
		if ((in = util_path_in_root(root, d)))
			m->destination = (char *)in;
	}
	return 0;
}
