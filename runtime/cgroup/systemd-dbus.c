/* Transient systemd units over D-Bus, with our own client (dbus_conn.h). */
#include "runtime/cgroup/systemd-dbus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oci/callerenv.h"
#include "oci/util.h"
#include "runtime/cgroup/dbus_conn.h"
#include "runtime/cgroup/systemd-props.h"

#define SD_SERVICE "org.freedesktop.systemd1"
#define SD_OBJECT "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define CALL_TIMEOUT_USEC (10 * 1000000ULL)
#define JOB_TIMEOUT_SEC 5
#define JOB_MATCH "type='signal',sender='" SD_SERVICE "',path='" SD_OBJECT "',interface='" SD_MANAGER \
		  "',member='JobRemoved'"
#define EARLY_JOBS 8

bool cgsd_booted(void)
{
	struct stat st;

	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

/* "--systemd-cgroup: METHOD UNIT: <bus error message>" */
static int bus_fail(struct error *err, int r, const char *message, const char *method, const char *unit)
{
	if (message)
		return error_set(err, -r, "--systemd-cgroup: %s %s: %s", method, unit, message);
	return error_sys(err, -r, "--systemd-cgroup: %s %s", method, unit);
}

/* A bus error reply: r (-errno) and its message (NULL without one). */
static int bus_error(const struct dbus_msg *m, const char **message)
{
	if (dbus_msg_read(m, "s", message) < 0)
		*message = NULL;
	return -dbus_error_errno(m->error_name);
}

/* ---- jobs: a JobRemoved match set up before the call that makes the job -- */

struct job_watch {
	char job[256];          /* the object path to wait for ("" until known) */
	char result[32];        /* "done", "failed", "canceled", ... */
	bool removed;
	/* the last jobs removed before the reply told ours */
	struct {
		char job[256], result[32];
	} early[EARLY_JOBS];
	unsigned n_early;
};

static void on_message(const struct dbus_msg *m, void *data)
{
	struct job_watch *w = data;
	const char *path, *unit, *result;
	uint32_t id;

	if (m->type != DBUS_SIGNAL || strcmp(m->path, SD_OBJECT) || strcmp(m->interface, SD_MANAGER) ||
	    strcmp(m->member, "JobRemoved") || dbus_msg_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return;
	if (!w->job[0]) {
		unsigned i = w->n_early++ % EARLY_JOBS;

		snprintf(w->early[i].job, sizeof(w->early[i].job), "%s", path);
		snprintf(w->early[i].result, sizeof(w->early[i].result), "%s", result);
	} else if (!strcmp(path, w->job)) {
		snprintf(w->result, sizeof(w->result), "%s", result);
		w->removed = true;
	}
}

static int watch_jobs(struct dbus_conn *c, const char *method, const char *unit, struct error *err)
{
	int r = dbc_add_match(c, JOB_MATCH, dbus_now_usec() + CALL_TIMEOUT_USEC);

	return r < 0 ? bus_fail(err, r, NULL, method, unit) : 0;
}

/* Read the job path from the reply, then read messages until its JobRemoved. */
static int wait_job(struct dbus_conn *c, const struct dbus_msg *reply, struct job_watch *w, const char *method,
		    const char *unit, struct error *err)
{
	uint64_t deadline = dbus_now_usec() + JOB_TIMEOUT_SEC * 1000000ULL;
	struct dbus_msg m;
	const char *job;
	int r;

	if ((r = dbus_msg_read(reply, "o", &job)) < 0)
		return bus_fail(err, r, NULL, method, unit);
	snprintf(w->job, sizeof(w->job), "%s", job);
	for (unsigned i = 0; i < EARLY_JOBS && i < w->n_early; i++)
		if (!strcmp(w->early[i].job, w->job)) {
			snprintf(w->result, sizeof(w->result), "%s", w->early[i].result);
			return 0;
		}
	while (!w->removed) {
		if ((r = dbc_read(c, deadline, &m)) == -ETIMEDOUT)
			return error_set(err, ETIMEDOUT, "--systemd-cgroup: %s %s: job %s not finished after %d s",
					 method, unit, w->job, JOB_TIMEOUT_SEC);
		if (r < 0)
			return bus_fail(err, r, NULL, method, unit);
		on_message(&m, w);
	}
	return 0;
}

/* "unix:path=" + $XDG_RUNTIME_DIR/bus, its bytes escaped as D-Bus addresses want. */
static int xdg_bus_address(char *out, size_t size)
{
	static const char plain[] = "-_/.\\*";
	const char *xdg = callerenv_get("XDG_RUNTIME_DIR");
	size_t n;

	if (!xdg || xdg[0] != '/')
		return -ENOENT;
	n = (size_t)snprintf(out, size, "unix:path=");
	for (const char *p = xdg; *p && n + 4 < size; p++) {
		unsigned char ch = (unsigned char)*p;

		if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || strchr(plain, ch))
			out[n++] = (char)ch;
		else
			n += (size_t)snprintf(out + n, size - n, "%%%02x", ch);
	}
	if ((size_t)snprintf(out + n, size - n, "/bus") >= size - n)
		return -ENAMETOOLONG;
	return 0;
}

/* The system bus: the caller's DBUS_SYSTEM_BUS_ADDRESS (oci/callerenv.h:
 * never the image's), else its usual socket, as sd-bus chooses. The user's
 * (a rootless caller's systemd): the caller's DBUS_SESSION_BUS_ADDRESS, else
 * $XDG_RUNTIME_DIR/bus, as sd-bus's sd_bus_open_user. */
static int open_bus(struct dbus_conn *c, bool user, struct error *err)
{
	const char *address = user ? callerenv_get("DBUS_SESSION_BUS_ADDRESS") : callerenv_get("DBUS_SYSTEM_BUS_ADDRESS");
	char xdg_address[4200];
	int r;

	if (!address && !user) {
		address = DBUS_SYSTEM_BUS_DEFAULT;
	} else if (!address) {
		if ((r = xdg_bus_address(xdg_address, sizeof(xdg_address))) < 0)
			return error_set(err, -r, "--systemd-cgroup: a rootless caller's systemd is asked over its session bus, "
					 "and neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set");
		address = xdg_address;
	}
	if ((r = dbc_open(c, address, dbus_now_usec() + CALL_TIMEOUT_USEC)) < 0)
		return error_sys(err, -r, "--systemd-cgroup: connecting to the %s bus (%s)", user ? "session" : "system",
				 address);
	return 0;
}

/* A method call's reply: 0 with a METHOD_RETURN in *reply; 1 for an ERROR
 * named `ok_error` (NULL: none is); else the error in err. */
static int call(struct dbus_conn *c, struct dbus_writer *w, struct job_watch *jw, struct dbus_msg *reply,
		const char *ok_error, const char *method, const char *unit, struct error *err)
{
	const char *message;
	int r;

	if ((r = dbc_call(c, w, dbus_now_usec() + CALL_TIMEOUT_USEC, jw ? on_message : NULL, jw, reply)) < 0)
		return bus_fail(err, r, NULL, method, unit);
	if (reply->type == DBUS_ERROR) {
		if (ok_error && !strcmp(reply->error_name, ok_error))
			return 1;
		r = bus_error(reply, &message);
		return bus_fail(err, r, message, method, unit);
	}
	return 0;
}

/* org.freedesktop.DBus.Properties.Get(Manager, what), a string, into out. */
static int manager_get(struct dbus_conn *c, const char *what, char *out, size_t size, struct error *err)
{
	static const char method[] = "Get";
	uint8_t buf[1024];
	struct dbus_writer w;
	struct dbus_msg reply;
	const char *value;
	int r;

	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 0, SD_SERVICE, SD_OBJECT, "org.freedesktop.DBus.Properties", method, "ss");
	dbw_string(&w, SD_MANAGER);
	dbw_string(&w, what);
	if ((r = call(c, &w, NULL, &reply, NULL, method, what, err)) < 0)
		return r;
	if ((r = dbus_msg_read(&reply, "v", &value)) < 0)
		return bus_fail(err, r, NULL, method, what);
	if (strlen(value) >= size)
		return error_set(err, ENAMETOOLONG, "--systemd-cgroup: %s %s: too long", method, what);
	snprintf(out, size, "%s", value);
	return 0;
}

