/* cgroup v2 device control: a BPF_PROG_TYPE_CGROUP_DEVICE program built by
 * hand from the rule list, attached to the container's cgroup.
 *
 * The program walks the rules from the last to the first (the last matching
 * rule decides) and decides per access bit: r6 holds the requested bits no
 * rule has decided yet. A matching deny rule that covers one of them denies;
 * a matching allow rule clears the bits it covers and allows once none is
 * left. A catch-all rule ("a *:* rwm") ends the walk and gives the default;
 * without one, the default is deny.
 *
 *   r2 = type (BPF_DEVCG_DEV_*), r3 = access (BPF_DEVCG_ACC_*), r4 = major,
 *   r5 = minor, r6 = undecided access bits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/cgroup/internal.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LDX_W(dst, src, off)  INSN(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define ALU32_K(op, dst, imm) INSN(BPF_ALU | (op) | BPF_K, dst, 0, 0, imm)
#define MOV32_X(dst, src)     INSN(BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV64_X(dst, src)     INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define JMP_K(op, dst, imm, off) INSN(BPF_JMP | (op) | BPF_K, dst, 0, off, imm)
#define EXIT_INSN()           INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define RWM (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD)

static bool is_catch_all(const struct cg_dev_rule *r)
{
	return r->type == 'a' && r->major < 0 && r->minor < 0 && r->access == RWM;
}

/* Emit one rule's block; returns the number of instructions. */
static size_t emit_rule(struct bpf_insn *p, const struct cg_dev_rule *r)
{
	int n_cond = (r->type != 'a') + (r->major >= 0) + (r->minor >= 0);
	int body = r->allow ? 4 : 5;
	size_t k = 0;

	if (r->type != 'a')
		p[k++] = JMP_K(BPF_JNE, BPF_REG_2, r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR,
			       --n_cond + body);
	if (r->major >= 0)
		p[k++] = JMP_K(BPF_JNE, BPF_REG_4, (int32_t)r->major, --n_cond + body);
	if (r->minor >= 0)
		p[k++] = JMP_K(BPF_JNE, BPF_REG_5, (int32_t)r->minor, --n_cond + body);
	if (r->allow) {
		p[k++] = ALU32_K(BPF_AND, BPF_REG_6, (int32_t)(~r->access & RWM));
		p[k++] = JMP_K(BPF_JNE, BPF_REG_6, 0, 2);
		p[k++] = ALU32_K(BPF_MOV, BPF_REG_0, 1);
		p[k++] = EXIT_INSN();
	} else {
		p[k++] = MOV32_X(BPF_REG_1, BPF_REG_6);
		p[k++] = ALU32_K(BPF_AND, BPF_REG_1, (int32_t)r->access);
		p[k++] = JMP_K(BPF_JEQ, BPF_REG_1, 0, 2);
		p[k++] = ALU32_K(BPF_MOV, BPF_REG_0, 0);
		p[k++] = EXIT_INSN();
	}
	return k;
}

int cg_bpf_build(const struct cg_dev_rule *rules, size_t n, struct bpf_insn **insns, size_t *n_insns)
{
	struct bpf_insn *p = malloc((9 + 8 * n) * sizeof(*p));
	size_t k = 0, i;
	int dflt = 0;

	if (!p)
		return -ENOMEM;
	p[k++] = LDX_W(BPF_REG_2, BPF_REG_1, 0);
	p[k++] = ALU32_K(BPF_AND, BPF_REG_2, 0xffff);
	p[k++] = LDX_W(BPF_REG_3, BPF_REG_1, 0);
	p[k++] = ALU32_K(BPF_RSH, BPF_REG_3, 16);
	p[k++] = LDX_W(BPF_REG_4, BPF_REG_1, 4);
	p[k++] = LDX_W(BPF_REG_5, BPF_REG_1, 8);
	p[k++] = MOV64_X(BPF_REG_6, BPF_REG_3);
	for (i = n; i-- > 0;) {
		if (is_catch_all(&rules[i])) {
			dflt = rules[i].allow;
			break;
		}
		if (!rules[i].access || (rules[i].type != 'a' && rules[i].type != 'b' && rules[i].type != 'c') ||
		    rules[i].major > INT32_MAX || rules[i].minor > INT32_MAX)
			continue;
		k += emit_rule(p + k, &rules[i]);
	}
	p[k++] = ALU32_K(BPF_MOV, BPF_REG_0, dflt);
	p[k++] = EXIT_INSN();
	*insns = p;
	*n_insns = k;
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int cg_bpf_attach(int dirfd, const struct bpf_insn *insns, size_t n, struct error *err)
{
	static char log[4096];
	union bpf_attr attr;
	int prog, e;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = (uint32_t)n;
	attr.license = (uint64_t)(uintptr_t)"Apache";
	prog = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog < 0 && errno != EPERM && errno != ENOSYS) {
		attr.log_buf = (uint64_t)(uintptr_t)log;
		attr.log_size = sizeof(log);
		attr.log_level = 1;
		log[0] = '\0';
		prog = sys_bpf(BPF_PROG_LOAD, &attr);
	}
	if (prog < 0) {
		e = errno;
		return error_sys(err, e, "devices: loading the BPF device filter (%zu instructions)%s%s", n,
				 log[0] ? ": " : "", log);
	}
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)dirfd;
	attr.attach_bpf_fd = (uint32_t)prog;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0) {
		e = errno;
		close(prog);
		return error_sys(err, e, "devices: attaching the BPF device filter");
	}
	close(prog);
	return 0;
}
