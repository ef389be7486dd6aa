/* The .json files in seccomp/profiles/ are the only source: the assembler
 * embeds them byte for byte (the Makefile rebuilds this object when they
 * change). */
#include "profiles.h"

#include <string.h>

#define EMBED(sym, file)                                         \
	__asm__(".pushsection .rodata\n"                             \
		".type " #sym ", @object\n"                          \
		#sym ":\n"                                           \
		".incbin \"" file "\"\n"                             \
		".byte 0\n"                                          \
		".size " #sym ", . - " #sym "\n"                     \
		".popsection\n")

EMBED(tinyrun_profile_default, "seccomp/profiles/default.json");
EMBED(tinyrun_profile_strict, "seccomp/profiles/strict.json");
extern const char tinyrun_profile_default[], tinyrun_profile_strict[];

const char *const oci_seccomp_profile_names[] = { "default", "strict" };
const size_t oci_n_seccomp_profiles = 2;

const char *oci_seccomp_profile(const char *name)
{
	if (strcmp(name, "default") == 0)
		return tinyrun_profile_default;
	if (strcmp(name, "strict") == 0)
		return tinyrun_profile_strict;
	return NULL;
}
