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

int cmd_spec(struct global_opts *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bundle", required_argument, NULL, 'b' }, { "rootless", no_argument, NULL, 'r' },
		{ "seccomp", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bundle = ".", *profile = NULL, *profile_json = NULL;
	bool rootless = false;
	char path[4200], *json;
	int ch, fd;
	size_t len;

	(void)g;
	opterr = 0;
	while ((ch = getopt_long_only(argc, argv, "b:", opts, NULL)) != -1) {
		if (ch == 'b')
			bundle = optarg;
		else if (ch == 'r')
			rootless = true;
		else if (ch == 's')
			profile = optarg;
		else
			return cli_usage_error("spec", "invalid option %s", argv[optind - 1]);
	}
	if (optind != argc)
		return cli_usage_error("spec", "takes no arguments");
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	if (profile && !(profile_json = oci_seccomp_profile(profile)))
		return cli_usage_error("spec", "--seccomp: unknown profile \"%s\" (default, strict)", profile);
	json = oci_spec_generate(rootless, getuid(), getgid(), profile_json, NULL);
	if (!json)
		return cli_failf("spec: out of memory");
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
