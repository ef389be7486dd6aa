/* cgroup conversions that need no root: shares -> weight, swap, io.max lines,
 * device rules -> v1 writes and -> the BPF device program (run here through a
 * small interpreter of the instructions it uses), path resolution. */
#include <errno.h>
#include <stdlib.h>

#include "runtime/cgroup/internal.h"
#include "unit.h"

/* ---- a BPF interpreter for the subset cg_bpf_build emits ---------------- */

static int run_prog(const struct bpf_insn *p, size_t n, char type, unsigned access, uint32_t major,
		    uint32_t minor)
{
	uint32_t ctx[3] = { (access << 16) | (type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR), major, minor };
	uint64_t r[11] = { 0 };
	size_t pc = 0, steps = 0;

	while (pc < n && steps++ < 10000) {
		const struct bpf_insn *i = &p[pc++];
		uint64_t *d = &r[i->dst_reg], src = r[i->src_reg];
		uint64_t k = (uint64_t)(int64_t)i->imm;

		switch (i->code) {
		case BPF_LDX | BPF_MEM | BPF_W:
			if (i->src_reg != BPF_REG_1 || i->off % 4 || i->off > 8)
				return -100;  /* only ctx loads */
			*d = ctx[i->off / 4];
			break;
		case BPF_ALU | BPF_AND | BPF_K: *d = (uint32_t)(*d & k); break;
		case BPF_ALU | BPF_RSH | BPF_K: *d = (uint32_t)*d >> (k & 31); break;
		case BPF_ALU | BPF_MOV | BPF_K: *d = (uint32_t)k; break;
		case BPF_ALU | BPF_MOV | BPF_X: *d = (uint32_t)src; break;
		case BPF_ALU64 | BPF_MOV | BPF_X: *d = src; break;
		case BPF_JMP | BPF_JNE | BPF_K: if (*d != k) pc += i->off; break;
		case BPF_JMP | BPF_JEQ | BPF_K: if (*d == k) pc += i->off; break;
		case BPF_JMP | BPF_EXIT: return (int)r[0];
		default: return -101;  /* unexpected instruction */
		}
	}
	return -102;  /* fell off the end */
}

#define R BPF_DEVCG_ACC_READ
#define Wr BPF_DEVCG_ACC_WRITE
#define M BPF_DEVCG_ACC_MKNOD

static int decide(const struct cg_dev_rule *rules, size_t n, char type, unsigned acc, uint32_t maj, uint32_t min)
{
	struct bpf_insn *p;
	size_t ni;
	int v;

	if (cg_bpf_build(rules, n, &p, &ni) < 0)
		return -1;
	v = run_prog(p, ni, type, acc, maj, min);
	free(p);
	return v;
}

