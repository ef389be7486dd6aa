/* The "#!" line of a script in the image: the first bytes of a file in, the
 * interpreter the kernel would run out. Pure: no syscall, no allocation (the
 * container's child calls it; tests/fuzz/fuzz_shebang.c fuzzes it). Not JSON:
 * it lives in oci/ as the base library every binary, unit test and fuzz
 * target links. */
#ifndef TINYRUN_SHEBANG_H
#define TINYRUN_SHEBANG_H

#include <stddef.h>

/* What the kernel reads of a script (BINPRM_BUF_SIZE). */
#define OCI_SHEBANG_MAX 256

/* The interpreter named by `buf` (the file's first `len` bytes, not NUL
 * terminated): the first word after "#!" and any blanks, up to a blank, a
 * newline, a NUL or OCI_SHEBANG_MAX; "" when `buf` does not start with "#!".
 * `interp` is always NUL-terminated (truncated to `size` - 1 bytes). */
void oci_shebang_interpreter(const char *buf, size_t len, char *interp, size_t size);

#endif
