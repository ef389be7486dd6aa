#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "oci/profiles.h"
#include "oci/spec.h"

const struct cli_opt cmd_spec_opts[] = {
	{ "bundle", 'b', 'b', "DIR", "write DIR/config.json (default: the current directory)" },
	{ "rootless", 0, 'r', NULL, "a user namespace mapping the caller to root, no network namespace" },
	{ "seccomp", 0, 's', "default|strict", "add one of the shipped seccomp profiles (--sandbox: default unless strict)" },
	{ "sandbox", 0, 'S', NULL, "the sandbox profile for untrusted code: leased uid, minimal root, no network, limits, seccomp" },
	{ 0 },
};

int cmd_spec(struct global_opts *g, int argc, char **argv)
{
	const char *bundle = ".", *profile = NULL, *profile_json = NULL;
	bool rootless = false, sandbox = false;
	char path[4200], *json;
	int ch, fd;
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
		else
			return cli_option_error("spec", cmd_spec_opts, ch, argv);
	}
	if (optind != argc)
		return cli_usage_error("spec", "takes no arguments");
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	if (profile && !(profile_json = oci_seccomp_profile(profile)))
		return cli_usage_error("spec", "--seccomp: unknown profile \"%s\" (default, strict)", profile);
	if (sandbox && rootless)
		return cli_usage_error("spec", "--sandbox and --rootless: choose one");
	if (sandbox && !profile_json)
		profile_json = oci_seccomp_profile("default");
	json = oci_spec_generate(rootless, getuid(), getgid(), sandbox ? NULL : profile_json, NULL);
	if (!json)
		return cli_failf("spec: out of memory");
	if (sandbox) {
		char errbuf[256], *sb = oci_spec_sandbox(json, profile_json, errbuf, sizeof(errbuf));

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
