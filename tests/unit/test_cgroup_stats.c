/* cgroup stats (`events --stats`) from a temp-dir tree: cg2_stats over one
 * v2 dir, cg1_stats_at over one dir per v1 hierarchy, with files as the
 * kernel shows them; missing files leave their values at 0. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/events.h"
#include "runtime/cgroup/internal.h"
#include "unit.h"

static char root[64];

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

/* A dir under the tree holding name=content pairs (NULL-terminated). */
static int tree_dir(const char *name, const char *const *files)
{
	char p[256];
	int fd;

	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/tinyrun-cgstats.XXXXXX");
		if (!mkdtemp(root))
			exit(2);
	}
	snprintf(p, sizeof(p), "%s/%s", root, name);
	if (mkdir(p, 0755) < 0 || (fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(p);
		exit(2);
	}
	for (; *files; files += 2) {
		int f = openat(fd, files[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (f < 0 || write(f, files[1], strlen(files[1])) != (ssize_t)strlen(files[1]))
			exit(2);
		close(f);
	}
	return fd;
}

static uint64_t raw(const struct cgroup_stats *st, const char *key)
{
	for (size_t i = 0; i < st->memory.n_raw; i++)
		if (!strcmp(st->memory.raw[i].key, key))
			return st->memory.raw[i].value;
	return (uint64_t)-1;
}

/* events --stats: runc's keys for the per-CPU lists and the cpuset */
static void test_json(const struct cgroup_stats *st)
{
	char *out = NULL;
	size_t len;

	CHECK(oci_event_stats_json("c", st, &out, &len) == 0);
	CHECK(out && strstr(out, "\"percpu\":[100,200,300],\"percpu_kernel\":[40,50,60],"
				 "\"percpu_user\":[60,150,240],"));
	CHECK(out && strstr(out, "},\"cpuset\":{\"cpus\":[0,1,2,5],\"cpu_exclusive\":1,\"mems\":[0],"
				 "\"mem_hardwall\":0,\"mem_exclusive\":0,\"memory_migrate\":1,"
				 "\"memory_spread_page\":0,\"memory_spread_slab\":0,\"memory_pressure\":7,"
				 "\"memory_pressure_enabled\":0,\"sched_load_balance\":1,"
				 "\"sched_relax_domain_level\":-1},\"memory\":"));
	free(out);
}

static void test_id_list(void)
{
	uint16_t *l = NULL;
	size_t n = 0;

	CHECK(cg_stats_id_list("\n", &l, &n) == 0 && n == 0);
	CHECK(cg_stats_id_list("3,1-2\n", &l, &n) == 0 && n == 3 && l[0] == 3 && l[2] == 2);
	CHECK(cg_stats_id_list("2-1", &l, &n) == -EINVAL);
	CHECK(cg_stats_id_list("0-70000", &l, &n) == -EINVAL);
	CHECK(cg_stats_id_list("x", &l, &n) == -EINVAL);
	free(l);
}

static void test_v2(void)
{
	static const char *const files[] = {
		"cpu.stat", "usage_usec 3000\nuser_usec 2000\nsystem_usec 1000\nnr_periods 5\nnr_throttled 2\n"
			    "throttled_usec 700\n",
		"memory.current", "4096\n",
		"memory.peak", "8192\n",
		"memory.max", "max\n",
		"memory.events", "low 0\nhigh 0\nmax 3\noom 2\noom_kill 1\n",
		"memory.swap.current", "1024\n",
		"memory.swap.max", "max\n",
		"memory.stat", "anon 100\nfile 200\nkernel 300\n",
		"pids.current", "7\n",
		"pids.max", "max\n",
		"io.stat", "8:0 rbytes=10 wbytes=20 rios=1 wios=2 dbytes=0 dios=0\n",
		"cpuset.cpus.effective", "0-1,3\n",
		"cpuset.mems.effective", "0\n",
		NULL };
	struct cgroup_stats st;
	struct error err = { 0 };
	int fd = tree_dir("v2", files);

	memset(&st, 0, sizeof(st));
	CHECK(cg2_stats(fd, &st, &err) == 0);
	CHECK(st.cpu.total == 3000000 && st.cpu.user == 2000000 && st.cpu.kernel == 1000000);
	CHECK(st.cpu.periods == 5 && st.cpu.throttled_periods == 2 && st.cpu.throttled_time == 700000);
	CHECK(st.memory.usage.usage == 4096 && st.memory.usage.max_usage == 8192);
	CHECK(st.memory.usage.limit == UINT64_MAX && st.memory.usage.failcnt == 3);
	CHECK(st.memory.oom == 2 && st.memory.oom_kill == 1);
	CHECK(st.memory.swap.usage == 4096 + 1024 && st.memory.swap.limit == UINT64_MAX);
	CHECK(st.memory.cache == 200 && st.memory.n_raw == 3 && raw(&st, "kernel") == 300);
	CHECK(st.pids.current == 7 && st.pids.limit == 0);   /* "max": no limit */
	CHECK(st.blkio.n_service_bytes == 3 && st.blkio.n_serviced == 3);
	CHECK(st.blkio.n_service_bytes == 3 && !strcmp(st.blkio.service_bytes[1].op, "Write") &&
	      st.blkio.service_bytes[1].value == 20 && st.blkio.service_bytes[1].major == 8);
	CHECK(st.cpuset.n_cpus == 3 && st.cpuset.cpus[0] == 0 && st.cpuset.cpus[2] == 3);
	CHECK(st.cpuset.n_mems == 1 && st.cpuset.mems[0] == 0 && st.cpuset.sched_load_balance == 0);
	cgroup_stats_free(&st);
	close(fd);

	/* no cpu.stat: an error */
	static const char *const none[] = { "memory.current", "1\n", NULL };
	fd = tree_dir("v2-empty", none);
	memset(&st, 0, sizeof(st));
	CHECK(cg2_stats(fd, &st, &err) < 0);
	cgroup_stats_free(&st);
	close(fd);
}

static void test_v1(void)
{
	static const char *const memory[] = {
		"memory.usage_in_bytes", "4096\n", "memory.max_usage_in_bytes", "8192\n",
		"memory.failcnt", "1\n", "memory.limit_in_bytes", "1048576\n",
		"memory.memsw.usage_in_bytes", "5000\n", "memory.memsw.limit_in_bytes", "2097152\n",
		"memory.oom_control", "oom_kill_disable 0\nunder_oom 1\noom_kill 4\n",
		"memory.stat", "cache 300\nrss 400\n", NULL };
	static const char *const cpu[] = {
		"cpuacct.usage", "123456\n", "cpuacct.stat", "user 10\nsystem 5\n",
		"cpuacct.usage_percpu", "100 200 300 \n", "cpuacct.usage_percpu_sys", "40 50 60 \n",
		"cpuacct.usage_percpu_user", "60 150 240 \n", "cpu.stat", "nr_periods 9\nnr_throttled 3\nthrottled_time 55\n",
		NULL };
	static const char *const pids[] = { "pids.current", "3\n", "pids.max", "64\n", NULL };
	static const char *const cpuset[] = {
		"cpuset.cpus", "0-2,5\n", "cpuset.mems", "0\n", "cpuset.cpu_exclusive", "1\n",
		"cpuset.mem_hardwall", "0\n", "cpuset.memory_migrate", "1\n", "cpuset.memory_pressure", "7\n",
		"cpuset.sched_load_balance", "1\n", "cpuset.sched_relax_domain_level", "-1\n", NULL };
	static const char *const blkio[] = {
		"blkio.io_service_bytes_recursive", "",
		"blkio.throttle.io_service_bytes_recursive", "8:0 Read 4096\n8:0 Write 8192\nTotal 12288\n",
		"blkio.io_serviced_recursive", "8:0 Read 1\nTotal 1\n", NULL };
	struct cgroup_stats st;
	struct error err = { 0 };
	int fds[CG1_N];
	long hz = sysconf(_SC_CLK_TCK);

	for (int i = 0; i < CG1_N; i++)
		fds[i] = -1;
	fds[CG1_MEMORY] = tree_dir("memory", memory);
	fds[CG1_CPU] = fds[CG1_CPUACCT] = tree_dir("cpu,cpuacct", cpu);
	fds[CG1_PIDS] = tree_dir("pids", pids);
	fds[CG1_BLKIO] = tree_dir("blkio", blkio);
	fds[CG1_CPUSET] = tree_dir("cpuset", cpuset);
	memset(&st, 0, sizeof(st));
	CHECK(cg1_stats_at(fds, &st, &err) == 0);
	CHECK(st.cpu.total == 123456);
	CHECK(st.cpu.user == 10 * (1000000000ULL / (hz > 0 ? hz : 100)));
	CHECK(st.cpu.n_percpu == 3 && st.cpu.percpu[2] == 300);
	CHECK(st.cpu.n_percpu_kernel == 3 && st.cpu.percpu_kernel[1] == 50);
	CHECK(st.cpu.n_percpu_user == 3 && st.cpu.percpu_user[2] == 240);
	CHECK(st.cpuset.n_cpus == 4 && st.cpuset.cpus[2] == 2 && st.cpuset.cpus[3] == 5);
	CHECK(st.cpuset.n_mems == 1 && st.cpuset.mems[0] == 0);
	CHECK(st.cpuset.cpu_exclusive == 1 && st.cpuset.memory_migrate == 1 && st.cpuset.memory_pressure == 7);
	CHECK(st.cpuset.sched_load_balance == 1 && st.cpuset.sched_relax_domain_level == -1);
	CHECK(st.cpuset.mem_hardwall == 0 && st.cpuset.memory_pressure_enabled == 0);   /* absent: 0 */
	test_json(&st);
	CHECK(st.cpu.periods == 9 && st.cpu.throttled_periods == 3 && st.cpu.throttled_time == 55);
	CHECK(st.memory.usage.usage == 4096 && st.memory.usage.max_usage == 8192);
	CHECK(st.memory.usage.failcnt == 1 && st.memory.usage.limit == 1048576);
	CHECK(st.memory.swap.usage == 5000 && st.memory.swap.limit == 2097152);
	CHECK(st.memory.kernel.usage == 0);                  /* no kmem files */
	CHECK(st.memory.oom_kill == 4 && st.memory.under_oom);
	CHECK(st.memory.cache == 300 && raw(&st, "rss") == 400);
	CHECK(st.pids.current == 3 && st.pids.limit == 64);
	/* CFQ files empty: the throttle ones; the Total line skipped */
	CHECK(st.blkio.n_service_bytes == 2 && st.blkio.service_bytes[1].value == 8192);
	CHECK(st.blkio.n_serviced == 1 && !strcmp(st.blkio.serviced[0].op, "Read"));
	cgroup_stats_free(&st);
	close(fds[CG1_MEMORY]);
	close(fds[CG1_CPU]);
	close(fds[CG1_PIDS]);
	close(fds[CG1_BLKIO]);
	close(fds[CG1_CPUSET]);
}

int main(void)
{
	test_id_list();
	test_v2();
	test_v1();
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return unit_report("test_cgroup_stats");
}
