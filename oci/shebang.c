#include "oci/shebang.h"

#include <string.h>

void oci_shebang_interpreter(const char *buf, size_t len, char *interp, size_t size)
{
	size_t i = 2, end, n;

	if (size)
		interp[0] = '\0';
	if (len > OCI_SHEBANG_MAX)
		len = OCI_SHEBANG_MAX;
	if (len < 3 || buf[0] != '#' || buf[1] != '!' || !size)
		return;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	for (end = i; end < len && buf[end] && !strchr(" \t\n", buf[end]); end++)
		;
	n = end - i < size - 1 ? end - i : size - 1;
	memcpy(interp, buf + i, n);
	interp[n] = '\0';
}
