#!/usr/bin/env python3
"""Benchmark table (markdown) and plot from device_bench.sh's ours.jsonl
and peers.json: bench.png where matplotlib exists, else bench.svg (written
here without a plotting library, same axes and series).

Usage: report.py RESULTS_DIR   (reads bench_ours.jsonl, bench_peers.json;
writes bench.md and bench.png or bench.svg into it)
"""
import json
import os
import re
import sys

d = sys.argv[1]
ours = [json.loads(l) for l in open(os.path.join(d, "bench_ours.jsonl")) if l.strip()]
peers = json.load(open(os.path.join(d, "bench_peers.json")))
def shape(x):
    return (x["mask"], x["sk"], x.get("b", 4), x.get("sq", 512))


peer = {(p["peer"],) + shape(p): p.get("tflops") for p in peers}
# The heads and head dims the kernels state (fmha-cuda-run's request line:
# "H=32/8 D=64/64 ..."); the default grid's where a row does not say.
_req = re.search(r"H=(\d+/\d+) D=(\d+)(?:/(\d+))?", str(ours[0].get("request", ""))) if ours else None
HEADS, DIM = (_req.group(1), _req.group(2) if not _req.group(3) or _req.group(3) == _req.group(2)
              else f"{_req.group(2)}/{_req.group(3)}") if _req else ("32/8", "128")
XLABEL = f"Sk (cached tokens), Sq = 512, B = 4, Hq/Hkv {HEADS}, D {DIM}"
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


def series(mask):
    """(label, dashed, [(sk, tflops)]) of each line of one panel."""
    out = []
    for page in (16, 64, 1024):
        pts = sorted((o["sk"], o["tflops"]) for o in ours
                     if o["mask"] == mask and o["page"] == page and shape(o)[2:] == (4, 512))
        out.append((f"ours fp8 kv_blockscale, page {page}", False, pts))
    for name in ("flash", "cudnn"):
        pts = sorted((p["sk"], p["tflops"]) for p in peers if p["peer"] == name and p["mask"] == mask
                     and p.get("tflops") and shape(p)[2:] == (4, 512))
        out.append((f"torch SDPA {name} (bf16, dense)", True, pts))
    return out


def svg_plot(path, device):
    """Two panels (mask none, causal): TFLOP/s against Sk (log 2), no library."""
    import math
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
    W, H, L, T, PW, PH = 1420, 470, 70, 40, 480, 340
    allpts = [pt for m in ("none", "causal") for _, _, pts in series(m) for pt in pts]
    if not allpts:
        return
    xs = [math.log2(x) for x, _ in allpts]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y1 = max(y for _, y in allpts) * 1.08
    el = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
          f'<rect width="{W}" height="{H}" fill="white"/>']
    for k, mask in enumerate(("none", "causal")):
        ox = L + k * (PW + 110)
        px = lambda x: ox + (math.log2(x) - x0) / (x1 - x0) * PW
        py = lambda y: T + PH - y / y1 * PH
        el.append(f'<rect x="{ox}" y="{T}" width="{PW}" height="{PH}" fill="none" stroke="#888"/>')
        el.append(f'<text x="{ox + PW / 2}" y="{T - 12}" text-anchor="middle" font-size="13">{device}, mask {mask}</text>')
        step = 100 if y1 > 300 else 50
        for v in range(0, int(y1) + 1, step):
            el.append(f'<line x1="{ox}" x2="{ox + PW}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>')
            el.append(f'<text x="{ox - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v}</text>')
        for e in range(int(x0), int(x1) + 1):
            x = 2 ** e
            el.append(f'<text x="{px(x):.1f}" y="{T + PH + 16}" text-anchor="middle">{x}</text>')
        el.append(f'<text x="{ox + PW / 2}" y="{T + PH + 34}" text-anchor="middle">{XLABEL}</text>')
        for i, (label, dashed, pts) in enumerate(series(mask)):
            if not pts:
                continue
            c = colors[i % len(colors)]
            d = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            dash = ' stroke-dasharray="6,4"' if dashed else ""
            el.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
            for x, y in pts:
                el.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
            if k == 1:
                el.append(f'<line x1="{ox + PW + 8}" x2="{ox + PW + 28}" y1="{T + 14 + 16 * i}" y2="{T + 14 + 16 * i}" stroke="{c}" stroke-width="2"{dash}/>')
                el.append(f'<text x="{ox + PW + 32}" y="{T + 18 + 16 * i}" font-size="9">{label}</text>')
    el.append(f'<text x="16" y="{T + PH / 2}" transform="rotate(-90 16 {T + PH / 2})" text-anchor="middle">TFLOP/s (2 x visible pairs x Hq x (D + Dv))</text>')
    el.append("</svg>")
    open(path, "w").write("\n".join(el) + "\n")


device = ours[0].get("device", {}).get("name", "H200") if ours else "H200"
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    svg_plot(os.path.join(d, "bench.svg"), device)
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
    ax.set_xlabel(XLABEL)
    ax.set_title(f"{ours[0].get('device', {}).get('name', 'H200')}, mask {mask}")
    ax.grid(True, alpha=0.3)
axes[0].set_ylabel("TFLOP/s (FLOPs: 2 x visible pairs x Hq x (D + Dv))")
axes[1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(d, "bench.png"), dpi=110)
