/* linux: config-linux.md, everything but resources and seccomp. */
#include <errno.h>
#include <string.h>

#include "parse.h"
#include "util.h"

static int parse_namespaces(struct pctx *c, const struct jpath *p, const struct json_val *lx,
			    struct oci_linux *l)
{
	const struct json_val *arr;
	const struct jpath *kp = JKEY(p, "namespaces");
	int r;

	if ((r = parse_get_arr(c, p, lx, "namespaces", OPT, &arr)) <= 0)
		return r;
	for (size_t i = 0; i < json_len(arr); i++) {
		const struct json_val *v = json_at(arr, i);
		const struct jpath *ep = JIDX(kp, i);
		char *path = NULL;
		int type;

		if (parse_val_type(c, ep, v, JSON_OBJECT) < 0 ||
		    parse_get_name(c, ep, v, "type", REQ, oci_namespaces, oci_n_namespaces,
			     "namespace type", &type) < 0 ||
		    parse_get_str(c, ep, v, "path", OPT, &path) < 0)
			return -EINVAL;
		if (l->ns[type].present)
			return parse_err(c, JKEY(ep, "type"), "duplicate namespace \"%s\"",
				    oci_name_of(oci_namespaces, oci_n_namespaces, type));
		if (path && path[0] != '/')
			return parse_err(c, JKEY(ep, "path"), "must be an absolute path, got \"%s\"", path);
		l->ns[type].present = true;
		l->ns[type].path = path;
	}
	return 0;
}

static int idmap_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		     void *elem, void *ud)
{
	struct oci_idmap *m = elem;
	int r;

	(void)ud;
	if ((r = parse_get_u32(c, p, v, "containerID", REQ, &m->container_id)) < 0 ||
	    (r = parse_get_u32(c, p, v, "hostID", REQ, &m->host_id)) < 0 ||
	    (r = parse_get_u32(c, p, v, "size", REQ, &m->size)) < 0)
		return r;
	return 0;
}

int parse_idmaps(struct pctx *c, const struct jpath *p, const struct json_val *obj,
		 const char *key, struct oci_idmap **out, size_t *n)
{
	int r = parse_get_array_of(c, p, obj, key, sizeof(struct oci_idmap), out, n, idmap_one, NULL);

	return r < 0 ? r : 0;
}

static int parse_time_offsets(struct pctx *c, const struct jpath *p, const struct json_val *lx,
			      struct oci_linux *l)
{
	static const char *const clocks[OCI_CLOCKS] = {
		[OCI_CLOCK_MONOTONIC] = "monotonic", [OCI_CLOCK_BOOTTIME] = "boottime",
	};
	const struct json_val *map;
	const struct jpath *kp = JKEY(p, "timeOffsets");
	int r;

	if ((r = parse_get_obj(c, p, lx, "timeOffsets", OPT, &map)) <= 0)
		return r;
	for (size_t i = 0; i < json_len(map); i++) {
		const char *name = json_key(map, i);
		const struct json_val *v = json_at(map, i);
		const struct jpath *ep = JKEY(kp, name);
		struct oci_time_offset *t = NULL;

		for (int k = 0; k < OCI_CLOCKS; k++)
			if (strcmp(name, clocks[k]) == 0)
				t = &l->time_offsets[k];
		if (!t)
			return parse_err(c, ep, "unknown clock (monotonic or boottime)");
		if (parse_val_type(c, ep, v, JSON_OBJECT) < 0 ||
		    parse_get_i64(c, ep, v, "secs", OPT, INT64_MIN, INT64_MAX, &t->secs) < 0 ||
		    parse_get_u32(c, ep, v, "nanosecs", OPT, &t->nanosecs) < 0)
			return -EINVAL;
		if (t->nanosecs >= 1000000000)
			return parse_err(c, JKEY(ep, "nanosecs"), "must be less than 1000000000");
		t->present = true;
	}
	return 0;
}

static int clean_device_path(struct pctx *c, const struct jpath *p, struct oci_device *d)
{
	char *clean = arena_alloc(c->a, strlen(d->path) + 2);

	if (!clean)
		return error_set(c->err, ENOMEM, "out of memory");
	util_path_clean(d->path, clean);
	if (!strcmp(clean, "/"))
		return parse_err(c, JKEY(p, "path"), "\"%s\" names no device node", d->path);
	d->path = clean;
	return 0;
}

