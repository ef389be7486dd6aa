/* A script's first bytes -> oci_shebang_interpreter (the container's child
 * reads the "#!" line of the program and of each interpreter on the way,
 * runtime/container/process.c): the interpreter is one word of those bytes,
 * NUL-terminated in the buffer it is given, truncated (never overrun) by a
 * smaller one. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "oci/shebang.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = { 1, 2, 8, 255, 4096 };
	char *copy = malloc(size ? size : 1), full[4096];
	size_t seen = size < OCI_SHEBANG_MAX ? size : OCI_SHEBANG_MAX;

	if (!copy)
		return 0;
	memcpy(copy, data, size);   /* exactly `size` bytes: ASan sees an overread */
	oci_shebang_interpreter(copy, size, full, sizeof(full));
	assert(strlen(full) < OCI_SHEBANG_MAX);
	assert(!strpbrk(full, " \t\n"));
	if (seen < 2 || copy[0] != '#' || copy[1] != '!')
		assert(full[0] == '\0');
	if (full[0])
		assert(memmem(copy + 2, seen - 2, full, strlen(full)));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *small = malloc(sizes[i]);

		if (!small)
			break;
		oci_shebang_interpreter(copy, size, small, sizes[i]);
		assert(strlen(small) < sizes[i]);
		assert(strncmp(small, full, strlen(small)) == 0);
		assert(strlen(small) == (strlen(full) < sizes[i] ? strlen(full) : sizes[i] - 1));
		free(small);
	}
	free(copy);
	return 0;
}
