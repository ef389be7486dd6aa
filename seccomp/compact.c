/* Fewer instructions, the same verdicts: libseccomp's binary tree ends in
 * chains of "jeq K -> T, else the next" (up to eight syscall numbers a leaf),
 * and a run of consecutive numbers with one target there (0x1c5 0x1c6 0x1c7
 * 0x1c8 -> ALLOW) is one range test of two instructions. Every start pays
 * for each instruction the kernel checks, converts and JITs (seccomp(2) was
 * ~4% of a container start's CPU at 987 instructions), a cache hit included.
 *
 * A chain is rewritten only where that is an identity for every value of
 * the accumulator: each instruction a "jeq #K" whose false branch is the
 * next one, reached from nowhere but its predecessor's false branch (so the
 * accumulator is the same all along), the first match of equal Ks kept.
 * The program is then run against the original (seccomp_compact_same) on
 * every syscall number of the filter's architectures and beyond, with
 * arguments from the program's own constants; any difference, an opcode
 * the check does not know, or a jump out of reach keeps the original. */
#include "seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IS_JEQ_K(f) ((f).code == (BPF_JMP | BPF_JEQ | BPF_K))

struct ins {                   /* an instruction of the new program */
	struct sock_filter f;
	long t, e;             /* old absolute targets (jt / jf, or ja's), -1: f's own offsets */
};

struct pair {
	uint32_t k;
	long t;                /* old absolute target */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

static bool is_jump(const struct sock_filter *f)
{
	return BPF_CLASS(f->code) == BPF_JMP;
}

static bool is_ja(const struct sock_filter *f)
{
	return f->code == (BPF_JMP | BPF_JA);
}

/* How many edges lead to each instruction (jumps and fall-throughs). */
static int *predecessors(const struct sock_filter *p, size_t n)
{
	int *pred = calloc(n + 1, sizeof(*pred));

	if (!pred)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct sock_filter *f = &p[i];

		if (BPF_CLASS(f->code) == BPF_RET)
			continue;
		if (!is_jump(f)) {
			pred[i + 1 < n ? i + 1 : n]++;
		} else if (is_ja(f)) {
			size_t t = i + 1 + f->k;
			pred[t < n ? t : n]++;
		} else {
			size_t t = i + 1 + f->jt, e = i + 1 + f->jf;
			pred[t < n ? t : n]++;
			pred[e < n ? e : n]++;
		}
	}
	return pred;
}

/* Append the tests of one chain (its pairs sorted by k, duplicates gone)
 * falling to old target `dflt`; the new instructions' count. */
static size_t emit_chain(const struct pair *pr, size_t np, long dflt, struct ins *out)
{
	size_t m = 0;

	for (size_t a = 0, b; a < np; a = b) {
		for (b = a + 1; b < np && pr[b].k == pr[b - 1].k + 1 && pr[b].t == pr[a].t; b++)
			;
		bool last = b == np;

		if (b - a >= 3) {   /* k in [lo, hi] -> t: above hi to the next test */
			out[m++] = (struct ins){ { BPF_JMP | BPF_JGT | BPF_K, 1, 0, pr[b - 1].k }, last ? dflt : -1, -1 };
			out[m++] = (struct ins){ { BPF_JMP | BPF_JGE | BPF_K, 0, 0, pr[a].k }, pr[a].t, last ? dflt : -1 };
		} else {
			for (size_t i = a; i < b; i++)
				out[m++] = (struct ins){ { BPF_JMP | BPF_JEQ | BPF_K, 0, 0, pr[i].k }, pr[i].t,
							 last && i + 1 == b ? dflt : -1 };
		}
	}
	return m;
}

/* Where the old chain p[i..j] sends the accumulator value a. */
static long old_chain(const struct sock_filter *p, size_t i, size_t j, uint32_t a)
{
	for (size_t c = i; c <= j; c++)
		if (a == p[c].k)
			return (long)(c + 1 + p[c].jt);
	return (long)(j + 1 + p[j].jf);
}

