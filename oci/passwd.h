/* The image's /etc/passwd (name:password:uid:gid:gecos:dir:shell lines):
 * the home directory of a uid, runc's default for HOME. A scan fed the
 * file's bytes in pieces of any size, one line buffer on the stack: pure, no
 * syscall, no allocation (the container's child calls it before its execve;
 * tests/fuzz/fuzz_passwd.c fuzzes it). Not JSON: it lives in oci/ as the base
 * library every binary, unit test and fuzz target links. */
#ifndef TINYRUN_PASSWD_H
#define TINYRUN_PASSWD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A line longer than this is skipped whole. */
#define OCI_PASSWD_LINE_MAX 4096

struct oci_passwd_scan {
	uid_t uid;
	char *home;               /* the caller's: "/" until a line of uid names one */
	size_t size;
	bool found;
	bool skip;                /* inside a line too long: dropped up to its '\n' */
	size_t have;              /* bytes of the current line in `line` */
	char line[OCI_PASSWD_LINE_MAX];
};

/* Start a scan for `uid`; home becomes "/" (size >= 2). */
void oci_passwd_scan_init(struct oci_passwd_scan *s, uid_t uid, char *home, size_t size);
/* The next `n` bytes of the file. Returns true once the first line of `uid`
 * with a non-empty home is found (the rest need not be fed). */
bool oci_passwd_scan_feed(struct oci_passwd_scan *s, const char *data, size_t n);
/* End of file: a last line without its '\n'. Returns s->found. */
bool oci_passwd_scan_end(struct oci_passwd_scan *s);

#endif
