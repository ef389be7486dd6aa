#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

int cli_fail(const struct error *err)
{
	log_error("%s", err->msg);
	return 1;
}

int cli_failf(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	return 1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s: %s (see tinyrun %s --help)", cmd, msg, cmd);
	return 1;
}

void cli_print_help(const struct command *cmd)
{
	printf("tinyrun %s: %s\n\nusage: tinyrun [global options] %s", cmd->name, cmd->summary, cmd->usage);
}

bool cli_wants_help(const struct command *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "-help")) {
			/* exec ID cmd -h: -h belongs to the command after the id */
			if (!strcmp(cmd->name, "exec") && i > 2 && argv[i - 1][0] != '-')
				return false;
			cli_print_help(cmd);
			return true;
		}
	}
	return false;
}