/* Where the new tests ni[0..m) send it (an old target), -1 if they fall off. */
static long new_chain(const struct ins *ni, size_t m, uint32_t a)
{
	for (size_t pc = 0; pc < m;) {
		const struct sock_filter *f = &ni[pc].f;
		bool c = BPF_OP(f->code) == BPF_JEQ ? a == f->k : BPF_OP(f->code) == BPF_JGT ? a > f->k : a >= f->k;
		long abs = c ? ni[pc].t : ni[pc].e;

		if (abs >= 0)
			return abs;
		pc += 1 + (c ? f->jt : f->jf);
	}
	return -1;
}

/* Both compare the accumulator with the chain's constants only, so they are
 * constant between two of them: the constants, their neighbours, 0 and
 * UINT32_MAX try every piece. */
static bool chain_same(const struct sock_filter *p, size_t i, size_t j, const struct ins *ni, size_t m)
{
	uint32_t edge[] = { 0, UINT32_MAX };

	for (size_t k = 0; k < 2; k++)
		if (old_chain(p, i, j, edge[k]) != new_chain(ni, m, edge[k]))
			return false;
	for (size_t c = i; c <= j; c++)
		for (uint32_t d = (uint32_t)-1, x = 0; x < 3; d++, x++)
			if (old_chain(p, i, j, p[c].k + d) != new_chain(ni, m, p[c].k + d))
				return false;
	return true;
}

