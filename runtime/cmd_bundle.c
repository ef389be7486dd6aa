/* `tinyrun bundle tinyaws IMAGE -o BUNDLE [options] [-- CMD [ARGS...]]`: a
 * tinyaws job (image dir + app dir) as an OCI bundle (README "Running tinyaws
 * jobs", SPEC-NOTES "tinyaws jobs"). The choices: rootfs/sandbox/tinyaws.c; the
 * config.json: oci/sandbox/spec_tinyaws.c; the root overlay: oci/sandbox/config_tinyaws.c,
 * rootfs/prepare.c, runtime/sandbox/scratch.c. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "oci/callerenv.h"
#include "oci/config.h"
#include "oci/profiles.h"
#include "oci/spec.h"
#include "oci/sandbox/spec_sandbox.h"
#include "oci/sandbox/tinyaws.h"
#include "rootfs/sandbox/tinyaws.h"
#include "runtime/container/selfexe.h"

const struct cli_opt cmd_bundle_opts[] = {
	{ "output", 'o', 'o', "DIR", "the bundle to write (must not exist; its parent must)" },
	TINYAWS_CONVERT_OPTS(""),
	SPEC_OUTPUT_OPTS,
	{ 0 },
};

#define MAX_ENV 256
#define MAX_BUILD (1 << 20)

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cli_failf("bundle tinyaws: %s", msg);
}

/* "seccomp: PATH (SOURCE)" of the profile read from a file ("": none), so
 * that its errors, found later, name it and the path inside it on one line */
static char seccomp_from[PATH_MAX + 96];

/* An error of the profile's own (its JSON: oci_spec_tinyaws's "seccomp
 * profile: ...", or its place in the whole config) said as the file's:
 * "seccomp: PATH (SOURCE): .defaultAction: ..."; any other as it is. */
static int fail_config(const struct error *err)
{
	static const char parse[] = "seccomp profile: ", field[] = "config.json: .linux.seccomp";
	const char *rest = NULL;

	if (*seccomp_from && !strncmp(err->msg, parse, sizeof(parse) - 1))
		rest = err->msg + sizeof(parse) - 1;
	else if (*seccomp_from && !strncmp(err->msg, field, sizeof(field) - 1))
		rest = err->msg + sizeof(field) - 1 + (err->msg[sizeof(field) - 1] == ':' ? 2 : 0);
	return rest ? fail("%s: %s", seccomp_from, rest) : fail("%s", err->msg);
}

static int parse_num(const char *cmd, const char *opt, const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > max)
		return cli_usage_error(cmd, "--%s: expected 1 to %ld, got \"%s\"", opt, max, s), -1;
	*out = v;
	return 0;
}

/* --wall-time ... SECONDS: the sandbox's time limits (oci_limits_seconds) */
static int seconds(const char *cmd, const char *opt, const char *s, const char **out)
{
	int64_t ms;

	if (oci_limits_seconds(s, &ms) < 0)
		return cli_usage_error(cmd, "--%s: expected seconds, 0.001 to %d (at most 3 decimals), got \"%.64s\"", opt,
				       OCI_LIMIT_SECONDS_MAX, s), -1;
	*out = s;
	return 1;
}

int cmd_bundle_opt(const char *cmd, int ch, struct tinyaws_opts *t)
{
	static char *env[MAX_ENV];

	switch (ch) {
	case TA_APP: t->app = optarg; break;
	case TA_TYPE: t->type = optarg; break;
	case TA_SERVICE: t->service = true; break;
	case TA_MEMORY: return parse_num(cmd, "memory", optarg, 1L << 30, &t->memory_mb) < 0 ? -1 : 1;
	case TA_CPU: return parse_num(cmd, "cpu", optarg, 100000, &t->cpu_percent) < 0 ? -1 : 1;
	case TA_SECCOMP: t->seccomp = optarg; break;
	case TA_NO_OVERLAY: t->no_overlay = true; break;
	case TA_NO_LIMITS: t->no_limits = true; break;
	case TA_NO_SECCOMP: t->no_seccomp = true; break;
	case TA_NO_NAMESPACES: t->no_namespaces = true; break;
	case TA_SANDBOX: t->sandbox = true; break;
	case TA_WALL_TIME: return seconds(cmd, "wall-time", optarg, &t->wall_time);
	case TA_CPU_TIME: return seconds(cmd, "cpu-time", optarg, &t->cpu_time);
	case TA_REQUEST_DEADLINE: return seconds(cmd, "request-deadline", optarg, &t->request_deadline);
	case 'e':
		if (!strchr(optarg, '=') || optarg[0] == '=')
			return cli_usage_error(cmd, "--env: expected K=V, got \"%s\"", optarg), -1;
		if (t->n_env == MAX_ENV)
			return cli_usage_error(cmd, "--env: more than %d", MAX_ENV), -1;
		env[t->n_env++] = optarg;
		t->env = env;
		break;
	default:
		return 0;
	}
	return 1;
}

