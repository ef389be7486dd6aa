/* Pure conversions from the OCI model to cgroup file values (unit-tested
 * without root in tests/unit/test_cgroup_convert.c). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cgroup/internal.h"

/* runc >= 1.3.2 / 1.4, crun >= 1.23 (opencontainers/cgroups'
 * ConvertCPUSharesToCgroupV2Value, Kubernetes' blog of 2025-10-25): a
 * quadratic in log2(shares) that maps the minimum (2 -> 1), the default
 * (1024 -> 100) and the maximum (262144 -> 10000) onto cgroup v2's. The old
 * linear one, 1 + (shares - 2) * 9999 / 262142, gave the default 39. The
 * same double operations as theirs, so the same ceil(). */
uint64_t cg_shares_to_weight(uint64_t shares)
{
	double l, e;

	if (shares == 0)
		return 0;
	if (shares <= 2)
		return 1;
	if (shares >= 262144)
		return 10000;
	l = log2((double)shares);
	e = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
	return (uint64_t)ceil(pow(10, e));
}

uint64_t cg_blkio_to_io_weight(uint64_t w)
{
	if (w == 0)
		return 0;
	if (w < 10)
		w = 10;
	if (w > 1000)
		w = 1000;
	return 1 + ((w - 10) * 9999) / 990;
}

int cg_swap_v2(bool limit_known, int64_t limit, int64_t swap, int64_t *out, struct error *err)
{
	if (swap < 0) {
		*out = -1;
		return 1;
	}
	if (swap == 0)          /* unset, as runc */
		return 0;
	if (!limit_known || limit <= 0)
		return error_set(err, EINVAL, "memory.swap %" PRId64 ": needs a memory.limit", swap);
	if (swap < limit)
		return error_set(err, EINVAL, "memory.swap %" PRId64 " (memory+swap) is lower than memory.limit %" PRId64,
				 swap, limit);
	*out = swap - limit;
	return 1;
}

void cg_fmt_limit(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRId64, v);
}

int cg_cpu_max_parse(const char *text, int64_t *quota, uint64_t *period)
{
	const char *sp = strchr(text, ' ');
	char *end;
	uint64_t p;
	int64_t q = -1;

	if (!sp || (strncmp(text, "max ", 4) && ((q = strtoll(text, &end, 10)) < 0 || end != sp)))
		return -EINVAL;
	p = strtoull(sp + 1, &end, 10);
	if (!p || end == sp + 1)
		return -EINVAL;
	*quota = q;
	*period = p;
	return 0;
}

int64_t cg_pids_max(int64_t limit)
{
	return limit == 0 ? 1 : limit < 0 ? -1 : limit;
}

/* ---- io.max ------------------------------------------------------------- */

struct io_dev {
	int64_t major, minor;
	bool has[4];
	uint64_t rate[4];
};

static struct io_dev *io_dev_get(struct io_dev *devs, size_t *n, int64_t major, int64_t minor)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (devs[i].major == major && devs[i].minor == minor)
			return &devs[i];
	memset(&devs[*n], 0, sizeof(devs[*n]));
	devs[*n].major = major;
	devs[*n].minor = minor;
	return &devs[(*n)++];
}

int cg_io_max_lines(const struct oci_blkio *b, struct cg_io_line **lines, size_t *n)
{
	static const char *const keys[4] = { "rbps", "wbps", "riops", "wiops" };
	const struct oci_blkio_throttle *lists[4] = {
		b->throttle_read_bps, b->throttle_write_bps, b->throttle_read_iops, b->throttle_write_iops,
	};
	size_t counts[4] = {
		b->n_throttle_read_bps, b->n_throttle_write_bps, b->n_throttle_read_iops, b->n_throttle_write_iops,
	};
	size_t total = counts[0] + counts[1] + counts[2] + counts[3], nd = 0, i, k;
	struct io_dev *devs;
	struct cg_io_line *out;

	*lines = NULL;
	*n = 0;
	if (!total)
		return 0;
	devs = calloc(total, sizeof(*devs));
	out = calloc(total, sizeof(*out));
	if (!devs || !out) {
		free(devs);
		free(out);
		return -ENOMEM;
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < counts[k]; i++) {
			struct io_dev *d = io_dev_get(devs, &nd, lists[k][i].major, lists[k][i].minor);
			d->has[k] = true;
			d->rate[k] = lists[k][i].rate;
		}
	for (i = 0; i < nd; i++) {
		char *p = out[i].text;
		size_t left = sizeof(out[i].text);
		int w = snprintf(p, left, "%" PRId64 ":%" PRId64, devs[i].major, devs[i].minor);

		out[i].major = devs[i].major;
		out[i].minor = devs[i].minor;
		for (k = 0; k < 4; k++) {
			if (!devs[i].has[k])
				continue;
			p += w;
			left -= w;
			if (devs[i].rate[k])
				w = snprintf(p, left, " %s=%" PRIu64, keys[k], devs[i].rate[k]);
			else
				w = snprintf(p, left, " %s=max", keys[k]);
		}
	}
	free(devs);
	*lines = out;
	*n = nd;
	return 0;
}

