/* Commands that are not there yet say so plainly (README lists them as planned). */
#include "cli.h"

int cmd_events(struct global_opts *g, int argc, char **argv)
{
	(void)g; (void)argc; (void)argv;
	return cli_failf("events: not implemented yet");
}
