/* linux.resources -> cgroup files, v1 (cg1_apply, cg1_apply_devices) and v2
 * (cg2_apply), against a temp-dir tree: one dir per v1 hierarchy (or the one
 * v2 dir) with the files pre-created as the kernel has them. Every write goes
 * through cg_file_write, whose observer logs "dir/file=value" lines in order;
 * the tests compare that log, and a few file contents read back. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"
#include "unit.h"

/* ---- the tree and the write log ----------------------------------------- */

static char root[64];
static struct { int fd; const char *name; } dirs[CG1_N + 1];
static size_t n_dirs;
static char wlog[16384];
static size_t wlog_len;

static const char *dir_name(int fd)
{
	for (size_t i = 0; i < n_dirs; i++)
		if (dirs[i].fd == fd)
			return dirs[i].name;
	return "?";
}

static void observe(int dirfd, const char *file, const char *val, size_t len)
{
	wlog_len += snprintf(wlog + wlog_len, sizeof(wlog) - wlog_len, "%s/%s=%.*s\n", dir_name(dirfd), file,
			     (int)len, val);
}

static void log_reset(void)
{
	wlog[0] = '\0';
	wlog_len = 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static void tree_free(void)
{
	for (size_t i = 0; i < n_dirs; i++)
		close(dirs[i].fd);
	n_dirs = 0;
	if (root[0])
		nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

/* A dir `name` under the tree's root holding `files` (NULL-terminated),
 * empty, as the kernel's cgroupfs would. Returns its fd. */
static int tree_dir(const char *name, const char *const *files)
{
	char p[256];
	int fd;

	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/tinyrun-cgapply.XXXXXX");
		if (!mkdtemp(root)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	snprintf(p, sizeof(p), "%s/%s", root, name);
	if (mkdir(p, 0755) < 0 || (fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(p);
		exit(2);
	}
	for (; *files; files++) {
		int f = openat(fd, *files, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (f < 0) {
			perror(*files);
			exit(2);
		}
		close(f);
	}
	dirs[n_dirs].fd = fd;
	dirs[n_dirs++].name = name;
	return fd;
}

/* Put `val` into dir/file (a value the kernel would show on read). */
static void preset(int fd, const char *file, const char *val)
{
	int f = openat(fd, file, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (f < 0 || write(f, val, strlen(val)) != (ssize_t)strlen(val)) {
		perror(file);
		exit(2);
	}
	close(f);
}

static const char *content(int fd, const char *file)
{
	static char buf[256];

	if (cg_read(fd, file, buf, sizeof(buf)) < 0)
		return "(unreadable)";
	return buf;
}

static struct oci_resources *parse(const char *json, void **arena)
{
	static struct oci_resources res;
	struct error err = { 0 };

	memset(&res, 0, sizeof(res));
	if (oci_resources_parse("resources.json", json, strlen(json), &res, arena, &err) < 0) {
		fprintf(stderr, "parse: %s\n", err.msg);
		exit(2);
	}
	return &res;
}

/* ---- v1 ----------------------------------------------------------------- */

static const char *const v1_memory[] = {
	"memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.soft_limit_in_bytes",
	"memory.kmem.limit_in_bytes", "memory.kmem.tcp.limit_in_bytes", "memory.swappiness",
	"memory.oom_control", "memory.use_hierarchy", "memory.usage_in_bytes", NULL };
static const char *const v1_cpu[] = {
	"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us", "cpu.rt_period_us",
	"cpu.rt_runtime_us", "cpu.idle", "cpuacct.usage", NULL };
static const char *const v1_cpuset[] = { "cpuset.cpus", "cpuset.mems", NULL };
static const char *const v1_pids[] = { "pids.max", "pids.current", NULL };
static const char *const v1_blkio[] = {
	"blkio.weight", "blkio.leaf_weight", "blkio.weight_device", "blkio.leaf_weight_device",
	"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
	"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device", NULL };
static const char *const v1_blkio_bfq[] = {
	"blkio.bfq.weight", "blkio.bfq.weight_device", "blkio.throttle.read_bps_device", NULL };
static const char *const v1_hugetlb[] = {
	"hugetlb.2MB.limit_in_bytes", "hugetlb.2MB.rsvd.limit_in_bytes", "hugetlb.1GB.limit_in_bytes", NULL };
static const char *const v1_hugetlb_norsvd[] = { "hugetlb.2MB.limit_in_bytes", NULL };
static const char *const v1_net_cls[] = { "net_cls.classid", NULL };
static const char *const v1_net_prio[] = { "net_prio.ifpriomap", NULL };
static const char *const v1_rdma[] = { "rdma.max", NULL };
static const char *const v1_devices[] = { "devices.allow", "devices.deny", "devices.list", NULL };
static const char *const v2_unified[] = { "memory.high", "cgroup.procs", NULL };

/* Every v1 hierarchy, cpu and cpuacct co-mounted (one dir, one fd). */
static void v1_tree(int fds[CG1_N], bool bfq)
{
	for (int i = 0; i < CG1_N; i++)
		fds[i] = -1;
	fds[CG1_MEMORY] = tree_dir("memory", v1_memory);
	fds[CG1_CPU] = fds[CG1_CPUACCT] = tree_dir("cpu,cpuacct", v1_cpu);
	fds[CG1_CPUSET] = tree_dir("cpuset", v1_cpuset);
	fds[CG1_PIDS] = tree_dir("pids", v1_pids);
	fds[CG1_BLKIO] = tree_dir("blkio", bfq ? v1_blkio_bfq : v1_blkio);
	fds[CG1_HUGETLB] = tree_dir("hugetlb", bfq ? v1_hugetlb_norsvd : v1_hugetlb);
	fds[CG1_NET_CLS] = tree_dir("net_cls", v1_net_cls);
	fds[CG1_NET_PRIO] = tree_dir("net_prio", v1_net_prio);
	fds[CG1_RDMA] = tree_dir("rdma", v1_rdma);
	fds[CG1_DEVICES] = tree_dir("devices", v1_devices);
	fds[CG1_UNIFIED] = tree_dir("unified", v2_unified);
}

static const char full_v1[] =
	"{\"memory\": {\"limit\": 268435456, \"reservation\": 134217728, \"swap\": 536870912,"
	"  \"kernel\": 67108864, \"kernelTCP\": 16777216, \"swappiness\": 10,"
	"  \"disableOOMKiller\": true, \"useHierarchy\": true},"
	" \"cpu\": {\"shares\": 512, \"quota\": 50000, \"period\": 100000, \"burst\": 10000,"
	"  \"realtimeRuntime\": 950000, \"realtimePeriod\": 1000000, \"cpus\": \"0-1\", \"mems\": \"0\", \"idle\": 0},"
	" \"pids\": {\"limit\": 100},"
	" \"blockIO\": {\"weight\": 500, \"leafWeight\": 300,"
	"  \"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 600, \"leafWeight\": 200},"
	"                    {\"major\": 8, \"minor\": 16, \"leafWeight\": 100}],"
	"  \"throttleReadBpsDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 1048576}],"
	"  \"throttleWriteBpsDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 2097152}],"
	"  \"throttleReadIOPSDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 300},"
	"                              {\"major\": 8, \"minor\": 16, \"rate\": 400}],"
	"  \"throttleWriteIOPSDevice\": [{\"major\": 8, \"minor\": 16, \"rate\": 500}]},"
	" \"hugepageLimits\": [{\"pageSize\": \"2MB\", \"limit\": 209715200}],"
	" \"network\": {\"classID\": 1048577, \"priorities\": [{\"name\": \"eth0\", \"priority\": 500},"
	"                                                   {\"name\": \"lo\", \"priority\": 1}]},"
	" \"rdma\": {\"mlx5_1\": {\"hcaHandles\": 3, \"hcaObjects\": 10000}}}";

static void test_v1_full(void)
{
	struct error err = { 0 };
	void *arena = NULL;
	int fds[CG1_N];
	struct oci_resources *res = parse(full_v1, &arena);

	v1_tree(fds, false);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == 0);
	CHECK_STR(wlog,
		  "memory/memory.limit_in_bytes=268435456\n"
		  "memory/memory.memsw.limit_in_bytes=536870912\n"
		  "memory/memory.soft_limit_in_bytes=134217728\n"
		  "memory/memory.kmem.limit_in_bytes=67108864\n"
		  "memory/memory.kmem.tcp.limit_in_bytes=16777216\n"
		  "memory/memory.swappiness=10\n"
		  "memory/memory.oom_control=1\n"
		  "memory/memory.use_hierarchy=1\n"
		  "cpu,cpuacct/cpu.shares=512\n"
		  "cpu,cpuacct/cpu.cfs_period_us=100000\n"
		  "cpu,cpuacct/cpu.cfs_quota_us=50000\n"
		  "cpu,cpuacct/cpu.cfs_burst_us=10000\n"
		  "cpu,cpuacct/cpu.rt_period_us=1000000\n"
		  "cpu,cpuacct/cpu.rt_runtime_us=950000\n"
		  "cpu,cpuacct/cpu.idle=0\n"
		  "cpuset/cpuset.cpus=0-1\n"
		  "cpuset/cpuset.mems=0\n"
		  "pids/pids.max=100\n"
		  "blkio/blkio.weight=500\n"
		  "blkio/blkio.leaf_weight=300\n"
		  "blkio/blkio.weight_device=8:0 600\n"
		  "blkio/blkio.leaf_weight_device=8:0 200\n"
		  "blkio/blkio.leaf_weight_device=8:16 100\n"
		  "blkio/blkio.throttle.read_bps_device=8:0 1048576\n"
		  "blkio/blkio.throttle.write_bps_device=8:0 2097152\n"
		  "blkio/blkio.throttle.read_iops_device=8:0 300\n"
		  "blkio/blkio.throttle.read_iops_device=8:16 400\n"
		  "blkio/blkio.throttle.write_iops_device=8:16 500\n"
		  "hugetlb/hugetlb.2MB.limit_in_bytes=209715200\n"
		  "hugetlb/hugetlb.2MB.rsvd.limit_in_bytes=209715200\n"
		  "net_cls/net_cls.classid=1048577\n"
		  "net_prio/net_prio.ifpriomap=eth0 500\n"
		  "net_prio/net_prio.ifpriomap=lo 1\n"
		  "rdma/rdma.max=mlx5_1 hca_handle=3 hca_object=10000\n");
	CHECK_STR(content(fds[CG1_MEMORY], "memory.limit_in_bytes"), "268435456");
	CHECK_STR(content(fds[CG1_HUGETLB], "hugetlb.1GB.limit_in_bytes"), "");   /* not asked for */
	oci_arena_free(arena);
	tree_free();
}

/* Fallbacks and the update-time order of memory limit and memsw. */
static void test_v1_variants(void)
{
	struct error err = { 0 };
	void *arena = NULL;
	int fds[CG1_N];
	struct oci_resources *res;

	/* update: raising both past the current limit: memsw first (memsw >= limit always) */
	v1_tree(fds, true);
	preset(fds[CG1_MEMORY], "memory.limit_in_bytes", "1048576");
	res = parse("{\"memory\": {\"limit\": 4194304, \"swap\": 8388608}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, true, &err) == 0);
	CHECK_STR(wlog, "memory/memory.memsw.limit_in_bytes=8388608\n"
			"memory/memory.limit_in_bytes=4194304\n");
	oci_arena_free(arena);

	/* update: lowering both (current limit above the new swap): limit first */
	preset(fds[CG1_MEMORY], "memory.limit_in_bytes", "16777216");
	res = parse("{\"memory\": {\"limit\": 4194304, \"swap\": 8388608}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, true, &err) == 0);
	CHECK_STR(wlog, "memory/memory.limit_in_bytes=4194304\n"
			"memory/memory.memsw.limit_in_bytes=8388608\n");
	oci_arena_free(arena);

	/* unlimited memory, swap not given: unlimited memsw too; disableOOMKiller
	 * false is written on update only; useHierarchy false */
	res = parse("{\"memory\": {\"limit\": -1, \"disableOOMKiller\": false, \"useHierarchy\": false}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == 0);
	CHECK_STR(wlog, "memory/memory.limit_in_bytes=-1\n"
			"memory/memory.memsw.limit_in_bytes=-1\n"
			"memory/memory.use_hierarchy=0\n");
	log_reset();
	CHECK(cg1_apply(fds, res, true, &err) == 0);
	CHECK_STR(wlog, "memory/memory.memsw.limit_in_bytes=-1\n"   /* on update: unlimited memsw first */
			"memory/memory.limit_in_bytes=-1\n"
			"memory/memory.oom_control=0\n"
			"memory/memory.use_hierarchy=0\n");
	oci_arena_free(arena);

	/* swap below the limit: refused before any write */
	res = parse("{\"memory\": {\"limit\": 8388608, \"swap\": 4194304}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == -EINVAL);
	CHECK_STR(wlog, "");
	CHECK(strstr(err.msg, "is lower than memory.limit") != NULL);
	oci_arena_free(arena);

	/* no blkio.weight (BFQ only): blkio.bfq.*; no hugetlb rsvd file: skipped;
	 * zero values write nothing; pids 0 is a limit, written as 1 (runc 1.4) */
	res = parse("{\"blockIO\": {\"weight\": 500, \"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 600}]},"
		    " \"hugepageLimits\": [{\"pageSize\": \"2MB\", \"limit\": 4194304}],"
		    " \"cpu\": {\"shares\": 0, \"quota\": 0, \"period\": 0}, \"pids\": {\"limit\": 0}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == 0);
	CHECK_STR(wlog, "pids/pids.max=1\n"
			"blkio/blkio.bfq.weight=500\n"
			"blkio/blkio.bfq.weight_device=8:0 600\n"
			"hugetlb/hugetlb.2MB.limit_in_bytes=4194304\n");
	oci_arena_free(arena);

	/* cpu quota -1 = unlimited */
	res = parse("{\"cpu\": {\"quota\": -1}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == 0);
	CHECK_STR(wlog, "cpu,cpuacct/cpu.cfs_quota_us=-1\n");
	oci_arena_free(arena);

	/* no memsw file (swap accounting off): an error for a swap limit, nothing for -1;
	 * no kmem file: ignored */
	CHECK(unlinkat(fds[CG1_MEMORY], "memory.memsw.limit_in_bytes", 0) == 0);
	CHECK(unlinkat(fds[CG1_MEMORY], "memory.kmem.limit_in_bytes", 0) == 0);
	res = parse("{\"memory\": {\"limit\": 4194304, \"swap\": 8388608}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == -ENOENT);
	CHECK(strstr(err.msg, "swap accounting is off") != NULL);
	CHECK_STR(wlog, "memory/memory.limit_in_bytes=4194304\n");
	oci_arena_free(arena);
	res = parse("{\"memory\": {\"limit\": -1, \"kernel\": 1048576}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == 0);
	CHECK_STR(wlog, "memory/memory.limit_in_bytes=-1\n");
	oci_arena_free(arena);

	/* a controller that is not mounted: an error naming the field */
	close(fds[CG1_PIDS]);
	dirs[3].fd = -2;
	fds[CG1_PIDS] = -1;
	res = parse("{\"pids\": {\"limit\": 10}}", &arena);
	CHECK(cg1_apply(fds, res, false, &err) == -ENODEV);
	CHECK_STR(err.msg, "linux.resources.pids: the pids cgroup controller is not mounted");
	oci_arena_free(arena);

	/* unified keys on v1: an invalid configuration (as runc), on a hybrid
	 * host (a cgroup2 beside) too, and nothing is written */
	res = parse("{\"unified\": {\"memory.high\": \"1\"}}", &arena);
	log_reset();
	CHECK(cg1_apply(fds, res, false, &err) == -EINVAL);
	CHECK_STR(err.msg, "linux.resources.unified (\"memory.high\"): invalid configuration: "
		  "cannot use unified on cgroup v1 (a hybrid host)");
	CHECK_STR(wlog, "");
	close(fds[CG1_UNIFIED]);
	dirs[n_dirs - 1].fd = -2;
	fds[CG1_UNIFIED] = -1;
	CHECK(cg1_apply(fds, res, false, &err) == -EINVAL);
	oci_arena_free(arena);
	tree_free();
}

static void test_v1_devices(void)
{
	struct oci_device_rule rules[] = {
		{ .allow = false, .type = 'a', .access = "rwm" },
		{ .allow = true, .type = 'c', .major = 10, .has_major = true, .minor = 229, .has_minor = true,
		  .access = "rw" },
		{ .allow = true, .type = 'b', .major = 8, .has_major = true, .access = "r" },
	};
	struct oci_config cfg = { .has_linux = true };
	struct error err = { 0 };
	int fds[CG1_N];

	cfg.linux_.has_resources = true;
	cfg.linux_.resources.devices = rules;
	cfg.linux_.resources.n_devices = 3;
	v1_tree(fds, false);
	log_reset();
	CHECK(cg1_apply_devices(fds[CG1_DEVICES], &cfg, &err) == 0);
	/* deny all, the config's rules, then the default devices (mknod of any,
	 * null zero full tty urandom random pts ptmx tun) */
	CHECK_STR(wlog, "devices/devices.deny=a\n"
			"devices/devices.allow=c 10:229 rw\n"
			"devices/devices.allow=b 8:* r\n"
			"devices/devices.allow=c *:* m\n"
			"devices/devices.allow=b *:* m\n"
			"devices/devices.allow=c 1:3 rwm\n"
			"devices/devices.allow=c 1:8 rwm\n"
			"devices/devices.allow=c 1:7 rwm\n"
			"devices/devices.allow=c 5:0 rwm\n"
			"devices/devices.allow=c 1:5 rwm\n"
			"devices/devices.allow=c 1:9 rwm\n"
			"devices/devices.allow=c 136:* rwm\n"
			"devices/devices.allow=c 5:2 rwm\n"
			"devices/devices.allow=c 10:200 rwm\n");
	tree_free();
}

/* ---- v2 ----------------------------------------------------------------- */

static const char *const v2_files[] = {
	"memory.max", "memory.low", "memory.high", "memory.swap.max", "memory.current",
	"cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle", "cpuset.cpus", "cpuset.mems",
	"pids.max", "io.bfq.weight", "io.weight", "io.max", "hugetlb.2MB.max", "hugetlb.2MB.rsvd.max",
	"rdma.max", "cgroup.procs", NULL };
static const char *const v2_files_nobfq[] = {
	"memory.max", "memory.current", "cpu.weight", "cpu.max", "cpu.idle", "pids.max", "io.weight", "io.max", "hugetlb.2MB.max", NULL };

static const char full_v2[] =
	"{\"memory\": {\"limit\": 268435456, \"reservation\": 134217728, \"swap\": 536870912,"
	"  \"kernel\": 67108864, \"kernelTCP\": 16777216, \"disableOOMKiller\": true, \"useHierarchy\": true},"
	" \"cpu\": {\"shares\": 512, \"quota\": 50000, \"period\": 100000, \"burst\": 10000,"
	"  \"cpus\": \"0-1\", \"mems\": \"0\", \"idle\": 0},"
	" \"pids\": {\"limit\": 100},"
	" \"blockIO\": {\"weight\": 500, \"leafWeight\": 300,"
	"  \"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 600, \"leafWeight\": 200},"
	"                    {\"major\": 8, \"minor\": 16, \"leafWeight\": 100}],"
	"  \"throttleReadBpsDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 1048576}],"
	"  \"throttleWriteBpsDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 2097152}],"
	"  \"throttleReadIOPSDevice\": [{\"major\": 8, \"minor\": 0, \"rate\": 300},"
	"                              {\"major\": 8, \"minor\": 16, \"rate\": 400}],"
	"  \"throttleWriteIOPSDevice\": [{\"major\": 8, \"minor\": 16, \"rate\": 500}]},"
	" \"hugepageLimits\": [{\"pageSize\": \"2MB\", \"limit\": 209715200}],"
	" \"rdma\": {\"mlx5_1\": {\"hcaHandles\": 3, \"hcaObjects\": 10000}},"
	" \"unified\": {\"memory.high\": \"1073741824\"}}";

static void test_v2_full(void)
{
	struct error err = { 0 };
	void *arena = NULL;
	struct oci_resources *res = parse(full_v2, &arena);
	int fd = tree_dir("v2", v2_files);
	char want[2048];

	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	snprintf(want, sizeof(want),
		 "v2/memory.swap.max=268435456\n"     /* swap only: memory+swap minus memory */
		 "v2/memory.max=268435456\n"
		 "v2/memory.low=134217728\n"
		 "v2/cpu.idle=0\n"
		 "v2/cpu.weight=%llu\n"
		 "v2/cpu.max=50000 100000\n"
		 "v2/cpu.max.burst=10000\n"
		 "v2/cpuset.cpus=0-1\n"
		 "v2/cpuset.mems=0\n"
		 "v2/pids.max=100\n"
		 "v2/io.bfq.weight=500\n"
		 "v2/io.bfq.weight=8:0 600\n"
		 "v2/io.max=8:0 rbps=1048576 wbps=2097152 riops=300\n"
		 "v2/io.max=8:16 riops=400 wiops=500\n"
		 "v2/hugetlb.2MB.max=209715200\n"
		 "v2/hugetlb.2MB.rsvd.max=209715200\n"
		 "v2/rdma.max=mlx5_1 hca_handle=3 hca_object=10000\n"
		 "v2/memory.high=1073741824\n",
		 (unsigned long long)cg_shares_to_weight(512));
	CHECK_STR(wlog, want);
	CHECK_STR(content(fd, "pids.max"), "100");
	oci_arena_free(arena);
	tree_free();
}

static void test_v2_variants(void)
{
	struct error err = { 0 };
	void *arena = NULL;
	struct oci_resources *res;
	char want[512];
	int fd = tree_dir("v2", v2_files_nobfq);

	/* no io.bfq.weight: io.weight with the converted weights */
	res = parse("{\"blockIO\": {\"weight\": 500, \"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 600}]}}",
		    &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	snprintf(want, sizeof(want), "v2/io.weight=default %llu\nv2/io.weight=8:0 %llu\n",
		 (unsigned long long)cg_blkio_to_io_weight(500), (unsigned long long)cg_blkio_to_io_weight(600));
	CHECK_STR(wlog, want);
	oci_arena_free(arena);

	/* update of the quota alone keeps the period in cpu.max, and the period alone the quota */
	preset(fd, "cpu.max", "20000 50000\n");
	res = parse("{\"cpu\": {\"quota\": 30000}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, true, &err) == 0);
	CHECK_STR(wlog, "v2/cpu.max=30000 50000\n");
	oci_arena_free(arena);
	preset(fd, "cpu.max", "max 50000\n");
	res = parse("{\"cpu\": {\"period\": 200000}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, true, &err) == 0);
	CHECK_STR(wlog, "v2/cpu.max=max 200000\n");
	oci_arena_free(arena);
	/* at create, the default period */
	res = parse("{\"cpu\": {\"quota\": 30000}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/cpu.max=30000 100000\n");
	oci_arena_free(arena);

	/* idle cgroup: no weight */
	res = parse("{\"cpu\": {\"idle\": 1, \"shares\": 1024}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/cpu.idle=1\n");
	oci_arena_free(arena);

	/* unlimited memory without swap: unlimited swap, and no memory.swap.max
	 * (swap accounting off) needs nothing */
	res = parse("{\"memory\": {\"limit\": -1}, \"pids\": {\"limit\": -1}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/memory.max=max\nv2/pids.max=max\n");
	oci_arena_free(arena);

	/* update of swap alone: the limit comes from memory.max */
	int fd2 = tree_dir("v2b", v2_files);
	preset(fd2, "memory.max", "4194304\n");
	res = parse("{\"memory\": {\"swap\": 6291456}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd2, res, true, &err) == 0);
	CHECK_STR(wlog, "v2b/memory.swap.max=2097152\n");
	oci_arena_free(arena);

	/* checkBeforeUpdate: refused when the usage is above the new limit */
	preset(fd2, "memory.current", "8388608\n");
	res = parse("{\"memory\": {\"limit\": 4194304, \"checkBeforeUpdate\": true}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd2, res, true, &err) == -EBUSY);
	CHECK_STR(wlog, "");
	CHECK(cg2_apply(fd2, res, false, &err) == 0);
	CHECK_STR(wlog, "v2b/memory.max=4194304\n");
	oci_arena_free(arena);

	/* what v2 cannot express: refused before any write */
	static const char *const refused[] = {
		"{\"pids\": {\"limit\": 5}, \"memory\": {\"swappiness\": 10}}",
		"{\"pids\": {\"limit\": 5}, \"network\": {\"classID\": 1}}",
		"{\"pids\": {\"limit\": 5}, \"network\": {\"priorities\": [{\"name\": \"lo\", \"priority\": 1}]}}",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		res = parse(refused[i], &arena);
		log_reset();
		CHECK(cg2_apply(fd2, res, false, &err) == -EINVAL);
		CHECK_STR(wlog, "");
		oci_arena_free(arena);
	}
	/* realtime: refused once reached (after the writes before it) */
	res = parse("{\"cpu\": {\"shares\": 1024, \"realtimeRuntime\": 1000}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd2, res, false, &err) == -EOPNOTSUPP);
	snprintf(want, sizeof(want), "v2b/cpu.weight=%llu\n", (unsigned long long)cg_shares_to_weight(1024));
	CHECK_STR(wlog, want);
	oci_arena_free(arena);

	/* unified: a key that is no file name, a file that does not exist */
	res = parse("{\"unified\": {\"../x\": \"1\"}}", &arena);
	CHECK(cg2_apply(fd2, res, false, &err) == -EINVAL);
	oci_arena_free(arena);
	res = parse("{\"unified\": {\"memory.oom.group\": \"1\"}}", &arena);
	CHECK(cg2_apply(fd2, res, false, &err) == -ENOENT);
	CHECK(strstr(err.msg, "\"memory.oom.group\": No such file or directory") != NULL);
	/* its controller not enabled here (cgroup.controllers): said so */
	{
		int c = openat(fd2, "cgroup.controllers", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		CHECK(c >= 0 && write(c, "cpu pids\n", 9) == 9);
		close(c);
	}
	CHECK(cg2_apply(fd2, res, false, &err) == -ENOENT);
	CHECK(strstr(err.msg, "the requested cgroup controller `memory` is not available") != NULL);
	oci_arena_free(arena);
	res = parse("{\"unified\": {\"nodot\": \"1\"}}", &arena);
	CHECK(cg2_apply(fd2, res, false, &err) == -EINVAL);
	CHECK(strstr(err.msg, "has not the form CONTROLLER.VALUE `nodot`") != NULL);
	oci_arena_free(arena);
	/* a unified value of several lines: one write a line (the kernel's io.max
	 * takes one device a write: EINVAL for both at once), empty lines skipped */
	res = parse("{\"unified\": {\"io.max\": \"8:0 riops=333 wiops=444\\n\\n8:16 riops=555 wiops=666\\n\"}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/io.max=8:0 riops=333 wiops=444\n\nv2/io.max=8:16 riops=555 wiops=666\n\n");
	oci_arena_free(arena);
	/* the last line without its newline, however short, is written too */
	res = parse("{\"unified\": {\"io.max\": \"8:0 riops=1\\nx\"}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/io.max=8:0 riops=1\n\nv2/io.max=x\n");
	oci_arena_free(arena);
	res = parse("{\"unified\": {\"memory.max\": \"1073741824\\n\"}}", &arena);
	log_reset();
	CHECK(cg2_apply(fd, res, false, &err) == 0);
	CHECK_STR(wlog, "v2/memory.max=1073741824\n\n");
	oci_arena_free(arena);
	tree_free();
}

int main(void)
{
	cg_set_write_observer(observe);
	test_v1_full();
	test_v1_variants();
	test_v1_devices();
	test_v2_full();
	test_v2_variants();
	return unit_report("test_cgroup_apply");
}