/* systemd's major version ("252.33-1~deb12u1" -> 252), for the properties
 * only some versions know: 0 when it cannot tell (those are then left out). */
static unsigned systemd_version(struct dbus_conn *c)
{
	char v[64];
	struct error err;
	const char *p = v;

	if (manager_get(c, "Version", v, sizeof(v), &err) < 0)
		return 0;
	while (*p && (*p < '0' || *p > '9'))
		p++;
	return (unsigned)strtoul(p, NULL, 10);
}

/* ---- StartTransientUnit --------------------------------------------------- */

static bool is_slice(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".slice");
}

static void bool_property(struct dbus_writer *w, const char *name, bool v)
{
	cgsd_prop(w, name, "b");
	dbw_bool(w, v);
}

/* The devices properties: a v1 unit of the system's manager (a user's
 * has no v1 hierarchy; on v2 systemd leaves tinyrun's BPF program alone) */
static bool device_props(const struct systemd_unit *u)
{
	return !u->v2 && !u->user;
}

/* The a(sv) properties, as runc sets them. */
static int append_properties(struct dbus_writer *w, const struct systemd_unit *u, pid_t pid,
			     const struct oci_resources *res, unsigned version, const char *devices)
{
	struct dbus_array a;

	cgsd_prop(w, "Description", "s");
	dbw_string(w, u->description);
	if (is_slice(u->name)) {
		cgsd_prop(w, "Wants", "as");
		a = dbw_array_begin(w, 4);
		dbw_string(w, u->slice);
		dbw_array_end(w, a);
	} else {
		cgsd_prop(w, "Slice", "s");
		dbw_string(w, u->slice);
		bool_property(w, "Delegate", true);
		cgsd_prop(w, "PIDs", "au");
		a = dbw_array_begin(w, 4);
		dbw_u32(w, (uint32_t)pid);
		dbw_array_end(w, a);
	}
	bool_property(w, "DefaultDependencies", false);
	bool_property(w, "MemoryAccounting", true);
	bool_property(w, "CPUAccounting", true);
	bool_property(w, "TasksAccounting", true);
	if (res)
		cgsd_append_resource_props(w, res, u->v2, version);
	return device_props(u) ? cgsd_append_device_props(w, res, devices, version) : 0;
}

