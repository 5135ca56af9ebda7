#!/usr/bin/env python3
"""Runs one slice of the host numerics matrix with fmha-run and prints a table.

Slice: one quant mode and one page size; inside it every mask x table form x
GQA ratio (CSR with an NHD cache, block table with HND) is one kernel,
compiled once by one fmha-run, which then runs it on every length set of
LENGTH_SETS (its --run flag): ragged lengths that include Sk not a multiple of
the page size, causal with Sq > Sk and Sk = 0, then one query row over 300
keys beside Sq = Sk = 64, all with lse on. Every run must pass (fmha-run
checks SPEC section 6 against the oracle and the emulating reference); any
failure or crash fails the slice. Nothing is skipped.

kv_blockscale slices also run every kernel on spread data (K and V
magnitudes 2^-6 .. 2^6 per page and KV head, SPEC section 6), which uniform
data cannot tell from a kernel applying the wrong descale: judged by the
emulation bar and the oracle's row-relative bar.
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
# The length sets every kernel runs, in order. Ragged: Sk=130 (not a page
# multiple for 16/48/64/1024), Sq > Sk for the second sequence (33 queries
# over 20 keys), Sk = 0 for the third; page sizes of 1024 and more use 1100
# keys, so a sequence spans two pages and a stale or wrong page id (prefetch)
# changes the result. Then a single query row over 300 keys (decode-like)
# beside Sq = Sk = 64.
QO_LENS = "17,33,9"
KV_LENS = "130,20,0"
KV_LENS_LARGE_PAGES = "1100,20,0"
MORE_LENGTHS = "1,64;300,64"

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

    variants = [(mask, table, ratio) for mask in MASKS for table in TABLES
                for ratio in GQA]
    failures = runs = 0
    # row_rel: the oracle's worst row-relative error (the spread bar).
    print(f"{'mask':<12} {'table':<6} {'gqa':>3} {'lengths':<24} {'data':<7} "
          f"{'max_abs':>9} {'row_rel':>9} {'rel_fro':>9} {'emu_fro':>9} "
          f"{'lse_err':>9} result")
    for mask, table, ratio in variants:
        seed = ratio * 7 + args.page_size
        kv = KV_LENS_LARGE_PAGES if args.page_size >= 1024 else KV_LENS
        sets = [(QO_LENS, kv, "uniform"), (*MORE_LENGTHS.split(";"), "uniform")]
        if args.quant == "kv_blockscale":
            sets.append((QO_LENS, kv, "spread"))
        cmd = [args.fmha_run, "--json", "--lse", "--qo-len", QO_LENS,
               "--kv-len", kv, "--heads", GQA[ratio], "--head-dim", "64",
               "--page-size", str(args.page_size), "--table", table,
               "--layout", LAYOUT[table],
               "--quant", args.quant, "--mask", mask, "--seed", str(seed)]
        cmd += dtypes(args.quant, args.flavour)
        for i, (qo, kvs, data) in enumerate(sets[1:], 1):
            cmd += ["--run", f"{qo};{kvs};seed={seed + i};data={data}"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        results = []
        for line in p.stdout.splitlines():
            try:
                results.append(json.loads(line))
            except ValueError:
                pass
        for i, (qo, kvs, data) in enumerate(sets):
            runs += 1
            label = f"{qo}/{kvs}"
            r = results[i] if i < len(results) else None
            # Each run passes on its own line; the process must also exit 0
            # (1 when a run failed, 2/3 when none could run).
            ok = r is not None and r["pass"] and p.returncode == 0
            failures += not ok
            if r is None:
                print(f"{mask:<12} {table:<6} {ratio:>3} {label:<24} {data:<7} "
                      f"{'-':>9} {'-':>9} {'-':>9} {'-':>9} {'-':>9} FAIL "
                      f"rc={p.returncode} {p.stderr.strip()[:300]}")
                continue
            print(f"{mask:<12} {table:<6} {ratio:>3} {label:<24} {data:<7} "
                  f"{r['max_abs_err']:9.2e} {r['oracle']['max_row_rel_err']:9.2e} "
                  f"{r['rel_fro_err']:9.2e} {r['emulation']['rel_fro_err']:9.2e} "
                  f"{r['oracle']['lse_max_err']:9.2e} "
                  f"{'PASS' if ok else 'FAIL rc=%d' % p.returncode}")
    print(f"{len(variants)} kernels, {runs - failures} runs passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
