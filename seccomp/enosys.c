/* The -ENOSYS stub put in front of the libseccomp program, as runc does:
 * on each architecture of the filter, a syscall numbered above every
 * syscall the profile names gets -ENOSYS instead of the default action, so
 * a libc that tries a new syscall (clone3, faccessat2, ...) falls back to
 * the old one, and a syscall the kernel does not have fails as it would
 * without a filter. Only with a default action that denies (errno other
 * than ENOSYS, kill, trap): allow, log and trace need none.
 *
 * Layout (jumps forward only; the libseccomp program follows the stub and
 * loads what it needs itself):
 *     ld arch; jeq A1 -> S1; jeq A2 -> S2; ...; ja FILTER
 *     S_i: ld nr; [s390: jeq 0 -> ENOSYS]; jgt max -> ENOSYS; ja FILTER
 *     S_x86_64: ld nr; jset 0x40000000 -> x32 part; amd64 part; x32 part
 *     ENOSYS: ret ERRNO(ENOSYS)
 *     FILTER: the libseccomp program */
#include "seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define X32_BIT 0x40000000u
#define MAX_STUB 512
#define LABEL_ENOSYS (-1)
#define LABEL_FILTER (-2)

struct stub {
	struct sock_filter ins[MAX_STUB];
	int target[MAX_STUB];       /* ja: LABEL_*; else 0 */
	size_t n;
};

static void emit(struct stub *st, struct sock_filter f, int target)
{
	if (st->n < MAX_STUB) {
		st->target[st->n] = target;
		st->ins[st->n++] = f;
	}
}

static void ja(struct stub *st, int label)
{
	emit(st, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0), label);
}

/* nr > max -> ENOSYS, else the filter */
static void above(struct stub *st, uint32_t max)
{
	emit(st, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, max, 0, 1), 0);
	ja(st, LABEL_ENOSYS);
	ja(st, LABEL_FILTER);
}

/* The highest syscall number the profile names on `arch`, 0 if none. */
static uint32_t last_syscall(const struct oci_seccomp *s, uint32_t arch)
{
	uint32_t max = 0;

	for (size_t i = 0; i < s->n_syscalls; i++)
		for (size_t k = 0; k < s->syscalls[i].n_names; k++) {
			int nr = seccomp_syscall_resolve_name_arch(arch, s->syscalls[i].names[k]);
			if (nr >= 0 && (uint32_t)nr > max)
				max = (uint32_t)nr;
		}
	return max;
}

bool seccomp_needs_enosys_stub(const struct oci_seccomp *s)
{
	switch (s->default_action) {
	case OCI_SECCOMP_ALLOW:
	case OCI_SECCOMP_LOG:
	case OCI_SECCOMP_TRACE:
	case OCI_SECCOMP_NOTIFY:
		return false;
	case OCI_SECCOMP_ERRNO:
		return !(s->has_default_errno_ret && s->default_errno_ret == ENOSYS);
	default:
		return true;
	}
}

/* One section per audit arch; x86_64 and x32 share AUDIT_ARCH_X86_64. */
static void section(struct stub *st, const struct oci_seccomp *s, uint32_t audit, const uint32_t *arches,
		   size_t n)
{
	uint32_t amd64 = 0, x32 = 0, max = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t last = last_syscall(s, arches[i]);
		if (arches[i] == SCMP_ARCH_X32)
			x32 = last;
		else if (arches[i] == SCMP_ARCH_X86_64)
			amd64 = last;
		else if (arches[i] == audit && last > max)
			max = last;
	}
	emit(st, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)), 0);
	if (audit == AUDIT_ARCH_X86_64) {
		size_t amd64_len = amd64 ? 3 : 1;
		emit(st, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, X32_BIT, (uint8_t)amd64_len, 0), 0);
		if (amd64)
			above(st, amd64);
		else
			ja(st, LABEL_FILTER);
		if (x32)
			above(st, x32);
		else
			ja(st, LABEL_FILTER);
		return;
	}
	/* s390: an unknown syscall number reaches the filter as 0 (setup) */
	if (audit == AUDIT_ARCH_S390 || audit == AUDIT_ARCH_S390X) {
		emit(st, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1), 0);
		ja(st, LABEL_ENOSYS);
	}
	if (max)
		above(st, max);
	else
		ja(st, LABEL_FILTER);
}

static uint32_t audit_of(uint32_t arch)
{
	return arch == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : arch;
}

int seccomp_enosys_stub(const struct oci_seccomp *s, const uint32_t *arches, size_t n,
			struct sock_filter **out, size_t *n_out)
{
	struct stub *st = calloc(1, sizeof(*st));
	uint32_t audits[64];
	size_t start[64], jeq[64], n_audits = 0, i, k;

	if (!st)
		return -ENOMEM;
	for (i = 0; i < n && n_audits < 64; i++) {
		uint32_t a = audit_of(arches[i]);
		for (k = 0; k < n_audits && audits[k] != a; k++)
			;
		if (k == n_audits)
			audits[n_audits++] = a;
	}
	emit(st, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), 0);
	for (i = 0; i < n_audits; i++) {
		jeq[i] = st->n;
		emit(st, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audits[i], 0, 0), 0);
	}
	ja(st, LABEL_FILTER);
	for (i = 0; i < n_audits; i++) {
		start[i] = st->n;
		section(st, s, audits[i], arches, n);
	}
	emit(st, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS), 0);
	if (st->n >= MAX_STUB) {
		free(st);
		return -E2BIG;
	}
	for (i = 0; i < n_audits; i++) {
		size_t d = start[i] - jeq[i] - 1;
		if (d > 255) {
			free(st);
			return -E2BIG;
		}
		st->ins[jeq[i]].jt = (uint8_t)d;
	}
	for (i = 0; i < st->n; i++)   /* ENOSYS is the stub's last instruction, FILTER the next */
		if (st->target[i])
			st->ins[i].k = (uint32_t)((st->target[i] == LABEL_ENOSYS ? st->n - 1 : st->n) - i - 1);
	*out = malloc(st->n * sizeof(**out));
	if (!*out) {
		free(st);
		return -ENOMEM;
	}
	memcpy(*out, st->ins, st->n * sizeof(**out));
	*n_out = st->n;
	free(st);
	return 0;
}