int cgsd_start_call(struct dbus_writer *w, uint32_t serial, const struct systemd_unit *u, pid_t pid,
		    const struct oci_resources *res, unsigned version, const char *devices)
{
	struct dbus_array props, aux;
	int r;

	dbw_method_call(w, serial, SD_SERVICE, SD_OBJECT, SD_MANAGER, "StartTransientUnit", "ssa(sv)a(sa(sv))");
	dbw_string(w, u->name);
	dbw_string(w, "fail");
	props = dbw_array_begin(w, 8);
	r = append_properties(w, u, pid, res, version, devices);
	dbw_array_end(w, props);
	aux = dbw_array_begin(w, 8);    /* no auxiliary units */
	dbw_array_end(w, aux);
	return r;
}

int cgsd_start_unit(struct systemd_unit *u, pid_t pid, const struct oci_resources *res, struct error *err)
{
	static const char method[] = "StartTransientUnit";
	uint8_t buf[32768];     /* a long DeviceAllow list fits */
	char *devices = NULL;   /* /proc/devices, for a v1 unit (unreadable: DeviceAllow names no group) */
	struct dbus_writer w;
	struct dbus_msg reply;
	struct job_watch jw = { 0 };
	struct dbus_conn c;
	unsigned version = 0;
	int r;

	if ((r = open_bus(&c, u->user, err)) < 0)
		return r;
	/* DeviceAllow's /dev/char/M:m needs 240 (older ones stat the path) */
	if ((res && cgsd_props_need_version(res)) || device_props(u))
		version = systemd_version(&c);
	if ((r = watch_jobs(&c, method, u->name, err)) < 0)
		goto out;
	dbw_init(&w, buf, sizeof(buf));
	if (device_props(u))
		(void)util_read_at(AT_FDCWD, "/proc/devices", 0, 0, 1 << 20, &devices, NULL);
	r = cgsd_start_call(&w, 0, u, pid, res, version, devices);
	free(devices);
	if (r < 0) {
		r = error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if ((r = call(&c, &w, &jw, &reply, NULL, method, u->name, err)) < 0)
		goto out;
	u->started = true;
	if ((r = wait_job(&c, &reply, &jw, method, u->name, err)) == 0 && strcmp(jw.result, "done"))
		r = error_set(err, EIO, "--systemd-cgroup: %s %s: the job ended \"%s\" (see journalctl -u %s)",
			      method, u->name, jw.result, u->name);
out:
	dbc_close(&c);
	return r;
}

/* ---- StopUnit ------------------------------------------------------------- */

int cgsd_stop_unit(const char *unit, bool user, struct error *err)
{
	static const char method[] = "StopUnit";
	uint8_t buf[1024];
	struct dbus_writer w;
	struct dbus_msg reply;
	struct job_watch jw = { 0 };
	struct dbus_conn c;
	int r;

	if ((r = open_bus(&c, user, err)) < 0)
		return r;
	if ((r = watch_jobs(&c, method, unit, err)) < 0)
		goto out;
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 0, SD_SERVICE, SD_OBJECT, SD_MANAGER, method, "ss");
	dbw_string(&w, unit);
	dbw_string(&w, "replace");
	r = call(&c, &w, &jw, &reply, "org.freedesktop.systemd1.NoSuchUnit", method, unit, err);
	if (r == 0)
		r = wait_job(&c, &reply, &jw, method, unit, err);
	else if (r == 1)
		r = 0;          /* not loaded: stopped already */
out:
	dbc_close(&c);
	return r;
}

