/* calibrate: what this machine costs, printed beside `make bench`'s tables so
 * that a ratio measured on one VM can be judged on another.
 *
 *   calibrate [-t MS] [-c PARENT] [-f FLOOR -g FLOOR_CG -b BUNDLE] [-v VIRT] [-C CONTAINER]
 *
 * prints one line (markdown) with the medians of:
 *   - a page fault: the first write to each page of a fresh private anonymous
 *     mapping (8 MiB a round);
 *   - a syscall: getppid(), raw;
 *   - fork + exec of a static binary: this program, built -static, re-executed
 *     to exit at once, waited for;
 *   - a cgroup mkdir + rmdir in each hierarchy mounted under /sys/fs/cgroup
 *     (v1 and cgroup2), under PARENT (tinyrun-bench; made and removed if
 *     it did not exist), and their count;
 *   - the floor (tests/bench/floor.c) and the floor with a cgroup in every
 *     hierarchy (floor-cg: floor.c built -DFLOOR_CGROUPS), interleaved, each a
 *     `run` of BUNDLE, when -f, -g and -b are given (BUNDLE's cgroupsPath
 *     must lie under /PARENT: the parents that did not exist are removed at
 *     the end);
 *   - the kind of virtualisation: VIRT and CONTAINER (systemd-detect-virt
 *     --vm and --container, from the caller), the CPUID hypervisor vendor
 *     (KVMKVMKVM, TCGTCGTCGTCG under QEMU's emulation, Microsoft Hv, ...) and
 *     flag, /sys/class/dmi/id's vendor and product.
 * Each measure runs rounds until about MS milliseconds (default 300) have
 * passed, at least 3 and at most 1000; a round's figure is its mean, the
 * line gives the median of the rounds. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 1000
#define MAX_HIER 32
#define FAULT_PAGES 2048

static double budget_ms = 300;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return -1;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rounds of FN (which returns the µs of one unit, or < 0 on failure) until
 * the budget is spent; the median, or -1 when a round failed. */
static double measure(double (*fn)(void *), void *arg)
{
	double v[MAX_ROUNDS], start = now_us(), x;
	int n = 0;

	while (n < MAX_ROUNDS && (n < 3 || now_us() - start < budget_ms * 1e3)) {
		if ((x = fn(arg)) < 0)
			return -1;
		v[n++] = x;
	}
	return median(v, n);
}

static double page_faults(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, FAULT_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t;

	(void)arg;
	if (p == MAP_FAILED)
		return -1;
	t = now_us();
	for (long i = 0; i < FAULT_PAGES; i++)
		((volatile char *)p)[i * page] = 1;
	t = now_us() - t;
	munmap(p, FAULT_PAGES * page);
	return t / FAULT_PAGES;
}

static double syscalls(void *arg)
{
	double t = now_us();

	(void)arg;
	for (int i = 0; i < 10000; i++)
		syscall(SYS_getppid);
	return (now_us() - t) / 10000;
}

/* fork + execve of ARGV + wait, in µs, or -1 unless it exits 0 */
static double spawn(char *const *argv)
{
	double t = now_us();
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return now_us() - t;
}

static char self[PATH_MAX];

static double fork_exec(void *arg)
{
	char *argv[] = { self, "--exit", NULL };

	(void)arg;
	return spawn(argv);
}

/* ---- cgroups ---- */

static char hier[MAX_HIER][256];
static int n_hier;

/* every hierarchy mounted under /sys/fs/cgroup, once (co-mounted
 * controllers share one) */
static void find_hierarchies(void)
{
	char line[4096], mnt[256];
	dev_t seen[MAX_HIER];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && fgets(line, sizeof(line), f) && n_hier < MAX_HIER) {
		char *sep = strstr(line, " - ");
		struct stat st;
		int i;

		if (!sep || (strncmp(sep, " - cgroup ", 10) && strncmp(sep, " - cgroup2 ", 11)) ||
		    sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || strncmp(mnt, "/sys/fs/cgroup", 14) ||
		    stat(mnt, &st) < 0)
			continue;
		for (i = 0; i < n_hier && seen[i] != st.st_dev; i++)
			;
		if (i < n_hier)
			continue;
		seen[n_hier] = st.st_dev;
		snprintf(hier[n_hier++], sizeof(hier[0]), "%s", mnt);
	}
	if (f)
		fclose(f);
}

static const char *cg_parent = "tinyrun-bench";

static bool had_parent[MAX_HIER];

/* which hierarchies already have PARENT: the others' are removed at the end */
static void note_parents(void)
{
	char dir[512];
	struct stat st;

	find_hierarchies();
	for (int i = 0; i < n_hier; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", hier[i], cg_parent);
		had_parent[i] = stat(dir, &st) == 0;
	}
}

static double cgroup_mkdir_rmdir(void *arg)
{
	const char *mnt = arg;
	char dir[512];
	double t;

	snprintf(dir, sizeof(dir), "%s/%s/calibrate-%d", mnt, cg_parent, (int)getpid());
	t = now_us();
	for (int i = 0; i < 10; i++)
		if (mkdir(dir, 0755) < 0 || rmdir(dir) < 0)
			return -1;
	return (now_us() - t) / 10;
}