/* --output-limit, --workspace-size, --workspace-inodes (with --sandbox) */
static struct oci_sandbox_output_opts sandbox_out;

static int parse_opts(int argc, char **argv, struct tinyaws_opts *t)
{
	int ch, r;

	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_bundle_opts, false)) != -1) {
		if (ch == 'o') {
			t->out = optarg;
			continue;
		}
		if ((r = cmd_spec_output_opt("bundle", ch, optarg, &sandbox_out)) == 1)
			continue;
		if (r < 0 || (r = cmd_bundle_opt("bundle", ch, t)) < 0)
			return -1;
		if (r == 0) {
			cli_option_error("bundle", cmd_bundle_opts, ch, argv);
			return -1;
		}
	}
	return optind;
}

/* FILE of the app dir: its error, naming it and why */
static int app_file_fail(const struct tinyaws_opts *t, const char *file, int r, const char *why)
{
	return fail("%s/%s: %s", t->app, file, why ? why : strerror(-r)), -1;
}

/* tinyaws.build and start.sh are read through the opened app dir (APP, -1:
 * none), as rootfs_tinyaws_app_open says: never a host file they link to */
static int job_command(const struct tinyaws_opts *t, int app, char *cmd, size_t size)
{
	char start[4096] = "", *build = NULL;
	const char *why;
	bool has_sh = false;
	int r = 0, fd;

	if (app >= 0) {
		if ((r = rootfs_tinyaws_app_read(app, "tinyaws.build", MAX_BUILD, &build, &why)) < 0)
			return app_file_fail(t, "tinyaws.build", r, r == -EFBIG ? "larger than 1 MiB" : why);
		if (build && (r = rootfs_tinyaws_build_start(build, start, sizeof(start))) < 0) {
			free(build);
			return fail("%s/tinyaws.build: start: longer than 4095 bytes", t->app), -1;
		}
		free(build);
		if ((fd = rootfs_tinyaws_app_open(app, "start.sh", -1, &why)) < 0 && fd != -ENOENT)
			return app_file_fail(t, "start.sh", fd, why);
		has_sh = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	r = rootfs_tinyaws_command(t->cmd, t->n_cmd, start, has_sh, cmd, size);
	if (r == -ENOENT)
		return fail("no command: give CMD after --, start: in %s/tinyaws.build or a %s/start.sh",
			    t->app ? t->app : "APP", t->app ? t->app : "APP"), -1;
	if (r < 0)
		return fail("the command is longer than 65535 bytes"), -1;
	return 0;
}

static bool path_ok(const char *p)
{
	for (; *p; p++)
		if (!oci_overlay_path_char_ok(*p) && *p != '=')
			return false;
	return true;
}

static int resolve_image(const char *arg, char *out)
{
	char given[PATH_MAX];
	struct stat st;
	int r = rootfs_tinyaws_image_path(arg, callerenv_get("TINYAWS_IMAGES_DIR"), given, sizeof(given));

	if (r < 0)
		return fail("image \"%s\": not a path nor an image id", arg), -1;
	if (stat(given, &st) < 0)
		return fail("image %s: %s", given, strerror(errno)), -1;
	if (!S_ISDIR(st.st_mode))
		return fail("image %s: not a directory", given), -1;
	if (!realpath(given, out))
		return fail("image %s: %s", given, strerror(errno)), -1;
	if (!path_ok(out))
		return fail("image %s: a path overlay options cannot hold (space, control, , : \\ quotes)", out), -1;
	return 0;
}

static bool exists_file(const char *path)
{
	return access(path, F_OK) == 0;
}

/* The profile's text (malloc'd; NULL with *none when --no-seccomp) */
static int pick_seccomp(const struct tinyaws_opts *t, char **json)
{
	char exe[PATH_MAX], buf[PATH_MAX + 32], *dir = NULL;
	const char *source, *path, *env = callerenv_get("TINYAWS_SECCOMP_PROFILE");
	struct error err;
	size_t len;

	*json = NULL;
	if (t->no_seccomp)
		return 0;
	/* the real binary's directory, across the sealed re-exec (selfexe.h);
	 * unknown: fail closed rather than look elsewhere or fall to a default */
	if (!t->seccomp && !(env && *env)) {
		if (selfexe_path(exe, sizeof(exe), &err) < 0)
			return fail("seccomp: %s: cannot look for seccomp-default.json next to it; name a profile with "
				    "--seccomp or $TINYAWS_SECCOMP_PROFILE", err.msg), -1;
		dir = dirname(exe);
	}
	path = rootfs_tinyaws_seccomp_pick(t->seccomp, env, dir, exists_file, buf, sizeof(buf), &source);
	if (!path) {
		fprintf(stderr, "tinyrun: bundle tinyaws: seccomp: %s\n", source);
		return (*json = strdup(oci_seccomp_profile("default"))) ? 0 : -1;
	}
	snprintf(seccomp_from, sizeof(seccomp_from), "seccomp: %s (%s)", path, source);
	if (oci_read_file(path, seccomp_from, json, &len, &err) < 0)
		return fail("%s", err.msg), -1;
	fprintf(stderr, "tinyrun: bundle tinyaws: %s\n", seccomp_from);
	return 0;
}

static void print_off(const struct tinyaws_opts *t)
{
	char off[128] = "";

	if (t->no_overlay)
		strcat(off, " overlay");
	if (t->no_limits)
		strcat(off, " limits");
	if (t->no_seccomp)
		strcat(off, " seccomp");
	if (t->no_namespaces)
		strcat(off, " namespaces");
	if (*off)
		fprintf(stderr, "tinyrun: bundle tinyaws: off:%s%s\n", off,
			t->sandbox_off ? " (TINYAWS_SANDBOX=0)" : "");
}

static void limits(const struct tinyaws_opts *t, struct oci_tinyaws_job *j)
{
	unsigned cpu = 100, mem = t->service ? 1024 : 512;

	if (t->type)
		rootfs_tinyaws_type(t->type, &cpu, &mem);
	j->memory_bytes = (uint64_t)(t->memory_mb ? (unsigned long)t->memory_mb : mem) << 20;
	j->cpu_period = 100000;
	j->cpu_quota = (int64_t)(t->cpu_percent ? t->cpu_percent : (long)cpu) * 1000;
	j->pids = TINYAWS_PIDS_DEFAULT;
}

static int no_device(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)flag, (void)f;
	return S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? 1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int readable(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)flag, (void)f;
	if (S_ISLNK(st->st_mode))
		return 0;
	return chmod(path, (st->st_mode & 07777) | (S_ISDIR(st->st_mode) || (st->st_mode & 0111) ? 0555 : 0444)) < 0
		       ? -1 : 0;
}

