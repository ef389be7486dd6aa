/* The parsers of image bytes the container's child runs: the "#!" line
 * (oci/shebang.c) and /etc/passwd's home of a uid (oci/passwd.c). */
#include <stdio.h>
#include <string.h>

#include "oci/passwd.h"
#include "oci/shebang.h"
#include "unit.h"

static const char *interp_of(const char *text, size_t len, size_t size)
{
	static char out[512];

	oci_shebang_interpreter(text, len, out, size);
	return out;
}

#define INTERP(text) interp_of(text, sizeof(text) - 1, 512)

static void test_shebang(void)
{
	char big[400];

	CHECK_STR(INTERP("#!/bin/sh\necho\n"), "/bin/sh");
	CHECK_STR(INTERP("#! \t/usr/bin/env python3 -u\n"), "/usr/bin/env");
	CHECK_STR(INTERP("#!/bin/sh"), "/bin/sh");            /* no newline */
	CHECK_STR(INTERP("#!/bin/\0sh\n"), "/bin/");           /* a NUL ends it */
	CHECK_STR(INTERP("#!\n/bin/sh\n"), "");
	CHECK_STR(INTERP("#!"), "");
	CHECK_STR(INTERP("# !/bin/sh\n"), "");
	CHECK_STR(INTERP("\177ELF\2\1\1"), "");
	CHECK_STR(interp_of("#!/bin/sh\n", 10, 5), "/bin");    /* truncated to the buffer */
	CHECK_STR(interp_of("#!/bin/sh\n", 10, 1), "");
	/* only the kernel's 256 bytes are looked at */
	memset(big, 'a', sizeof(big));
	memcpy(big, "#!/", 3);
	CHECK(strlen(interp_of(big, sizeof(big), 512)) == OCI_SHEBANG_MAX - 2);
}

/* The home of `uid` in `text`, fed `chunk` bytes at a time (0: at once). */
static const char *home_of(const char *text, size_t len, uid_t uid, size_t chunk)
{
	static struct oci_passwd_scan s;
	static char home[256];
	bool found = false;

	oci_passwd_scan_init(&s, uid, home, sizeof(home));
	for (size_t off = 0; off < len && !found; off += chunk ? chunk : len)
		found = oci_passwd_scan_feed(&s, text + off, chunk && len - off > chunk ? chunk : len - off);
	if (!found)
		oci_passwd_scan_end(&s);
	return home;
}

#define HOME(text, uid) home_of(text, sizeof(text) - 1, uid, 0)

static void test_passwd(void)
{
	static char long_line[6000];
	size_t n;

	CHECK_STR(HOME("root:x:0:0:root:/root:/bin/sh\nu:x:42:42::/home/u:/bin/sh\n", 42), "/home/u");
	CHECK_STR(HOME("root:x:0:0:root:/root:/bin/sh\n", 42), "/");
	CHECK_STR(HOME("u:x:42:42::/home/u", 42), "/home/u");           /* no final newline */
	CHECK_STR(HOME("u:x:42:42::/first:/bin/sh\nv:x:42:42::/second:\n", 42), "/first");
	CHECK_STR(HOME("u:x:42:42:::/bin/sh\nv:x:42:42::/second:\n", 42), "/second");   /* empty home */
	CHECK_STR(HOME("u:x:42:42:\n", 42), "/");                       /* no home field */
	/* a uid field is digits only: "abc" is not 0, " 42" and "+42" not 42 */
	CHECK_STR(HOME("a:x:abc:0::/wrong:\nroot:x:0:0::/root:\n", 0), "/root");
	CHECK_STR(HOME("a:x: 42:0::/wrong:\nb:x:+42:0::/wrong:\n", 42), "/");
	CHECK_STR(HOME("a:x:4294967338:0::/wrong:\n", 42), "/");       /* 2^32 + 42 */
	CHECK_STR(HOME("a:x:4294967295:0::/max:\n", 4294967295u), "/max");
	/* a line longer than the buffer is skipped whole, its tail is no line */
	n = (size_t)snprintf(long_line, sizeof(long_line), "x:x:1:1:");
	memset(long_line + n, 'g', 5000);
	n += 5000;
	n += (size_t)snprintf(long_line + n, sizeof(long_line) - n, ":x:42:0::/tail:\nu:x:42:0::/home/u:\n");
	CHECK_STR(home_of(long_line, n, 42, 0), "/home/u");
	CHECK_STR(home_of(long_line, n, 42, 1), "/home/u");
	CHECK_STR(home_of(long_line, n, 42, 4095), "/home/u");
	/* the same whatever the reads */
	for (size_t chunk = 1; chunk < 12; chunk++)
		CHECK_STR(home_of("root:x:0:0::/root:\nu:x:42:42::/home/u:\n", 38, 42, chunk), "/home/u");
}

int main(void)
{
	test_shebang();
	test_passwd();
	return unit_report("test_oci_image");
}
