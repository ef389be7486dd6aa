/* An image's /etc/passwd bytes -> oci_passwd_scan (HOME of process.user.uid,
 * read by the container's child in runtime/container/process.c): the home
 * found does not depend on how the bytes are cut into reads, is
 * NUL-terminated in the caller's buffer, is "/" or a non-empty field of the
 * file. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "oci/passwd.h"
#include "replay.h"

/* The home of `uid` with the file fed `chunk` bytes at a time (0: at once). */
static bool scan(const uint8_t *data, size_t size, uid_t uid, size_t chunk, char *home, size_t home_size)
{
	/* on the heap, exactly its size: ASan sees a write past its line */
	struct oci_passwd_scan *s = malloc(sizeof(*s));
	bool found = false;

	if (!s)
		abort();
	oci_passwd_scan_init(s, uid, home, home_size);
	for (size_t off = 0; off < size && !found;) {
		size_t n = chunk && size - off > chunk ? chunk : size - off;

		found = oci_passwd_scan_feed(s, (const char *)data + off, n);
		off += n;
	}
	if (!found)
		found = oci_passwd_scan_end(s);
	free(s);
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uid_t uids[] = { 0, 42, 65534 };
	static const size_t chunks[] = { 1, 7, 4096 };

	for (size_t u = 0; u < sizeof(uids) / sizeof(uids[0]); u++) {
		char whole[4096], cut[4096], small[4];
		bool found = scan(data, size, uids[u], 0, whole, sizeof(whole));

		assert(strlen(whole) < OCI_PASSWD_LINE_MAX);
		assert(found ? whole[0] != '\0' : strcmp(whole, "/") == 0);
		if (found)
			assert(memmem(data, size, whole, strlen(whole)));
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			assert(scan(data, size, uids[u], chunks[c], cut, sizeof(cut)) == found);
			assert(strcmp(cut, whole) == 0);
		}
		scan(data, size, uids[u], 0, small, sizeof(small));
		assert(strlen(small) < sizeof(small) && strncmp(small, whole, strlen(small)) == 0);
	}
	return 0;
}
