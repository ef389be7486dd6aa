/* Transient systemd units over D-Bus, with libsystemd's sd-bus loaded lazily. */
#include "runtime/cgroup/systemd-dbus.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <systemd/sd-bus.h>

#define SD_SERVICE "org.freedesktop.systemd1"
#define SD_OBJECT "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define CALL_TIMEOUT_USEC (10 * 1000000ULL)
#define JOB_TIMEOUT_SEC 5

/* The sd-bus functions used, resolved from libsystemd.so.0 on first use. */
#define SD_FUNCS(X) \
	X(sd_bus_open_system) X(sd_bus_flush_close_unref) X(sd_bus_match_signal) \
	X(sd_bus_slot_unref) X(sd_bus_message_new_method_call) X(sd_bus_message_append) \
	X(sd_bus_message_open_container) X(sd_bus_message_close_container) \
	X(sd_bus_message_unref) X(sd_bus_message_read) X(sd_bus_call) X(sd_bus_call_method) \
	X(sd_bus_process) X(sd_bus_wait) X(sd_bus_error_free) X(sd_bus_error_has_name)

static struct {
#define MEMBER(f) __typeof__(f) *f;
	SD_FUNCS(MEMBER)
#undef MEMBER
} sd;

bool cgsd_booted(void)
{
	struct stat st;

	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

static int load_libsystemd(struct error *err)
{
	static void *lib;
	void *h;

	if (lib)
		return 0;
	h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return error_set(err, ENOSYS, "--systemd-cgroup: systemd is running, but libsystemd.so.0 cannot be loaded: %s",
				 dlerror());
#define RESOLVE(f) \
	if (!(sd.f = (__typeof__(f) *)dlsym(h, #f))) { \
		dlclose(h); \
		return error_set(err, ENOSYS, "--systemd-cgroup: libsystemd.so.0 has no %s", #f); \
	}
	SD_FUNCS(RESOLVE)
#undef RESOLVE
	lib = h;
	return 0;
}

/* "--systemd-cgroup: METHOD UNIT: <bus error message>" */
static int bus_fail(struct error *err, int r, const sd_bus_error *e, const char *method, const char *unit)
{
	if (e && e->message)
		return error_set(err, -r, "--systemd-cgroup: %s %s: %s", method, unit, e->message);
	return error_sys(err, -r, "--systemd-cgroup: %s %s", method, unit);
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- jobs: a JobRemoved match set up before the call that makes the job -- */

struct job_watch {
	sd_bus_slot *slot;
	char job[256];          /* the object path to wait for ("" until known) */
	char result[32];        /* "done", "failed", "canceled", ... */
	bool removed;
};

static int on_job_removed(sd_bus_message *m, void *data, sd_bus_error *ret)
{
	struct job_watch *w = data;
	const char *path, *unit, *result;
	uint32_t id;

	(void)ret;
	if (sd.sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	if (w->job[0] && !strcmp(path, w->job)) {
		snprintf(w->result, sizeof(w->result), "%s", result);
		w->removed = true;
	}
	return 0;
}

static int watch_jobs(sd_bus *bus, struct job_watch *w, const char *method, const char *unit, struct error *err)
{
	int r = sd.sd_bus_match_signal(bus, &w->slot, SD_SERVICE, SD_OBJECT, SD_MANAGER, "JobRemoved",
				       on_job_removed, w);

	return r < 0 ? bus_fail(err, r, NULL, method, unit) : 0;
}

/* Read the job path from the reply, then dispatch until its JobRemoved. */
static int wait_job(sd_bus *bus, sd_bus_message *reply, struct job_watch *w, const char *method,
		    const char *unit, struct error *err)
{
	uint64_t deadline = now_usec() + JOB_TIMEOUT_SEC * 1000000ULL, now;
	const char *job;
	int r;

	if ((r = sd.sd_bus_message_read(reply, "o", &job)) < 0)
		return bus_fail(err, r, NULL, method, unit);
	snprintf(w->job, sizeof(w->job), "%s", job);
	for (;;) {
		if ((r = sd.sd_bus_process(bus, NULL)) < 0)
			return bus_fail(err, r, NULL, method, unit);
		if (w->removed)
			return 0;
		if (r > 0)
			continue;
		if ((now = now_usec()) >= deadline)
			return error_set(err, ETIMEDOUT, "--systemd-cgroup: %s %s: job %s not finished after %d s",
					 method, unit, w->job, JOB_TIMEOUT_SEC);
		if ((r = sd.sd_bus_wait(bus, deadline - now)) < 0)
			return bus_fail(err, r, NULL, method, unit);
	}
}

/* libsystemd finds the bus from the environment itself (DBUS_SYSTEM_BUS_ADDRESS,
 * and its own SYSTEMD_* knobs), through `environ` (its libc, dlopen'd, takes
 * `environ`'s value when it is loaded). That is the caller's: main points
 * `environ` at an untouched copy of it before anything runs, and no code of
 * ours assigns it again (oci/callerenv.h). Kept that way rather than passing
 * the address ourselves: every variable libsystemd reads stays the caller's,
 * not just the address, and it still decides the default as it always did. */
static int open_bus(sd_bus **bus, struct error *err)
{
	int r;

	if ((r = load_libsystemd(err)) < 0)
		return r;
	if ((r = sd.sd_bus_open_system(bus)) < 0)
		return error_sys(err, -r, "--systemd-cgroup: connecting to the system bus");
	return 0;
}

static void close_bus(sd_bus *bus, struct job_watch *w)
{
	if (w->slot)
		sd.sd_bus_slot_unref(w->slot);
	if (bus)
		sd.sd_bus_flush_close_unref(bus);
}

/* ---- StartTransientUnit --------------------------------------------------- */

static bool is_slice(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".slice");
}

/* The a(sv) properties, as runc sets them. */
static int append_properties(sd_bus_message *m, const struct systemd_unit *u, pid_t pid)
{
	int r = sd.sd_bus_message_append(m, "(sv)", "Description", "s", u->description);

	if (r >= 0 && is_slice(u->name))
		r = sd.sd_bus_message_append(m, "(sv)", "Wants", "as", 1, u->slice);
	if (r >= 0 && !is_slice(u->name))
		r = sd.sd_bus_message_append(m, "(sv)(sv)(sv)", "Slice", "s", u->slice, "Delegate", "b", 1,
					     "PIDs", "au", 1, (uint32_t)pid);
	if (r >= 0)
		r = sd.sd_bus_message_append(m, "(sv)(sv)(sv)(sv)", "DefaultDependencies", "b", 0,
					     "MemoryAccounting", "b", 1, "CPUAccounting", "b", 1,
					     "TasksAccounting", "b", 1);
	return r;
}

static int new_start_call(sd_bus *bus, const struct systemd_unit *u, pid_t pid, sd_bus_message **m)
{
	int r = sd.sd_bus_message_new_method_call(bus, m, SD_SERVICE, SD_OBJECT, SD_MANAGER, "StartTransientUnit");

	if (r >= 0)
		r = sd.sd_bus_message_append(*m, "ss", u->name, "fail");
	if (r >= 0)
		r = sd.sd_bus_message_open_container(*m, 'a', "(sv)");
	if (r >= 0)
		r = append_properties(*m, u, pid);
	if (r >= 0)
		r = sd.sd_bus_message_close_container(*m);
	if (r >= 0)
		r = sd.sd_bus_message_append(*m, "a(sa(sv))", 0);   /* no auxiliary units */
	return r;
}

int cgsd_start_unit(struct systemd_unit *u, pid_t pid, struct error *err)
{
	static const char method[] = "StartTransientUnit";
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	struct job_watch w = { 0 };
	sd_bus *bus = NULL;
	int r;

	if ((r = open_bus(&bus, err)) < 0)
		return r;
	if ((r = watch_jobs(bus, &w, method, u->name, err)) < 0)
		goto out;
	if ((r = new_start_call(bus, u, pid, &m)) < 0) {
		r = bus_fail(err, r, NULL, method, u->name);
		goto out;
	}
	if ((r = sd.sd_bus_call(bus, m, CALL_TIMEOUT_USEC, &e, &reply)) < 0) {
		r = bus_fail(err, r, &e, method, u->name);
		goto out;
	}
	u->started = true;
	if ((r = wait_job(bus, reply, &w, method, u->name, err)) == 0 && strcmp(w.result, "done"))
		r = error_set(err, EIO, "--systemd-cgroup: %s %s: the job ended \"%s\" (see journalctl -u %s)",
			      method, u->name, w.result, u->name);
out:
	sd.sd_bus_error_free(&e);
	if (reply)
		sd.sd_bus_message_unref(reply);
	if (m)
		sd.sd_bus_message_unref(m);
	close_bus(bus, &w);
	return r;
}

/* ---- StopUnit ------------------------------------------------------------- */

int cgsd_stop_unit(const char *name, struct error *err)
{
	static const char method[] = "StopUnit";
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct job_watch w = { 0 };
	sd_bus *bus = NULL;
	int r;

	if ((r = open_bus(&bus, err)) < 0)
		return r;
	if ((r = watch_jobs(bus, &w, method, name, err)) < 0)
		goto out;
	r = sd.sd_bus_call_method(bus, SD_SERVICE, SD_OBJECT, SD_MANAGER, method, &e, &reply, "ss", name, "replace");
	if (r < 0) {
		r = sd.sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit") ? 0 : bus_fail(err, r, &e, method, name);
		goto out;
	}
	r = wait_job(bus, reply, &w, method, name, err);
out:
	sd.sd_bus_error_free(&e);
	if (reply)
		sd.sd_bus_message_unref(reply);
	close_bus(bus, &w);
	return r;
}
