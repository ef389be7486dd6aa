#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oci/util.h"
#include "cli.h"
#include "runtime/container/lifecycle.h"
#include "runtime/sandbox/fence.h"
#include "runtime/container/result.h"
#include "oci/events.h"

/* Go durations as runc takes them: "5s", "100ms", "1m30s", "2h"; a bare number is seconds. */
static int parse_interval(const char *s, long *ms)
{
	double total = 0;
	char *end;

	if (!*s)
		return -1;
	while (*s) {
		double v;

		errno = 0;
		v = strtod(s, &end);
		if (errno || end == s || v < 0)
			return -1;
		s = end;
		if (!strncmp(s, "ms", 2)) { total += v; s += 2; }
		else if (*s == 's') { total += v * 1000; s++; }
		else if (*s == 'm') { total += v * 60000; s++; }
		else if (*s == 'h') { total += v * 3600000; s++; }
		else if (!*s) total += v * 1000;
		else return -1;
	}
	*ms = total < 1 ? 1 : (long)total;
	return 0;
}

static int print_event(const char *type, const char *id, const struct cgroup *cg, struct error *err)
{
	struct cgroup_stats st;
	char *json;
	size_t len;
	int r;

	if (!strcmp(type, "stats")) {
		if ((r = cgroup_stats(cg, &st, err)) < 0)
			return r;
		r = oci_event_stats_json(id, &st, &json, &len);
		cgroup_stats_free(&st);
	} else {
		r = oci_event_json(type, id, &json, &len);
	}
	if (r < 0)
		return error_set(err, ENOMEM, "events: out of memory");
	printf("%.*s\n", (int)len, json);
	fflush(stdout);
	free(json);
	return 0;
}

/* The last event: why the process ended (result.h), when it stopped while
 * we watched: {"type":"exit","id":...,"data":{"reason":...}}. */
static void print_exit(const char *id, int wait_status, const char *limit, const struct result_task *t,
		       const struct oci_exit *fence, const struct cgroup *cg)
{
	struct oci_exit e;
	char *json;
	size_t len;

	result_make_task(wait_status, limit, cg, t, &e);
	e.landlock_asked = fence->landlock_asked;
	e.landlock_abi = fence->landlock_abi;
	if (oci_exit_json(id, &e, true, &json, &len) < 0)
		return;
	printf("%.*s\n", (int)len, json);
	fflush(stdout);
	free(json);
}

/* Until the container stops: stats every interval, oom as it happens. The
 * stats keep their own clock: memory.events changing often (memory.high
 * reached) neither delays nor skips them. */
static int watch(struct global_opts *g, const char *id, struct cgroup *cg, long interval_ms, struct error *err)
{
	struct cgroup_oom_watch w;
	bool have_watch = cgroup_oom_watch_open(cg, &w, err) == 0;
	int r = 0, status;
	const char *limit;
	long long next = util_mono_ms() + interval_ms;

	for (;;) {
		struct pollfd p = { .fd = have_watch ? w.fd : -1, .events = have_watch ? w.events : 0 };
		struct container c;
		struct result_task task;
		bool have_task;
		struct error e2;
		struct oci_exit fence = { 0 };
		uint64_t kills = 0;
		long long left = next - util_mono_ms();
		int n = poll(&p, 1, left > 0 ? (int)(left < INT_MAX ? left : INT_MAX) : 0);

		if (container_load(g->root, id, false, &c, &e2) < 0)
			break;
		r = container_status(&c) == STATUS_STOPPED;
		status = r ? result_saved_status(&c) : -1;
		if (r)
			fence_result(c.dirfd, &fence);
		have_task = r && result_saved_task(&c, &task);   /* the init's (or run's) record */
		limit = r ? result_saved_limit(&c) : NULL;
		container_close(&c);
		if (n > 0 && (p.revents & (w.events | POLLERR)) && cgroup_oom_watch_read(&w, &kills, err) == 0)
			for (uint64_t k = 0; k < kills; k++)
				print_event("oom", id, cg, err);
		if (r) {
			print_exit(id, status, limit, have_task ? &task : NULL, &fence, cg);
			break;
		}
		if (util_mono_ms() >= next) {
			if (print_event("stats", id, cg, err) < 0)
				break;
			next = util_mono_ms() + interval_ms;
		}
	}
	if (have_watch)
		cgroup_oom_watch_close(&w);
	return 0;
}

const struct cli_opt cmd_events_opts[] = {
	{ "stats", 0, 's', NULL, "print the resource usage once, as one JSON object, and exit" },
	{ "interval", 0, 'i', "TIME", "time between two stats events: seconds, or with a unit (500ms, 2s, 1m); default 5s; "
	  "when the process ends, an exit event says why (see run --result)" },
	{ 0 },
};

int cmd_events(struct global_opts *g, int argc, char **argv)
{
	bool stats_once = false;
	long interval_ms = 5000;
	struct container c;
	struct cgroup cg;
	struct error err;
	enum container_status s;
	int ch, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_events_opts, false)) != -1) {
		if (ch == 's')
			stats_once = true;
		else if (ch == 'i' && parse_interval(optarg, &interval_ms) == 0)
			;
		else
			return cli_option_error("events", cmd_events_opts, ch, argv);
	}
	if (argc - optind != 1)
		return cli_usage_error("events", "expected exactly one container id");
	if (container_load(g->root, argv[optind], false, &c, &err) < 0)
		return cli_fail(&err);
	s = container_status(&c);
	if (s == STATUS_STOPPED || !c.st.cgroup_path) {
		container_close(&c);
		return cli_failf("container \"%s\": container not running", argv[optind]);
	}
	r = cgroup_open(c.st.cgroup_path, c.st.systemd_cgroup, &cg, &err);
	container_close(&c);
	if (r < 0)
		return cli_fail(&err);
	r = stats_once ? print_event("stats", argv[optind], &cg, &err) : watch(g, argv[optind], &cg, interval_ms, &err);
	cgroup_close(&cg);
	return r < 0 ? cli_fail(&err) : 0;
}