/* median per hierarchy; *total their sum (µs), *lo and *hi the extremes */
static int cgroups(double *each, double *total, double *lo, double *hi)
{
	double v[MAX_HIER];
	char dir[512];
	int n = 0;

	*total = 0;
	for (int i = 0; i < n_hier; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", hier[i], cg_parent);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			continue;
		if ((v[n] = measure(cgroup_mkdir_rmdir, hier[i])) >= 0)
			*total += v[n++];
	}
	if (!n)
		return 0;
	*lo = *hi = v[0];
	for (int i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
	*each = median(v, n);
	return n;
}

/* ---- the floors, interleaved ---- */

static char *floor_argv[2][8];

static int floors(double *plain, double *cg)
{
	double v[2][MAX_ROUNDS], start = now_us();
	int n = 0;

	while (n < MAX_ROUNDS && (n < 3 || now_us() - start < 2 * budget_ms * 1e3)) {
		for (int k = 0; k < 2; k++)
			if ((v[(k + n) % 2][n] = spawn(floor_argv[(k + n) % 2])) < 0)
				return -1;
		n++;
	}
	*plain = median(v[0], n);
	*cg = median(v[1], n);
	return 0;
}

/* ---- virtualisation ---- */

static void read_line(const char *file, char *out, size_t size)
{
	FILE *f = fopen(file, "re");

	*out = '\0';
	if (f && fgets(out, (int)size, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void hypervisor(char *out, size_t size)
{
	unsigned int a, b, c, d, r[3];
	char vendor[13] = "";
	bool flag;

	__cpuid(1, a, b, c, d);
	flag = c & (1u << 31);
	if (flag) {
		__cpuid(0x40000000, a, r[0], r[1], r[2]);
		memcpy(vendor, r, 12);
		vendor[12] = '\0';
	}
	snprintf(out, size, flag ? "cpuid hypervisor flag, vendor \"%s\"" : "no cpuid hypervisor flag%s",
		 vendor);
}

static void print_us(const char *what, double us)
{
	if (us < 0)
		printf("%s n/a", what);
	else if (us >= 1000)
		printf("%s %.2f ms", what, us / 1e3);
	else
		printf("%s %.*f µs", what, us < 10 ? 2 : us < 100 ? 1 : 0, us);
}

int main(int argc, char **argv)
{
	const char *virt = "", *container = "", *floor_bin = NULL, *floor_cg = NULL, *bundle = NULL;
	char hv[128], vendor[128], product[128], dir[512];
	double each = 0, total = 0, lo = 0, hi = 0, plain = -1, cg = -1;
	int opt, n_cg;
	ssize_t n;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	while ((opt = getopt(argc, argv, "t:c:f:g:b:v:C:")) != -1)
		switch (opt) {
		case 't': budget_ms = atof(optarg); break;
		case 'c': cg_parent = optarg; break;
		case 'f': floor_bin = optarg; break;
		case 'g': floor_cg = optarg; break;
		case 'b': bundle = optarg; break;
		case 'v': virt = optarg; break;
		case 'C': container = optarg; break;
		default:
			fprintf(stderr, "usage: calibrate [-t MS] [-c PARENT] [-f FLOOR -g FLOOR_CG -b BUNDLE] "
					"[-v VIRT] [-C CONTAINER]\n");
			return 2;
		}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return perror("calibrate: /proc/self/exe"), 1;
	self[n] = '\0';
	hypervisor(hv, sizeof(hv));
	read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	read_line("/sys/class/dmi/id/product_name", product, sizeof(product));

	printf("Calibration (`tests/bench/calibrate.c`): virtualisation %s (systemd-detect-virt%s%s), %s, "
	       "DMI %s%s%s; %ld CPUs;", *virt ? virt : "unknown", *container ? "; container: " : "", container, hv,
	       *vendor ? vendor : "none", *product ? " " : "", product, sysconf(_SC_NPROCESSORS_ONLN));
	print_us(" page fault", measure(page_faults, NULL));
	print_us(", syscall (getppid)", measure(syscalls, NULL));
	print_us(", fork+exec of a static binary", measure(fork_exec, NULL));
	note_parents();
	if (floor_bin && floor_cg && bundle) {   /* first: floor-cg makes a v1 cpuset parent usable */
		char *a[8] = { (char *)floor_bin, "run", "--bundle", (char *)bundle, "calibrate", NULL };
		char *b[8] = { (char *)floor_cg, "run", "--bundle", (char *)bundle, "calibrate", NULL };

		memcpy(floor_argv[0], a, sizeof(a));
		memcpy(floor_argv[1], b, sizeof(b));
		if (floors(&plain, &cg) < 0)
			plain = cg = -1;
	}
	n_cg = cgroups(&each, &total, &lo, &hi);
	if (n_cg) {
		print_us(", cgroup mkdir+rmdir", each);
		if (n_cg > 1) {
			printf(" a hierarchy (%.0f-%.0f µs) x %d", lo, hi, n_cg);
			print_us(" =", total);
		} else {
			printf(" (one hierarchy)");
		}
	} else {
		printf(", no cgroup hierarchy usable");
	}
	if (floor_bin && floor_cg && bundle) {
		print_us("; floor `run`", plain);
		print_us(", with a cgroup in every hierarchy", cg);
	}
	printf(".\n");
	for (int i = 0; i < n_hier; i++)   /* the parents made here or by floor-cg */
		if (!had_parent[i] && snprintf(dir, sizeof(dir), "%s/%s", hier[i], cg_parent) > 0)
			rmdir(dir);
	return 0;
}
