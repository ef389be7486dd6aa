/* What tinyrun hands tinyrun-init for the time limits (setup.c,
 * runtime/sandbox/limits.c -> init.c), and the one parser of a cgroup's
 * CPU usage file both sides read. Freestanding: no libc. */
#ifndef TINYRUN_INIT_ARGS_H
#define TINYRUN_INIT_ARGS_H

/* CPU_KIND: the file CPU_FD is */
#define INIT_CPU_V1_USAGE 1   /* cgroup v1 cpuacct.usage: one number, ns */
#define INIT_CPU_V2_STAT 2    /* cgroup v2 cpu.stat: a line "usage_usec N" */

/* The limits' names in <state dir>/exit-status ("STATUS LIMIT"), result.c */
#define INIT_LIMIT_WALL "timeout"
#define INIT_LIMIT_CPU "cpu-time"

/* The CPU time in ns that the n bytes at buf (a file of that kind) say,
 * or -1 when they say none. */
static inline long long init_cpu_usage_ns(const char *buf, long n, int kind)
{
	static const char key[] = "usage_usec ";
	long i = 0, k;
	long long v = -1;

	if (kind == INIT_CPU_V2_STAT) {
		for (;; i++) {          /* the line that starts with key */
			if (i + (long)sizeof(key) - 1 > n)
				return -1;
			for (k = 0; key[k] && buf[i + k] == key[k]; k++)
				;
			if (!key[k] && (i == 0 || buf[i - 1] == '\n'))
				break;
		}
		i += k;
	} else if (kind != INIT_CPU_V1_USAGE) {
		return -1;
	}
	for (; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
	return kind == INIT_CPU_V2_STAT && v >= 0 ? v * 1000 : v;
}

#endif