static void test_bpf(void)
{
	const struct cg_dev_rule typical[] = {
		{ false, 'a', -1, -1, R | Wr | M },      /* deny all */
		{ true, 'c', 1, 3, R | Wr | M },         /* /dev/null */
		{ true, 'c', 136, -1, R | Wr },          /* pts, no mknod */
		{ true, 'b', 8, -1, R },                 /* sd* read only */
		{ false, 'c', 1, 3, Wr },                /* ... then no write to null */
	};
	size_t n = sizeof(typical) / sizeof(typical[0]);

	CHECK(decide(typical, n, 'c', R, 1, 3) == 1);
	CHECK(decide(typical, n, 'c', Wr, 1, 3) == 0);          /* later deny wins for w */
	CHECK(decide(typical, n, 'c', R | Wr, 1, 3) == 0);      /* any denied bit denies */
	CHECK(decide(typical, n, 'c', M, 1, 3) == 1);
	CHECK(decide(typical, n, 'c', R, 1, 5) == 0);           /* not listed */
	CHECK(decide(typical, n, 'c', R | Wr, 136, 7) == 1);
	CHECK(decide(typical, n, 'c', M, 136, 7) == 0);
	CHECK(decide(typical, n, 'b', R, 8, 1) == 1);
	CHECK(decide(typical, n, 'b', Wr, 8, 1) == 0);
	CHECK(decide(typical, n, 'c', R, 8, 1) == 0);           /* type matters */

	/* allow all, then deny some: catch-all gives the default */
	const struct cg_dev_rule priv[] = {
		{ true, 'a', -1, -1, R | Wr | M },
		{ false, 'c', 10, 229, R | Wr | M },
	};
	CHECK(decide(priv, 2, 'c', R, 10, 229) == 0);
	CHECK(decide(priv, 2, 'b', R | Wr, 7, 0) == 1);

	/* rules before the last catch-all do not matter */
	const struct cg_dev_rule reset[] = {
		{ true, 'c', 1, 3, R | Wr | M },
		{ false, 'a', -1, -1, R | Wr | M },
		{ true, 'c', 1, 5, R },
	};
	CHECK(decide(reset, 3, 'c', R, 1, 3) == 0);
	CHECK(decide(reset, 3, 'c', R, 1, 5) == 1);
	CHECK(decide(reset, 3, 'c', Wr, 1, 5) == 0);

	/* no rules at all: deny; a partial 'a' rule applies to both types */
	CHECK(decide(NULL, 0, 'c', R, 1, 3) == 0);
	const struct cg_dev_rule mknod_all[] = { { true, 'a', -1, -1, M } };
	CHECK(decide(mknod_all, 1, 'b', M, 8, 0) == 1);
	CHECK(decide(mknod_all, 1, 'c', M, 4, 1) == 1);
	CHECK(decide(mknod_all, 1, 'c', R | M, 4, 1) == 0);

	/* split access over two allow rules */
	const struct cg_dev_rule split[] = { { true, 'c', 5, 1, R }, { true, 'c', 5, 1, Wr } };
	CHECK(decide(split, 2, 'c', R | Wr, 5, 1) == 1);
	CHECK(decide(split, 2, 'c', R | Wr | M, 5, 1) == 0);
}

static void test_effective_rules(void)
{
	struct oci_device_rule rules[] = { { .allow = false, .type = 'a', .access = "rwm" },
					   { .allow = true, .type = 'c', .major = 1, .has_major = true, .minor = 11,
					     .has_minor = true, .access = "rwa" },
					   { .allow = true, .type = 'c', .major = 1, .has_major = true, .minor = 12,
					     .has_minor = true, .access = "a" } };
	struct oci_device devs[] = { { .path = "/dev/fuse", .type = 'c', .major = 10, .minor = 229 },
				     { .path = "/dev/fifo", .type = 'p' } };
	struct oci_config cfg = { .has_linux = true };
	struct cg_dev_rule *r;
	size_t n;

	cfg.linux_.has_resources = true;
	cfg.linux_.resources.devices = rules;
	cfg.linux_.resources.n_devices = 3;
	cfg.linux_.devices = devs;
	cfg.linux_.n_devices = 2;
	CHECK(cg_device_rules(&cfg, &r, &n) == 0);
	CHECK(n == 2 + 11);                   /* config ("a": no access, dropped) + defaults */
	CHECK(decide(r, n, 'c', R | Wr, 10, 229) == 0);  /* linux.devices get no rule (runc, crun) */
	/* "rwa" as it is (oci/ hands over "rw"): the converter uses the
	 * letters it knows */
	CHECK(decide(r, n, 'c', R | Wr, 1, 11) == 1);
	CHECK(decide(r, n, 'c', M, 1, 11) == 1);         /* (mknod from the default rule) */
	CHECK(decide(r, n, 'c', R, 1, 12) == 0);
	CHECK(decide(r, n, 'c', R | Wr, 1, 9) == 1);     /* urandom by default */
	CHECK(decide(r, n, 'c', M, 7, 3) == 1);          /* mknod of any char device */
	CHECK(decide(r, n, 'c', R, 7, 3) == 0);          /* but not read it */
	CHECK(decide(r, n, 'b', R, 8, 0) == 0);
	free(r);
}

