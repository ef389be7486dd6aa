/* state.json bytes -> oci_state_parse (runtime/statedir.c reads it for
 * every command after create); what parses must serialize again. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "oci/state.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct container_state st;
	struct error err = { 0 };
	char *out = NULL;
	size_t len = 0;

	if (oci_state_parse("state.json", (const char *)data, size, &st, &err) < 0) {
		assert(strncmp(err.msg, "state.json: ", 12) == 0);
		assert(!strchr(err.msg, '\n'));
		return 0;
	}
	if (oci_state_to_json(&st, "running", false, &out, &len, &err) == 0)
		free(out);
	if (oci_state_to_json(&st, "stopped", true, &out, &len, &err) == 0)
		free(out);
	oci_state_free(&st);
	return 0;
}