/* The rewritten program in *out (malloc'd), or -errno / -E2BIG (no gain or out of reach). */
static int rewrite(const struct sock_filter *p, size_t n, struct sock_filter **out, size_t *out_n)
{
	int *pred = predecessors(p, n);
	long *map = calloc(n + 1, sizeof(*map));
	struct ins *ni = calloc(n, sizeof(*ni));
	struct pair *pr = calloc(n, sizeof(*pr));
	struct sock_filter *res = NULL;
	size_t m = 0;
	int r = -E2BIG;

	if (!pred || !map || !ni || !pr) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		if (IS_JEQ_K(p[i]) && p[i].jt != 0)
			while (j + 1 < n && p[j].jf == 0 && IS_JEQ_K(p[j + 1]) && p[j + 1].jt != 0 && pred[j + 1] == 1)
				j++;
		if (j - i + 1 < 3) {   /* not a chain worth a look: copied */
			for (; i <= j; i++) {
				map[i] = (long)m;
				ni[m].f = p[i];
				if (is_ja(&p[i]))
					ni[m].t = (long)(i + 1 + p[i].k), ni[m].e = -1;
				else if (is_jump(&p[i]))
					ni[m].t = (long)(i + 1 + p[i].jt), ni[m].e = (long)(i + 1 + p[i].jf);
				else
					ni[m].t = ni[m].e = -1;
				m++;
			}
			continue;
		}
		size_t np = 0;

		for (size_t c = i; c <= j; c++) {
			bool dup = false;

			for (size_t d = 0; d < np && !dup; d++)
				dup = pr[d].k == p[c].k;
			if (!dup)   /* the first jeq of a value decides; a later one is dead */
				pr[np++] = (struct pair){ p[c].k, (long)(c + 1 + p[c].jt) };
		}
		qsort(pr, np, sizeof(*pr), cmp_pair);
		for (size_t c = i; c <= j; c++)
			map[c] = (long)m;
		size_t add = emit_chain(pr, np, (long)(j + 1 + p[j].jf), ni + m);

		if (!chain_same(p, i, j, ni + m, add))
			goto out;
		m += add;
		i = j + 1;
	}
	map[n] = (long)m;
	if (m >= n)
		goto out;
	if (!(res = malloc(m * sizeof(*res)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m; i++) {
		struct sock_filter f = ni[i].f;

		if (ni[i].t >= (long)n || ni[i].e >= (long)n)
			goto out;   /* off the end: not a program the kernel takes */
		if (is_ja(&f)) {
			long off = map[ni[i].t] - (long)i - 1;
			if (off < 0)
				goto out;
			f.k = (uint32_t)off;
		} else if (is_jump(&f)) {
			long t = ni[i].t < 0 ? (long)i + 1 + f.jt : map[ni[i].t];
			long e = ni[i].e < 0 ? (long)i + 1 + f.jf : map[ni[i].e];

			if (t - (long)i - 1 < 0 || t - (long)i - 1 > 255 || e - (long)i - 1 < 0 || e - (long)i - 1 > 255)
				goto out;   /* a jump only BPF_JA could make: keep the original */
			f.jt = (uint8_t)(t - (long)i - 1);
			f.jf = (uint8_t)(e - (long)i - 1);
		}
		res[i] = f;
	}
	*out = res;
	*out_n = m;
	res = NULL;
	r = 0;
out:
	free(res);
	free(pred);
	free(map);
	free(ni);
	free(pr);
	return r;
}

/* ---- the check: both programs run on the same seccomp_data ------------- */

#define RUN_UNKNOWN 0xdeadbeefdeadbeefULL

/* The classic BPF of a seccomp filter (the kernel's seccomp_check_filter
 * subset); RUN_UNKNOWN for anything else. *args: an argument was loaded. */
static uint64_t run(const struct sock_filter *p, size_t n, const struct seccomp_data *d, bool *args)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	const unsigned char *raw = (const unsigned char *)d;

	for (size_t pc = 0, steps = 0; pc < n && steps <= n; steps++) {
		const struct sock_filter *f = &p[pc++];
		uint32_t k = f->k, src = BPF_SRC(f->code) == BPF_X ? X : k;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k >= sizeof(*d) || (k & 3))
				return RUN_UNKNOWN;
			if (k >= offsetof(struct seccomp_data, args))
				*args = true;
			memcpy(&A, raw + k, 4);
			continue;
		case BPF_LD | BPF_W | BPF_LEN: A = sizeof(*d); continue;
		case BPF_LDX | BPF_W | BPF_LEN: X = sizeof(*d); continue;
		case BPF_LD | BPF_IMM: A = k; continue;
		case BPF_LDX | BPF_IMM: X = k; continue;
		case BPF_MISC | BPF_TAX: X = A; continue;
		case BPF_MISC | BPF_TXA: A = X; continue;
		case BPF_LD | BPF_MEM: if (k >= BPF_MEMWORDS) return RUN_UNKNOWN; A = M[k]; continue;
		case BPF_LDX | BPF_MEM: if (k >= BPF_MEMWORDS) return RUN_UNKNOWN; X = M[k]; continue;
		case BPF_ST: if (k >= BPF_MEMWORDS) return RUN_UNKNOWN; M[k] = A; continue;
		case BPF_STX: if (k >= BPF_MEMWORDS) return RUN_UNKNOWN; M[k] = X; continue;
		case BPF_RET | BPF_K: return k;
		case BPF_RET | BPF_A: return A;
		case BPF_JMP | BPF_JA: pc += k; continue;
		}
		if (BPF_CLASS(f->code) == BPF_ALU) {
			switch (BPF_OP(f->code)) {
			case BPF_ADD: A += src; break;
			case BPF_SUB: A -= src; break;
			case BPF_MUL: A *= src; break;
			case BPF_DIV: if (!src) return RUN_UNKNOWN; A /= src; break;
			case BPF_MOD: if (!src) return RUN_UNKNOWN; A %= src; break;
			case BPF_AND: A &= src; break;
			case BPF_OR: A |= src; break;
			case BPF_XOR: A ^= src; break;
			case BPF_LSH: A = src < 32 ? A << src : 0; break;
			case BPF_RSH: A = src < 32 ? A >> src : 0; break;
			case BPF_NEG: A = -A; break;
			default: return RUN_UNKNOWN;
			}
			continue;
		}
		if (BPF_CLASS(f->code) == BPF_JMP) {
			bool c;

			switch (BPF_OP(f->code)) {
			case BPF_JEQ: c = A == src; break;
			case BPF_JGT: c = A > src; break;
			case BPF_JGE: c = A >= src; break;
			case BPF_JSET: c = (A & src) != 0; break;
			default: return RUN_UNKNOWN;
			}
			pc += c ? f->jt : f->jf;
			continue;
		}
		return RUN_UNKNOWN;
	}
	return RUN_UNKNOWN;   /* ran off the end */
}

/* The constants the program compares an argument with (after a load of
 * one, before the next load of anything else), and their neighbours: the
 * argument values tried. */
