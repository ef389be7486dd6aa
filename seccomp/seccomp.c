/* seccomp_compile: flags, then the cache, then libseccomp. */
#include "seccomp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compile_and_store(const struct oci_seccomp *s, const char *cache_dir,
			     const unsigned char *key, size_t key_len,
			     void (*debug)(const char *), struct seccomp_prog *out, struct error *err)
{
	struct seccomp_skipped skipped = { 0 };
	int r = seccomp_build(s, debug, &skipped, out, err);

	if (r == 0)   /* fewer instructions for every load, checked once here */
		seccomp_compact(out);
	if (r == 0 && cache_dir && key) {
		int w = seccomp_cache_put(cache_dir, key, key_len, out, &skipped);
		if (w < 0 && debug) {
			char msg[512];
			snprintf(msg, sizeof(msg), "seccomp: cache %s not written: %s", cache_dir, strerror(-w));
			debug(msg);
		}
	}
	free(skipped.text);
	return r;
}

int seccomp_compile(const struct oci_seccomp *s, const char *cache_dir,
		    void (*debug)(const char *msg), struct seccomp_prog *out, struct error *err)
{
	unsigned char *key = NULL;
	size_t key_len = 0;
	unsigned int flags;
	/* a listenerPath gets its listener even when no rule notifies (crun;
	 * runc then sends nothing): an agent waiting on the path hears of the
	 * container either way */
	bool notify = seccomp_uses_notify(s) || s->listener_path;
	int r;

	memset(out, 0, sizeof(*out));
	/* nobody could answer: every notified syscall would hang, then ENOSYS */
	if (notify && !s->listener_path)
		return error_set(err, EINVAL, ".linux.seccomp.listenerPath: required with SCMP_ACT_NOTIFY");
	r = seccomp_flags_of(s, notify, &flags, debug, err);
	if (r < 0)
		return r;
	if (cache_dir && seccomp_cache_key(s, flags, notify, &key, &key_len) == 0 &&
	    seccomp_cache_get(cache_dir, key, key_len, debug, out) == 0 &&
	    out->flags == flags && out->notify == notify) {
		free(key);
		return 0;
	}
	seccomp_prog_free(out);
	out->flags = flags;
	out->notify = notify;
	r = compile_and_store(s, cache_dir, key, key_len, debug, out, err);
	free(key);
	return r;
}