static void test_v1_writes(void)
{
	const struct cg_dev_rule rules[] = {
		{ true, 'c', 4, 1, R | Wr | M },
		{ false, 'a', -1, -1, R | Wr | M },
		{ true, 'c', 1, 3, R | Wr | M },
		{ true, 'c', 136, -1, R | Wr },
		{ true, 'a', 7, -1, M },
		{ false, 'b', -1, -1, M },
		{ true, 'c', 9, 9, 0 },
	};
	struct cg_v1_dev_write *w;
	size_t n;

	CHECK(cg_v1_device_writes(rules, 7, &w, &n) == 0);
	CHECK(n == 6);
	CHECK_STR(w[0].file, "devices.deny");
	CHECK_STR(w[0].value, "a");
	CHECK_STR(w[1].file, "devices.allow");
	CHECK_STR(w[1].value, "c 1:3 rwm");
	CHECK_STR(w[2].value, "c 136:* rw");
	CHECK_STR(w[3].value, "c 7:* m");         /* 'a' with a number: split */
	CHECK_STR(w[4].value, "b 7:* m");
	CHECK_STR(w[5].file, "devices.deny");
	CHECK_STR(w[5].value, "b *:* m");
	free(w);

	const struct cg_dev_rule all[] = { { true, 'a', -1, -1, R | Wr | M } };
	CHECK(cg_v1_device_writes(all, 1, &w, &n) == 0);
	CHECK(n == 1);
	CHECK_STR(w[0].file, "devices.allow");
	CHECK_STR(w[0].value, "a");
	free(w);

	CHECK(cg_access_bits("") == (R | Wr | M));
	CHECK(cg_access_bits("rw") == (R | Wr));
}

static void test_numbers(void)
{
	struct error err;
	int64_t out;
	char buf[32];

	CHECK(cg_shares_to_weight(0) == 0);
	CHECK(cg_shares_to_weight(2) == 1);
	CHECK(cg_shares_to_weight(1024) == 100);          /* the defaults meet (old formula: 39) */
	CHECK(cg_shares_to_weight(100) == 17);            /* runc's update.bats */
	CHECK(cg_shares_to_weight(2000) == 170);          /* runc #4896 */
	CHECK(cg_shares_to_weight(512) == 59);
	CHECK(cg_shares_to_weight(3) == 2);
	CHECK(cg_shares_to_weight(262143) == 10000);
	CHECK(cg_shares_to_weight(262144) == 10000);
	CHECK(cg_shares_to_weight(1) == 1);             /* clamped */
	CHECK(cg_shares_to_weight(1000000) == 10000);
	CHECK(cg_blkio_to_io_weight(10) == 1);
	CHECK(cg_blkio_to_io_weight(500) == 4950);
	CHECK(cg_blkio_to_io_weight(1000) == 10000);

	CHECK(cg_swap_v2(true, 100, 300, &out, &err) == 1 && out == 200);
	CHECK(cg_swap_v2(true, 100, 100, &out, &err) == 1 && out == 0);   /* no swap */
	CHECK(cg_swap_v2(false, 0, -1, &out, &err) == 1 && out == -1);    /* max */
	CHECK(cg_swap_v2(true, 100, 0, &out, &err) == 0);                 /* unset */
	CHECK(cg_swap_v2(true, 100, 50, &out, &err) == -EINVAL);
	CHECK(strstr(err.msg, "lower than memory.limit 100") != NULL);
	CHECK(cg_swap_v2(false, 0, 300, &out, &err) == -EINVAL);
	CHECK(cg_swap_v2(true, -1, 300, &out, &err) == -EINVAL);
	cg_fmt_limit(buf, sizeof(buf), -1);
	CHECK_STR(buf, "max");
	cg_fmt_limit(buf, sizeof(buf), 4096);
	CHECK_STR(buf, "4096");
	{
		int64_t q = 7;
		uint64_t per = 7;

		CHECK(cg_cpu_max_parse("25000 50000", &q, &per) == 0 && q == 25000 && per == 50000);
		CHECK(cg_cpu_max_parse("max 100000", &q, &per) == 0 && q == -1 && per == 100000);
		CHECK(cg_cpu_max_parse("max", &q, &per) == -EINVAL && q == -1 && per == 100000);   /* untouched */
		CHECK(cg_cpu_max_parse("12x 100", &q, &per) == -EINVAL);
		CHECK(cg_cpu_max_parse("-5 100", &q, &per) == -EINVAL);
		CHECK(cg_cpu_max_parse("100 0", &q, &per) == -EINVAL);
		CHECK(cg_cpu_max_parse("100 ", &q, &per) == -EINVAL);
	}

	cg_hugepage_name(2048, buf, sizeof(buf));
	CHECK_STR(buf, "2MB");
	cg_hugepage_name(1048576, buf, sizeof(buf));
	CHECK_STR(buf, "1GB");
	cg_hugepage_name(64, buf, sizeof(buf));
	CHECK_STR(buf, "64KB");
}