static size_t constants(const struct sock_filter *p, size_t n, uint32_t *c, size_t max)
{
	bool arg = false;
	size_t m = 0;

	c[m++] = 0;
	c[m++] = UINT32_MAX;
	for (size_t i = 0; i < n && m + 3 <= max; i++) {
		if (p[i].code == (BPF_LD | BPF_W | BPF_ABS))
			arg = p[i].k >= offsetof(struct seccomp_data, args);
		if (!arg || (BPF_CLASS(p[i].code) != BPF_JMP && BPF_CLASS(p[i].code) != BPF_ALU))
			continue;
		c[m++] = p[i].k;
		c[m++] = p[i].k + 1;
		c[m++] = p[i].k - 1;
	}
	return m;
}

static bool same_on(const struct sock_filter *a, size_t na, const struct sock_filter *b, size_t nb,
		    struct seccomp_data *d, const uint32_t *c, size_t nc)
{
	bool used_a = false, used_b = false;
	uint64_t ra = run(a, na, d, &used_a), rb = run(b, nb, d, &used_b);

	if (ra == RUN_UNKNOWN || ra != rb)
		return false;
	if (!used_a && !used_b)
		return true;   /* the arguments do not matter to this number */
	for (size_t i = 0; i < 2 * nc && ra != RUN_UNKNOWN && ra == rb; i++) {
		/* all six arguments one of the constants, the high half 0 or all ones */
		for (int x = 0; x < 6; x++)
			d->args[x] = (uint64_t)(i & 1 ? UINT32_MAX : 0) << 32 | c[i / 2];
		ra = run(a, na, d, &used_a);
		rb = run(b, nb, d, &used_b);
	}
	memset(d->args, 0, sizeof(d->args));
	return ra != RUN_UNKNOWN && ra == rb;
}

/* The architectures the program tests (and one it does not: 0), and the
 * highest syscall number it compares with (x32's bit aside). */
static size_t arches_and_top(const struct sock_filter *p, size_t n, uint32_t *arch, size_t max, uint32_t *top)
{
	uint32_t loaded = UINT32_MAX;
	size_t m = 0;

	arch[m++] = 0;
	*top = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i].code == (BPF_LD | BPF_W | BPF_ABS)) {
			loaded = p[i].k;
			continue;
		}
		if (BPF_CLASS(p[i].code) != BPF_JMP || BPF_OP(p[i].code) == BPF_JA || BPF_SRC(p[i].code) != BPF_K)
			continue;
		if (loaded == offsetof(struct seccomp_data, arch)) {
			bool seen = false;

			for (size_t a = 0; a < m; a++)
				seen |= arch[a] == p[i].k;
			if (!seen && m < max)
				arch[m++] = p[i].k;
		} else if (loaded == offsetof(struct seccomp_data, nr)) {
			uint32_t nr = p[i].k & ~0x40000000u;

			if (nr < 0x10000 && nr > *top)
				*top = nr;
		}
	}
	return m;
}

/* Every number up to the highest the program names (and two past it), with
 * and without x32's bit, and a few far ones, on each architecture it tests;
 * the arguments from its constants where a number's path loads one. */
bool seccomp_compact_same(const struct sock_filter *a, size_t na, const struct sock_filter *b, size_t nb)
{
	static const uint32_t high[] = { 0x10000u, 0x3fffffffu, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu };
	uint32_t c[3 * 128], arch[8], top;
	size_t nc = constants(a, na, c, sizeof(c) / sizeof(c[0]));
	size_t narch = arches_and_top(a, na, arch, sizeof(arch) / sizeof(arch[0]), &top);
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	for (size_t ai = 0; ai < narch; ai++) {
		d.arch = arch[ai];
		for (uint32_t nr = 0; nr <= top + 2; nr++)
			for (int x32 = 0; x32 < 2; x32++) {
				d.nr = (int)(nr | (x32 ? 0x40000000u : 0));
				if (!same_on(a, na, b, nb, &d, c, nc))
					return false;
			}
		for (size_t i = 0; i < sizeof(high) / sizeof(high[0]); i++) {
			d.nr = (int)high[i];
			if (!same_on(a, na, b, nb, &d, c, nc))
				return false;
		}
	}
	return true;
}

void seccomp_compact(struct seccomp_prog *prog)
{
	struct sock_filter *res;
	size_t n;

	if (rewrite(prog->filter, prog->len, &res, &n) < 0)
		return;
	if (!seccomp_compact_same(prog->filter, prog->len, res, n)) {
		free(res);
		return;
	}
	free(prog->filter);
	prog->filter = res;
	prog->len = (unsigned short)n;
}
