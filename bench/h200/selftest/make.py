#!/usr/bin/env python3
"""Builds the self-test kernels of bench/h200: naive_attention.cu compiled to
PTX (clang, no CUDA toolkit) once per static shape, plus one manifest each in
fmha-compile's schema (fmha-kernel-manifest/1, chip sm_90), into
bench/h200/selftest/kernels/ (checked in, because the GPU machine has no
clang).

    bench/h200/selftest/make.py [--clang clang++-22] [--out DIR]

The kernels are not the project's: they follow the emulating reference step
by step, one thread per query row, so a correct runner reports PASS against
both references (rel. Frobenius vs the emulation near 1e-7), and the
deliberately wrong one (bug_no_kd: the K descale dropped) FAIL.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK_M = 64  # threads per block, rows per block

# name, request fields, BLOCK_N, extra macros
CASES = [
    ("selftest_causal_p1024",
     dict(qo_lens=[128, 96], kv_lens=[1280, 1100], num_qo_heads=32,
          num_kv_heads=8, head_dim=128, page_size=1024, mask="causal",
          lse=False), 128, {}),
    ("selftest_window_p16_lse",
     dict(qo_lens=[9, 20, 64], kv_lens=[40, 0, 300], num_qo_heads=4,
          num_kv_heads=2, head_dim=64, page_size=16, mask="window(24,4)",
          lse=True), 64, {}),
    ("selftest_none_p48_lse",
     dict(qo_lens=[33, 100], kv_lens=[500, 97], num_qo_heads=16,
          num_kv_heads=4, head_dim=128, page_size=48, mask="none",
          lse=True), 32, {}),
    ("selftest_perf_causal_4x512x4096",
     dict(qo_lens=[512] * 4, kv_lens=[4096] * 4, num_qo_heads=32,
          num_kv_heads=8, head_dim=128, page_size=1024, mask="causal",
          lse=False), 128, {}),
    # Expected to FAIL: the kernel ignores k_descale.
    ("selftest_bug_no_kd",
     dict(qo_lens=[9, 20, 64], kv_lens=[40, 0, 300], num_qo_heads=4,
          num_kv_heads=2, head_dim=64, page_size=16, mask="window(24,4)",
          lse=True), 64, {"BUG_NO_KD": 1}),
]


def args_for(lse):
    names = [
        ("q", "pointer"), ("q_dim0", "i64"),
        ("k_cache", "pointer"), ("k_cache_dim0", "i64"),
        ("v_cache", "pointer"), ("v_cache_dim0", "i64"),
        ("qo_indptr", "pointer"), ("qo_indptr_dim0", "i64"),
        ("kv_indptr", "pointer"), ("kv_indptr_dim0", "i64"),
        ("kv_page_indices", "pointer"), ("kv_page_indices_dim0", "i64"),
        ("kv_last_page_len", "pointer"), ("kv_last_page_len_dim0", "i64"),
        ("q_descale", "pointer"),
        ("k_descale", "pointer"), ("k_descale_dim0", "i64"),
        ("k_descale_offset", "i64"), ("k_descale_stride0", "i64"),
        ("k_descale_stride1", "i64"),
        ("v_descale", "pointer"), ("v_descale_dim0", "i64"),
        ("v_descale_offset", "i64"), ("v_descale_stride0", "i64"),
        ("v_descale_stride1", "i64"),
        ("out", "pointer"), ("out_dim0", "i64"),
    ]
    if lse:
        names += [("lse", "pointer"), ("lse_dim0", "i64")]
    return [dict(name=n, kind=k, offset=8 * i, size=8, align=8)
            for i, (n, k) in enumerate(names)]


def mask_macros(mask):
    if mask == "none":
        return {"MASK": 0}
    if mask == "causal":
        return {"MASK": 1}
    left, right = mask[len("window("):-1].split(",")
    return {"MASK": 2, "WL": int(left), "WR": int(right)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", default="clang++-22")
    ap.add_argument("--out", default=os.path.join(HERE, "kernels"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(HERE, "naive_attention.cu")
    for name, r, block_n, extra in CASES:
        d = r["head_dim"]
        sm_scale = 1.0 / math.sqrt(d)
        req = dict(batch=len(r["qo_lens"]), qo_lens=r["qo_lens"],
                   kv_lens=r["kv_lens"], num_qo_heads=r["num_qo_heads"],
                   num_kv_heads=r["num_kv_heads"], head_dim=d, head_dim_v=d,
                   page_size=r["page_size"], page_table="csr",
                   kv_layout="nhd", quant="kv_blockscale", mask=r["mask"],
                   q_dtype="f8E4M3FN", kv_dtype="f8E4M3FN", out_dtype="bf16",
                   sm_scale=sm_scale, soft_cap=0, lse=r["lse"], seed=0)
        macros = dict(HQ=r["num_qo_heads"], HKV=r["num_kv_heads"], D=d, DV=d,
                      PAGE=r["page_size"], BLOCK_N=block_n, SHIFT=8,
                      SM_SCALE=repr(sm_scale), LSE=int(r["lse"]))
        macros.update(mask_macros(r["mask"]))
        macros.update(extra)
        ptx = os.path.join(a.out, name + ".ptx")
        # PTX ISA 7.8, the oldest with sm_90, so older drivers JIT it too.
        cmd = [a.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc",
               "-nocudalib", "--cuda-gpu-arch=sm_90", "-O2",
               "-ffp-contract=off", "-S", "-Wno-unknown-cuda-version",
               "-Xclang", "-target-feature", "-Xclang", "-ptx88",
               "-Xclang", "-target-feature", "-Xclang", "+ptx78",
               "-o", ptx, src] + ["-D%s=%s" % kv for kv in macros.items()]
        subprocess.run(cmd, check=True)
        with open(ptx) as f:
            text = f.read()
        if ".version 7.8" not in text:
            sys.exit("%s: expected .version 7.8 (clang changed its default "
                     "PTX version?)" % ptx)
        args = args_for(r["lse"])
        max_q = max(r["qo_lens"])
        manifest = {
            "format": "fmha-kernel-manifest/1",
            "chip": "sm_90",
            "target": "nvptx64-nvidia-cuda:sm_90",
            "kernel": "fmha_selftest_kernel",
            "symbol": "fmha_selftest_kernel",
            "note": "bench/h200/selftest: naive kernel, not fmha-compile's",
            "request": req,
            "args": args,
            "config": dict(block_m=BLOCK_M, block_n=block_n,
                           p_type="f8E4M3FN", shift=8),
            "workgroup": [BLOCK_M, 1, 1],
            "grid": {"x": "ceil(max_qo_len / %d)" % BLOCK_M,
                     "y": "num_qo_heads", "z": "batch"},
            "grid_for_request": [-(-max_q // BLOCK_M), r["num_qo_heads"],
                                 len(r["qo_lens"])],
            "binary_format": "ptx",
            "kernarg_size": 8 * len(args),
            "kernarg_align": 8,
            "lds_bytes": 0,
        }
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
        print("wrote", ptx, "and", name + ".json")


if __name__ == "__main__":
    main()
