#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cli.h"
#include "oci/config.h"
#include "oci/profiles.h"
#include "oci/spec.h"
#include "oci/sandbox/spec_sandbox.h"

const struct cli_opt cmd_spec_opts[] = {
	{ "bundle", 'b', 'b', "DIR", "write DIR/config.json (default: the current directory)" },
	{ "oci-version", 0, 'V', "VERSION", "the ociVersion to write, for older runtimes: 1.0.0 to 1.3.x (default 1.3.0)" },
	{ "rootless", 0, 'r', NULL, "a user namespace mapping the caller to root, no network namespace" },
	{ "seccomp", 0, 's', "default|strict", "add one of the shipped seccomp profiles (--sandbox: default unless strict)" },
	{ "sandbox", 0, 'S', NULL, "the sandbox profile for untrusted code: leased uid, minimal root, no network, limits, seccomp" },
	{ "request-key", 0, 'K', NULL, "with --sandbox: a request tasks may join: a new random key in DIR/" OCI_SANDBOX_KEY_FILE
	  " (0600); each task's bundle needs a copy" },
	{ "request", 0, 'R', "ID", "with --sandbox: a task of request ID (its workspace, /tmp, network, IPC, uid); "
	  "needs a copy of ID's " OCI_SANDBOX_KEY_FILE " in DIR" },
	SPEC_OUTPUT_OPTS,
	{ "request-output-limit", 0, SPEC_REQUEST_OUTPUT_LIMIT, "BYTES", "with --sandbox and --request or --request-key: "
	  "at most BYTES passed on by all the request's tasks, both streams (default: no limit)" },
	{ "wall-time", 0, 'W', "SECONDS", "with --sandbox: the task's wall-clock limit from its start (default "
	  OCI_SANDBOX_WALL_TIME ")" },
	{ "cpu-time", 0, 'C', "SECONDS", "with --sandbox: the CPU time of all the task's processes (default "
	  OCI_SANDBOX_CPU_TIME ")" },
	{ "request-deadline", 0, 'D', "SECONDS", "with --sandbox: a deadline for the request's tasks, from its first "
	  "container's create (default: none)" },
	{ 0 },
};

int cmd_spec_output_opt(const char *cmd, int ch, const char *arg, struct oci_sandbox_output_opts *o)
{
	static const struct { int ch; const char *name; uint64_t max; } opts[] = {
		{ SPEC_OUTPUT_LIMIT, "output-limit", OCI_LIMIT_BYTES_MAX },
		{ SPEC_REQUEST_OUTPUT_LIMIT, "request-output-limit", OCI_LIMIT_BYTES_MAX },
		{ SPEC_WORKSPACE_SIZE, "workspace-size", OCI_LIMIT_BYTES_MAX },
		{ SPEC_WORKSPACE_INODES, "workspace-inodes", OCI_LIMIT_INODES_MAX },
	};
	const char **to[] = { &o->output_limit, &o->request_output_limit, &o->workspace_size, &o->workspace_inodes };
	uint64_t v;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (opts[i].ch != ch)
			continue;
		if (oci_size_parse(arg, opts[i].max, &v) < 0)
			return cli_usage_error(cmd, "--%s: expected 1 to %llu (k, m, g: KiB, MiB, GiB), got \"%s\"", opts[i].name,
					       (unsigned long long)opts[i].max, arg), -1;
		*to[i] = arg;
		return 1;
	}
	return 0;
}

/* BUNDLE/request.key: a new key, 32 random bytes in hex; 0 or -errno */
static int write_request_key(const char *bundle, char *path, size_t size)
{
	unsigned char key[32];
	char hex[2 * sizeof(key) + 2];
	int fd, e;

	snprintf(path, size, "%s/" OCI_SANDBOX_KEY_FILE, bundle);
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return errno ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(key); i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	hex[2 * sizeof(key)] = '\n';
	explicit_bzero(key, sizeof(key));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	e = write(fd, hex, sizeof(hex) - 1) == (ssize_t)sizeof(hex) - 1 ? 0 : errno ? errno : EIO;
	explicit_bzero(hex, sizeof(hex));
	if (close(fd) < 0 && !e)
		e = errno;
	if (e)
		unlink(path);
	return -e;
}

/* --wall-time, --cpu-time, --request-deadline SECONDS (the time limits) */
static int spec_seconds(int ch, const char *v, struct oci_sandbox_opts *o)
{
	const char *name = ch == 'W' ? "wall-time" : ch == 'C' ? "cpu-time" : "request-deadline";
	int64_t ms;

	if (oci_limits_seconds(v, &ms) < 0)
		return cli_usage_error("spec", "--%s: expected seconds, 0.001 to %d (at most 3 decimals), got \"%.64s\"",
				       name, OCI_LIMIT_SECONDS_MAX, v), -1;
	*(ch == 'W' ? &o->wall_time : ch == 'C' ? &o->cpu_time : &o->request_deadline) = v;
	return 0;
}

