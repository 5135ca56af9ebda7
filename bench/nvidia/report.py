#!/usr/bin/env python3
"""Benchmark table (markdown) and plot (PNG, where matplotlib exists) from
device_bench.sh's ours.jsonl and peers.json.

Usage: report.py RESULTS_DIR   (reads bench_ours.jsonl, bench_peers.json;
writes bench.md and bench.png into it)
"""
import json
import os
import sys

d = sys.argv[1]
ours = [json.loads(l) for l in open(os.path.join(d, "bench_ours.jsonl")) if l.strip()]
peers = json.load(open(os.path.join(d, "bench_peers.json")))
def shape(x):
    return (x["mask"], x["sk"], x.get("b", 4), x.get("sq", 512))


peer = {(p["peer"],) + shape(p): p.get("tflops") for p in peers}
lines = ["| page | mask | Sk | B | Sq | ours ms | ours TFLOPS | flash TFLOPS | cuDNN TFLOPS | ours / flash | ours / cuDNN | regs | local B |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for o in sorted(ours, key=lambda o: (o["page"],) + shape(o)):
    f, c = peer.get(("flash",) + shape(o)), peer.get(("cudnn",) + shape(o))
    t = o["tflops"]
    fs = lambda x: f"{x:.1f}" if x else "-"
    rs = lambda x: f"{t / x:.2f}" if x else "-"
    lines.append(f"| {o['page']} | {o['mask']} | {o['sk']} | {o.get('b', 4)} | {o.get('sq', 512)} | "
                 f"{o['median_ms']:.3f} | {t:.1f} | {fs(f)} | {fs(c)} | {rs(f)} | {rs(c)} | "
                 f"{o['func']['num_regs']} | {o['func']['local_bytes']} |")
open(os.path.join(d, "bench.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
for ax, mask in zip(axes, ["none", "causal"]):
    for page in (16, 64, 1024):
        pts = sorted((o["sk"], o["tflops"]) for o in ours
                     if o["mask"] == mask and o["page"] == page and shape(o)[2:] == (4, 512))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"ours fp8 kv_blockscale, page {page}")
    for name, style in (("flash", "s--"), ("cudnn", "^--")):
        pts = sorted((p["sk"], p["tflops"]) for p in peers if p["peer"] == name and p["mask"] == mask
                     and "tflops" in p and shape(p)[2:] == (4, 512))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=f"torch SDPA {name} (bf16, dense)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Sk (cached tokens), Sq = 512, B = 4, Hq/Hkv 32/8, D 128")
    ax.set_title(f"{ours[0].get('device', {}).get('name', 'H200')}, mask {mask}")
    ax.grid(True, alpha=0.3)
axes[0].set_ylabel("TFLOP/s (FLOPs: 2 x visible pairs x Hq x (D + Dv))")
axes[1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(d, "bench.png"), dpi=110)
