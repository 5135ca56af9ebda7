#!/usr/bin/env python3
"""The KV loops of an AMDGPU assembly file (fmha-compile --emit=isa).

A loop is the stretch from a label to a later branch back to it. For every
loop with MFMAs it prints one line, in program order:
  loop N: instructions I, mfma M, v_cmp C, v_cndmask S, s_nop P, cmp_to_sgpr L
(instructions: lines that are not labels, directives or comments;
cmp_to_sgpr: the compares that write a lane mask to an SGPR pair,
v_cmp_*_e64 s[..], where the e32 form writes VCC). The ISA tests check
these counts with FileCheck.

With --steady K=N,..., it also checks the steady-state loop (as the
workplace's loop model picks it: among the loops with the most MFMAs, the one
with the fewest instructions): each count K at most N. A K other than the
printed counts is a mnemonic: the instructions whose mnemonic is K or K_e32 /
K_e64 (v_max_f32 counts v_max_f32_e32, not v_max3_f32); mfma_zero counts the
MFMAs whose accumulator operand is the constant 0 (a chain's first step from
zero; the others accumulate onto a register); K = A>B counts the A
that come after the loop's first B (an order: A>B=0, every A before any B).
It prints one line per limit and exits 1 when one is over, so a regression
fails the test.

With --tiles T (the KV tiles one iteration of the steady loop runs:
fmha-unroll-kv-loop's factor, 2 for kv_blockscale on AMDGPU) the steady
counts are per tile (divided by T; a limit is a tile's), and T must divide
the steady loop's MFMAs. A>B orders stay whole-loop counts. K>=N (for
smem_vmem and mfma_behind_lds) is a lower bound: smem_vmem is the number of VMEM loads
(buffer_load*, global_load*) issued between the steady loop's first s_load
(the next tile's page id) and the first s_waitcnt on lgkmcnt after it: the
loads whose latency the scalar load's overlaps (0 when the wait follows
the load with no load between). mfma_behind_lds: the fewest MFMAs issued
between a run of loads straight into LDS (buffer_load* ... lds) and the
next s_waitcnt on vmcnt after it, around the loop's end (what each tile's
K or V loads run behind; 0 when a wait follows at once, -1 without such
loads). lds_load counts those loads. lds_read_bases: the distinct address
VGPRs of the loop's LDS reads (ds_read*), a whole-loop count (a layout whose
offsets LLVM folds into the reads' immediates takes one a tile buffer).
"""
import re
import sys