static int device_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		      void *elem, void *ud)
{
	struct oci_device *d = elem;
	char *type;
	bool need_nums;
	int r;

	(void)ud;
	if ((r = parse_get_str(c, p, v, "type", REQ, &type)) < 0)
		return r;
	if (strlen(type) != 1 || !strchr("cbup", type[0]))
		return parse_err(c, JKEY(p, "type"), "invalid device type \"%s\" (c, b, u or p)", type);
	d->type = type[0];
	need_nums = d->type != 'p';
	if ((r = parse_get_str(c, p, v, "path", REQ, &d->path)) < 0 ||
	    (r = parse_get_i64(c, p, v, "major", need_nums, 0, OCI_DEV_MAJOR_MAX, &d->major)) < 0 ||
	    (r = parse_get_i64(c, p, v, "minor", need_nums, 0, OCI_DEV_MINOR_MAX, &d->minor)) < 0)
		return r;
	/* "/dev/x/", "/dev//x": the node the kernel's path walk names (runc cleans it) */
	if ((r = clean_device_path(c, p, d)) < 0)
		return r;
	if ((r = parse_get_u32(c, p, v, "fileMode", OPT, &d->file_mode)) < 0)
		return r;
	d->has_file_mode = r > 0;
	if ((r = parse_get_u32(c, p, v, "uid", OPT, &d->uid)) < 0)
		return r;
	d->has_uid = r > 0;
	if ((r = parse_get_u32(c, p, v, "gid", OPT, &d->gid)) < 0)
		return r;
	d->has_gid = r > 0;
	return 0;
}

/* A name the kernel accepts for a network interface (dev_valid_name). */
static bool ifname_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 16 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == ' ' || (*s >= '\t' && *s <= '\r'))
			return false;
	return true;
}

static int netdev_one(struct pctx *c, const struct jpath *p, const char *key,
		      const struct json_val *v, void *elem, void *ud)
{
	struct oci_net_device *d = elem;
	int r;

	(void)ud;
	if (!ifname_valid(key))
		return parse_err(c, p, "invalid network device name");
	if (!(d->host_name = parse_strdup(c, key)))
		return -ENOMEM;
	if ((r = parse_get_str(c, p, v, "name", OPT, &d->name)) < 0)
		return r;
	if (r == 0 || d->name[0] == '\0')
		d->name = d->host_name;
	else if (!ifname_valid(d->name))
		return parse_err(c, JKEY(p, "name"), "invalid network device name \"%s\"", d->name);
	return 0;
}

static int no_newline(struct pctx *c, const struct jpath *p, const char *s)
{
	if (s && strchr(s, '\n'))
		return parse_err(c, p, "must not contain a newline");
	return 0;
}

static int parse_intel_rdt(struct pctx *c, const struct jpath *p, const struct json_val *lx,
			   struct oci_linux *l)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "intelRdt");
	struct oci_intel_rdt *rdt = &l->intel_rdt;
	int r;

	if ((r = parse_get_obj(c, p, lx, "intelRdt", OPT, &v)) <= 0)
		return r;
	l->has_intel_rdt = true;
	if ((r = parse_get_str(c, kp, v, "closID", OPT, &rdt->clos_id)) < 0 ||
	    (r = parse_get_str(c, kp, v, "l3CacheSchema", OPT, &rdt->l3_cache_schema)) < 0 ||
	    (r = parse_get_str(c, kp, v, "memBwSchema", OPT, &rdt->mem_bw_schema)) < 0 ||
	    (r = parse_get_strv(c, kp, v, "schemata", OPT, &rdt->schemata, &rdt->n_schemata)) < 0 ||
	    (r = parse_get_bool(c, kp, v, "enableMonitoring", &rdt->enable_monitoring)) < 0)
		return r;
	if ((r = no_newline(c, JKEY(kp, "l3CacheSchema"), rdt->l3_cache_schema)) < 0 ||
	    (r = no_newline(c, JKEY(kp, "memBwSchema"), rdt->mem_bw_schema)) < 0)
		return r;
	for (size_t i = 0; i < rdt->n_schemata; i++)
		if ((r = no_newline(c, JIDX(JKEY(kp, "schemata"), i), rdt->schemata[i])) < 0)
			return r;
	return 0;
}

enum { MPOL_DEFAULT_ = 0, MPOL_LOCAL_ = 4, MPOL_PREFERRED_ = 1 };
#define MPOL_F_STATIC_AND_RELATIVE ((1u << 15) | (1u << 14))