/* ---- devices ------------------------------------------------------------ */

unsigned cg_access_bits(const char *access)
{
	unsigned bits = 0;

	if (!access || !*access)
		return BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD;
	for (; *access; access++)
		switch (*access) {
		case 'r': bits |= BPF_DEVCG_ACC_READ; break;
		case 'w': bits |= BPF_DEVCG_ACC_WRITE; break;
		case 'm': bits |= BPF_DEVCG_ACC_MKNOD; break;
		}
	return bits;
}

#define RWM (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD)

/* What every container may use, whatever the config says (runc's list). */
static const struct cg_dev_rule default_rules[] = {
	{ true, 'c', -1, -1, BPF_DEVCG_ACC_MKNOD },
	{ true, 'b', -1, -1, BPF_DEVCG_ACC_MKNOD },
	{ true, 'c', 1, 3, RWM },      /* null */
	{ true, 'c', 1, 8, RWM },      /* random */
	{ true, 'c', 1, 7, RWM },      /* full */
	{ true, 'c', 5, 0, RWM },      /* tty */
	{ true, 'c', 1, 5, RWM },      /* zero */
	{ true, 'c', 1, 9, RWM },      /* urandom */
	{ true, 'c', 136, -1, RWM },   /* pts */
	{ true, 'c', 5, 2, RWM },      /* ptmx */
	{ true, 'c', 10, 200, RWM },   /* net/tun */
};
#define N_DEFAULT (sizeof(default_rules) / sizeof(default_rules[0]))

/* Like runc and crun: linux.devices entries get no rule of their own (the
 * node is made, access is what resources.devices and the defaults say).
 * Unknown access letters are ignored, as runc does; a rule left with no
 * access bit grants and denies nothing and is dropped. */
int cg_device_rules(const struct oci_config *cfg, struct cg_dev_rule **out, size_t *n)
{
	return cg_device_rules_of(cfg->linux_.has_resources ? &cfg->linux_.resources : NULL, out, n);
}

int cg_device_rules_of(const struct oci_resources *res, struct cg_dev_rule **out, size_t *n)
{
	size_t nr = res ? res->n_devices : 0, i, k = 0;
	struct cg_dev_rule *r = calloc(nr + N_DEFAULT, sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct oci_device_rule *d = &res->devices[i];
		r[k] = (struct cg_dev_rule){
			.allow = d->allow,
			.type = d->type ? d->type : 'a',
			.major = d->has_major && d->major >= 0 ? d->major : -1,
			.minor = d->has_minor && d->minor >= 0 ? d->minor : -1,
			.access = cg_access_bits(d->access),
		};
		k += r[k].access != 0;
	}
	memcpy(r + k, default_rules, sizeof(default_rules));
	k += N_DEFAULT;
	*out = r;
	*n = k;
	return 0;
}

static bool catch_all(const struct cg_dev_rule *r)
{
	return r->type == 'a' && r->major < 0 && r->minor < 0 && r->access == RWM;
}

static void fmt_num(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		snprintf(buf, size, "*");
	else
		snprintf(buf, size, "%" PRId64, v);
}

const char *cg_access_letters(unsigned access, char out[4])
{
	int k = 0;

	if (access & BPF_DEVCG_ACC_READ)
		out[k++] = 'r';
	if (access & BPF_DEVCG_ACC_WRITE)
		out[k++] = 'w';
	if (access & BPF_DEVCG_ACC_MKNOD)
		out[k++] = 'm';
	out[k] = '\0';
	return out;
}

