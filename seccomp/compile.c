/* struct oci_seccomp -> libseccomp filter -> BPF in memory. Runs in the
 * parent before clone; the child only loads the result (load.c). */
#include "seccomp.h"

#include <ctype.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CTX ".linux.seccomp"

static const char *const action_names[] = {
	[OCI_SECCOMP_KILL] = "SCMP_ACT_KILL",
	[OCI_SECCOMP_KILL_PROCESS] = "SCMP_ACT_KILL_PROCESS",
	[OCI_SECCOMP_KILL_THREAD] = "SCMP_ACT_KILL_THREAD",
	[OCI_SECCOMP_TRAP] = "SCMP_ACT_TRAP",
	[OCI_SECCOMP_ERRNO] = "SCMP_ACT_ERRNO",
	[OCI_SECCOMP_TRACE] = "SCMP_ACT_TRACE",
	[OCI_SECCOMP_ALLOW] = "SCMP_ACT_ALLOW",
	[OCI_SECCOMP_LOG] = "SCMP_ACT_LOG",
	[OCI_SECCOMP_NOTIFY] = "SCMP_ACT_NOTIFY",
};

/* OCI action (+ errnoRet) -> libseccomp action. errnoRet defaults to EPERM
 * and is only meaningful for ERRNO and TRACE (as runc). */
static int action_of(enum oci_seccomp_action a, bool has_errno, uint32_t errno_ret,
		     uint32_t *out, struct error *err, const char *where)
{
	uint32_t ret = has_errno ? errno_ret : EPERM;

	if (has_errno && a != OCI_SECCOMP_ERRNO && a != OCI_SECCOMP_TRACE)
		return error_set(err, EINVAL, "%s: errnoRet is only valid with SCMP_ACT_ERRNO or "
				 "SCMP_ACT_TRACE, not %s", where, action_names[a]);
	if (ret > 0xffff)
		return error_set(err, EINVAL, "%s: errnoRet %u out of range", where, ret);
	switch (a) {
	case OCI_SECCOMP_KILL:         *out = SCMP_ACT_KILL; return 0;
	case OCI_SECCOMP_KILL_PROCESS: *out = SCMP_ACT_KILL_PROCESS; return 0;
	case OCI_SECCOMP_KILL_THREAD:  *out = SCMP_ACT_KILL_THREAD; return 0;
	case OCI_SECCOMP_TRAP:         *out = SCMP_ACT_TRAP; return 0;
	case OCI_SECCOMP_ERRNO:        *out = SCMP_ACT_ERRNO(ret); return 0;
	case OCI_SECCOMP_TRACE:        *out = SCMP_ACT_TRACE(ret); return 0;
	case OCI_SECCOMP_ALLOW:        *out = SCMP_ACT_ALLOW; return 0;
	case OCI_SECCOMP_LOG:          *out = SCMP_ACT_LOG; return 0;
	case OCI_SECCOMP_NOTIFY:       *out = SCMP_ACT_NOTIFY; return 0;
	}
	return error_set(err, EINVAL, "%s: unknown action %d", where, (int)a);
}

static int op_of(enum oci_seccomp_op op, enum scmp_compare *out)
{
	switch (op) {
	case OCI_SECCOMP_OP_NE:        *out = SCMP_CMP_NE; return 0;
	case OCI_SECCOMP_OP_LT:        *out = SCMP_CMP_LT; return 0;
	case OCI_SECCOMP_OP_LE:        *out = SCMP_CMP_LE; return 0;
	case OCI_SECCOMP_OP_EQ:        *out = SCMP_CMP_EQ; return 0;
	case OCI_SECCOMP_OP_GE:        *out = SCMP_CMP_GE; return 0;
	case OCI_SECCOMP_OP_GT:        *out = SCMP_CMP_GT; return 0;
	case OCI_SECCOMP_OP_MASKED_EQ: *out = SCMP_CMP_MASKED_EQ; return 0;
	}
	return -EINVAL;
}