static void test_io_max(void)
{
	struct oci_blkio_throttle rbps[] = { { 8, 0, 1048576 } }, wiops[] = { { 8, 0, 20 }, { 8, 16, 30 } },
				  riops[] = { { 8, 16, 0 } };
	struct oci_blkio b = {
		.throttle_read_bps = rbps, .n_throttle_read_bps = 1,
		.throttle_write_iops = wiops, .n_throttle_write_iops = 2,
		.throttle_read_iops = riops, .n_throttle_read_iops = 1,
	};
	struct cg_io_line *l;
	size_t n;

	CHECK(cg_io_max_lines(&b, &l, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(l[0].text, "8:0 rbps=1048576 wiops=20");
	CHECK_STR(l[1].text, "8:16 riops=max wiops=30");
	free(l);
	memset(&b, 0, sizeof(b));
	CHECK(cg_io_max_lines(&b, &l, &n) == 0 && n == 0);
}

static void path_is(const char *id, const char *in, enum cgroup_manager mgr, const char *want)
{
	struct error err = { 0 };
	char *out = NULL;
	int r = cgroup_resolve_path(id, in, mgr, &out, &err);

	if (!want) {
		CHECK(r < 0);
	} else {
		CHECK(r == 0);
		CHECK_STR(out, want);
	}
	if (r < 0 && want)
		fprintf(stderr, "  %s\n", err.msg);
	free(out);
}

static void test_paths(void)
{
	path_is("abc", NULL, false, "/tinyrun/abc");
	path_is("abc", "", false, "/tinyrun/abc");
	path_is("abc", "/kubepods/pod1/abc", false, "/kubepods/pod1/abc");
	path_is("abc", "//a/./b//", false, "/a/b");
	path_is("abc", "/../../etc", false, "/etc");
	path_is("abc", "mine/x", false, "/tinyrun/mine/x");
	path_is("abc", "../../x", false, "/x");
	path_is("abc", "/", false, NULL);
	path_is("abc", "/a/..", false, NULL);
	path_is("abc", NULL, true, "/system.slice/tinyrun-abc.scope");
	path_is("abc", "machine.slice:libpod:abc", true, "/machine.slice/libpod-abc.scope");
	path_is("abc", "a-b-c.slice:pre:xyz", true, "/a.slice/a-b.slice/a-b-c.slice/pre-xyz.scope");
	path_is("abc", ":pre:xyz", true, "/system.slice/pre-xyz.scope");
	path_is("abc", "-.slice::xyz", true, "/xyz.scope");
	path_is("abc", "user.slice:pre:my.slice", true, "/my.slice");
	path_is("abc", "/not/systemd", true, NULL);
	path_is("abc", "a--b.slice:p:n", true, NULL);
	path_is("abc", "bad:p:n", true, NULL);
	/* the user's systemd: user.slice by default, under its manager's cgroup (cgsd_plan) */
	path_is("abc", NULL, CGROUP_SYSTEMD_USER, "/user.slice/tinyrun-abc.scope");
	path_is("abc", ":libpod:abc", CGROUP_SYSTEMD_USER, "/user.slice/libpod-abc.scope");
	path_is("abc", "user-libpod_pod_1.slice:libpod:abc", CGROUP_SYSTEMD_USER,
		"/user.slice/user-libpod_pod_1.slice/libpod-abc.scope");
}

int main(void)
{
	test_numbers();
	test_io_max();
	test_v1_writes();
	test_bpf();
	test_effective_rules();
	test_paths();
	return unit_report("test_cgroup_convert");
}