/* --sandbox: the job's config turned into the sandbox profile, with the
 * job's memory and CPU limits, /app the workspace (cwd) seeded with the
 * bundle's copy of the app. The copy is made readable by all: the seed is
 * read as the sandbox's leased id. */
static int sandbox_transform(const struct tinyaws_opts *t, const struct oci_tinyaws_job *j, const char *tmp,
			     char **json)
{
	const char *profile = t->seccomp && !strcmp(t->seccomp, "strict") ? "strict" : "default";
	struct oci_sandbox_opts o = {
		.workspace = "/app", .seed = OCI_TINYAWS_LAYER "/app", .memory = (int64_t)j->memory_bytes,
		.cpu_quota = j->cpu_quota, .cpu_period = (int64_t)j->cpu_period, .out = sandbox_out,
		.wall_time = t->wall_time, .cpu_time = t->cpu_time, .request_deadline = t->request_deadline,
	};
	char path[PATH_MAX + 32], errbuf[256], *sb;

	snprintf(path, sizeof(path), "%s/%s/app", tmp, OCI_TINYAWS_LAYER);
	if (nftw(path, readable, 32, FTW_PHYS) != 0)
		return fail("%s: %s", path, strerror(errno)), -1;
	if (!(sb = oci_spec_sandbox_with(*json, oci_seccomp_profile(profile), &o, errbuf, sizeof(errbuf))))
		return fail("the sandbox profile: %s", errbuf), -1;
	fprintf(stderr, "tinyrun: bundle tinyaws: sandbox: seccomp %s (tinyrun's), leased uid, minimal root\n", profile);
	free(*json);
	*json = sb;
	return 0;
}

/* Build in <out>.tmp-XXXXXX next to it and rename it into place: no
 * half-written bundle, and an existing one is never touched. */
