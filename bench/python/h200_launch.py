#!/usr/bin/env python3
"""On the H200: the fmha_mlir Python package launching prebuilt sm_90 or sm_90a kernels
on torch tensors (fmha_mlir.cuda.Launcher), checked against a float32
attention of the dequantized inputs in torch, and timed (CUDA events) with
the host time of one launch call.

    python3 bench/python/h200_launch.py KDIR   # KDIR: fmha-compile output
"""
import json
import math
import statistics
import sys
import time

import torch

sys.path.insert(0, "python")
import fmha_mlir  # noqa: E402
import fmha_mlir.cuda  # noqa: E402


def make_inputs(req, seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    qo, kv = req["qo_lens"], req["kv_lens"]
    hq, hkv, d, p = req["num_qo_heads"], req["num_kv_heads"], req["head_dim"], req["page_size"]
    npages = [max(1, math.ceil(k / p)) if k else 0 for k in kv]
    pool = sum(npages) + 3
    perm = torch.randperm(pool, generator=g)[: sum(npages)].to(torch.int32)
    kv_indptr = torch.tensor([0] + list(torch.tensor(npages).cumsum(0)), dtype=torch.int32)
    last = torch.tensor([k - (n - 1) * p if n else 0 for k, n in zip(kv, npages)], dtype=torch.int32)
    qo_indptr = torch.tensor([0] + list(torch.tensor(qo).cumsum(0)), dtype=torch.int32)
    tq = sum(qo)
    f8 = torch.float8_e4m3fn
    q = (torch.rand(tq, hq, d, generator=g) * 2 - 1).to(f8)
    kc = (torch.rand(pool, p, hkv, d, generator=g) * 2 - 1).to(f8)
    vc = (torch.rand(pool, p, hkv, d, generator=g) * 2 - 1).to(f8)
    kd = 0.5 + torch.rand(pool, hkv, generator=g)
    vd = 0.5 + torch.rand(pool, hkv, generator=g)
    t = dict(q=q, k_cache=kc, v_cache=vc, qo_indptr=qo_indptr, kv_indptr=kv_indptr,
             kv_page_indices=perm, kv_last_page_len=last,
             q_descale=torch.ones(1), k_descale=kd, v_descale=vd,
             out=torch.zeros(tq, hq, d, dtype=torch.bfloat16),
             lse=torch.zeros(tq, hq))
    return {k: v.cuda() for k, v in t.items()}


def reference(req, t):
    hq, hkv, d, p = req["num_qo_heads"], req["num_kv_heads"], req["head_dim"], req["page_size"]
    scale = 1.0 / math.sqrt(d)
    outs = []
    for b, (sq, sk) in enumerate(zip(req["qo_lens"], req["kv_lens"])):
        q0 = int(t["qo_indptr"][b])
        q = t["q"][q0:q0 + sq].float()
        pages = t["kv_page_indices"][int(t["kv_indptr"][b]):int(t["kv_indptr"][b + 1])].long()
        keys = torch.arange(sk, device="cuda")
        pg = pages[keys // p]
        slot = keys % p
        k = t["k_cache"][pg, slot].float() * t["k_descale"][pg].unsqueeze(-1)
        v = t["v_cache"][pg, slot].float() * t["v_descale"][pg].unsqueeze(-1)
        k = k.repeat_interleave(hq // hkv, dim=1)
        v = v.repeat_interleave(hq // hkv, dim=1)
        s = torch.einsum("qhd,khd->hqk", q, k) * scale
        i = torch.arange(sq, device="cuda").unsqueeze(1)
        j = keys.unsqueeze(0)
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
        pr = torch.softmax(s, dim=-1).nan_to_num(0.0)
        outs.append(torch.einsum("hqk,khd->qhd", pr, v))
    return torch.cat(outs)


def main():
    kdir = sys.argv[1]
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    rows = []
    for key, kernel in sorted(fmha_mlir.load_prebuilt(kdir).items()):
        req = kernel.manifest["request"]
        launcher = fmha_mlir.cuda.Launcher(kernel)
        t = make_inputs(req)
        launcher(t, req["qo_lens"])
        torch.cuda.synchronize()
        ref = reference(req, t)
        err = (t["out"].float() - ref).abs().max().item()
        # Timing: kernel (events) and the host time of one launcher call.
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        ms, host = [], []
        for _ in range(20):
            ev[0].record()
            h0 = time.perf_counter()
            launcher(t, req["qo_lens"])
            host.append((time.perf_counter() - h0) * 1e6)
            ev[1].record()
            torch.cuda.synchronize()
            ms.append(ev[0].elapsed_time(ev[1]))
        rows.append(dict(page=req["page_size"], qo=req["qo_lens"], kv=req["kv_lens"],
                         heads=f"{req['num_qo_heads']}/{req['num_kv_heads']}",
                         max_abs=err, median_ms=statistics.median(ms),
                         host_launch_us=statistics.median(host),
                         ok=err < 0.05))
    # The FlashInfer-style wrapper on the page-16 kernel's request.
    import fmha_mlir.wrappers as wr
    for key, kernel in sorted(fmha_mlir.load_prebuilt(kdir).items()):
        req = kernel.manifest["request"]
        t = make_inputs(req, seed=1)
        w = wr.BatchPrefillWithPagedKVCacheWrapper(chip=kernel.chip, prebuilt=kdir)
        w.plan(t["qo_indptr"], t["kv_indptr"], t["kv_page_indices"], t["kv_last_page_len"],
               req["num_qo_heads"], req["num_kv_heads"], req["head_dim"], req["page_size"],
               causal=True)
        out, lse = w.run(t["q"], t["k_cache"], t["v_cache"], t["k_descale"], t["v_descale"])
        torch.cuda.synchronize()
        err = (out.float() - reference(req, t)).abs().max().item()
        rows.append(dict(wrapper="BatchPrefillWithPagedKVCacheWrapper", page=req["page_size"],
                         max_abs=err, ok=err < 0.05))
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(),
                      "cases": rows}, indent=1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
