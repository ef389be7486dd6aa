/* hooks: config.md "POSIX-platform Hooks". */
#include <errno.h>
#include <limits.h>

#include "parse.h"

static int hook_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		    void *elem, void *ud)
{
	struct oci_hook *h = elem;
	int64_t timeout;
	int r;

	(void)ud;
	if ((r = parse_get_str(c, p, v, "path", REQ, &h->path)) < 0)
		return r;
	if (h->path[0] != '/')
		return parse_err(c, JKEY(p, "path"), "must be an absolute path, got \"%s\"", h->path);
	if ((r = parse_get_strv(c, p, v, "args", OPT, &h->args, &h->n_args)) < 0 ||
	    (r = parse_get_strv(c, p, v, "env", OPT, &h->env, &h->n_env)) < 0 ||
	    (r = parse_get_i64(c, p, v, "timeout", OPT, INT_MIN, INT_MAX, &timeout)) < 0)
		return r;
	if (r > 0) {
		if (timeout <= 0)
			return parse_err(c, JKEY(p, "timeout"), "must be greater than zero");
		h->has_timeout = true;
		h->timeout = (int)timeout;
	}
	return 0;
}

int parse_hooks(struct pctx *c, const struct jpath *p, const struct json_val *v,
		struct oci_hooks *hooks)
{
	for (size_t i = 0; i < oci_n_hook_names; i++) {
		int kind = oci_hook_names[i].value;
		int r = parse_get_array_of(c, p, v, oci_hook_names[i].name, sizeof(struct oci_hook),
				     &hooks->list[kind], &hooks->n[kind], hook_one, NULL);

		if (r < 0)
			return r;
	}
	return 0;
}