static void v1_rule(struct cg_v1_dev_write *w, const struct cg_dev_rule *r, char type)
{
	char maj[24], min[24], acc[4];

	fmt_num(maj, sizeof(maj), r->major);
	fmt_num(min, sizeof(min), r->minor);
	cg_access_letters(r->access, acc);
	w->file = r->allow ? "devices.allow" : "devices.deny";
	snprintf(w->value, sizeof(w->value), "%c %s:%s %s", type, maj, min, acc);
}

int cg_v1_device_writes(const struct cg_dev_rule *rules, size_t n,
			struct cg_v1_dev_write **out, size_t *n_out)
{
	return cg_v1_device_writes_into(rules, n, NULL, 0, out, n_out);
}

int cg_v1_device_writes_into(const struct cg_dev_rule *rules, size_t n, struct cg_v1_dev_write *buf,
			     size_t cap, struct cg_v1_dev_write **out, size_t *n_out)
{
	struct cg_v1_dev_write *w = buf && n < cap / 2 ? memset(buf, 0, (2 * n + 1) * sizeof(*buf))
						       : calloc(2 * n + 1, sizeof(*w));
	size_t start = 0, i, k = 0;
	bool allow_all = false;

	if (!w)
		return -ENOMEM;
	for (i = n; i-- > 0;)
		if (catch_all(&rules[i])) {
			allow_all = rules[i].allow;
			start = i + 1;
			break;
		}
	w[k].file = allow_all ? "devices.allow" : "devices.deny";
	snprintf(w[k++].value, sizeof(w[0].value), "a");
	for (i = start; i < n; i++) {
		if (!rules[i].access)
			continue;
		if (rules[i].type == 'a') {
			/* v1 reads any "a ..." as "everything": split it. */
			v1_rule(&w[k++], &rules[i], 'c');
			v1_rule(&w[k++], &rules[i], 'b');
		} else {
			v1_rule(&w[k++], &rules[i], rules[i].type);
		}
	}
	*out = w;
	*n_out = k;
	return 0;
}

/* devcgroup_update_access on a v1 cgroup: a rule against the default adds
 * its bits to the exception of the same type and numbers (or makes it); one
 * with the default takes them off that exception, and only that one. */
static void v1_exception(struct cg_dev_rule *exc, size_t *n, bool allow_all, const struct cg_dev_rule *r, char type)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (exc[i].type == type && exc[i].major == r->major && exc[i].minor == r->minor)
			break;
	if (r->allow != allow_all) {
		if (i == *n)
			exc[(*n)++] = (struct cg_dev_rule){ !allow_all, type, r->major, r->minor, 0 };
		exc[i].access |= r->access;
	} else if (i < *n && !(exc[i].access &= ~r->access)) {
		exc[i] = exc[--*n];
	}
}

int cg_v1_devices_final(const struct cg_dev_rule *rules, size_t n, bool *allow_all,
			struct cg_dev_rule **out, size_t *n_out)
{
	struct cg_dev_rule *exc = calloc(2 * n + 1, sizeof(*exc));
	size_t start = 0, i, k = 0;

	if (!exc)
		return -ENOMEM;
	*allow_all = false;
	for (i = n; i-- > 0;)
		if (catch_all(&rules[i])) {
			*allow_all = rules[i].allow;
			start = i + 1;
			break;
		}
	for (i = start; i < n; i++) {
		if (!rules[i].access)
			continue;
		if (rules[i].type == 'a') {
			v1_exception(exc, &k, *allow_all, &rules[i], 'c');
			v1_exception(exc, &k, *allow_all, &rules[i], 'b');
		} else {
			v1_exception(exc, &k, *allow_all, &rules[i], rules[i].type);
		}
	}
	*out = exc;
	*n_out = k;
	return 0;
}

void cg_hugepage_name(unsigned long kb, char *buf, size_t size)
{
	if (kb >= (1UL << 20))
		snprintf(buf, size, "%luGB", kb >> 20);
	else if (kb >= 1024)
		snprintf(buf, size, "%luMB", kb >> 10);
	else
		snprintf(buf, size, "%luKB", kb);
}
