#!/usr/bin/env python3
"""Compiles the H200 numerics matrix (issues 7 and 12): one PTX kernel + manifest per case.

Usage: make_matrix.py --fmha-compile PATH --out DIR [--sets main,short,spread]
                      [--chip sm_90|sm_90a] [--quick] [--jobs N] [--list]

Six sets (sm_90: BlockM 64, BlockN 64, k step 32; regimes per page size in
docs/REGIMES.md, bench/regimes.py):

- main (216 cases): page sizes 1, 8, 16, 32, 48, 64, 96, 128, 1024 x page
  table (CSR with NHD, block table with HND) x quantization (kv_blockscale,
  per_tensor) x mask (causal, window 128/16, none) x heads (Hq/Hkv 32/8 with
  B = 8 ragged sequences up to Sk 8192, 16/16 with B = 4), D 128. Issue 7's
  120 cases are the pages 1, 16, 48, 64, 1024 of this set, under the same
  names.
- short (60 cases): every page size of docs/REGIMES.md (1, 8, 16, 32, 48, 64,
  96, 128, 192, 1024) x (kv_blockscale, per_tensor) x (CSR + NHD + causal,
  block table + HND + window 16/4, CSR + HND + no mask), heads 8/2, D 128,
  lse, one batch of the short sequences Sk = 1, 5, 63, 65 (one below and
  above a tile of 64), P - 1, P + 1 and a last sequence with Sk = 0 (Sq 9 over
  Sk 5 and Sq 65 over Sk 65 add fully masked rows and a second, ragged q
  tile). With P = 32 (the page_groups route) Sk = 1, 5, 65 and 33 leave 1,
  5, 1 and 1 keys in the last page: the route's fault window (Sk % P in
  1..6). With the uniform pages (64, 128, 192, 1024) and CSR, the last Sk = 0
  is where the page-id prefetch reads one entry past kv_page_indices.
- spread (30 cases): `--data spread` (K and V magnitudes 2^-6 .. 2^6 per
  physical page and KV head, the test that sees descales, SPEC section 6),
  kv_blockscale, every page size: the 16/16 lengths with CSR + NHD + causal
  and with block table + HND + window 128/16, and the short batch with CSR +
  NHD + causal.
- softcap (7 cases, not in the default sets): the soft cap (`--soft-cap`):
  cap 5 on spread data with kv_blockscale at pages 1, 16, 32, 64, 1024, and
  cap 30 with per_tensor and a window at pages 16 and 1024.
- q16 (12 cases, not in the default sets): a 16-bit Q with the fp8 cache
  (`--q-dtype bf16|f16`, quantized per Q tile on the fly): bf16 with
  kv_blockscale on uniform (32/8) and spread (16/16) data at pages 1, 16,
  32, 64, 1024, and f16 with per_tensor and a window at pages 16 and 1024;
  lse on. Judged against the oracle of the quantized Q; the runner reports
  the error against the exact Q.
- kvstrided (10 cases, not in the default sets): K and V as views of one
  combined cache (`--kv-strided`): kv_blockscale on spread data with CSR +
  NHD + causal, and per_tensor with block table + HND + window 128/16, at
  pages 1, 16, 32, 64, 1024.

- serving (17 cases, not in the default sets): issue 16's features: an
  e5m2 cache under an e4m3 Q (spread data at pages 1, 16, 32, 64, 1024;
  per_tensor + window at 16, 1024), a bf16 Q over an e5m2 cache, the soft
  cap read at run time (--runtime-scalars), D 192 / Dv 128 and D 256 at
  pages 16, 64, 1024.

- none16 (9 cases, not in the default sets): 16-bit Q, K and V (quant
  none, the 16-bit MMA): bf16 at pages 1, 16, 32, 64, 1024 (CSR, NHD,
  causal, lse), f16 with block table + HND + window and f16 out, bf16 at
  D 64, at pages 16 and 1024.

All (unless a set says otherwise): f8E4M3FN Q/K/V, bf16 out, seed 7. Writes DIR/NAME.ptx, DIR/NAME.json and
DIR/cases.txt (NAME, status, flags per line). The runner (fmha-cuda-run)
makes the inputs from the manifest's request on the device and checks against
the oracle and the emulation. A case fmha-compile rejects (e.g. `--data`
before fmha-compile has the flag) is listed as compile-failed and not run.
"""
import argparse
import concurrent.futures
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
MAIN_PAGES = [1, 8, 16, 32, 48, 64, 96, 128, 1024]
REGIME_PAGES = [1, 8, 16, 32, 48, 64, 96, 128, 192, 1024]
# The chip's BlockN (lib/Support/Chips.cpp): the short set's lengths sit one
# below and one above a tile. --chip sets both.
BLOCK_NS = {"sm_90": 64, "sm_90a": 128}
CHIP = "sm_90"
BLOCK_N = BLOCK_NS[CHIP]
VARIANTS = [("csr", "nhd", "causal"), ("block", "hnd", "window:16,4"), ("csr", "hnd", "none")]


