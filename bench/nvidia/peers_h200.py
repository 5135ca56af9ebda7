#!/usr/bin/env python3
"""Peers on the H200 for the benchmark shapes (make_bench.py): torch SDPA,
bf16, dense (not paged), with the flash and the cuDNN backends.

Usage (on the device machine): peers_h200.py BENCH_TXT OUT.json [D]

Same shapes as our kernels: B and Sq from bench.txt (columns 5 and 6; 4
and 512 where a line has four), Sk from bench.txt, Hq 32 (K/V
expanded from 8 heads: GQA does not change the FLOP count), D 128 (or the
third argument). Causal is
bottom-right (the new tokens attend to the whole cached prefix), as our
kernel's mask: torch's CausalBias lower-right. Timing: CUDA events, 5
warm-ups, median of 30, a 256 MiB buffer written between repetitions to flush
the 60 MiB L2.
"""
import json
import statistics
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right
import torch.nn.functional as F

B, SQ, HQ, D = 4, 512, 32, 128


def flops(sk, causal, b=B, sq=SQ):
    pairs = sq * sk if not causal else sum(min(sk, sk - sq + i + 1) for i in range(sq))
    return 2.0 * pairs * HQ * (D + D) * b


def time_fn(fn, flush):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(30):
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def main():
    global D
    if len(sys.argv) > 3:
        D = int(sys.argv[3])
    rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if l.strip()]
    shapes = sorted({(r[2].strip(), int(r[3]),
                      int(r[4]) if len(r) > 5 else B, int(r[5]) if len(r) > 5 else SQ)
                     for r in rows})
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    out = []
    for mask, sk, b, sq in shapes:
        causal = mask == "causal"
        q = torch.randn(b, HQ, sq, D, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, HQ, sk, D, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, HQ, sk, D, device="cuda", dtype=torch.bfloat16)
        bias = causal_lower_right(sq, sk) if causal else None
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    fn = (lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias)) if causal else \
                         (lambda: F.scaled_dot_product_attention(q, k, v))
                    ms = time_fn(fn, flush)
                out.append({"peer": name, "mask": mask, "sk": sk, "b": b, "sq": sq, "ms": ms,
                            "tflops": flops(sk, causal, b, sq) / ms / 1e9})
            except Exception as ex:  # a backend that refuses a shape
                out.append({"peer": name, "mask": mask, "sk": sk, "b": b, "sq": sq,
                            "error": str(ex)[:200]})
            print(out[-1], flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    json.dump(out, open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
