#!/usr/bin/env python3
"""The lane-emulator regime matrix: one fmha-run flag set per (chip, regime).

Prints one line per case:

    CHIP<TAB>REGIME-NAME<TAB>flags...

to be run as `fmha-run --target CHIP flags...`. The page regimes and their
page sizes come from bench/regimes.py (the rules of SelectConfig, Tile,
PrefetchPageIds and LowerTiles; docs/REGIMES.md); the sequence lengths are
computed from each chip's tile sizes, k step and page size, so a case named
"kv-page-plus-1" has Sk = P + 1 on every chip. REGIME-NAME is
PAGE-REGIME.SEQUENCE-REGIME, unique per chip.

Sizes are small (the emulator runs every lane of every workgroup on one CPU
thread): 2/1 or 4/2 heads, D 64 (128 once), B <= 3, Sq and Sk under 300.
The quant none cases (16-bit Q, K and V) use the 16-bit MMA and follow
per_tensor's regimes (named none-*: one V scale per tile).

Only the cases named `*.last-page-fault` put a partly filled last page into
the page_groups fault window (Sk % P in 1..R, docs/REGIMES.md); every other
case keeps out of it (checked when the list is built), so a failure names its
regime.

A case added with oob=True is a known out-of-bounds read of the kernel: the
emulator's check-bounds reports it (fmha-run exits 3, "lane emulator:
out-of-bounds memory access ..."), and run.py expects exactly that. When the
kernel is fixed the case fails until the flag is dropped (and
oob-sk0-last.test flipped).

Usage:
  cases.py [--chip CHIP]                 the list
  cases.py --verify FMHA_COMPILE [--chip CHIP]
                                         compiles every case with
                                         `fmha-compile --chip CHIP flags --emit=mlir`
                                         and checks k_step and the V-descale
                                         route against the regime (exit 1 on
                                         a failure)
  cases.py --count                       cases per chip
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import regimes  # noqa: E402  (bench/regimes.py)


def page_of(chip, name, quant="kv_blockscale", prefer=None):
    """The page size of a regime on a chip (the smallest, or `prefer`), None if
    the chip never reaches it."""
    pages = [p for p in regimes.PAGES if regimes.regime(chip, p, quant)["name"] == name]
    if not pages:
        return None
    return prefer if prefer in pages else pages[0]


class Builder:
    def __init__(self, chip):
        self.chip = chip
        self.c = regimes.CHIPS[chip]
        self.cases = []
        self.seed = 1

    def add(self, seq, page, qo, kv, quant="kv_blockscale", table="csr", layout="nhd",
            mask="causal", heads="2/1", dim="64", lse=True, extra=(), fault=False,
            oob=False):
        # quant none (16-bit) follows per_tensor's regimes: one V scale per
        # tile (none), the same page ids; named "none-...".
        # The tile the chip's choice gives the case (sm_90a: 256 keys at D
        # <= 64 without a mask), unless the case states one.
        bn = (int(extra[list(extra).index("--block-n") + 1]) if "--block-n" in extra else
              regimes.block_n(self.chip, quant, mask, max(int(d) for d in dim.split("/")),
                              page, int(heads.split("/")[0]) // int(heads.split("/")[1])))
        r = regimes.regime(self.chip, page, "per_tensor" if quant == "none" else quant,
                           soft_cap="--soft-cap" in extra, window=mask.startswith("window"),
                           bn=bn)
        if quant == "none":
            r = dict(r, name=r["name"].replace("per-tensor", "none"))
        kvs = [int(x) for x in str(kv).split(",")]
        qos = [int(x) for x in str(qo).split(",")]
        assert len(qos) == len(kvs) or len(qos) == 1 or len(kvs) == 1
        # Keep the page_groups fault window for the cases named for it.
        if "fault_r_max" in r:
            hit = [s for s in kvs if 1 <= s % page <= r["fault_r_max"]]
            assert bool(hit) == fault, (self.chip, seq, page, kvs, r["fault_r_max"])
        else:
            assert not fault, (self.chip, seq, page)
        name = f"{r['name']}.{seq}"
        assert name not in [n for n, _, _ in self.cases], name
        fp8 = self.c["fp8"]
        flags = ["--page-size", str(page), "--qo-len", str(qo), "--kv-len", str(kv),
                 "--heads", heads, "--head-dim", dim, "--table", table, "--layout", layout,
                 "--quant", quant, "--mask", mask, "--q-dtype", fp8, "--kv-dtype", fp8,
                 "--seed", str(self.seed)]
        if lse:
            flags.append("--lse")
        flags += list(extra)
        self.seed += 1
        if oob:
            r = dict(r, expect="out-of-bounds")
        self.cases.append((name, flags, r))


def build(chip):
    b = Builder(chip)
    c = b.c
    BN, BM = c["block_n"], c["block_m"]

    # --- uniform page ids (P % BN == 0) ---------------------------------------
    p = page_of(chip, "uniform-page-tile")
    # Sk 1 (one key), BN - 1 (one partial tile), BN + 1 (a second tile of one
    # key, a second page); Sq 70 > Sk 65/129 leaves rows with no visible key.
    b.add("kv-1-bn-minus-1-bn-plus-1", p, "1,40,70", f"1,{BN - 1},{BN + 1}")
    # A page spanning tiles, partly filled: 3 (AMD) / 5 (sm_90) tiles of one page.
    b.add("partial-page-spans-tiles", 1024, "33,5", "300,5", table="block", layout="hnd",
          mask="none")
    if BN == 64:  # pages 128 and 192 are uniform only with BN 64
        b.add("page-192-kv-page-plus-minus-1", 192, "20,20", "191,193", mask="window:64,0",
              layout="hnd")
    # Sk = 0 as the last CSR sequence: the prologue's page-id prefetch reads
    # kv_page_indices[kv_indptr[B]] (one past the end; docs/REGIMES.md), which
    # the lane emulator's check-bounds reported until the prologue was
    # guarded (sk0-page-table-read.test).
    b.add("sk0-last-csr", BN, "9,4", "200,0", mask="none")
    # Ragged q tails over two q tiles (BM + 1 and 2 BM - 1 rows), causal.
    b.add("ragged-q-two-q-tiles", 1024, f"{BM + 1},{2 * BM - 1}", "200,150",
          table="block", layout="nhd")

    # --- per-token ids, page_groups V descales ----------------------------------
    for name in ("page-groups-1step", "page-groups-multistep"):
        for p in [q for q in regimes.PAGES
                  if regimes.regime(chip, q)["name"] == name]:
            R = regimes.regime(chip, p)["fault_r_max"]
            # The fault: Sk = 1 and Sk = R (one partly filled page), and a
            # third page holding R valid keys.
            b.add(f"p{p}-last-page-fault", p, "1,3,20", f"1,{R},{2 * p + R}", fault=True,
                  layout="hnd" if p == 32 else "nhd", table="block" if p == 64 else "csr")
    pg = page_of(chip, "page-groups-multistep") or page_of(chip, "page-groups-1step")
    R = regimes.regime(chip, pg)["fault_r_max"]
    # The same pages outside the window: P - 1, P + R + 1 and BN - 1 keys.
    b.add("partial-last-page-safe", pg, "16,30,8", f"{pg - 1},{pg + R + 1},{BN - 1}",
          mask="none")
    # Sk shorter than one k step, just outside the fault window, and k - 1.
    k = regimes.regime(chip, pg)["k_step"]
    b.add("kv-below-k-step", pg, "3,7", f"{R + 1},{k - 1}", layout="hnd", mask="none")
    # Causal Sq > Sk by more than BM: q tile 0 sees no key (an empty KV loop),
    # q tile 1 holds rows with and without visible keys.
    b.add("causal-sq-gt-sk", pg, str(2 * pg + BM + 20), str(2 * pg), table="block",
          layout="hnd")
    # A window: tiles left of it skipped (tLo > 0); Sq > Sk, so rows see nothing.
    b.add("window-skip-tiles", pg, "40,50", f"{2 * BN + 8},{pg - 2}", mask="window:24,4")
    # The same window and a scale read at run time (runtime_scalars): the
    # tile range and the mask from loaded bounds, sigma from a loaded scale.
    b.add("runtime-scalars-window", pg, "40,50", f"{2 * BN + 8},{pg - 2}",
          mask="window:24,4", extra=("--runtime-scalars", "--sm-scale", "0.3"))
    # GQA 4/2, D 128, both sequences of one tile and more.
    b.add("gqa-d128", pg, "17,33", f"{pg + R + 3},{BN + pg}", heads="4/2", dim="128",
          table="block", layout="nhd", mask="none")

    # --- per-token ids, scaled_p V descales --------------------------------------
    p = page_of(chip, "scaled-p-aligned")  # page 1
    b.add("p1-kv-1-5", p, "1,5", "1,5", layout="hnd")
    p8 = page_of(chip, "scaled-p-aligned", prefer=8)
    b.add(f"p{p8}-kv-page-plus-minus-1-bn-plus-1", p8, "7,9,3", f"{p8 - 1},{p8 + 1},{BN + 1}",
          table="block", layout="hnd", mask="window:-1,8")
    # Pages 16 and 32 where they are not page groups: sm_90 / sm_90a (k 32:
    # scaled_p) and gfx950 (exp2_bias at k 64, a P x V step over 4 and 2
    # pages).
    for q in (16, 32):
        if q != p8 and regimes.regime(chip, q)["name"] == "scaled-p-aligned":
            b.add(f"p{q}-kv-page-plus-minus-1", q, "15,17", f"{q - 1},{q + 1}",
                  extra=("--out-dtype", "f16"))
    b.add("p48-kv-page-plus-minus-1", 48, "20,3,30", f"47,49,{BN + 1}", table="csr",
          layout="hnd")
    b.add("p96-kv-page-plus-minus-1", 96, "20,30", "95,97", mask="none", table="block",
          layout="nhd", extra=("--out-dtype", "f32"))
    if BN == 128:  # 192 = 1.5 tiles of 128: a page boundary inside tile 1
        b.add("p192-kv-page-plus-minus-1", 192, "10,10", "191,193")

    # --- spread data (K and V magnitudes 2^-6..2^6 per physical page and KV
    # head: the inputs that see a wrong descale, SPEC section 6) in each
    # kv_blockscale V-descale route the chip has: uniform ids, page groups,
    # scaled p; 4/2 heads so the KV head matters.
    b.add("spread-pages-span-tiles", 1024, "40,9", "300,70", heads="4/2", mask="none",
          extra=("--data", "spread"))
    pg = page_of(chip, "page-groups-1step")
    b.add("spread-page-groups", pg, "33,20", f"{3 * pg},{BN + pg}", heads="4/2",
          table="block", layout="hnd", extra=("--data", "spread"))
    b.add("spread-scaled-p", p8, "17,40", f"{5 * p8},{BN + 2 * p8}", heads="4/2",
          extra=("--data", "spread"))
    # Per-token descales a lane loads as its share of its group's columns
    # where the column form's loads are not wave-uniform (the spread form,
    # LaneLayout.h SpreadPlan: page 1, and pages off the tiles' boundaries),
    # read back by group broadcasts (a DPP row on AMDGPU, shfl.sync.idx on
    # NVIDIA). At page 1 a wrong slot, column or broadcast lane gives a key
    # another page's descale (checked by mutating each, 2026-12-06); at
    # page 48 only a wrong slot does (a misplacement inside an aligned run
    # of 8 or 16 keys stays in its page). Full tiles, a partial one, D 128.
    # The unit test LaneLayoutTest SpreadFormBroadcastsEachColumnsOwnValue
    # checks the plan itself on every lane of every chip.
    b.add("spread-p1", 1, "17,40", f"{BN + 37},{2 * BN + 5}", heads="4/2", dim="128",
          extra=("--data", "spread"))
    b.add("spread-p48", 48, "20,33", f"{2 * BN + 7},100", heads="4/2", table="block",
          extra=("--data", "spread"))

    # --- the soft cap (fmha-expand-tanh: tanh as exp2 and arith on the GPU):
    # a cap of 2 on spread data saturates most logits, one of 5 on a causal
    # page-group tile leaves most in tanh's curved part.
    b.add("soft-cap-spread", 1024, "40,9", "300,70", heads="4/2", mask="none",
          extra=("--soft-cap", "2", "--data", "spread"))
    b.add("soft-cap-page-groups", pg, "33,20", f"{3 * pg},{BN + pg}", table="block",
          extra=("--soft-cap", "5"))
    # Where the soft cap changes the k step (gfx950 page 16: page_groups on
    # the K=16 MFMA, where exp2_bias keeps K=64), that regime and its fault.
    if regimes.k_step(chip, 16, "kv_blockscale", soft_cap=True) != regimes.k_step(
            chip, 16, "kv_blockscale"):
        R = regimes.regime(chip, 16, soft_cap=True)["fault_r_max"]
        b.add("soft-cap-p16-last-page-fault", 16, "1,3,20", f"1,{R},{32 + R}", fault=True,
              extra=("--soft-cap", "5"))
    # The cap's value read at run time (runtime_scalars[3]) with the scale.
    b.add("runtime-soft-cap", 1024, "40,9", "300,70", heads="4/2", mask="none",
          extra=("--runtime-scalars", "--soft-cap", "3", "--sm-scale", "0.2",
                 "--data", "spread"))

    # --- K and V as views of one combined (N_pages, 2, P, Hkv, D) cache
    # (--kv-strided: page, token and head strides at run time), on spread
    # data: a wrong stride reads another page's or V's values.
    b.add("kv-strided-combined", 1024, "40,9", "300,70", heads="4/2", mask="none",
          extra=("--kv-strided", "--data", "spread"))
    b.add("kv-strided-combined-hnd", pg, "33,20", f"{3 * pg},{BN + pg}", heads="4/2",
          table="block", layout="hnd", extra=("--kv-strided", "--data", "spread"))

    # --- head dims and outputs of the support table (README): D 256 (sm_90a:
    # block_n 64, so its K and V tiles fit 48 KiB) and D 192 / Dv 128
    # (sm_90a: K rows in the 64B swizzle, Q in registers), no lse with an
    # f16 output.
    b.add("d256", 1024, "33,9", "150,40", dim="256", mask="none", extra=("--data", "spread"))
    b.add("d192-dv128", pg, "20,9", f"{3 * pg},{BN + pg}", dim="192/128", table="block",
          extra=("--data", "spread"))
    b.add("no-lse-f16-out", 1024, "20,9", "150,40", lse=False, layout="hnd",
          extra=("--out-dtype", "f16"))

    # --- a 16-bit Q with the fp8 cache (config q_scale = per_tile: each Q
    # tile quantized on the fly, fmha.quantize_tile): bf16 on spread K/V with
    # a ragged second q tile, f16 on the page-group route (sm_90a: the
    # quantized Q stays in registers, the RS form of S = Q K^T).
    b.add("q16-bf16-spread", 1024, f"{BM + 9},9", "300,70", heads="4/2",
          extra=("--q-dtype", "bf16", "--data", "spread"))
    b.add("q16-f16-page-groups", pg, "33,20", f"{3 * pg},{BN + pg}", table="block",
          layout="hnd", mask="none", extra=("--q-dtype", "f16"))
    # D 128: four k steps of 16-bit values loaded at once (sm_90's v16bf16
    # shuffles once stopped the emulator's x86 JIT; the lane code now moves
    # them as integers).
    b.add("q16-bf16-d128", 1024, "40,9", "200,70", heads="8/2", dim="128", mask="none",
          extra=("--q-dtype", "bf16"))

    # --- an e5m2 cache under an e4m3 Q (the mixed e4m3 x e5m2 MMA: gfx942
    # v_mfma_*_bf8_fp8, gfx950 f8f6f4 with per-operand formats, mma.sync and
    # wgmma .e4m3.e5m2) for S = Q K^T and P V, on spread data; and a 16-bit Q
    # quantized per tile to the chip's e4m3 over an e5m2 cache.
    e5m2 = "f8E5M2FNUZ" if c["fp8"].endswith("FNUZ") else "f8E5M2"
    b.add("e5m2-kv-spread", 1024, f"{BM + 9},9", "300,70", heads="4/2",
          extra=("--kv-dtype", e5m2, "--data", "spread"))
    b.add("e5m2-kv-page-groups", pg, "33,20", f"{3 * pg},{BN + pg}", table="block",
          layout="hnd", mask="none", extra=("--kv-dtype", e5m2, "--data", "spread"))
    b.add("q16-e5m2-kv", 1024, "40,9", "300,70", heads="4/2", mask="none",
          extra=("--q-dtype", "bf16", "--kv-dtype", e5m2, "--data", "spread"))

    # --- 16-bit Q, K and V (quant none): the chip's 16-bit MMA (gfx942
    # 32x32x8, gfx950 32x32x16, mma.sync m16n8k16, wgmma k16), staged and
    # loaded as bytes (MmaAtom::elemBytes), V transposed in 2-byte values,
    # P cast to 16 bits; per-token pages with a ragged second q tile, one page
    # per tile with a window and f16 out, D 128 GQA.
    b.add("bf16-none-pages", 16, f"{BM + 9},9,1", "300,70,9", quant="none", heads="4/2",
          extra=("--q-dtype", "bf16", "--kv-dtype", "bf16"))
    b.add("f16-none-window-f16-out", 1024, "40,17", "300,90", quant="none", table="block",
          layout="hnd", mask="window:24,4",
          extra=("--q-dtype", "f16", "--kv-dtype", "f16", "--out-dtype", "f16"))
    b.add("bf16-none-d128-gqa", 64, "33,9", "200,140", quant="none", heads="8/2", dim="128",
          mask="none", extra=("--q-dtype", "bf16", "--kv-dtype", "bf16"))

    # --- per_tensor ---------------------------------------------------------------
    b.add("sq0-in-batch", 16, "0,9,5", "40,40,0", quant="per_tensor", table="block",
          layout="hnd", mask="none")
    b.add("kv-1-5-bn-plus-1", BN, "1,5,20", f"1,5,{BN + 1}", quant="per_tensor")
    if chip == "gfx950":  # per_tensor keeps k 64 where kv_blockscale takes k 16
        b.add("p16-k64-kv-page-plus-1", 16, "9,17", f"17,{BN + 1}", quant="per_tensor",
              mask="window:16,0")
    return b.cases


def all_cases(chips):
    return [(chip, name, flags, r) for chip in chips for name, flags, r in build(chip)]


def verify(fmha_compile, cases):
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for chip, name, flags, r in cases:
            out = os.path.join(tmp, "k")
            p = subprocess.run([fmha_compile, "--chip", chip, "--emit=mlir", "-o", out] + flags,
                               capture_output=True, text=True)
            why = ""
            if p.returncode != 0:
                why = f"fmha-compile rc={p.returncode}: {p.stderr.strip()[:200]}"
            else:
                mlir = open(out + ".mlir").read()
                cfg = regimes.config_of(mlir)
                k = cfg["k_step"]
                if k != r["k_step"]:
                    why = f"k_step {k}, regime says {r['k_step']}"
                elif regimes.route_of(cfg["vd_route"]) != regimes.route_of(r["vd_route"]):
                    why = f"vd_route {cfg['vd_route']}, regime says {r['vd_route']}"
            bad += bool(why)
            print(f"{'ok  ' if not why else 'FAIL'} {chip}\t{name}\t{why}")
    print(f"{len(cases) - bad} compile, {bad} fail")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chip", choices=list(regimes.CHIPS))
    ap.add_argument("--verify", metavar="FMHA_COMPILE")
    ap.add_argument("--count", action="store_true")
    a = ap.parse_args()
    chips = [a.chip] if a.chip else list(regimes.CHIPS)
    cases = all_cases(chips)
    if a.verify:
        return verify(a.verify, cases)
    if a.count:
        for chip in chips:
            print(f"{chip}\t{sum(1 for c in cases if c[0] == chip)}")
        return 0
    for chip, name, flags, _ in cases:
        print(f"{chip}\t{name}\t{' '.join(flags)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
