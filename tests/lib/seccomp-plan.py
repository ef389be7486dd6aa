#!/usr/bin/env python3
"""The probes of a seccomp profile, generated from the profile itself, and
their verdict (tests/sandbox-acceptance.bats; the prober is tests/lib/sysprobe.c).

  seccomp-plan.py plan CONFIG LIST   one probe line per (rule, name, argument
      condition, architecture), per syscall in no rule, per number newer than
      every one libseccomp knows, and per architecture the profile leaves out:
      "ID ARCH NAME MODE A0 A1 A2 A3 A4 A5 EXPECT". CONFIG: a config.json (its
      .linux.seccomp) or a bare profile; LIST: `sysprobe list`.
  seccomp-plan.py check PLAN RESULTS BASELINE   each probe's result against
      its EXPECT; exit 1 on any mismatch. BASELINE: the same plan run without
      the filter, to tell the kernel's own errno of an allowed call from the
      filter's.

EXPECT: allow (not SIGSYS, not trapped, no errno of the profile's unless the
unfiltered call gives it too), errno:N (exactly N), kill (the process dies by
SIGSYS, also with a SIGSYS handler installed and from a second thread),
kill-thread, trap. How rules read, as tinyrun compiles them
(seccomp/compile.c): conditions on distinct arguments are AND-ed, conditions
sharing an argument each make a rule of their own (OR-ed); a call matched by
no rule gets defaultAction; a syscall of an architecture the profile does not
list kills the process (the bad-arch action)."""
import json
import sys

ARCHES = {"SCMP_ARCH_X86_64": "x86_64", "SCMP_ARCH_X86": "x86", "SCMP_ARCH_X32": "x32"}
PROBE_ARCHES = ["x86_64", "x86", "x32"]   # what sysprobe can call on x86_64
U64 = (1 << 64) - 1
# argument values tried for a call that no rule's conditions match
CANDIDATES = [0, 1, 0x4000, 0x400000, 0x7FFFFFFF, 0xFFFFFFFF, 0x10, 0x100]


def action_of(act, errno_ret):
    if act in ("SCMP_ACT_ALLOW", "SCMP_ACT_LOG"):
        return "allow"
    if act == "SCMP_ACT_ERRNO":
        return "errno:%d" % (1 if errno_ret is None else errno_ret)
    if act == "SCMP_ACT_KILL_PROCESS":
        return "kill"
    if act in ("SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD"):
        return "kill-thread"
    if act == "SCMP_ACT_TRAP":
        return "trap"
    return act   # TRACE, NOTIFY: no verdict of ours; a probe of it fails loudly


def holds(c, args):
    v, a, b = args[c["index"]], c.get("value", 0), c.get("valueTwo", 0)
    op = c["op"]
    return {"SCMP_CMP_EQ": v == a, "SCMP_CMP_NE": v != a, "SCMP_CMP_LT": v < a,
            "SCMP_CMP_LE": v <= a, "SCMP_CMP_GT": v > a, "SCMP_CMP_GE": v >= a,
            "SCMP_CMP_MASKED_EQ": (v & a) == b}[op]


def shares_index(rule):
    idx = [c["index"] for c in rule.get("args") or []]
    return len(set(idx)) != len(idx)


def matches(rule, args):
    conds = rule.get("args") or []
    if not conds:
        return True
    if shares_index(rule):
        return any(holds(c, args) for c in conds)
    return all(holds(c, args) for c in conds)


def satisfy(c):
    a, b = c.get("value", 0), c.get("valueTwo", 0)
    return {"SCMP_CMP_EQ": a, "SCMP_CMP_NE": a ^ 1, "SCMP_CMP_LT": a - 1, "SCMP_CMP_LE": a,
            "SCMP_CMP_GT": a + 1, "SCMP_CMP_GE": a, "SCMP_CMP_MASKED_EQ": b & a}[c["op"]] & U64


def arg_sets(rule):
    """The argument vectors that exercise each condition of the rule."""
    conds = rule.get("args") or []
    if not conds:
        return [[0] * 6]
    groups = [[c] for c in conds] if shares_index(rule) else [conds]
    out = []
    for g in groups:
        args = [0] * 6
        for c in g:
            args[c["index"]] = satisfy(c)
        out.append(args)
    return out


def verdict(prof, name, args):
    """The action the profile declares for name(args); None when two rules
    with different actions both match (a profile that contradicts itself)."""
    acts = {action_of(r["action"], r.get("errnoRet")) for r in prof["syscalls"]
            if name in r["names"] and matches(r, args)}
    if len(acts) > 1:
        return None
    return acts.pop() if acts else action_of(prof["defaultAction"], prof.get("defaultErrnoRet"))


def complement(prof, name):
    """Arguments no rule of a conditional-only name matches, if one is found."""
    rules = [r for r in prof["syscalls"] if name in r["names"]]
    if not rules or any(not r.get("args") for r in rules):
        return None
    idx = sorted({c["index"] for r in rules for c in r["args"]})
    for v in CANDIDATES:
        args = [0] * 6
        for i in idx:
            args[i] = v
        if not any(matches(r, args) for r in rules):
            return args
    return None


