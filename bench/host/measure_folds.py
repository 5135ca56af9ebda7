#!/usr/bin/env python3
"""Measures what the seed's folds buy, on the host path. Prints markdown.

1. Floating-point operations per P element in the KV loop, counted in the
   tiled IR (fmha-opt after fmha-tile, with and without the folds): every
   arith/math op on floats inside the loop marked fmha.kv_loop counts its
   result's elements (a reduction counts its source's elements), divided by
   the BlockM x BlockN elements of P. MMA products (fmha.tile_mma) are not
   counted: they are the same before and after.
2. Error against the double-precision oracle with the exp2 shift and with P
   cast unshifted (config shift = 0), same inputs, e4m3fn and e4m3fnuz P.

Usage: bench/host/measure_folds.py BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys

REQ = """
func.func @f(%q: memref<?x8x128x{T}>, %k: memref<?x{P}x2x128x{T}>,
    %v: memref<?x{P}x2x128x{T}>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xbf16>) {{
  fmha.batch_prefill q(%q : memref<?x8x128x{T}>)
      k(%k : memref<?x{P}x2x128x{T}>) v(%v : memref<?x{P}x2x128x{T}>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x128xbf16>)
      {{quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = {P} : i64}}
  return
}}
"""

FP_OP = re.compile(r"=\s+(arith\.(?:mulf|addf|subf|divf|maximumf|minimumf|select|cmpf|truncf|extf)"
                   r"|math\.\w+|vector\.multi_reduction)\b")
VEC = re.compile(r"vector<([0-9x]+)x(f32|i1|f8\w*|bf16|f16)>")


def elements(shape):
    n = 1
    for d in shape.split("x"):
        n *= int(d)
    return n


def count_ops(ir, bm, bn):
    """Ops inside the KV loop: per P element (ops on BlockM x BlockN tiles, plus
    per-row ops spread over the row's BlockN elements) with a breakdown, and
    the ops on the BlockM x Dv accumulator (per O element), which the folds do
    not target."""
    lines = ir.splitlines()
    start = next(i for i, l in enumerate(lines) if "scf.for" in l and "iter_args" in l
                 and "vector<" in l)
    end = next(i for i in range(start, len(lines)) if "fmha.kv_loop" in lines[i])
    p_ops, parts, o_ops = 0.0, {}, 0
    for l in lines[start + 1:end]:
        m = FP_OP.search(l)
        if not m:
            continue
        op = m.group(1)
        types = VEC.findall(l)
        if not types:
            continue  # scalar: once per tile
        # A reduction works over its source (the first type); others produce
        # their result (the last type).
        shape = types[0] if op == "vector.multi_reduction" else types[-1]
        if shape[1] == "i1" and op != "arith.select":
            continue  # mask bits
        dims = [int(d) for d in shape[0].split("x")]
        if dims == [bm, bn]:
            w = 1.0
        elif dims == [bm]:
            w = 1.0 / bn
        else:
            o_ops += 1
            continue
        if op == "arith.select" and "xf32>" not in l.split(":")[-1]:
            continue
        p_ops += w
        parts[op] = parts.get(op, 0) + w
    return p_ops, parts, o_ops


def tiled_ir(fmha_opt, ty, page, folds, chip):
    passes = [f"--fmha-select-config=chip={chip}", "--fmha-tile"]
    if folds:
        passes += ["--fmha-fold-descales", "--fmha-fold-exp2-shift", "--fmha-fold-vd-rescale"]
    passes += ["--canonicalize", "--cse"]
    src = REQ.format(T=ty, P=page)
    return subprocess.run([fmha_opt, "-", *passes], input=src, capture_output=True,
                          text=True, check=True).stdout


def run(fmha_run, args):
    p = subprocess.run([fmha_run, "--json", *args], capture_output=True, text=True)
    return json.loads(p.stdout)


def main():
    build = next((a for a in sys.argv[1:] if not a.startswith("--")), "build")
    fmha_opt = os.path.join(build, "bin", "fmha-opt")
    fmha_run = os.path.join(build, "bin", "fmha-run")

    print("## FP operations per P element in the KV loop (tiled IR)\n")
    print("| P type | page | config | before folds | after folds | O-tile ops before / after |")
    print("|---|---|---|---|---|---|")
    detail = []
    for ty in ["f8E4M3FN", "f8E4M3FNUZ"]:
        # Configs whose P tile (BlockM x BlockN) differs in shape from the
        # accumulator (BlockM x Dv = 128), so the two are told apart.
        for page, chip, bm, bn in [(1024, "host", 16, 32), (16, "host", 16, 32),
                                   (48, "host", 16, 32)]:
            before, pb, ob = count_ops(tiled_ir(fmha_opt, ty, page, False, chip), bm, bn)
            after, pa, oa = count_ops(tiled_ir(fmha_opt, ty, page, True, chip), bm, bn)
            print(f"| {ty} | {page} | {chip} {bm}x{bn} | {before:.3f} | {after:.3f} | {ob} / {oa} |")
            detail.append((ty, page, chip, pb, pa))
    print("\nPer-op breakdown (ops per P element; per-row ops count 1/BlockN):\n")
    for ty, page, chip, pb, pa in detail[:2]:
        print(f"- {ty}, page {page}, {chip}: before " +
              ", ".join(f"{k} {v:.3f}" for k, v in sorted(pb.items())) +
              "; after " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(pa.items())))
    print("\n## Error against the oracle: exp2 shift vs P cast unshifted\n")
    if "--ops-only" in sys.argv:
        return
    reqs = {
        "default (sm_scale 1/sqrt(128), B=2, Sq=128/96, Sk=2000/1500, 8/2 heads, P=1024, causal)":
            ["--qo-len", "128,96", "--kv-len", "2000,1500", "--heads", "8/2"],
        "sharp softmax (sm_scale 1, same shapes)":
            ["--qo-len", "128,96", "--kv-len", "2000,1500", "--heads", "8/2", "--sm-scale", "1"],
    }
    print("| request | P type | out | SHIFT | max abs | rel Frobenius | vs emulation |")
    print("|---|---|---|---|---|---|---|")
    for name, args in reqs.items():
        for ty in ["f8E4M3FN", "f8E4M3FNUZ"]:
            for out in ["f32", "bf16"]:
                for shift in ["-1", "0"]:
                    r = run(fmha_run, args + ["--q-dtype", ty, "--kv-dtype", ty,
                                              "--out-dtype", out, "--shift", shift])
                    sh = "default" if shift == "-1" else "0 (unshifted)"
                    print(f"| {name} | {ty} | {out} | {sh} | {r['max_abs_err']:.3e} | "
                          f"{r['rel_fro_err']:.3e} | {r['emulation']['rel_fro_err']:.1e} |")


if __name__ == "__main__":
    main()
