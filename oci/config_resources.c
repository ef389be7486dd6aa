/* linux.resources: config-linux.md "Control groups" (also `update -r`). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "parse.h"

/* has_x = present, for the getters' 1/0 result */
#define HAS(flag, call) ({ int r_ = (call); if (r_ > 0) (flag) = true; r_; })

/* ---- the numbers: one range each, for config.json, `update -r` and
 * `update`'s flags (oci_resources_set_number) ---- */

struct res_number {
	const char *section, *key;   /* "cpu", "shares" */
	bool is_signed;
	int64_t min;                 /* signed ones */
	uint64_t max;
	size_t section_has, has, value, size;   /* in struct oci_resources; size: 8, or 2 (uint16_t) */
};

#define RES_NUM(sec, k, sgn, lo, hi, sh, h, v)                                                      \
	{ sec, k, sgn, lo, hi, offsetof(struct oci_resources, sh), offsetof(struct oci_resources, h), \
	  offsetof(struct oci_resources, v), sizeof(((struct oci_resources *)0)->v) }
#define MEM_LIMIT(k, h, v) RES_NUM("memory", k, true, -1, INT64_MAX, has_memory, memory.h, memory.v)
#define CPU_I64(k, h, v) RES_NUM("cpu", k, true, INT64_MIN, INT64_MAX, has_cpu, cpu.h, cpu.v)
#define CPU_U64(k, h, v) RES_NUM("cpu", k, false, 0, UINT64_MAX, has_cpu, cpu.h, cpu.v)

/* in the order they are read (and errors reported) */
static const struct res_number numbers[] = {
	/* -1 is unlimited; other negatives are refused */
	MEM_LIMIT("limit", has_limit, limit),
	MEM_LIMIT("reservation", has_reservation, reservation),
	MEM_LIMIT("swap", has_swap, swap),
	MEM_LIMIT("kernel", has_kernel, kernel),
	MEM_LIMIT("kernelTCP", has_kernel_tcp, kernel_tcp),
	RES_NUM("memory", "swappiness", false, 0, 100, has_memory, memory.has_swappiness, memory.swappiness),
	/* quota and realtimeRuntime: any negative is "no limit" to the kernel */
	CPU_U64("shares", has_shares, shares),
	CPU_I64("quota", has_quota, quota),
	CPU_U64("burst", has_burst, burst),
	CPU_U64("period", has_period, period),
	CPU_I64("realtimeRuntime", has_realtime_runtime, realtime_runtime),
	CPU_U64("realtimePeriod", has_realtime_period, realtime_period),
	CPU_I64("idle", has_idle, idle),
	/* -1 is unlimited, 0 a limit (pids.max 1); other negatives are refused */
	RES_NUM("pids", "limit", true, -1, INT64_MAX, has_pids, has_pids, pids_limit),
	RES_NUM("blockIO", "weight", false, 0, UINT16_MAX, has_blkio, blkio.has_weight, blkio.weight),
	RES_NUM("blockIO", "leafWeight", false, 0, UINT16_MAX, has_blkio, blkio.has_leaf_weight, blkio.leaf_weight),
};

static void number_store(struct oci_resources *res, const struct res_number *n, uint64_t bits)
{
	char *base = (char *)res;
	uint16_t small = (uint16_t)bits;

	/* int64_t and uint64_t share their representation */
	memcpy(base + n->value, n->size == sizeof(small) ? (void *)&small : (void *)&bits, n->size);
	*(bool *)(base + n->has) = true;
	*(bool *)(base + n->section_has) = true;
}

/* n's value v (at p), checked against its range and stored. */
static int number_val(struct pctx *c, const struct jpath *p, const struct json_val *v, const struct res_number *n,
		      struct oci_resources *res)
{
	int64_t i;
	uint64_t u;

	if (n->is_signed ? parse_val_i64(c, p, v, n->min, (int64_t)n->max, &i) < 0
			 : parse_val_u64(c, p, v, n->max, &u) < 0)
		return -EINVAL;
	number_store(res, n, n->is_signed ? (uint64_t)i : u);
	return 0;
}

