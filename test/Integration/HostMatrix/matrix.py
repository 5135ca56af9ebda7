#!/usr/bin/env python3
"""Runs one slice of the host numerics matrix with fmha-run and prints a table.

Slice: one quant mode and one page size; inside it every mask x table form x
GQA ratio (CSR with an NHD cache, block table with HND) runs on ragged lengths that include Sk not a multiple of the page
size, causal with Sq > Sk, Sk = 0, and lse on. Every case must pass (exit 0
from fmha-run, which checks SPEC section 6 against the oracle and the
emulating reference); any failure or crash fails the slice. Nothing is
skipped.

kv_blockscale slices also run SPREAD_CASES on spread data (K and V
magnitudes 2^-6 .. 2^6 per page and KV head, SPEC section 6), which the
uniform cases cannot tell from a kernel applying the wrong descale: judged by
the emulation bar and the oracle's row-relative bar.
"""
import argparse
import json
import subprocess
import sys

MASKS = ["none", "causal", "window:24,4"]
TABLES = ["csr", "block"]
GQA = {1: "2/2", 4: "8/2", 8: "8/1"}
# Both KV layouts: the CSR cases read an NHD cache, the block-table cases HND.
LAYOUT = {"csr": "nhd", "block": "hnd"}
# Ragged: Sk=130 (not a page multiple for 16/48/64/1024), Sq > Sk for the
# second sequence (33 queries over 20 keys), Sk = 0 for the third.
QO_LENS = "17,33,9"
KV_LENS = "130,20,0"
# Page sizes of 1024 and more also need a sequence over two pages, so a stale
# or wrong page id (prefetch) changes the result.
KV_LENS_LARGE_PAGES = "1100,20,0"
# (mask, table, GQA ratio) run once more on spread data in kv_blockscale
# slices: both table forms and layouts, two masks, two GQA ratios.
SPREAD_CASES = [("causal", "csr", 4), ("none", "block", 8)]


def dtypes(quant, flavour):
    if quant == "none":
        return ["--q-dtype", "bf16", "--kv-dtype", "bf16", "--out-dtype", "f16"]
    fp8 = "f8E4M3FNUZ" if flavour == "fnuz" else "f8E4M3FN"
    return ["--q-dtype", fp8, "--kv-dtype", fp8, "--out-dtype", "bf16"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmha-run", required=True)
    ap.add_argument("--quant", required=True)
    ap.add_argument("--page-size", type=int, required=True)
    ap.add_argument("--flavour", default="ocp", choices=["ocp", "fnuz"])
    args = ap.parse_args()

    cases = [(mask, table, ratio, "uniform") for mask in MASKS
             for table in TABLES for ratio in GQA]
    if args.quant == "kv_blockscale":
        cases += [(mask, table, ratio, "spread")
                  for mask, table, ratio in SPREAD_CASES]
    failures = 0
    # row_rel: the oracle's worst row-relative error (the spread bar).
    print(f"{'mask':<12} {'table':<6} {'gqa':>3} {'data':<7} {'max_abs':>9} "
          f"{'row_rel':>9} {'rel_fro':>9} {'emu_fro':>9} {'lse_err':>9} result")
    for mask, table, ratio, data in cases:
        cmd = [args.fmha_run, "--json", "--lse", "--qo-len", QO_LENS,
               "--kv-len", KV_LENS_LARGE_PAGES if args.page_size >= 1024 else KV_LENS, "--heads", GQA[ratio], "--head-dim", "64",
               "--page-size", str(args.page_size), "--table", table,
               "--layout", LAYOUT[table],
               "--quant", args.quant, "--mask", mask, "--seed",
               str(ratio * 7 + args.page_size), "--data", data]
        cmd += dtypes(args.quant, args.flavour)
        p = subprocess.run(cmd, capture_output=True, text=True)
        try:
            r = json.loads(p.stdout)
        except ValueError:
            r = None
        ok = p.returncode == 0 and r is not None and r["pass"]
        failures += not ok
        if r is None:
            print(f"{mask:<12} {table:<6} {ratio:>3} {data:<7} {'-':>9} {'-':>9} "
                  f"{'-':>9} {'-':>9} {'-':>9} FAIL rc={p.returncode} "
                  f"{p.stderr.strip()[:300]}")
            continue
        print(f"{mask:<12} {table:<6} {ratio:>3} {data:<7} {r['max_abs_err']:9.2e} "
              f"{r['oracle']['max_row_rel_err']:9.2e} "
              f"{r['rel_fro_err']:9.2e} {r['emulation']['rel_fro_err']:9.2e} "
              f"{r['oracle']['lse_max_err']:9.2e} "
              f"{'PASS' if ok else 'FAIL rc=%d' % p.returncode}")
    total = len(cases)
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
