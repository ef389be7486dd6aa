/* What selfseal.c shares with the binary's entry point
 * (runtime/entry/early_seal.c), which runs before libc is set up: the mark a
 * sealed re-exec carries, and the text test of selfseal_guard_text. No libc
 * call in here. */
#ifndef TINYRUN_SELFSEAL_SCAN_H
#define TINYRUN_SELFSEAL_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* in the environment of a sealed re-exec only: selfseal_init removes it at
 * once, so hooks and the container never see it */
#define SELFSEAL_MARK "_TINYRUN_SEALED"
/* beside it: the real binary's path, which /proc/self/exe no longer gives
 * once sealed (runtime/container/selfexe.h); taken only with the mark, by a
 * process that runs sealed, and removed at once too */
#define SELFSEAL_EXE "_TINYRUN_EXE"

/* Is there a "user" that is a value: the string "user" after a ':' and
 * optional blanks? A config without one declares no user namespace. */
static inline bool selfseal_text_may_declare_userns(const char *json, size_t len)
{
	static const char pat[] = "\"user\"";
	const size_t n = sizeof(pat) - 1;

	for (size_t i = 0; i + n <= len; i++) {
		size_t k = 0, q = i;

		while (k < n && json[i + k] == pat[k])
			k++;
		if (k < n)
			continue;
		while (q > 0 && (json[q - 1] == ' ' || json[q - 1] == '\t' || json[q - 1] == '\n' ||
				 json[q - 1] == '\r'))
			q--;
		if (q > 0 && json[q - 1] == ':')
			return true;
	}
	return false;
}

#endif