int cmd_spec(struct global_opts *g, int argc, char **argv)
{
	const char *bundle = ".", *profile = NULL, *profile_json = NULL, *oci_version = NULL;
	bool rootless = false, sandbox = false, request_key = false, output_opt = false;
	struct oci_sandbox_opts sopts = { 0 };
	char path[4200], key_path[4200], *json;
	int ch, fd, r;
	size_t len;

	(void)g;
	opterr = 0;
	while ((ch = cli_getopt(argc, argv, cmd_spec_opts, false)) != -1) {
		if (ch == 'b')
			bundle = optarg;
		else if (ch == 'r')
			rootless = true;
		else if (ch == 's')
			profile = optarg;
		else if (ch == 'S')
			sandbox = true;
		else if (ch == 'K')
			request_key = true;
		else if (ch == 'R')
			sopts.request = optarg;
		else if (ch == 'V')
			oci_version = optarg;
		else if (ch == 'W' || ch == 'C' || ch == 'D') {
			if (spec_seconds(ch, optarg, &sopts) < 0)
				return 1;
		} else if ((r = cmd_spec_output_opt("spec", ch, optarg, &sopts.out)) != 0) {
			if (r < 0)
				return 1;
			output_opt = true;
		} else
			return cli_option_error("spec", cmd_spec_opts, ch, argv);
	}
	if (optind != argc)
		return cli_usage_error("spec", "takes no arguments");
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	if (profile && !(profile_json = oci_seccomp_profile(profile)))
		return cli_usage_error("spec", "--seccomp: unknown profile \"%s\" (default, strict)", profile);
	if (oci_version && !oci_spec_version_writable(oci_version))
		return cli_usage_error("spec", "--oci-version: \"%.64s\" is not a version tinyrun supports "
				       "(MAJOR.MINOR.PATCH from 1.0.0 to 1.3.x)", oci_version);
	if (sandbox && rootless)
		return cli_usage_error("spec", "--sandbox and --rootless: choose one");
	if ((request_key || sopts.request) && !sandbox)
		return cli_usage_error("spec", "--%s needs --sandbox", request_key ? "request-key" : "request");
	if (output_opt && !sandbox)
		return cli_usage_error("spec", "--output-limit, --request-output-limit, --workspace-size and "
				       "--workspace-inodes need --sandbox");
	if (request_key && sopts.request)
		return cli_usage_error("spec", "--request-key (a request's creator) and --request (one of its tasks): choose one");
	if ((sopts.wall_time || sopts.cpu_time || sopts.request_deadline) && !sandbox)
		return cli_usage_error("spec", "--%s needs --sandbox", sopts.wall_time ? "wall-time" :
				       sopts.cpu_time ? "cpu-time" : "request-deadline");
	if (sopts.request_deadline && sopts.request)
		return cli_usage_error("spec", "--request-deadline: a task of a request has its request's deadline "
				       "(set it with --request-key)");
	if (request_key || sopts.request)
		sopts.request_key_file = OCI_SANDBOX_KEY_FILE;
	if (sandbox && !profile_json)
		profile_json = oci_seccomp_profile("default");
	json = oci_spec_generate_version(rootless, getuid(), getgid(), sandbox ? NULL : profile_json, NULL, oci_version);
	if (!json)
		return cli_failf("spec: out of memory");
	if (sandbox) {
		char errbuf[256], *sb = oci_spec_sandbox_with(json, profile_json, &sopts, errbuf, sizeof(errbuf));

		free(json);
		if (!sb)
			return cli_failf("spec: --sandbox: %s", errbuf);
		json = sb;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(json);
		return errno == EEXIST ? cli_failf("spec: %s exists; remove it first", path)
				       : cli_failf("spec: %s: %s", path, strerror(errno));
	}
	if (request_key && (r = write_request_key(bundle, key_path, sizeof(key_path))) < 0) {
		close(fd);
		unlink(path);
		free(json);
		return r == -EEXIST ? cli_failf("spec: %s exists; remove it first", key_path)
				    : cli_failf("spec: %s: %s", key_path, strerror(-r));
	}
	len = strlen(json);
	if (write(fd, json, len) != (ssize_t)len) {
		close(fd);
		free(json);
		return cli_failf("spec: %s: %s", path, strerror(errno));
	}
	close(fd);
	free(json);
	return 0;
}
