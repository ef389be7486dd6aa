/* config.json bytes -> what `tinyrun create` does before touching the
 * system: oci_config_parse (runtime/bundle.c) and, with linux.seccomp, the
 * BPF compilation (runtime/create.c; libseccomp only, no cache, no kernel
 * flag probing). A failure must leave a one-line message that starts with
 * "config.json: ". */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "seccomp/seccomp.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_config cfg;
	struct error err = { 0 };

	if (oci_config_parse("config.json", (const char *)data, size, OCI_PARSE_ALL, &cfg, &err) < 0) {
		assert(strncmp(err.msg, "config.json: ", 13) == 0);
		assert(!strchr(err.msg, '\n'));
		return 0;
	}
	if (cfg.linux_.has_seccomp) {
		struct seccomp_skipped sk = { 0 };
		struct seccomp_prog prog = { 0 };

		if (seccomp_build(&cfg.linux_.seccomp, NULL, &sk, &prog, &err) == 0)
			seccomp_prog_free(&prog);
		free(sk.text);
	}
	oci_config_free(&cfg);
	if (oci_config_parse("config.json", (const char *)data, size, OCI_PARSE_HOOKS_ONLY, &cfg, &err) == 0)
		oci_config_free(&cfg);
	return 0;
}