/* Every number of `section` in obj (at p): 0, or -EINVAL. */
static int parse_numbers(struct pctx *c, const struct jpath *p, const struct json_val *obj, const char *section,
			 bool req, struct oci_resources *res)
{
	const struct json_val *v;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		const struct res_number *n = &numbers[i];

		if (strcmp(n->section, section))
			continue;
		if (!(v = parse_member(obj, n->key))) {
			if (req)
				return parse_err(c, JKEY(p, n->key), "required");
			continue;
		}
		if (number_val(c, JKEY(p, n->key), v, n, res) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The burst a CFS period may borrow is part of its quota. */
static int check_cpu(struct pctx *c, const struct jpath *p, const struct oci_cpu *u)
{
	if (u->has_burst && u->has_quota && u->quota > 0 && u->burst > (uint64_t)u->quota)
		return parse_err(c, JKEY(p, "burst"), "must not be larger than quota");
	return 0;
}

int oci_resources_set_number(struct oci_resources *res, const char *field, const char *text, const char *name,
			     struct error *err)
{
	struct pctx c = { .name = name, .err = err };
	const struct res_number *n = NULL;
	struct json_val *v;
	char ebuf[256];
	int64_t i;
	int r;

	for (size_t k = 0; k < sizeof(numbers) / sizeof(numbers[0]) && !n; k++) {
		size_t len = strlen(numbers[k].section);

		if (!strncmp(field, numbers[k].section, len) && field[len] == '.' &&
		    !strcmp(field + len + 1, numbers[k].key))
			n = &numbers[k];
	}
	if (!n)
		return error_set(err, EINVAL, "%s: linux.resources has no number %s", name, field);
	/* a JSON integer, as in the file: no sign but '-', no 0x, no 1e3 */
	v = json_parse(text, ebuf, sizeof(ebuf));
	if (!v || json_type(v) != JSON_NUMBER || json_int64(v, &i) == -EINVAL) {
		json_free(v);
		return error_set(err, EINVAL, "%s: invalid value \"%s\"", name, text);
	}
	r = number_val(&c, NULL, v, n, res);
	json_free(v);
	return r;
}

static int devrule_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		       void *elem, void *ud)
{
	struct oci_device_rule *d = elem;
	char *type = NULL, *access = NULL;
	int r;

	(void)ud;
	if ((r = parse_get_bool(c, p, v, "allow", &d->allow)) < 0)
		return r;
	if (r == 0)
		return parse_err(c, JKEY(p, "allow"), "required");
	if ((r = parse_get_str(c, p, v, "type", OPT, &type)) < 0)
		return r;
	if (type && (strlen(type) != 1 || !strchr("acb", type[0])))
		return parse_err(c, JKEY(p, "type"), "invalid device type \"%s\" (a, c or b)", type);
	d->type = type ? type[0] : 'a';
	/* -1 is how some tools spell "any"; above what dev_t holds a number
	 * matches no device, or another one once truncated */
	if ((r = parse_get_i64(c, p, v, "major", OPT, -1, OCI_DEV_MAJOR_MAX, &d->major)) < 0)
		return r;
	d->has_major = r > 0 && d->major >= 0;
	if ((r = parse_get_i64(c, p, v, "minor", OPT, -1, OCI_DEV_MINOR_MAX, &d->minor)) < 0)
		return r;
	d->has_minor = r > 0 && d->minor >= 0;
	if ((r = parse_get_str(c, p, v, "access", OPT, &access)) < 0)
		return r;
	/* r, w and m in any order, repeats allowed. Other letters are dropped,
	 * as runc's rwm set drops them ("rwa" is "rw"; runc's own suite has
	 * one), and the runtime warns (access_given). A text with none of r, w,
	 * m is refused: dropped to "", it would mean all of them. */
	if (access) {
		size_t n = 0;

		for (const char *a = "rwm"; *a; a++)
			if (strchr(access, *a))
				d->access[n++] = *a;
		d->access[n] = '\0';
		if (!n)
			return parse_err(c, JKEY(p, "access"), "invalid access \"%s\" (none of r, w, m)", access);
		if (access[strspn(access, "rwm")] != '\0')
			d->access_given = access;
	}
	return 0;
}

static int parse_memory(struct pctx *c, const struct jpath *p, const struct json_val *res,
			struct oci_resources *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "memory");
	struct oci_memory *m = &out->memory;
	int r;

	if ((r = parse_get_obj(c, p, res, "memory", OPT, &v)) <= 0)
		return r;
	out->has_memory = true;
	if (parse_numbers(c, kp, v, "memory", false, out) < 0 ||
	    HAS(m->has_disable_oom_killer, parse_get_bool(c, kp, v, "disableOOMKiller",
						    &m->disable_oom_killer)) < 0 ||
	    HAS(m->has_use_hierarchy, parse_get_bool(c, kp, v, "useHierarchy", &m->use_hierarchy)) < 0 ||
	    HAS(m->has_check_before_update, parse_get_bool(c, kp, v, "checkBeforeUpdate",
						     &m->check_before_update)) < 0)
		return -EINVAL;
	return 0;
}

