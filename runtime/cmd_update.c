#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/container/bundle.h"
#include "cli.h"
#include "runtime/container/lifecycle.h"

/* "512", "100k", "1.5g", "-1" -> bytes (binary units, as runc's RAMInBytes) */
static int parse_size(const char *s, int64_t *out)
{
	char *end;
	double v;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 0: break;
	case 'k': v *= 1024; end++; break;
	case 'm': v *= 1024 * 1024; end++; break;
	case 'g': v *= 1024.0 * 1024 * 1024; end++; break;
	case 't': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > 9.2e18)
		return -1;
	*out = (int64_t)v;
	return 0;
}

enum {
	O_MEMORY = 1000, O_MEMRES, O_MEMSWAP, O_KMEM, O_KMEMTCP, O_SHARES, O_QUOTA, O_PERIOD,
	O_RTPERIOD, O_RTRUNTIME, O_CPUS, O_MEMS, O_PIDS, O_BLKIO, O_BURST, O_IDLE,
};

const struct cli_opt cmd_update_opts[] = {
	{ "resources", 'r', 'r', "FILE", "linux.resources as a JSON file, \"-\" for stdin" },
	{ "memory", 0, O_MEMORY, "BYTES", "memory limit: bytes or with a suffix (k, m, g), -1 unlimited" },
	{ "memory-reservation", 0, O_MEMRES, "BYTES", "memory soft limit (bytes, k, m, g; -1 unlimited)" },
	{ "memory-swap", 0, O_MEMSWAP, "BYTES", "memory + swap limit (bytes, k, m, g; -1 unlimited)" },
	{ "kernel-memory", 0, O_KMEM, "BYTES", "kernel memory limit (cgroup v1, bytes, k, m, g)" },
	{ "kernel-memory-tcp", 0, O_KMEMTCP, "BYTES", "kernel TCP buffer limit (cgroup v1, bytes, k, m, g)" },
	{ "cpu-shares", 0, O_SHARES, "N", "relative CPU weight (cgroup v1 shares, 2-262144)" },
	{ "cpu-quota", 0, O_QUOTA, "USEC", "CPU time per period, microseconds (-1 unlimited)" },
	{ "cpu-period", 0, O_PERIOD, "USEC", "the CPU quota's period, microseconds" },
	{ "cpu-burst", 0, O_BURST, "USEC", "CPU time a period may borrow from earlier ones, microseconds" },
	{ "cpu-idle", 0, O_IDLE, "N", "1: the cgroup runs only when the CPU is otherwise idle, 0: normal" },
	{ "cpu-rt-period", 0, O_RTPERIOD, "USEC", "real-time period, microseconds" },
	{ "cpu-rt-runtime", 0, O_RTRUNTIME, "USEC", "real-time runtime per period, microseconds" },
	{ "cpuset-cpus", 0, O_CPUS, "LIST", "CPUs to run on (0-3,5)" },
	{ "cpuset-mems", 0, O_MEMS, "LIST", "memory nodes to allocate from (0-1)" },
	{ "pids-limit", 0, O_PIDS, "N", "maximum number of processes (-1 unlimited, 0 = 1)" },
	{ "blkio-weight", 0, O_BLKIO, "N", "relative block I/O weight (10-1000)" },
	{ 0 },
};

static const char *opt_name(int val)
{
	for (const struct cli_opt *o = cmd_update_opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* The number of linux.resources each flag sets: its range is config.json's
 * (oci_resources_set_number), so `update` takes what create would. */
static const struct {
	int opt;
	const char *field;
} flag_fields[] = {
	{ O_MEMORY, "memory.limit" }, { O_MEMRES, "memory.reservation" }, { O_MEMSWAP, "memory.swap" },
	{ O_KMEM, "memory.kernel" }, { O_KMEMTCP, "memory.kernelTCP" }, { O_SHARES, "cpu.shares" },
	{ O_QUOTA, "cpu.quota" }, { O_PERIOD, "cpu.period" }, { O_RTPERIOD, "cpu.realtimePeriod" },
	{ O_RTRUNTIME, "cpu.realtimeRuntime" }, { O_BURST, "cpu.burst" }, { O_IDLE, "cpu.idle" },
	{ O_PIDS, "pids.limit" }, { O_BLKIO, "blockIO.weight" },
};

static int set_flag(struct oci_resources *r, int opt, const char *v, struct error *err)
{
	char name[64], bytes[32];
	int64_t n;
	size_t i;

	snprintf(name, sizeof(name), "--%s", opt_name(opt));
	if (opt == O_CPUS || opt == O_MEMS) {
		r->has_cpu = true;
		*(opt == O_CPUS ? &r->cpu.cpus : &r->cpu.mems) = (char *)v;
		return 0;
	}
	if (opt == O_MEMORY || opt == O_MEMRES || opt == O_MEMSWAP || opt == O_KMEM || opt == O_KMEMTCP) {
		if (parse_size(v, &n) < 0)
			return error_set(err, EINVAL, "%s: invalid value \"%s\"", name, v);
		snprintf(bytes, sizeof(bytes), "%" PRId64, n);
		v = bytes;
	}
	for (i = 0; i < sizeof(flag_fields) / sizeof(flag_fields[0]); i++)
		if (flag_fields[i].opt == opt)
			return oci_resources_set_number(r, flag_fields[i].field, v, name, err);
	return error_set(err, EINVAL, "%s: not a number of linux.resources", name);
}

int cmd_update(struct global_opts *g, int argc, char **argv)
{
	struct oci_resources res = { 0 }, *use = &res;
	const char *file = NULL;
	void *arena = NULL;
	char *buf = NULL;
	struct container c;
	struct cgroup cg;
	struct error err;
	enum container_status s;
	int ch, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_update_opts, false)) != -1) {
		if (ch == 'r')
			file = optarg;
		else if (ch < O_MEMORY)
			return cli_option_error("update", cmd_update_opts, ch, argv);
		else if (set_flag(&res, ch, optarg, &err) < 0)
			return cli_usage_error("update", "%s", err.msg);
	}
	if (argc - optind != 1)
		return cli_usage_error("update", "expected exactly one container id");
	if (file) {
		char name[4200];
		size_t len;

		/* a regular file, a pipe or "-" (stdin): never a named FIFO or a device */
		snprintf(name, sizeof(name), "update: -r %s", file);
		if (oci_read_input(file, name, &buf, &len, &err) < 0)
			return cli_fail(&err);
		if (oci_resources_parse(strcmp(file, "-") ? file : "stdin", buf, len, &res, &arena, &err) < 0) {
			free(buf);
			return cli_fail(&err);
		}
	}
	if (container_load(g->root, argv[optind], true, &c, &err) < 0) {
		r = cli_fail(&err);
		goto out;
	}
	s = container_status(&c);
	if (s == STATUS_STOPPED || !c.st.cgroup_path) {
		r = cli_failf("cannot update container \"%s\": it is %s", argv[optind], container_status_name(s));
		container_close(&c);
		goto out;
	}
	r = cgroup_open(c.st.cgroup_path, c.st.systemd_cgroup, &cg, &err);
	if (r == 0) {
		r = cgroup_update(&cg, use, &err);
		cgroup_close(&cg);
	}
	container_close(&c);
	r = r < 0 ? cli_fail(&err) : 0;
out:
	if (arena)
		oci_arena_free(arena);
	free(buf);
	return r;
}