static int parse_memory_policy(struct pctx *c, const struct jpath *p, const struct json_val *lx,
			       struct oci_linux *l)
{
	const struct json_val *v, *flags;
	const struct jpath *kp = JKEY(p, "memoryPolicy"), *fp = JKEY(kp, "flags");
	struct oci_memory_policy *mp = &l->memory_policy;
	const char *mode;
	char *name;
	unsigned long count = 0, max = 0;
	int r;

	if ((r = parse_get_obj(c, p, lx, "memoryPolicy", OPT, &v)) <= 0)
		return r;
	l->has_memory_policy = true;
	/* runc's words (invalid memory policy mode/flag/nodes), with the path */
	if (!parse_member(v, "mode"))
		return parse_err(c, JKEY(kp, "mode"), "invalid memory policy mode: required");
	if ((r = parse_get_str(c, kp, v, "mode", REQ, &name)) < 0)
		return r;
	if ((mp->mode = oci_name_lookup(oci_mempolicy_modes, oci_n_mempolicy_modes, name)) < 0)
		return parse_err(c, JKEY(kp, "mode"), "invalid memory policy mode \"%s\"", name);
	if ((r = parse_get_str(c, kp, v, "nodes", OPT, &mp->nodes)) < 0 ||
	    (r = parse_get_arr(c, kp, v, "flags", OPT, &flags)) < 0)
		return r;
	for (size_t i = 0; flags && i < json_len(flags); i++) {
		const struct json_val *f = json_at(flags, i);
		int bit;

		if (parse_val_type(c, JIDX(fp, i), f, JSON_STRING) < 0)
			return -EINVAL;
		if ((bit = oci_name_lookup(oci_mempolicy_flags, oci_n_mempolicy_flags, json_str(f))) < 0)
			return parse_err(c, JIDX(fp, i), "invalid memory policy flag \"%s\"", json_str(f));
		mp->flags |= (unsigned)bit;
	}
	mode = oci_name_of(oci_mempolicy_modes, oci_n_mempolicy_modes, mp->mode);
	if (mp->nodes && !parse_cpu_list(mp->nodes, &count, &max))
		return parse_err(c, JKEY(kp, "nodes"), "invalid memory policy nodes \"%s\"", mp->nodes);
	if (count && max >= OCI_MEMPOLICY_MAX_NODES)
		return parse_err(c, JKEY(kp, "nodes"), "invalid memory policy nodes \"%s\": node %lu beyond %d",
				 mp->nodes, max, OCI_MEMPOLICY_MAX_NODES - 1);
	if (count && (mp->mode == MPOL_DEFAULT_ || mp->mode == MPOL_LOCAL_))
		return parse_err(c, JKEY(kp, "nodes"), "memory policy mode requires 0 nodes but got %lu (%s)",
				 count, mode);
	if (!count && mp->mode != MPOL_DEFAULT_ && mp->mode != MPOL_LOCAL_ &&
	    mp->mode != MPOL_PREFERRED_)
		return parse_err(c, JKEY(kp, "nodes"), "required with %s", mode);
	if ((mp->flags & MPOL_F_STATIC_AND_RELATIVE) == MPOL_F_STATIC_AND_RELATIVE)
		return parse_err(c, fp, "MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other");
	return 0;
}

static int parse_personality(struct pctx *c, const struct jpath *p, const struct json_val *lx,
			     struct oci_linux *l)
{
	const struct json_val *v, *flags;
	const struct jpath *kp = JKEY(p, "personality");
	int r, domain;

	if ((r = parse_get_obj(c, p, lx, "personality", OPT, &v)) <= 0)
		return r;
	if ((r = parse_get_name(c, kp, v, "domain", REQ, oci_personality_domains,
			  oci_n_personality_domains, "personality domain", &domain)) < 0 ||
	    (r = parse_get_arr(c, kp, v, "flags", OPT, &flags)) < 0)
		return r;
	/* config-linux.md: "Currently no flag values are supported." */
	if (flags && json_len(flags) > 0) {
		const struct jpath *ep = JIDX(JKEY(kp, "flags"), 0);

		if (parse_val_type(c, ep, json_at(flags, 0), JSON_STRING) < 0)
			return -EINVAL;
		return parse_err(c, ep, "unknown personality flag \"%s\"", json_str(json_at(flags, 0)));
	}
	l->has_personality = true;
	l->personality = (unsigned long)domain;
	return 0;
}

static int parse_sections(struct pctx *c, const struct jpath *p, const struct json_val *v,
			  struct oci_linux *l)
{
	const struct json_val *o;
	int r;

