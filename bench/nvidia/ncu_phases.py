#!/usr/bin/env python3
"""Where the warps of one kernel spend their time, phase by phase: an
Nsight Compute source page (ncu --page source --print-source sass --csv)
cut into segments at every synchronizing instruction (WARPGROUP.ARRIVE /
DEPBAR, SYNCS, BAR, QGMMA/HGMMA issue runs), each printed in address
order with its instruction count, executions of its first instruction,
warp-stall samples (share of all samples, and per execution), its top
stall reasons and its most frequent opcodes. Segments with under MIN
percent of the samples are folded into one line.
  ncu_phases.py NCU-SASS.csv [MIN]"""
import collections
import csv
import sys


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def load(path):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    r = csv.reader(lines)
    hdr = None
    rows = []
    for row in r:
        if hdr is None:
            if "Address" in row and "Source" in row:
                hdr = row
            continue
        if len(row) == len(hdr):
            rows.append(dict(zip(hdr, row)))
    return hdr, rows


def opcode(src):
    parts = src.strip().split()
    if not parts:
        return "?"
    o = parts[1] if parts[0].startswith("@") and len(parts) > 1 else parts[0]
    return o


def is_cut(op):
    return op.split(".")[0] in ("WARPGROUP", "SYNCS", "BAR", "BRA", "WARPSYNC") or \
        op.startswith("QGMMA") or op.startswith("HGMMA")


def main():
    hdr, rows = load(sys.argv[1])
    cut_min = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    samp = "Warp Stall Sampling (All Samples)"
    total = sum(num(x[samp]) for x in rows) or 1.0
    segs = []
    cur = []
    for x in rows:
        op = opcode(x["Source"])
        if cur and (is_cut(op) != is_cut(opcode(cur[-1]["Source"])) or
                    (is_cut(op) and op.split(".")[0] != opcode(cur[-1]["Source"]).split(".")[0])):
            segs.append(cur)
            cur = []
        cur.append(x)
    if cur:
        segs.append(cur)
    folded = 0.0
    for s in segs:
        sm = sum(num(x[samp]) for x in s)
        if sm / total * 100 < cut_min:
            folded += sm
            continue
        if folded:
            print(f"   ... {folded / total * 100:5.1f}% in small segments")
            folded = 0.0
        ex = max(num(x["Instructions Executed"]) for x in s)
        st = collections.Counter()
        ops = collections.Counter()
        for x in s:
            for k in stalls:
                st[k] += num(x[k])
            ops[opcode(x["Source"]).split(".")[0]] += 1
        tops = " ".join(f"{k[6:]}:{v / sm * 100:.0f}" for k, v in st.most_common(4) if sm)
        opl = " ".join(f"{o}{n}" for o, n in ops.most_common(6))
        print(f"{s[0]['Address'][-5:]}-{s[-1]['Address'][-5:]} n={len(s):4d} exec={ex:9.0f} "
              f"{sm / total * 100:5.1f}%  {tops} | {opl}")
    if folded:
        print(f"   ... {folded / total * 100:5.1f}% in small segments")


if __name__ == "__main__":
    main()