static int parse_cpu(struct pctx *c, const struct jpath *p, const struct json_val *res,
		     struct oci_resources *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "cpu");
	struct oci_cpu *u = &out->cpu;
	int r;

	if ((r = parse_get_obj(c, p, res, "cpu", OPT, &v)) <= 0)
		return r;
	out->has_cpu = true;
	if (parse_numbers(c, kp, v, "cpu", false, out) < 0 ||
	    parse_get_str(c, kp, v, "cpus", OPT, &u->cpus) < 0 ||
	    parse_get_str(c, kp, v, "mems", OPT, &u->mems) < 0)
		return -EINVAL;
	return check_cpu(c, kp, u);
}

static int weight_device_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
			     void *elem, void *ud)
{
	struct oci_blkio_weight_device *d = elem;

	(void)ud;
	if (parse_get_i64(c, p, v, "major", REQ, 0, OCI_DEV_MAJOR_MAX, &d->major) < 0 ||
	    parse_get_i64(c, p, v, "minor", REQ, 0, OCI_DEV_MINOR_MAX, &d->minor) < 0 ||
	    HAS(d->has_weight, parse_get_u16(c, p, v, "weight", OPT, &d->weight)) < 0 ||
	    HAS(d->has_leaf_weight, parse_get_u16(c, p, v, "leafWeight", OPT, &d->leaf_weight)) < 0)
		return -EINVAL;
	if (!d->has_weight && !d->has_leaf_weight)
		return parse_err(c, p, "weight or leafWeight required");
	return 0;
}

static int throttle_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
			void *elem, void *ud)
{
	struct oci_blkio_throttle *t = elem;

	(void)ud;
	if (parse_get_i64(c, p, v, "major", REQ, 0, OCI_DEV_MAJOR_MAX, &t->major) < 0 ||
	    parse_get_i64(c, p, v, "minor", REQ, 0, OCI_DEV_MINOR_MAX, &t->minor) < 0 ||
	    parse_get_u64(c, p, v, "rate", REQ, UINT64_MAX, &t->rate) < 0)
		return -EINVAL;
	return 0;
}

static int parse_throttle(struct pctx *c, const struct jpath *p, const struct json_val *v,
			  const char *key, struct oci_blkio_throttle **out, size_t *n)
{
	int r = parse_get_array_of(c, p, v, key, sizeof(**out), out, n, throttle_one, NULL);

	return r < 0 ? r : 0;
}

static int parse_blkio(struct pctx *c, const struct jpath *p, const struct json_val *res,
		       struct oci_resources *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "blockIO");
	struct oci_blkio *b = &out->blkio;
	int r;

	if ((r = parse_get_obj(c, p, res, "blockIO", OPT, &v)) <= 0)
		return r;
	out->has_blkio = true;
	if (parse_numbers(c, kp, v, "blockIO", false, out) < 0 ||
	    parse_get_array_of(c, kp, v, "weightDevice", sizeof(*b->weight_device), &b->weight_device,
			 &b->n_weight_device, weight_device_one, NULL) < 0 ||
	    parse_throttle(c, kp, v, "throttleReadBpsDevice", &b->throttle_read_bps,
			   &b->n_throttle_read_bps) < 0 ||
	    parse_throttle(c, kp, v, "throttleWriteBpsDevice", &b->throttle_write_bps,
			   &b->n_throttle_write_bps) < 0 ||
	    parse_throttle(c, kp, v, "throttleReadIOPSDevice", &b->throttle_read_iops,
			   &b->n_throttle_read_iops) < 0 ||
	    parse_throttle(c, kp, v, "throttleWriteIOPSDevice", &b->throttle_write_iops,
			   &b->n_throttle_write_iops) < 0)
		return -EINVAL;
	return 0;
}