def short_lens(page):
    """(qo, kv) lists: Sk = 1, 5, BN-1, BN+1, P-1, P+1 without repeats, then Sk = 0."""
    pairs = []
    for sq, sk in [(1, 1), (9, 5), (33, BLOCK_N - 1), (65, BLOCK_N + 1),
                   (min(page - 1, 30), page - 1), (17, page + 1)]:
        if sk >= 1 and sk not in [k for _, k in pairs]:
            pairs.append((sq, sk))
    pairs.append((4, 0))
    return ",".join(str(q) for q, _ in pairs), ",".join(str(k) for _, k in pairs)


def flags_of(page, table, layout, quant, mask, heads, qo, kv, extra=()):
    return ["--chip", CHIP, "--page-size", str(page), "--table", table, "--layout", layout,
            "--quant", quant, "--mask", mask, "--heads", heads, "--qo-len", qo, "--kv-len", kv,
            "--head-dim", "128", "--seed", "7"] + list(extra)


def tag(mask):
    return mask.split(":")[0]


def cases(sets, quick):
    out = []
    if "main" in sets:
        grid = itertools.product(MAIN_PAGES, ["csr", "block"], ["kv_blockscale", "per_tensor"],
                                 ["causal", "window:128,16", "none"], ["32/8", "16/16"])
        for page, table, quant, mask, heads in grid:
            if quick and (table, quant, mask, heads) != ("csr", "kv_blockscale", "causal", "32/8"):
                continue
            layout = "nhd" if table == "csr" else "hnd"
            qo, kv = LENS[heads]
            name = f"p{page}-{table}-{quant}-{tag(mask)}-{heads.replace('/', 'x')}"
            out.append((name, flags_of(page, table, layout, quant, mask, heads, qo, kv)))
    if "short" in sets:
        for page, quant, (table, layout, mask) in itertools.product(
                REGIME_PAGES, ["kv_blockscale", "per_tensor"], VARIANTS):
            if quick and (quant, mask) != ("kv_blockscale", "causal"):
                continue
            qo, kv = short_lens(page)
            name = f"short-p{page}-{table}-{layout}-{quant}-{tag(mask)}-8x2"
            out.append((name, flags_of(page, table, layout, quant, mask, "8/2", qo, kv,
                                       ["--lse"])))
    if "spread" in sets:
        for page in REGIME_PAGES:
            spread = ["--data", "spread"]
            qo, kv = LENS["16/16"]
            for table, layout, mask in [("csr", "nhd", "causal"), ("block", "hnd", "window:128,16")]:
                if quick and mask != "causal":
                    continue
                name = f"spread-p{page}-{table}-kv_blockscale-{tag(mask)}-16x16"
                out.append((name, flags_of(page, table, layout, "kv_blockscale", mask, "16/16",
                                           qo, kv, spread)))
            qo, kv = short_lens(page)
            out.append((f"spread-short-p{page}-csr-kv_blockscale-causal-8x2",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "8/2", qo, kv,
                                 spread + ["--lse"])))
    if "softcap" in sets:
        # The soft cap on the GPU (fmha-expand-tanh): cap 5 on spread data
        # (most logits in tanh's curved part or saturated) in each V-descale
        # route, and cap 30 (Gemma 2's) with per_tensor and a window.
        for page in [1, 16, 32, 64, 1024]:
            qo, kv = LENS["16/16"]
            out.append((f"softcap5-spread-p{page}-csr-kv_blockscale-causal-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                 ["--data", "spread", "--soft-cap", "5", "--lse"])))
        for page in [16, 1024]:
            qo, kv = LENS["32/8"]
            out.append((f"softcap30-p{page}-block-per_tensor-window-32x8",
                        flags_of(page, "block", "hnd", "per_tensor", "window:128,16", "32/8",
                                 qo, kv, ["--soft-cap", "30"])))
    if "kvstrided" in sets:
        # K and V as views of one combined (N_pages, 2, P, Hkv, D) cache
        # (--kv-strided): spread data, every V-descale route, both tables.
        for page in [1, 16, 32, 64, 1024]:
            qo, kv = LENS["16/16"]
            out.append((f"kvstrided-spread-p{page}-csr-nhd-kv_blockscale-causal-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                 ["--data", "spread", "--kv-strided", "--lse"])))
            qo, kv = LENS["32/8"]
            out.append((f"kvstrided-p{page}-block-hnd-per_tensor-window-32x8",
                        flags_of(page, "block", "hnd", "per_tensor", "window:128,16", "32/8",
                                 qo, kv, ["--kv-strided"])))
    if "q16" in sets:
        # A 16-bit Q with the fp8 cache (config q_scale = per_tile: each Q
        # tile quantized on the fly): bf16 and f16 Q, uniform and spread
        # data, every V-descale route, lse (where the quantization shows).
        for page in [1, 16, 32, 64, 1024]:
            qo, kv = LENS["32/8"]
            out.append((f"q16-bf16-p{page}-csr-nhd-kv_blockscale-causal-32x8",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "32/8", qo, kv,
                                 ["--q-dtype", "bf16", "--lse"])))
            qo, kv = LENS["16/16"]
            out.append((f"q16-bf16-spread-p{page}-csr-nhd-kv_blockscale-causal-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                 ["--q-dtype", "bf16", "--data", "spread", "--lse"])))
        for page in [16, 1024]:
            qo, kv = LENS["32/8"]
            out.append((f"q16-f16-p{page}-block-hnd-per_tensor-window-32x8",
                        flags_of(page, "block", "hnd", "per_tensor", "window:128,16", "32/8",
                                 qo, kv, ["--q-dtype", "f16", "--lse"])))
    if "serving" in sets:
        # Issue 16's features on the GPU: an e5m2 cache under an e4m3 Q (the
        # mixed MMA) in each V-descale route on spread data and with
        # per_tensor + a window; a bf16 Q quantized to e4m3 over it; the soft
        # cap's value read at run time; D 192 / Dv 128 and D 256.
        for page in [1, 16, 32, 64, 1024]:
            qo, kv = LENS["16/16"]
            out.append((f"e5m2-spread-p{page}-csr-nhd-kv_blockscale-causal-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                 ["--kv-dtype", "f8E5M2", "--data", "spread", "--lse"])))
        for page in [16, 1024]:
            qo, kv = LENS["32/8"]
            out.append((f"e5m2-p{page}-block-hnd-per_tensor-window-32x8",
                        flags_of(page, "block", "hnd", "per_tensor", "window:128,16", "32/8",
                                 qo, kv, ["--kv-dtype", "f8E5M2"])))
            qo, kv = LENS["16/16"]
            out.append((f"q16-e5m2-spread-p{page}-csr-nhd-kv_blockscale-causal-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                 ["--q-dtype", "bf16", "--kv-dtype", "f8E5M2", "--data", "spread",
                                  "--lse"])))
            out.append((f"rtcap-spread-p{page}-csr-nhd-kv_blockscale-none-16x16",
                        flags_of(page, "csr", "nhd", "kv_blockscale", "none", "16/16", qo, kv,
                                 ["--runtime-scalars", "--soft-cap", "5", "--sm-scale", "0.1",
                                  "--data", "spread", "--lse"])))
        for page in [16, 64, 1024]:
            qo, kv = LENS["16/16"]
            for dim in ["192/128", "256"]:
                out.append((f"d{dim.replace('/', 'v')}-spread-p{page}-csr-nhd-kv_blockscale-causal-16x16",
                            flags_of(page, "csr", "nhd", "kv_blockscale", "causal", "16/16", qo, kv,
                                     ["--head-dim", dim, "--data", "spread", "--lse"])))
    if "none16" in sets:
        # 16-bit Q, K and V (quant none): the 16-bit MMA (mma.sync m16n8k16,
        # wgmma k16), bf16 at every regime page with CSR + NHD + causal, f16
        # with the block table, HND and a window, D 64 and 256 (sm_90:
        # 16-bit D 256 does not fit its 48 KiB: compile-failed).
        for page in [1, 16, 32, 64, 1024]:
            qo, kv = LENS["32/8"]
            out.append((f"none16-bf16-p{page}-csr-nhd-causal-32x8",
                        flags_of(page, "csr", "nhd", "none", "causal", "32/8", qo, kv,
                                 ["--q-dtype", "bf16", "--kv-dtype", "bf16", "--lse"])))
        for page in [16, 1024]:
            qo, kv = LENS["16/16"]
            out.append((f"none16-f16-p{page}-block-hnd-window-16x16",
                        flags_of(page, "block", "hnd", "none", "window:128,16", "16/16", qo, kv,
                                 ["--q-dtype", "f16", "--kv-dtype", "f16", "--out-dtype", "f16"])))
            out.append((f"none16-bf16-d64-p{page}-csr-nhd-none-16x16",
                        flags_of(page, "csr", "nhd", "none", "none", "16/16", qo, kv,
                                 ["--q-dtype", "bf16", "--kv-dtype", "bf16", "--head-dim", "64"])))
    names = [n for n, _ in out]
    assert len(names) == len(set(names)), "case names must be unique"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmha-compile")
    ap.add_argument("--out")
    ap.add_argument("--sets", default="main,short,spread",
                    help="comma list of main, short, spread, softcap, kvstrided, q16, serving, none16 (default: the first three)")
    ap.add_argument("--quick", action="store_true",
                    help="main: one case per page size; short and spread: causal kv_blockscale only")
    ap.add_argument("--chip", default="sm_90", choices=sorted(BLOCK_NS),
                    help="sm_90 (mma.sync) or sm_90a (wgmma); default sm_90")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--list", action="store_true", help="print NAME<TAB>flags, compile nothing")
    ap.add_argument("--flag", action="append", default=[],
                    help="one more fmha-compile flag for every case (repeatable; "
                         "e.g. --flag=--pipeline)")
    a = ap.parse_args()
    global CHIP, BLOCK_N
    CHIP, BLOCK_N = a.chip, BLOCK_NS[a.chip]
    sets = set(a.sets.split(","))
    if not sets <= {"main", "short", "spread", "softcap", "kvstrided", "q16", "serving", "none16"}:
        ap.error("--sets takes main, short, spread, softcap, kvstrided, q16, serving, none16")
    todo = cases(sets, a.quick)
    if a.list:
        for name, flags in todo:
            print(f"{name}\t{' '.join(flags)}")
        print(f"{len(todo)} cases", file=sys.stderr)
        return 0
    if not a.fmha_compile or not a.out:
        ap.error("--fmha-compile and --out are required (or --list)")
    os.makedirs(a.out, exist_ok=True)

    def compile_one(case):
        name, flags = case
        r = subprocess.run([a.fmha_compile, "-o", os.path.join(a.out, name)] + flags + a.flag,
                           capture_output=True, text=True)
        if r.returncode == 0:
            return "ok"
        # No half-written pair: the runner would take a lone NAME.json.
        for ext in (".json", ".ptx"):
            try:
                os.remove(os.path.join(a.out, name + ext))
            except FileNotFoundError:
                pass
        return f"compile-failed({r.returncode}): {r.stderr.strip()[:200]}"

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        statuses = list(pool.map(compile_one, todo))
    failed = 0
    with open(os.path.join(a.out, "cases.txt"), "w") as f:
        for (name, flags), status in zip(todo, statuses):
            f.write(f"{name}\t{status}\t{' '.join(flags)}\n")
            print(f"{name}: {status}", file=sys.stderr)
            failed += status != "ok"
    print(f"{len(todo)} cases: {len(todo) - failed} compiled, {failed} failed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