def plan(config_path, list_path):
    doc = json.load(open(config_path))
    prof = doc["linux"]["seccomp"] if "linux" in doc else doc
    known = {a: {} for a in PROBE_ARCHES}
    for line in open(list_path):
        arch, name, nr = line.split()
        known[arch][name] = int(nr)
    listed = {"x86_64"} | {ARCHES.get(a, a) for a in prof.get("architectures") or []}
    default = action_of(prof["defaultAction"], prof.get("defaultErrnoRet"))
    lines, n = [], 0
    unresolved = set()

    def add(arch, name, args, expect, modes=("plain",)):
        nonlocal n
        if arch not in listed:
            expect = "kill"   # the bad-arch action, whatever the rule says
        elif expect == "ambiguous":
            print("seccomp-plan: %s(%s) on %s: rules with different actions match" %
                  (name, ",".join(map(hex, args)), arch), file=sys.stderr)
        for mode in modes:
            n += 1
            lines.append("%d %s %s %s %s %s" % (n, arch, name, mode, " ".join("0x%x" % a for a in args), expect))

    named = set()
    for rule in prof["syscalls"]:
        for args in arg_sets(rule):
            modes_done = x32_done = False
            for name in rule["names"]:
                named.add(name)
                if name not in known["x86_64"] and name not in known["x86"]:
                    unresolved.add(name)
                expect = verdict(prof, name, args) or "ambiguous"
                for arch in ("x86_64", "x86"):
                    if name in known[arch]:
                        add(arch, name, args, expect)
                # a SIGSYS handler, a second thread: once a rule and argument set
                if expect in ("kill", "kill-thread") and not modes_done and name in known["x86_64"]:
                    add("x86_64", name, args, expect, ("handler", "thread"))
                    modes_done = True
                if not x32_done and name in known["x32"]:   # from a thread too: the process dies
                    add("x32", name, args, expect, ("plain", "thread"))
                    x32_done = True
    for name in sorted(named):
        args = complement(prof, name)
        if args:
            for arch in ("x86_64", "x86"):
                if name in known[arch]:
                    add(arch, name, args, default)
    for arch in ("x86_64", "x86"):
        for name in sorted(known[arch]):
            if name not in named:
                add(arch, name, [0] * 6, default)
    add("x32", sorted(set(known["x32"]) - named)[0], [0] * 6, default)
    top = max(known["x86_64"].values())
    for nr in range(top + 1, top + 9):   # newer than every syscall this libseccomp knows
        add("x86_64", "#%d" % nr, [0] * 6, default)
    for name in sorted(unresolved):
        lines.append("# unresolved %s: unknown to libseccomp here; tinyrun skips it, the default action applies" % name)
    print("\n".join(lines))


def read_results(path):
    res, done = {}, False
    for line in open(path):
        line = line.rstrip("\n")
        if line == "done":
            done = True
        elif " " in line and line.split(" ", 1)[0].isdigit():
            i, r = line.split(" ", 1)
            res[i] = r
    return res, done


def check(plan_path, results_path, baseline_path):
    res, done = read_results(results_path)
    base, _ = read_results(baseline_path)
    probes = [l.split() for l in open(plan_path) if l.strip() and not l.startswith("#")]
    prof_errnos = {int(p[10].split(":")[1]) for p in probes if p[10].startswith("errno:")}
    fails, counts = [], {}
    for p in probes:
        pid, arch, name, mode, expect = p[0], p[1], p[2], p[3], p[10]
        got = res.get(pid, "missing")
        counts[expect] = counts.get(expect, 0) + 1
        trapped = got.endswith(" trapped")
        if expect == "kill":
            ok = got == "sigsys"
        elif expect == "kill-thread":
            ok = got == ("thread-killed" if mode == "thread" else "sigsys")
        elif expect == "trap":
            ok = trapped
        elif expect.startswith("errno:"):
            ok = got == "errno=" + expect.split(":")[1]
        elif expect == "allow":
            ok = got not in ("sigsys", "thread-killed", "missing", "unknown") and not trapped
            if ok and got.startswith("errno=") and int(got[6:]) in prof_errnos:
                ok = base.get(pid) == got   # the kernel's own answer, not the filter's
        else:
            ok = False
        if expect == "ambiguous":
            fails.append("FAIL %s %s %s(%s): rules with different actions match these arguments; libseccomp "
                         "keeps one of them silently (got %s)" % (pid, arch, name, ",".join(p[4:10]), got))
        elif not ok:
            fails.append("FAIL %s %s %s(%s) %s: expected %s, got %s (unfiltered: %s)" % (
                pid, arch, name, ",".join(p[4:10]), mode, expect, got, base.get(pid, "-")))
    print("%d probes: %s" % (len(probes), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))
    if not done:
        fails.append("FAIL the prober did not finish (no 'done')")
    for f in fails:
        print(f)
    print("%d failed" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "plan":
        plan(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        sys.exit("usage: seccomp-plan.py plan CONFIG LIST | check PLAN RESULTS BASELINE")
