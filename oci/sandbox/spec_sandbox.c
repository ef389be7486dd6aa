/* `tinyrun spec --sandbox` (and `bundle tinyaws --sandbox`, oci_spec_sandbox_with): the
 * sandbox profile as a transform of a generated config.json. From the input
 * it keeps ociVersion, process.args, process.env, root.path and the
 * annotations; everything else is the profile (README "Sandboxing untrusted
 * code", SPEC-NOTES "Sandbox"): every layer on, none optional. */
#include "oci/sandbox/spec_sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "oci/config.h"
#include "oci/json.h"
#include "oci/spec_write.h"

#define SANDBOX_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* NULL-safe: absent members are empty */
static size_t n_of(const struct json_val *v)
{
	return v ? json_len(v) : 0;
}

static const char *str_of(const struct json_val *v)
{
	return v ? json_str(v) : NULL;
}

static const struct json_val *get(const struct json_val *v, const char *k)
{
	return v ? json_get(v, k) : NULL;
}

static const char *str_at(const struct json_val *v, const char *k1, const char *k2)
{
	const struct json_val *o = get(v, k1);

	return str_of(k2 ? get(o, k2) : o);
}

static bool env_has(const struct json_val *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n_of(env); i++) {
		const char *e = str_of(json_at(env, i));

		if (e && strncmp(e, name, n) == 0 && e[n] == '=')
			return true;
	}
	return false;
}

/* the config's env, plus a default PATH and HOME (the workspace) when it has none */
static void write_env(struct json_writer *w, const struct json_val *env, const char *ws)
{
	char home[64];

	json_w_key(w, "env");
	json_w_array(w);
	if (!env_has(env, "PATH"))
		json_w_string(w, SANDBOX_PATH);
	for (size_t i = 0; i < n_of(env); i++)
		if (str_of(json_at(env, i)) && strncmp(str_of(json_at(env, i)), "TERM=", 5) != 0)
			json_w_string(w, str_of(json_at(env, i)));
	if (!env_has(env, "HOME"))
		json_w_string(w, (snprintf(home, sizeof(home), "HOME=%s", ws), home));
	json_w_array_end(w);
}

static void write_rlimit(struct json_writer *w, const char *type, int64_t v)
{
	json_w_object(w);
	oci_spec_key_str(w, "type", type);
	oci_spec_key_int(w, "hard", v);
	oci_spec_key_int(w, "soft", v);
	json_w_object_end(w);
}

static void write_process(struct json_writer *w, const struct json_val *in, const char *ws)
{
	const struct json_val *p = get(in, "process"), *args = get(p, "args");
	static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted", "ambient" };

	oci_spec_process_head(w, false, OCI_SANDBOX_ID, OCI_SANDBOX_ID);
	json_w_key(w, "args");
	if (n_of(args))
		json_w_value(w, args);
	else {
		json_w_array(w);
		json_w_string(w, "sh");
		json_w_array_end(w);
	}
	write_env(w, get(p, "env"), ws);
	oci_spec_key_str(w, "cwd", ws);
	json_w_key(w, "capabilities");
	json_w_object(w);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		json_w_key(w, sets[i]);
		json_w_array(w);
		json_w_array_end(w);
	}
	json_w_object_end(w);
	json_w_key(w, "rlimits");
	json_w_array(w);
	/* a judge's defaults (Faber's): no core dump, 256 fds, an 8 MiB stack,
	 * files of at most 64 MiB (SIGXFSZ past it: reason "file-size") */
	write_rlimit(w, "RLIMIT_CORE", 0);
	write_rlimit(w, "RLIMIT_NOFILE", OCI_SANDBOX_NOFILE);
	write_rlimit(w, "RLIMIT_STACK", OCI_SANDBOX_STACK);
	write_rlimit(w, "RLIMIT_FSIZE", OCI_SANDBOX_FSIZE);
	json_w_array_end(w);
	json_w_key(w, "noNewPrivileges");
	json_w_bool(w, true);
	json_w_object_end(w);
}