	if ((r = parse_get_obj(c, p, v, "resources", OPT, &o)) < 0)
		return r;
	l->has_resources = o != NULL;
	if (o && (r = parse_resources(c, JKEY(p, "resources"), o, &l->resources)) < 0)
		return r;
	if ((r = parse_get_obj(c, p, v, "seccomp", OPT, &o)) < 0)
		return r;
	l->has_seccomp = o != NULL;
	if (o && (r = parse_seccomp(c, JKEY(p, "seccomp"), o, &l->seccomp)) < 0)
		return r;
	return 0;
}

static int parse_rootfs_propagation(struct pctx *c, const struct jpath *p,
				    const struct json_val *lx, int *prop)
{
	const struct json_val *v = parse_member(lx, "rootfsPropagation");

	if (v && json_type(v) == JSON_STRING && json_str(v)[0] == '\0')
		return 0;
	return parse_get_name(c, p, lx, "rootfsPropagation", OPT, oci_rootfs_propagations,
			oci_n_rootfs_propagations, "rootfs propagation", prop);
}

/* A path listed again is dropped (its first place kept): masked twice it
 * would be mounted twice, as runc does not (its mask.bats). */
static int drop_repeats(struct pctx *c, char **v, size_t *n)
{
	size_t kept = 0;
	bool *drop;

	if (*n < 2)
		return 0;
	if (!(drop = parse_alloc(c, *n, sizeof(*drop))))
		return -ENOMEM;
	util_mark_repeats(v, *n, strlen, false, drop);
	for (size_t i = 0; i < *n; i++)
		if (!drop[i])
			v[kept++] = v[i];
	for (size_t i = kept; i < *n; i++)
		v[i] = NULL;
	*n = kept;
	return 0;
}

/* maskedPaths / readonlyPaths: absolute paths in the container (a relative
 * one has no defined base), each once. */
static int get_paths(struct pctx *c, const struct jpath *p, const struct json_val *v,
		     const char *key, char ***out, size_t *n)
{
	int r = parse_get_strv(c, p, v, key, OPT, out, n);

	if (r <= 0)
		return r;
	for (size_t i = 0; i < *n; i++)
		if ((*out)[i][0] != '/')
			return parse_err(c, JIDX(JKEY(p, key), i), "\"%s\" is not an absolute path", (*out)[i]);
	return drop_repeats(c, *out, n);
}

int parse_linux(struct pctx *c, const struct jpath *p, const struct json_val *v,
		struct oci_linux *l)
{
	int prop = OCI_ROOTFS_PROP_DEFAULT;
	int r;

	if ((r = parse_namespaces(c, p, v, l)) < 0 ||
	    (r = parse_idmaps(c, p, v, "uidMappings", &l->uid_mappings, &l->n_uid_mappings)) < 0 ||
	    (r = parse_idmaps(c, p, v, "gidMappings", &l->gid_mappings, &l->n_gid_mappings)) < 0 ||
	    (r = parse_time_offsets(c, p, v, l)) < 0 ||
	    (r = parse_get_array_of(c, p, v, "devices", sizeof(struct oci_device), &l->devices,
			      &l->n_devices, device_one, NULL)) < 0 ||
	    (r = parse_get_map_of(c, p, v, "netDevices", sizeof(struct oci_net_device), &l->net_devices,
			    &l->n_net_devices, netdev_one, NULL)) < 0 ||
	    (r = parse_get_str(c, p, v, "cgroupsPath", OPT, &l->cgroups_path)) < 0 ||
	    (r = parse_sections(c, p, v, l)) < 0 ||
	    (r = parse_intel_rdt(c, p, v, l)) < 0 ||
	    (r = parse_memory_policy(c, p, v, l)) < 0 ||
	    (r = parse_get_kv(c, p, v, "sysctl", &l->sysctl, &l->n_sysctl)) < 0 ||
	    (r = parse_rootfs_propagation(c, p, v, &prop)) < 0 ||
	    (r = get_paths(c, p, v, "maskedPaths", &l->masked_paths, &l->n_masked_paths)) < 0 ||
	    (r = get_paths(c, p, v, "readonlyPaths", &l->readonly_paths, &l->n_readonly_paths)) < 0 ||
	    (r = parse_get_str(c, p, v, "mountLabel", OPT, &l->mount_label)) < 0 ||
	    (r = parse_personality(c, p, v, l)) < 0)
		return r;
	l->rootfs_propagation = (enum oci_rootfs_propagation_mode)prop;
	return 0;
}