bool seccomp_uses_notify(const struct oci_seccomp *s)
{
	if (s->default_action == OCI_SECCOMP_NOTIFY)
		return true;
	for (size_t i = 0; i < s->n_syscalls; i++)
		if (s->syscalls[i].action == OCI_SECCOMP_NOTIFY)
			return true;
	return false;
}

/* ---- flags -------------------------------------------------------------- */

static const struct { const char *name; unsigned int bit; } flag_names[] = {
	{ "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
	{ "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
};

/* A known flag with a NULL program fails with EFAULT; an unknown one with
 * EINVAL before the program is read. Nothing is installed either way. */
static bool kernel_has_flags(unsigned int flags)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

int seccomp_flags_of(const struct oci_seccomp *s, bool notify, unsigned int *out,
		     void (*debug)(const char *msg), struct error *err)
{
	unsigned int flags = 0;

	for (size_t i = 0; i < s->n_flags; i++) {
		size_t k;
		for (k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++)
			if (strcmp(s->flags[i], flag_names[k].name) == 0)
				break;
		if (k == sizeof(flag_names) / sizeof(flag_names[0]))
			return error_set(err, EINVAL, CTX ".flags[%zu]: unknown flag \"%s\"", i, s->flags[i]);
		unsigned int bit = flag_names[k].bit;
		unsigned int probe = bit;
		if (bit == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) {
			if (!notify) {   /* the kernel takes it only with a listener */
				if (debug)
					debug("seccomp: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV ignored: no SCMP_ACT_NOTIFY rule");
				continue;
			}
			probe |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		}
		if (!kernel_has_flags(probe))
			return error_set(err, EINVAL, CTX ".flags[%zu]: %s is not supported by the running kernel",
					 i, s->flags[i]);
		flags |= bit;
	}
	/* TSYNC and a listener together need TSYNC_ESRCH (the return value is the fd) */
	if (notify && (flags & SECCOMP_FILTER_FLAG_TSYNC)) {
		if (!kernel_has_flags(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
			return error_set(err, EINVAL, CTX ".flags: SECCOMP_FILTER_FLAG_TSYNC with "
					 "SCMP_ACT_NOTIFY needs a kernel with TSYNC_ESRCH (5.7)");
		flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	}
	*out = flags;
	return 0;
}

/* ---- rules -------------------------------------------------------------- */

#define MAX_ARCHES 32

/* The filter's architectures: the native one (libseccomp keeps it) and the
 * profile's, as libseccomp tokens in arches[] for the -ENOSYS stub. */
struct arch_list {
	uint32_t arches[MAX_ARCHES];
	size_t n;
};

static void arch_note(struct arch_list *al, uint32_t arch)
{
	for (size_t i = 0; i < al->n; i++)
		if (al->arches[i] == arch)
			return;
	if (al->n < MAX_ARCHES)
		al->arches[al->n++] = arch;
}

static int arch_add(scmp_filter_ctx ctx, const struct oci_seccomp *s, struct arch_list *al, struct error *err)
{
	arch_note(al, seccomp_arch_native());
	for (size_t i = 0; i < s->n_architectures; i++) {
		const char *name = s->architectures[i];
		char lower[32];
		size_t n = 0;

		if (strncmp(name, "SCMP_ARCH_", 10) == 0)
			name += 10;
		for (; name[n] && n < sizeof(lower) - 1; n++)
			lower[n] = (char)tolower((unsigned char)name[n]);
		lower[n] = '\0';
		uint32_t arch = seccomp_arch_resolve_name(lower);
		if (arch == 0)
			return error_set(err, EINVAL, CTX ".architectures[%zu]: unknown architecture \"%s\"",
					 i, s->architectures[i]);
		int r = seccomp_arch_add(ctx, arch);
		if (r < 0 && r != -EEXIST)
			return error_sys(err, -r, CTX ".architectures[%zu]: %s", i, s->architectures[i]);
		arch_note(al, arch);
	}
	return 0;
}

static bool args_share_index(const struct oci_seccomp_rule *rule)
{
	for (size_t i = 0; i < rule->n_args; i++)
		for (size_t k = i + 1; k < rule->n_args; k++)
			if (rule->args[i].index == rule->args[k].index)
				return true;
	return false;
}

static int cmp_of(const struct oci_seccomp_arg *a, struct scmp_arg_cmp *c, struct error *err,
		  const char *where, size_t i)
{
	if (a->index > 5)
		return error_set(err, EINVAL, "%s.args[%zu].index: %u is not 0..5", where, i, a->index);
	if (op_of(a->op, &c->op) < 0)
		return error_set(err, EINVAL, "%s.args[%zu].op: unknown operator %d", where, i, (int)a->op);
	c->arg = a->index;
	c->datum_a = a->value;      /* MASKED_EQ: value is the mask ... */
	c->datum_b = a->value_two;  /* ... and valueTwo the expected result */
	return 0;
}

/* Conditions on distinct arguments are AND-ed in one rule. When several
 * share an argument, each condition becomes a rule of its own (OR-ed): what
 * runc does and what profiles written for it expect. */
static int rule_add_one(scmp_filter_ctx ctx, uint32_t act, int nr, const struct oci_seccomp_rule *rule,
			struct error *err, const char *where, const char *name)
{
	struct scmp_arg_cmp cmp[6];
	int r = 0;

	if (args_share_index(rule)) {
		for (size_t i = 0; i < rule->n_args && r == 0; i++) {
			if ((r = cmp_of(&rule->args[i], &cmp[0], err, where, i)) < 0)
				return r;
			r = seccomp_rule_add_array(ctx, act, nr, 1, cmp);
		}
	} else {
		if (rule->n_args > 6)   /* distinct indexes: some is past 5 */
			return error_set(err, EINVAL, "%s.args: %zu conditions on 6 arguments", where, rule->n_args);
		for (size_t i = 0; i < rule->n_args; i++)
			if ((r = cmp_of(&rule->args[i], &cmp[i], err, where, i)) < 0)
				return r;
		r = seccomp_rule_add_array(ctx, act, nr, (unsigned)rule->n_args, cmp);
	}
	if (r < 0)
		return error_sys(err, -r, "%s: adding rule for \"%s\"", where, name);
	return 0;
}

static void note(void (*debug)(const char *), struct seccomp_skipped *skipped, const char *name)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "seccomp: unknown syscall \"%s\" skipped", name);
	if (debug)
		debug(msg);
	seccomp_skipped_add(skipped, name);
}

static int rules_add(scmp_filter_ctx ctx, const struct oci_seccomp *s, uint32_t def,
		     void (*debug)(const char *), struct seccomp_skipped *skipped, struct error *err)
{
	char where[64];

	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct oci_seccomp_rule *rule = &s->syscalls[i];
		uint32_t act;
		int r;

		snprintf(where, sizeof(where), CTX ".syscalls[%zu]", i);
		r = action_of(rule->action, rule->has_errno_ret, rule->errno_ret, &act, err, where);
		if (r < 0)
			return r;
		for (size_t k = 0; k < rule->n_names && act == SCMP_ACT_NOTIFY; k++)
			if (strcmp(rule->names[k], "write") == 0)   /* runc's rule */
				return error_set(err, EINVAL, "%s: SCMP_ACT_NOTIFY cannot be used for the write "
						 "syscall (the runtime writes the notify fd through it)", where);
		if (act == def)   /* libseccomp refuses it; it changes nothing anyway */
			continue;
		for (size_t k = 0; k < rule->n_names; k++) {
			int nr = seccomp_syscall_resolve_name(rule->names[k]);
			if (nr == __NR_SCMP_ERROR) {
				note(debug, skipped, rule->names[k]);
				continue;
			}
			r = rule_add_one(ctx, act, nr, rule, err, where, rule->names[k]);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- export ------------------------------------------------------------- */

/* libseccomp 2.5 only exports to an fd: go through a memfd. */
static int export_bpf(scmp_filter_ctx ctx, struct seccomp_prog *out, struct error *err)
{
	struct stat st;
	int fd, r;

	fd = memfd_create("tinyrun-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error_sys(err, errno, "seccomp: memfd_create");
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0) {
		r = error_sys(err, -r, "seccomp: exporting the BPF program");
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = error_sys(err, errno, "seccomp: fstat memfd");
		goto out;
	}
	size_t n = (size_t)st.st_size / sizeof(struct sock_filter);
	if (n == 0 || (size_t)st.st_size % sizeof(struct sock_filter) != 0) {
		r = error_set(err, EINVAL, "seccomp: libseccomp exported %lld bytes, not a BPF program",
			      (long long)st.st_size);
		goto out;
	}
	if (n > BPF_MAXINSNS) {
		r = error_set(err, E2BIG, "seccomp: the filter has %zu instructions, the kernel takes at most %d",
			      n, BPF_MAXINSNS);
		goto out;
	}
	out->filter = malloc((size_t)st.st_size);
	if (!out->filter) {
		r = error_set(err, ENOMEM, "seccomp: out of memory");
		goto out;
	}
	if (pread(fd, out->filter, (size_t)st.st_size, 0) != st.st_size) {
		r = error_sys(err, errno ? errno : EIO, "seccomp: reading the BPF program back");
		free(out->filter);
		out->filter = NULL;
		goto out;
	}
	out->len = (unsigned short)n;
	r = 0;
out:
	close(fd);
	return r;
}

/* runc's -ENOSYS stub in front of the program (enosys.c). */
static int prepend_enosys_stub(const struct oci_seccomp *s, const struct arch_list *al,
			       struct seccomp_prog *out, struct error *err)
{
	struct sock_filter *stub, *all;
	size_t n;
	int r;

	if (!seccomp_needs_enosys_stub(s))
		return 0;
	if ((r = seccomp_enosys_stub(s, al->arches, al->n, &stub, &n)) < 0)
		return error_sys(err, -r, "seccomp: building the -ENOSYS stub");
	if (n + out->len > BPF_MAXINSNS) {
		free(stub);
		return error_set(err, E2BIG, "seccomp: the filter has %zu instructions, the kernel takes at most %d",
				 n + out->len, BPF_MAXINSNS);
	}
	if (!(all = realloc(stub, (n + out->len) * sizeof(*all)))) {
		free(stub);
		return error_set(err, ENOMEM, "seccomp: out of memory");
	}
	memcpy(all + n, out->filter, out->len * sizeof(*all));
	free(out->filter);
	out->filter = all;
	out->len = (unsigned short)(n + out->len);
	return 0;
}

/* Build the BPF program for `s` (no cache). Skipped syscall names are sent
 * to `debug` and collected in `skipped`. */
int seccomp_build(const struct oci_seccomp *s, void (*debug)(const char *msg),
		  struct seccomp_skipped *skipped, struct seccomp_prog *out, struct error *err)
{
	struct arch_list al = { .n = 0 };
	scmp_filter_ctx ctx;
	uint32_t def;
	int r;

	if (s->default_action == OCI_SECCOMP_NOTIFY)
		return error_set(err, EINVAL, CTX ".defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
	r = action_of(s->default_action, s->has_default_errno_ret, s->default_errno_ret, &def, err,
		      CTX ".defaultAction");
	if (r < 0)
		return r;
	ctx = seccomp_init(def);
	if (!ctx)
		return error_set(err, EINVAL, CTX ".defaultAction: libseccomp refused %s",
				 action_names[s->default_action]);
	/* binary search over syscall numbers: shorter paths through big allow-lists */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	/* a syscall of an architecture the profile does not list (an x32 number
	 * on x86_64): the whole process dies by SIGSYS, not just its thread */
	seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	r = arch_add(ctx, s, &al, err);
	if (r == 0)
		r = rules_add(ctx, s, def, debug, skipped, err);
	if (r == 0)
		r = export_bpf(ctx, out, err);
	seccomp_release(ctx);
	if (r == 0 && (r = prepend_enosys_stub(s, &al, out, err)) < 0)
		seccomp_prog_free(out);
	return r;
}

void seccomp_prog_free(struct seccomp_prog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}