def main(path, limits=None, tiles=1):
    lines = [l.split(";")[0].rstrip() for l in open(path)]
    labels = {}
    insts = []  # (index in lines, mnemonic, text)
    for i, l in enumerate(lines):
        s = l.strip()
        if not s:
            continue
        m = re.match(r"^(\.?[A-Za-z_$][\w.$]*):", s)
        if m:
            labels[m.group(1)] = len(insts)
            continue
        if s.startswith("."):
            continue
        insts.append(s)
    loops = []
    for j, s in enumerate(insts):
        m = re.match(r"^s_(cbranch_\w+|branch)\s+(\S+)", s)
        if m and m.group(2) in labels and labels[m.group(2)] <= j:
            loops.append((labels[m.group(2)], j + 1))
    counted = []
    for a, b in loops:
        body = insts[a:b]
        mnem = [x.split()[0] for x in body]
        c = {"instructions": len(body),
             "mfma": sum(x.startswith("v_mfma") for x in mnem),
             "v_cmp": sum(x.startswith("v_cmp") for x in mnem),
             "v_cndmask": sum(x.startswith("v_cndmask") for x in mnem),
             "s_nop": sum(x == "s_nop" for x in mnem),
             "cmp_to_sgpr": sum(re.match(r"v_cmp\w*_e64\s+s\[", x) is not None
                                for x in body)}
        if not c["mfma"]:
            continue
        print(f"loop {len(counted)}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
        c["mnemonics"] = mnem
        c["texts"] = body
        counted.append(c)
    if limits is None:
        return 0
    if not counted:
        print("steady: no loop with MFMAs")
        return 1
    most = max(c["mfma"] for c in counted)
    steady = min((c for c in counted if c["mfma"] == most),
                 key=lambda c: c["instructions"])
    bad = 0
    # A tile's MFMAs: those of the loop with the fewest (a loop of one
    # tile: the masked tiles' or the odd full tile's); the steady loop must
    # hold exactly `tiles` of them, so a loop that was not unrolled fails.
    if tiles > 1:
        one = min(c["mfma"] for c in counted)
        if steady["mfma"] != tiles * one:
            print(f"steady: {steady['mfma']} MFMAs are not {tiles} tiles of {one}")
            return 1
    def isMnem(m, k):
        return m in (k, k + "_e32", k + "_e64")

    def smemVmem(ms):
        first = next((i for i, m in enumerate(ms) if m.startswith("s_load")), None)
        if first is None:
            return -1
        n = 0
        for d in range(1, len(ms)):
            j = (first + d) % len(ms)
            if ms[j] == "s_waitcnt" and "lgkmcnt" in steady["texts"][j]:
                return n
            n += ms[j].startswith(("buffer_load", "global_load"))
        return -1  # no wait for it in the loop: not what the bound is about

    def isLdsLoad(t):
        return t.startswith("buffer_load") and t.split()[-1] == "lds"

    def isRegLoad(t):
        return t.startswith("buffer_load") and not isLdsLoad(t)

    def mfmaBehindLds(ms, ts, isLoad=isLdsLoad):
        # The fewest MFMAs between a run of such loads and the next
        # s_waitcnt vmcnt (mfma_behind_lds: loads into LDS; mfma_behind_loads:
        # buffer loads into registers).
        n = len(ms)
        starts = [i for i in range(n) if isLoad(ts[i]) and not isLoad(ts[i - 1])]
        if not starts:
            return -1
        fewest = None
        for a in starts:
            k = 0
            for d in range(1, n):
                j = (a + d) % n
                if ms[j] == "s_waitcnt" and "vmcnt" in ts[j]:
                    break
                k += ms[j].startswith("v_mfma")
            fewest = k if fewest is None else min(fewest, k)
        return fewest

    steady["lds_load"] = sum(isLdsLoad(t) for t in steady["texts"])
    steady["lds_read_bases"] = len({re.split(r"[\s,]+", t)[2] for t in steady["texts"]
                                    if t.startswith("ds_read")})
    for item in limits.split(","):
        k, n = item.split("=")
        if k.endswith(">"):  # K>=N: a lower bound (smem_vmem, mfma_behind_lds/_loads)
            k = k[:-1]
            if k not in ("smem_vmem", "mfma_behind_lds", "mfma_behind_loads"):
                print(f"steady: {k}>= is not a lower bound this script knows")
                return 1
            have = (smemVmem(steady["mnemonics"]) if k == "smem_vmem" else
                    mfmaBehindLds(steady["mnemonics"], steady["texts"],
                                  isLdsLoad if k == "mfma_behind_lds" else isRegLoad))
            ok = have >= int(n)
            bad |= not ok
            print(f"steady: {k} {have} {'>=' if ok else '<'} {n}")
            continue
        if ">" in k:  # A>B: the A that come after the loop's first B
            a, b = k.split(">")
            ms = steady["mnemonics"]
            first = next((i for i, m in enumerate(ms) if isMnem(m, b)), len(ms))
            have = sum(isMnem(m, a) for m in ms[first:])
        else:
            if k == "mfma_zero":
                have = sum(m.startswith("v_mfma") and re.search(r",\s*0$", t) is not None
                           for m, t in zip(steady["mnemonics"], steady["texts"]))
            else:
                have = steady[k] if k in steady else sum(
                    isMnem(m, k) for m in steady["mnemonics"])
            if tiles > 1 and k != "lds_read_bases":
                have = have / tiles
                have = int(have) if have == int(have) else round(have, 1)
        ok = have <= float(n)
        bad |= not ok
        print(f"steady: {k} {have} {'<=' if ok else '>'} {n}")
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    limits = None
    tiles = 1
    if "--tiles" in args:
        i = args.index("--tiles")
        tiles = int(args[i + 1])
        del args[i:i + 2]
    if "--steady" in args:
        i = args.index("--steady")
        limits = args[i + 1]
        del args[i:i + 2]
    sys.exit(main(args[0], limits, tiles))
