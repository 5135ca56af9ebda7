#!/usr/bin/env python3
"""Compiles the H200 numerics matrix (issue 7): one PTX kernel + manifest per case.

Usage: make_matrix.py --fmha-compile PATH --out DIR [--quick]

The cases: page sizes 1, 16, 48, 64, 1024 x page table (CSR with NHD, block
table with HND) x quantization (kv_blockscale, per_tensor) x mask (causal,
window 128/16, none) x heads (Hq/Hkv 32/8 with B = 8 ragged sequences up to
Sk 8192, 16/16 with B = 4), D 128, f8E4M3FN Q/K/V, bf16 out. Writes
DIR/NAME.ptx, DIR/NAME.json and DIR/cases.txt (one NAME and its flags per
line). The runner (fmha-cuda-run) makes the inputs from the manifest's
request on the device and checks against the oracle and the emulation.
"""
import argparse
import itertools
import os
import subprocess
import sys

# Ragged batches: a long sequence (8k), a one-token decode-like one, sizes
# that are not multiples of the tiles.
LENS = {
    "32/8": ("37,1,128,300,64,5,200,17", "8192,1,1500,300,4000,64,2100,700"),
    "16/16": ("100,33,257,9", "1100,33,3000,129"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmha-compile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="one case per page size")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cases = []
    grid = itertools.product([1, 16, 48, 64, 1024], ["csr", "block"], ["kv_blockscale", "per_tensor"],
                             ["causal", "window:128,16", "none"], ["32/8", "16/16"])
    for page, table, quant, mask, heads in grid:
        if a.quick and (table, quant, mask, heads) != ("csr", "kv_blockscale", "causal", "32/8"):
            continue
        layout = "nhd" if table == "csr" else "hnd"
        qo, kv = LENS[heads]
        name = f"p{page}-{table}-{quant}-{mask.split(':')[0]}-{heads.replace('/', 'x')}"
        flags = ["--chip", "sm_90", "--page-size", str(page), "--table", table, "--layout", layout,
                 "--quant", quant, "--mask", mask, "--heads", heads, "--qo-len", qo, "--kv-len", kv,
                 "--head-dim", "128", "--seed", "7"]
        r = subprocess.run([a.fmha_compile, "-o", os.path.join(a.out, name)] + flags,
                           capture_output=True, text=True)
        status = "ok" if r.returncode == 0 else f"compile-failed({r.returncode}): {r.stderr.strip()[:200]}"
        cases.append((name, status, " ".join(flags)))
        print(f"{name}: {status}", file=sys.stderr)
    with open(os.path.join(a.out, "cases.txt"), "w") as f:
        for name, status, flags in cases:
            f.write(f"{name}\t{status}\t{flags}\n")


if __name__ == "__main__":
    main()
