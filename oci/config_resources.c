/* linux.resources: config-linux.md "Control groups" (also `update -r`). */
#include <errno.h>
#include <string.h>

#include "parse.h"

/* has_x = present, for the getters' 1/0 result */
#define HAS(flag, call) ({ int r_ = (call); if (r_ > 0) (flag) = true; r_; })

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
	if (HAS(m->has_limit, parse_get_i64(c, kp, v, "limit", OPT, -1, INT64_MAX, &m->limit)) < 0 ||
	    HAS(m->has_reservation, parse_get_i64(c, kp, v, "reservation", OPT, -1, INT64_MAX,
					    &m->reservation)) < 0 ||
	    HAS(m->has_swap, parse_get_i64(c, kp, v, "swap", OPT, -1, INT64_MAX, &m->swap)) < 0 ||
	    HAS(m->has_kernel, parse_get_i64(c, kp, v, "kernel", OPT, -1, INT64_MAX,
				       &m->kernel)) < 0 ||
	    HAS(m->has_kernel_tcp, parse_get_i64(c, kp, v, "kernelTCP", OPT, -1, INT64_MAX,
					   &m->kernel_tcp)) < 0 ||
	    HAS(m->has_swappiness, parse_get_u64(c, kp, v, "swappiness", OPT, 100, &m->swappiness)) < 0 ||
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
	if (HAS(u->has_shares, parse_get_u64(c, kp, v, "shares", OPT, UINT64_MAX, &u->shares)) < 0 ||
	    HAS(u->has_quota, parse_get_i64(c, kp, v, "quota", OPT, INT64_MIN, INT64_MAX, &u->quota)) < 0 ||
	    HAS(u->has_burst, parse_get_u64(c, kp, v, "burst", OPT, UINT64_MAX, &u->burst)) < 0 ||
	    HAS(u->has_period, parse_get_u64(c, kp, v, "period", OPT, UINT64_MAX, &u->period)) < 0 ||
	    HAS(u->has_realtime_runtime, parse_get_i64(c, kp, v, "realtimeRuntime", OPT, INT64_MIN,
						 INT64_MAX, &u->realtime_runtime)) < 0 ||
	    HAS(u->has_realtime_period, parse_get_u64(c, kp, v, "realtimePeriod", OPT, UINT64_MAX,
						&u->realtime_period)) < 0 ||
	    parse_get_str(c, kp, v, "cpus", OPT, &u->cpus) < 0 ||
	    parse_get_str(c, kp, v, "mems", OPT, &u->mems) < 0 ||
	    HAS(u->has_idle, parse_get_i64(c, kp, v, "idle", OPT, INT64_MIN, INT64_MAX, &u->idle)) < 0)
		return -EINVAL;
	if (u->has_burst && u->has_quota && u->quota > 0 && u->burst > (uint64_t)u->quota)
		return parse_err(c, JKEY(kp, "burst"), "must not be larger than quota");
	return 0;
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
	if (HAS(b->has_weight, parse_get_u16(c, kp, v, "weight", OPT, &b->weight)) < 0 ||
	    HAS(b->has_leaf_weight, parse_get_u16(c, kp, v, "leafWeight", OPT, &b->leaf_weight)) < 0 ||
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
	/* -1 (and 0, as runc) is unlimited; other negatives are refused */
	if (pids && (r = parse_get_i64(c, JKEY(p, "pids"), pids, "limit", REQ, -1, INT64_MAX,
				 &res->pids_limit)) < 0)
		return r;
	res->has_pids = pids != NULL;
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