static int write_bundle(const struct tinyaws_opts *t, int app, struct oci_tinyaws_job *j, const char *final)
{
	char tmp[PATH_MAX], path[PATH_MAX + 32], *json = NULL, **entries = NULL;
	struct oci_config cfg;
	struct error err;
	int fd, r = -1;
	size_t len;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", final) >= sizeof(tmp) || !mkdtemp(tmp))
		return fail("%s: %s", final, strerror(errno)), -1;
	chmod(tmp, 0755);
	snprintf(path, sizeof(path), "%s/%s", tmp, OCI_TINYAWS_LAYER);
	if (mkdir(path, 0755) < 0 || (strcat(path, "/app"), mkdir(path, 0755)) < 0) {
		fail("%s: %s", path, strerror(errno));
		goto out;
	}
	if (app >= 0 && (r = rootfs_tinyaws_copy_app(app, path)) < 0) {
		fail("copy the app dir %s: %s", t->app, strerror(-r));
		r = -1;
		goto out;
	}
	r = -1;
	/* checked on our copy (no race with the app dir): a device node of the
	 * host's there would be the job's, past every mount of /dev */
	if (nftw(path, no_device, 32, FTW_PHYS) == 1) {
		fail("the app dir %s holds a device node", t->app);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/rootfs", tmp);
	if (mkdir(path, 0755) < 0 || (snprintf(path, sizeof(path), "%s/%s", tmp, OCI_TINYAWS_SCRATCH),
				      mkdir(path, 0700)) < 0) {
		fail("%s: %s", path, strerror(errno));
		goto out;
	}
	/* --no-overlay: the image is only read; its mount points are made here */
	if (!j->overlay && !t->sandbox) {
		snprintf(path, sizeof(path), "%s/rootfs", tmp);
		if ((r = rootfs_tinyaws_skeleton(j->image, path, &entries, &j->n_image_entries)) < 0) {
			fail("the root's skeleton from image %s in %s: %s", j->image, path, strerror(-r));
			r = -1;
			goto out;
		}
		r = -1;
		j->image_bound = true;
		j->image_entries = entries;
	}
	if (!(json = oci_spec_tinyaws(j, &err))) {
		fail_config(&err);
		goto out;
	}
	if (t->sandbox && sandbox_transform(t, j, tmp, &json) < 0)
		goto out;
	len = strlen(json);
	/* the whole config checked now, as create will: a bad profile fails here */
	if (oci_config_parse("config.json", json, len, OCI_PARSE_ALL, &cfg, &err) < 0) {
		fail_config(&err);
		goto out;
	}
	oci_config_free(&cfg);
	snprintf(path, sizeof(path), "%s/config.json", tmp);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 ||
	    write(fd, json, len) != (ssize_t)len || fsync(fd) < 0) {
		fail("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) < 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			fail("%s exists; remove it first", final);
		else
			fail("%s: %s", final, strerror(errno));
		goto out;
	}
	r = 0;
out:
	free(json);
	rootfs_tinyaws_names_free(entries, j->n_image_entries);
	if (r < 0)
		nftw(tmp, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	return r;
}

/* The output's absolute path: its parent must exist, it must not. */
static int resolve_output(const char *out, char *final)
{
	char copy[PATH_MAX], copy2[PATH_MAX], parent[PATH_MAX];
	struct stat st;
	const char *base;

	snprintf(copy, sizeof(copy), "%s", out);
	snprintf(copy2, sizeof(copy2), "%s", out);
	base = basename(copy2);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/"))
		return fail("-o %s: name a new directory", out), -1;
	if (lstat(out, &st) == 0)
		return fail("%s exists; remove it first", out), -1;
	if (!realpath(dirname(copy), parent))
		return fail("-o %s: %s", out, strerror(errno)), -1;
	if (access(parent, W_OK) < 0)
		return fail("%s: %s", parent, strerror(errno)), -1;
	if ((size_t)snprintf(final, PATH_MAX, "%s/%s", strcmp(parent, "/") ? parent : "", base) >= PATH_MAX)
		return fail("-o %s: too long", out), -1;
	if (!path_ok(final))
		return fail("-o %s: a path overlay options cannot hold (space, control, , : \\ quotes)", final), -1;
	return 0;
}

static int convert(const struct tinyaws_opts *t, int app)
{
	static char image[PATH_MAX], final[PATH_MAX], cmd[65536];
	struct oci_tinyaws_job j = { 0 };
	char *profile = NULL;
	int r;

	if (resolve_image(t->image, image) < 0 || job_command(t, app, cmd, sizeof(cmd)) < 0 ||
	    resolve_output(t->out, final) < 0)
		return 1;
	if (t->sandbox && (t->no_overlay || t->no_limits || t->no_seccomp || t->no_namespaces))
		return cli_usage_error(t->usage, "--sandbox: every layer is on; --no-%s%s cannot be used with it",
				       t->no_overlay ? "overlay" : t->no_limits ? "limits" : t->no_seccomp ? "seccomp" : "namespaces",
				       t->sandbox_off ? " (TINYAWS_SANDBOX=0)" : "");
	if (!t->sandbox && (sandbox_out.output_limit || sandbox_out.workspace_size || sandbox_out.workspace_inodes))
		return cli_usage_error(t->usage, "--output-limit, --workspace-size and --workspace-inodes need --sandbox");
	if (!t->sandbox && (t->wall_time || t->cpu_time || t->request_deadline))
		return cli_usage_error(t->usage, "--%s needs --sandbox", t->wall_time ? "wall-time" :
				       t->cpu_time ? "cpu-time" : "request-deadline");
	if (t->sandbox && t->seccomp && strcmp(t->seccomp, "strict") && strcmp(t->seccomp, "default"))
		return cli_usage_error(t->usage, "--sandbox: --seccomp takes default or strict (tinyrun's profiles), got \"%s\"",
				       t->seccomp);
	if (!t->sandbox && pick_seccomp(t, &profile) < 0)
		return 1;
	print_off(t);
	j = (struct oci_tinyaws_job){
		.bundle = final, .image = image, .command = cmd, .env = (const char *const *)t->env,
		.n_env = t->n_env, .overlay = !t->no_overlay && !t->sandbox, .limits = !t->no_limits,
		.namespaces = !t->no_namespaces, .seccomp_json = profile,
	};
	limits(t, &j);
	r = write_bundle(t, app, &j, final);
	free(profile);
	return r < 0 ? 1 : 0;
}

int cmd_bundle_tinyaws(const struct tinyaws_opts *t)
{
	int app = -1, r;

	if (t->type && rootfs_tinyaws_type(t->type, &(unsigned){ 0 }, &(unsigned){ 0 }) < 0)
		return cli_usage_error(t->usage, "--type: \"%s\" is not nano, micro, small, medium or large", t->type);
	/* opened once: each file of it is read, and it is copied, through this fd */
	if (t->app && (app = open(t->app, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return fail("--app %s: %s", t->app, errno == ENOTDIR ? "not a directory" : strerror(errno));
	r = convert(t, app);
	if (app >= 0)
		close(app);
	return r;
}

/* TINYAWS_SANDBOX=0: every layer off, as in tinyaws */
void cmd_bundle_sandbox_env(struct tinyaws_opts *t)
{
	const char *s = callerenv_get("TINYAWS_SANDBOX");

	if (s && !strcmp(s, "0")) {
		t->no_overlay = t->no_limits = t->no_seccomp = t->no_namespaces = true;
		t->sandbox_off = true;
	}
}

int cmd_bundle_temp(struct tinyaws_opts *t, char *dir, char *bundle)
{
	const char *tmp = callerenv_get("TMPDIR");

	if ((size_t)snprintf(dir, PATH_MAX, "%s/tinyrun-tinyaws-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= PATH_MAX ||
	    !mkdtemp(dir))
		return fail("temporary bundle: %s", strerror(errno));
	snprintf(bundle, PATH_MAX, "%s/bundle", dir);
	t->out = bundle;
	cmd_bundle_sandbox_env(t);
	if (cmd_bundle_tinyaws(t) != 0) {
		rmdir(dir);
		return 1;
	}
	return 0;
}

void cmd_bundle_temp_remove(const char *dir)
{
	nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int cmd_bundle(struct global_opts *g, int argc, char **argv)
{
	struct tinyaws_opts t = { .usage = "bundle" };
	int dd = argc, i;

	(void)g;
	for (int k = 1; k < argc; k++)
		if (!strcmp(argv[k], "--")) {
			dd = k;
			break;
		}
	if ((i = parse_opts(dd, argv, &t)) < 0)
		return 1;
	if (dd < argc) {
		t.cmd = argv + dd + 1;
		t.n_cmd = argc - dd - 1;
	}
	if (dd - i < 1)
		return cli_usage_error("bundle", "expected a kind: tinyaws (the only one)");
	if (strcmp(argv[i], "tinyaws") != 0)
		return cli_usage_error("bundle", "unknown kind \"%s\": expected tinyaws (the only one)", argv[i]);
	if (dd - i != 2)
		return cli_usage_error("bundle", "expected exactly one IMAGE (a path or an image id)");
	if (!t.out)
		return cli_usage_error("bundle", "-o BUNDLE is required");
	t.image = argv[i + 1];
	cmd_bundle_sandbox_env(&t);
	return cmd_bundle_tinyaws(&t);
}
