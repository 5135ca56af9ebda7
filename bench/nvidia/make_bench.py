#!/usr/bin/env python3
"""Compiles the H200 benchmark kernels (issue 7 item 4).

Usage: make_bench.py --fmha-compile PATH --out DIR [--chip sm_90|sm_90a]
                     [--pages 16,64,1024] [--grid default|short]
                     [--flag=--no-peel ...]

fp8 kv_blockscale (f8E4M3FN), Hq/Hkv 32/8, D 128, CSR/NHD, bf16 out, page
sizes 16, 64, 1024, causal (bottom-right, with the cached prefix) and not.
The default grid: B 4 sequences of Sq 512 new tokens over Sk in {1k, 2k, 4k,
8k, 16k} cached tokens. The short grid (issue 14's short queries over long
prefixes): B in {4, 16}, Sq in {128, 512}, Sk in {8k, 32k}. Writes
DIR/NAME.ptx + NAME.json and DIR/bench.txt (NAME, page, mask, Sk, B, Sq a
line, tab-separated).
"""
import argparse
import itertools
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmha-compile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chip", default="sm_90", choices=["sm_90", "sm_90a"])
    ap.add_argument("--pages", default="16,64,1024")
    ap.add_argument("--grid", default="default", choices=["default", "short"])
    ap.add_argument("--flag", action="append", default=[],
                    help="one more fmha-compile flag for every kernel (repeatable; "
                         "e.g. --flag=--no-peel for a before/after pair)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    pages = [int(p) for p in a.pages.split(",")]
    if a.grid == "short":
        bsq = [(4, 128), (4, 512), (16, 128), (16, 512)]
        sks = [8192, 32768]
    else:
        bsq = [(4, 512)]
        sks = [1024, 2048, 4096, 8192, 16384]
    for page, mask, (batch, sq), sk in itertools.product(pages, ["causal", "none"], bsq, sks):
        name = f"b-p{page}-{mask}-sk{sk}"
        if a.grid == "short":
            name += f"-b{batch}-sq{sq}"
        flags = ["--chip", a.chip, "--page-size", str(page), "--quant", "kv_blockscale",
                 "--mask", mask, "--heads", "32/8", "--head-dim", "128", "--batch", str(batch),
                 "--qo-len", str(sq), "--kv-len", str(sk), "--seed", "3"] + a.flag
        r = subprocess.run([a.fmha_compile, "-o", os.path.join(a.out, name)] + flags,
                           capture_output=True, text=True)
        if r.returncode:
            print(f"{name}: {r.stderr}", file=sys.stderr)
            continue
        rows.append(f"{name}\t{page}\t{mask}\t{sk}\t{batch}\t{sq}\n")
    with open(os.path.join(a.out, "bench.txt"), "w") as f:
        f.writelines(rows)


if __name__ == "__main__":
    main()
