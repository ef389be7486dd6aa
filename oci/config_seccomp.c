/* linux.seccomp: config-linux.md "Seccomp". Names are checked here; the
 * seccomp/ module maps them to libseccomp. */
#include <errno.h>

#include "parse.h"

static int check_names(struct pctx *c, const struct jpath *p, char **names, size_t n,
		       const struct oci_name *t, size_t tn, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (oci_name_lookup(t, tn, names[i]) < 0)
			return parse_err(c, JIDX(p, i), "unknown %s \"%s\"", what, names[i]);
	return 0;
}

/* "errnoRet": only actions that return an errno take one (spec: MUST fail). */
static int get_errno_ret(struct pctx *c, const struct jpath *p, const struct json_val *v,
			 const char *key, int action, bool *has, uint32_t *out)
{
	int r = parse_get_u32(c, p, v, key, OPT, out);

	if (r <= 0)
		return r;
	if (action != OCI_SECCOMP_ERRNO && action != OCI_SECCOMP_TRACE)
		return parse_err(c, JKEY(p, key), "only allowed with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
	*has = true;
	return 0;
}

static int arg_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		   void *elem, void *ud)
{
	struct oci_seccomp_arg *a = elem;
	uint64_t index;
	int op;

	(void)ud;
	if (parse_get_u64(c, p, v, "index", REQ, 5, &index) < 0 ||
	    parse_get_u64(c, p, v, "value", REQ, UINT64_MAX, &a->value) < 0 ||
	    parse_get_u64(c, p, v, "valueTwo", OPT, UINT64_MAX, &a->value_two) < 0 ||
	    parse_get_name(c, p, v, "op", REQ, oci_seccomp_operators, oci_n_seccomp_operators,
		     "seccomp operator", &op) < 0)
		return -EINVAL;
	a->index = (unsigned)index;
	a->op = (enum oci_seccomp_op)op;
	return 0;
}

/* Far more than every syscall of every architecture: libseccomp's rule
 * merging is quadratic in repeated names (1e5 took minutes) and no BPF
 * program of more names fits the kernel's 4096 instructions anyway. */
#define MAX_SYSCALL_NAMES 4096

static int syscall_one(struct pctx *c, const struct jpath *p, const struct json_val *v,
		       void *elem, void *ud)
{
	struct oci_seccomp_rule *s = elem;
	size_t *total = ud;
	int r, action;

	if ((r = parse_get_strv(c, p, v, "names", REQ, &s->names, &s->n_names)) < 0)
		return r;
	if (s->n_names == 0)
		return parse_err(c, JKEY(p, "names"), "must not be empty");
	*total += s->n_names;
	if (*total > MAX_SYSCALL_NAMES)
		return parse_err(c, JKEY(p, "names"), "more than %d syscall names in all the rules",
			    MAX_SYSCALL_NAMES);
	if ((r = parse_get_name(c, p, v, "action", REQ, oci_seccomp_actions, oci_n_seccomp_actions,
			  "seccomp action", &action)) < 0)
		return r;
	s->action = (enum oci_seccomp_action)action;
	if ((r = get_errno_ret(c, p, v, "errnoRet", action, &s->has_errno_ret, &s->errno_ret)) < 0)
		return r;
	r = parse_get_array_of(c, p, v, "args", sizeof(*s->args), &s->args, &s->n_args, arg_one, NULL);
	return r < 0 ? r : 0;
}

int parse_seccomp(struct pctx *c, const struct jpath *p, const struct json_val *v,
		  struct oci_seccomp *s)
{
	size_t total = 0;
	int r, action;

	if ((r = parse_get_name(c, p, v, "defaultAction", REQ, oci_seccomp_actions,
			  oci_n_seccomp_actions, "seccomp action", &action)) < 0)
		return r;
	if (action == OCI_SECCOMP_NOTIFY)
		return parse_err(c, JKEY(p, "defaultAction"), "SCMP_ACT_NOTIFY cannot be the default action");
	s->default_action = (enum oci_seccomp_action)action;
	if ((r = get_errno_ret(c, p, v, "defaultErrnoRet", action, &s->has_default_errno_ret,
			       &s->default_errno_ret)) < 0 ||
	    (r = parse_get_strv(c, p, v, "architectures", OPT, &s->architectures,
			  &s->n_architectures)) < 0 ||
	    (r = check_names(c, JKEY(p, "architectures"), s->architectures, s->n_architectures,
			     oci_seccomp_archs, oci_n_seccomp_archs, "architecture")) < 0 ||
	    (r = parse_get_strv(c, p, v, "flags", OPT, &s->flags, &s->n_flags)) < 0 ||
	    (r = check_names(c, JKEY(p, "flags"), s->flags, s->n_flags, oci_seccomp_flags,
			     oci_n_seccomp_flags, "seccomp flag")) < 0 ||
	    (r = parse_get_str(c, p, v, "listenerPath", OPT, &s->listener_path)) < 0 ||
	    (r = parse_get_str(c, p, v, "listenerMetadata", OPT, &s->listener_metadata)) < 0)
		return r;
	if (s->listener_metadata && !s->listener_path)
		return parse_err(c, JKEY(p, "listenerMetadata"), "not allowed without listenerPath");
	r = parse_get_array_of(c, p, v, "syscalls", sizeof(*s->syscalls), &s->syscalls, &s->n_syscalls,
			 syscall_one, &total);
	return r < 0 ? r : 0;
}