static int hugepage_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
			void *elem, void *ud)
{
	struct oci_hugepage_limit *h = elem;

	(void)ud;
	if (parse_get_str(c, p, v, "pageSize", REQ, &h->page_size) < 0 ||
	    parse_get_u64(c, p, v, "limit", REQ, UINT64_MAX, &h->limit) < 0)
		return -EINVAL;
	return 0;
}

static int priority_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
			void *elem, void *ud)
{
	struct oci_net_priority *n = elem;

	(void)ud;
	if (parse_get_str(c, p, v, "name", REQ, &n->name) < 0 ||
	    parse_get_u32(c, p, v, "priority", REQ, &n->priority) < 0)
		return -EINVAL;
	return 0;
}

static int parse_network(struct pctx *c, const struct jpath *p, const struct json_val *res,
			 struct oci_resources *out)
{
	const struct json_val *v;
	const struct jpath *kp = JKEY(p, "network");
	int r;

	if ((r = parse_get_obj(c, p, res, "network", OPT, &v)) <= 0)
		return r;
	out->has_network = true;
	if (HAS(out->has_class_id, parse_get_u32(c, kp, v, "classID", OPT, &out->class_id)) < 0 ||
	    parse_get_array_of(c, kp, v, "priorities", sizeof(*out->net_priorities), &out->net_priorities,
			 &out->n_net_priorities, priority_one, NULL) < 0)
		return -EINVAL;
	return 0;
}

static int rdma_one(struct pctx *c, const struct jpath *p, const char *key,
		    const struct json_val *v, void *elem, void *ud)
{
	struct oci_rdma *d = elem;

	(void)ud;
	if (!(d->device = parse_strdup(c, key)))
		return -ENOMEM;
	if (HAS(d->has_hca_handles, parse_get_u32(c, p, v, "hcaHandles", OPT, &d->hca_handles)) < 0 ||
	    HAS(d->has_hca_objects, parse_get_u32(c, p, v, "hcaObjects", OPT, &d->hca_objects)) < 0)
		return -EINVAL;
	if (!d->has_hca_handles && !d->has_hca_objects)
		return parse_err(c, p, "hcaHandles or hcaObjects required");
	return 0;
}

int parse_resources(struct pctx *c, const struct jpath *p, const struct json_val *v,
		    struct oci_resources *res)
{
	const struct json_val *pids;
	int r;

	if ((r = parse_get_array_of(c, p, v, "devices", sizeof(*res->devices), &res->devices,
			      &res->n_devices, devrule_one, NULL)) < 0 ||
	    (r = parse_memory(c, p, v, res)) < 0 ||
	    (r = parse_cpu(c, p, v, res)) < 0 ||
	    (r = parse_get_obj(c, p, v, "pids", OPT, &pids)) < 0)
		return r;
	if (pids && (r = parse_numbers(c, JKEY(p, "pids"), pids, "pids", REQ, res)) < 0)
		return r;
	if ((r = parse_blkio(c, p, v, res)) < 0 ||
	    (r = parse_get_array_of(c, p, v, "hugepageLimits", sizeof(*res->hugepage_limits),
			      &res->hugepage_limits, &res->n_hugepage_limits, hugepage_one,
			      NULL)) < 0 ||
	    (r = parse_network(c, p, v, res)) < 0 ||
	    (r = parse_get_map_of(c, p, v, "rdma", sizeof(*res->rdma), &res->rdma, &res->n_rdma,
			    rdma_one, NULL)) < 0 ||
	    (r = parse_get_kv(c, p, v, "unified", &res->unified, &res->n_unified)) < 0)
		return r;
	return 0;
}