/* the ones the caller's options choose: dropped from the input */
static bool chosen(const char *k)
{
	static const char *const keys[] = { "run.tinyrun.scratch", "run.tinyrun.workspace.seed",
					    "run.tinyrun.sandbox.request", OCI_ANNOTATION_REQUEST_KEY_FILE,
					    OCI_ANNOTATION_WALL_TIME, OCI_ANNOTATION_CPU_TIME,
					    OCI_ANNOTATION_REQUEST_DEADLINE };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

/* the output and disk limits the caller gave: key, value (NULL: not given) */
static size_t output_opts(const struct oci_sandbox_opts *o, const char *kv[4][2])
{
	const char *const keys[] = { OCI_ANNOTATION_OUTPUT_LIMIT, OCI_ANNOTATION_REQUEST_OUTPUT_LIMIT,
				     OCI_ANNOTATION_WORKSPACE_SIZE, OCI_ANNOTATION_WORKSPACE_INODES };
	const char *vals[] = { o->out.output_limit, o->out.request_output_limit, o->out.workspace_size,
			       o->out.workspace_inodes };

	for (size_t i = 0; i < 4; i++) {
		kv[i][0] = keys[i];
		kv[i][1] = vals[i];
	}
	return 4;
}

static bool given(const char *kv[4][2], const char *k)
{
	for (size_t i = 0; i < 4; i++)
		if (kv[i][1] && strcmp(k, kv[i][0]) == 0)
			return true;
	return false;
}

static void write_annotations(struct json_writer *w, const struct json_val *in, const struct oci_sandbox_opts *o)
{
	const char *kv[4][2];
	size_t n_kv = output_opts(o, kv);
	static const char *const ours[][2] = {
		{ "run.tinyrun.userns", "auto" },
		{ "run.tinyrun.rootfs", "minimal" },
		{ "run.tinyrun.init", "true" },
	};
	const struct json_val *a = get(in, "annotations");

	json_w_key(w, "annotations");
	json_w_object(w);
	for (size_t i = 0; i < n_of(a); i++) {
		const char *k = json_key(a, i);
		bool replaced = false;

		for (size_t j = 0; j < 3; j++)
			replaced |= strcmp(k, ours[j][0]) == 0;
		/* the profile has no overlay; its seed and request are the caller's choice */
		replaced |= chosen(k) || given(kv, k);
		if (!replaced && str_of(json_at(a, i)))
			oci_spec_key_str(w, k, str_of(json_at(a, i)));
	}
	for (size_t j = 0; j < 3; j++)
		oci_spec_key_str(w, ours[j][0], ours[j][1]);
	if (o->seed)
		oci_spec_key_str(w, "run.tinyrun.workspace.seed", o->seed);
	if (o->request)
		oci_spec_key_str(w, "run.tinyrun.sandbox.request", o->request);
	if (o->request_key_file)
		oci_spec_key_str(w, OCI_ANNOTATION_REQUEST_KEY_FILE, o->request_key_file);
	for (size_t i = 0; i < n_kv; i++)
		if (kv[i][1])
			oci_spec_key_str(w, kv[i][0], kv[i][1]);
	/* the time limits (sbtime): a default for each but the request's deadline */
	oci_spec_key_str(w, OCI_ANNOTATION_WALL_TIME, o->wall_time ? o->wall_time : OCI_SANDBOX_WALL_TIME);
	oci_spec_key_str(w, OCI_ANNOTATION_CPU_TIME, o->cpu_time ? o->cpu_time : OCI_SANDBOX_CPU_TIME);
	if (o->request_deadline)
		oci_spec_key_str(w, OCI_ANNOTATION_REQUEST_DEADLINE, o->request_deadline);
	json_w_object_end(w);
}

static int64_t or(int64_t v, int64_t dflt)
{
	return v > 0 ? v : dflt;
}

static void write_resources(struct json_writer *w, const struct oci_sandbox_opts *o)
{
	json_w_key(w, "resources");
	json_w_object(w);
	oci_spec_deny_devices(w);
	json_w_key(w, "memory");
	json_w_object(w);
	oci_spec_key_int(w, "limit", or(o->memory, OCI_SANDBOX_MEMORY));
	oci_spec_key_int(w, "swap", or(o->memory, OCI_SANDBOX_MEMORY));   /* memory+swap = memory: no swap */
	json_w_object_end(w);
	json_w_key(w, "cpu");
	json_w_object(w);
	oci_spec_key_int(w, "quota", or(o->cpu_quota, 100000));
	oci_spec_key_int(w, "period", or(o->cpu_period, 100000));
	json_w_object_end(w);
	json_w_key(w, "pids");
	json_w_object(w);
	oci_spec_key_int(w, "limit", or(o->pids, OCI_SANDBOX_PIDS));
	json_w_object_end(w);
	json_w_object_end(w);
}

static void write_linux(struct json_writer *w, const struct json_val *seccomp, const struct oci_sandbox_opts *o)
{
	static const char *const ns[] = { "pid", "network", "ipc", "uts", "mount", "user", "cgroup" };

	json_w_key(w, "linux");
	json_w_object(w);
	write_resources(w, o);
	json_w_key(w, "namespaces");
	json_w_array(w);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		json_w_object(w);
		oci_spec_key_str(w, "type", ns[i]);
		json_w_object_end(w);
	}
	json_w_array_end(w);
	json_w_key(w, "seccomp");
	json_w_value(w, seccomp);
	json_w_object_end(w);
}

char *oci_spec_sandbox(const char *config_json, const char *seccomp_json, char *errbuf, size_t errlen)
{
	return oci_spec_sandbox_with(config_json, seccomp_json, NULL, errbuf, errlen);
}

char *oci_spec_sandbox_with(const char *config_json, const char *seccomp_json,
			    const struct oci_sandbox_opts *opts, char *errbuf, size_t errlen)
{
	static const struct oci_sandbox_opts none;
	const struct oci_sandbox_opts *o = opts ? opts : &none;
	const char *ws = o->workspace ? o->workspace : OCI_SANDBOX_WORKSPACE;
	struct json_val *in, *seccomp;
	struct json_writer *w;
	const char *v;
	char *out;

	if (!(in = json_parse(config_json, errbuf, errlen)))
		return NULL;
	if (!(seccomp = json_parse(seccomp_json, errbuf, errlen))) {
		json_free(in);
		return NULL;
	}
	w = json_writer_new("\t");
	json_w_object(w);
	oci_spec_key_str(w, "ociVersion", (v = str_at(in, "ociVersion", NULL)) ? v : "1.3.0");
	write_process(w, in, ws);
	json_w_key(w, "root");
	json_w_object(w);
	oci_spec_key_str(w, "path", (v = str_at(in, "root", "path")) ? v : "rootfs");
	json_w_key(w, "readonly");
	json_w_bool(w, true);
	json_w_object_end(w);
	oci_spec_key_str(w, "hostname", "sandbox");
	json_w_key(w, "mounts");   /* none: run.tinyrun.rootfs=minimal builds the root */
	json_w_array(w);
	json_w_array_end(w);
	write_annotations(w, in, o);
	write_linux(w, seccomp, o);
	json_w_object_end(w);
	json_free(seccomp);
	json_free(in);
	if (json_writer_finish(w, &out, NULL) < 0) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	return out;
}
