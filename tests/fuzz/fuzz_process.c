/* `exec --process FILE` bytes -> oci_process_parse (runtime/cmd_exec.c),
 * and the same bytes as an `update -r FILE` -> oci_resources_parse
 * (runtime/cmd_update.c). */
#include <assert.h>
#include <string.h>

#include "oci/config.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_process proc;
	struct oci_resources res;
	struct error err = { 0 };
	void *arena = NULL;

	if (oci_process_parse("process.json", (const char *)data, size, &proc, &arena, &err) < 0) {
		assert(strncmp(err.msg, "process.json: ", 14) == 0);
		assert(!strchr(err.msg, '\n'));
	} else {
		oci_arena_free(arena);
	}
	if (oci_resources_parse("resources.json", (const char *)data, size, &res, &arena, &err) < 0) {
		assert(strncmp(err.msg, "resources.json: ", 16) == 0);
		assert(!strchr(err.msg, '\n'));
	} else {
		oci_arena_free(arena);
	}
	return 0;
}