/* ---- SetUnitProperties (update) ---------------------------------------------- */

int cgsd_set_properties(const struct systemd_unit *u, const struct oci_resources *res, struct error *err)
{
	static const char method[] = "SetUnitProperties";
	uint8_t buf[16384];
	struct dbus_writer w;
	struct dbus_msg reply;
	struct dbus_array props;
	struct dbus_conn c;
	unsigned version = 0;
	int r;

	if ((r = open_bus(&c, u->user, err)) < 0)
		return r;
	if (cgsd_props_need_version(res))
		version = systemd_version(&c);
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 0, SD_SERVICE, SD_OBJECT, SD_MANAGER, method, "sba(sv)");
	dbw_string(&w, u->name);
	dbw_bool(&w, true);     /* runtime: gone at reboot, as the unit */
	props = dbw_array_begin(&w, 8);
	cgsd_append_resource_props(&w, res, u->v2, version);
	dbw_array_end(&w, props);
	r = call(&c, &w, NULL, &reply, NULL, method, u->name, err);
	dbc_close(&c);
	return r;
}

/* ---- AttachProcessesToUnit -------------------------------------------------- */

int cgsd_attach_pid(const struct systemd_unit *u, const char *sub, pid_t pid, struct error *err)
{
	static const char method[] = "AttachProcessesToUnit";
	uint8_t buf[1024 + 4200];
	char subcgroup[4200];
	struct dbus_writer w;
	struct dbus_msg reply;
	struct dbus_array a;
	struct dbus_conn c;
	int r;

	if ((size_t)snprintf(subcgroup, sizeof(subcgroup), "%s%s", *sub ? "/" : "", sub) >= sizeof(subcgroup))
		return error_set(err, ENAMETOOLONG, "--systemd-cgroup: %s %s: sub-cgroup too long", method, u->name);
	if ((r = open_bus(&c, u->user, err)) < 0)
		return r;
	dbw_init(&w, buf, sizeof(buf));
	dbw_method_call(&w, 0, SD_SERVICE, SD_OBJECT, SD_MANAGER, method, "ssau");
	dbw_string(&w, u->name);
	dbw_string(&w, subcgroup);
	a = dbw_array_begin(&w, 4);
	dbw_u32(&w, (uint32_t)pid);
	dbw_array_end(&w, a);
	r = call(&c, &w, NULL, &reply, NULL, method, u->name, err);
	dbc_close(&c);
	return r;
}

/* ---- the user manager's own cgroup ------------------------------------------ */

/* A cgroup path systemd gave: absolute, no "." or ".." component, no "//". */
static bool clean_cgroup_path(const char *p)
{
	if (p[0] != '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	size_t n = strlen(p);

	return !(n >= 2 && !strcmp(p + n - 2, "/.")) && !(n >= 3 && !strcmp(p + n - 3, "/.."));
}


int cgsd_user_manager_cgroup(char *out, size_t size, struct error *err)
{
	struct dbus_conn c;
	int r;

	if ((r = open_bus(&c, true, err)) < 0)
		return r;
	if ((r = manager_get(&c, "ControlGroup", out, size, err)) == 0 && !clean_cgroup_path(out))
		r = error_set(err, EINVAL, "--systemd-cgroup: the user's systemd runs in cgroup \"%.200s\": "
			      "expected an absolute, clean path", out);
	dbc_close(&c);
	return r;
}
