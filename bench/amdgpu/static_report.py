#!/usr/bin/env python3
"""Static report of the AMDGPU kernels fmha-compile writes (docs/AMDGPU_STATIC_REPORT.md).

A MODEL, not a timing: there is no AMD GPU here. For each request and chip it
compiles the kernel (fmha-compile), reads resources from the manifest (which
fmha-compile reads back from the code object's metadata note), and runs the
workplace's loop counter (isa_loop_stats.py, not in this repository; --stats
takes its path: the largest backward-branch loop of `llvm-objdump -d`,
instruction classes, llvm-mca cycles per iteration) on the disassembly. The MFMA minimum per KV tile is
2 * BlockM * BlockN * D / (M*N*K of the MFMA) per workgroup, divided by the
4 waves; the loop's MFMAs over it are the tiles one iteration runs
(fmha-unroll-kv-loop), and the cycle goals compare cycles a tile.

Usage: static_report.py [--build DIR] [--stats PATH] [--markdown OUT.md] [--json OUT.json]
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLVM = "/usr/lib/llvm-22/bin"

REQUESTS = [
    # (label, flags): the default request (page 1024, kv_blockscale, causal,
    # 32/8 heads, D 128), then the variants the lit tests cover.
    ("default (P=1024, kv_blockscale, causal)", []),
    ("P=1024, kv_blockscale, no mask", ["--mask", "none"]),
    ("P=16, kv_blockscale, causal", ["--page-size", "16"]),
    ("P=1024, per_tensor, causal", ["--quant", "per_tensor"]),
    ("P=64, kv_blockscale, causal", ["--page-size", "64"]),
    # Per-key descales in the spread form (page 1: SGLang's default; 48:
    # pages off the tiles' boundaries).
    ("P=1, kv_blockscale, causal", ["--page-size", "1"]),
    ("P=48, kv_blockscale, causal", ["--page-size", "48"]),
    ("P=1024, kv_blockscale, window(256, 0)", ["--mask", "window:256,0"]),
    ("D=64, P=1024, kv_blockscale, causal", ["--head-dim", "64"]),
    ("D=256, P=1024, kv_blockscale, causal", ["--head-dim", "256"]),
    # 16-bit Q, K and V (quant none): the 16-bit MFMA (block_n 64).
    ("bf16 Q/K/V (quant none), P=1024, causal",
     ["--quant", "none", "--q-dtype", "bf16", "--kv-dtype", "bf16"]),
    # 8 waves sharing each K/V tile (--warps 8, block_m 256): a wave's
    # share of the loads and V transposes halves.
    ("8 waves (block_m 256), P=1024, kv_blockscale, causal", ["--warps", "8"]),
    ("8 waves (block_m 256), P=16, kv_blockscale, causal", ["--warps", "8", "--page-size", "16"]),
    ("8 waves (block_m 256), D=64, P=1024, kv_blockscale, causal", ["--warps", "8", "--head-dim", "64"]),
    # gfx950 only: K and V through registers (--lds-loads=false), the
    # control of its default loads straight into LDS.
    ("K/V through registers, P=1024, kv_blockscale, causal", ["--lds-loads=false"]),
    ("K/V through registers, P=16, kv_blockscale, causal", ["--lds-loads=false", "--page-size", "16"]),
    ("K/V through registers, P=64, kv_blockscale, causal", ["--lds-loads=false", "--page-size", "64"]),
    ("K/V through registers, P=1024, per_tensor, causal", ["--lds-loads=false", "--quant", "per_tensor"]),
    ("K/V through registers, D=256, P=1024, kv_blockscale, causal",
     ["--lds-loads=false", "--head-dim", "256"]),
    # gfx942 only: K by 4-byte loads straight into LDS, V in a register
    # stage (--lds-loads; the chip's choice is off), against its default.
    ("K into LDS, P=1024, kv_blockscale, causal", ["--lds-loads"]),
    ("K into LDS, P=16, kv_blockscale, causal", ["--lds-loads", "--page-size", "16"]),
    ("K into LDS, P=64, kv_blockscale, causal", ["--lds-loads", "--page-size", "64"]),
    ("K into LDS, P=1024, per_tensor, causal", ["--lds-loads", "--quant", "per_tensor"]),
    ("K into LDS, D=64, P=1024, kv_blockscale, causal", ["--lds-loads", "--head-dim", "64"]),
    ("K into LDS, D=256, P=1024, kv_blockscale, causal", ["--lds-loads", "--head-dim", "256"]),
    ("K into LDS, 8 waves (block_m 256), P=1024, kv_blockscale, causal",
     ["--lds-loads", "--warps", "8"]),
    # gfx942 only: K and V^T row-major in LDS (--lds-swizzle=false; the
    # chip's choice is chunk-major), the control of the layout.
    ("row-major LDS, P=1024, kv_blockscale, causal", ["--lds-swizzle=false"]),
    ("row-major LDS, P=16, kv_blockscale, causal", ["--lds-swizzle=false", "--page-size", "16"]),
    ("row-major LDS, P=64, kv_blockscale, causal", ["--lds-swizzle=false", "--page-size", "64"]),
    ("row-major LDS, D=64, P=1024, kv_blockscale, causal",
     ["--lds-swizzle=false", "--head-dim", "64"]),
    ("row-major LDS, D=256, P=1024, kv_blockscale, causal",
     ["--lds-swizzle=false", "--head-dim", "256"]),
    ("row-major LDS, 8 waves (block_m 256), P=1024, kv_blockscale, causal",
     ["--lds-swizzle=false", "--warps", "8"]),
]
# Rows only one chip reaches (the flag has no effect on the other, or is
# its default).
ONLY = {"--lds-loads=false": "gfx950", "--lds-loads": "gfx942", "--lds-swizzle=false": "gfx942"}
MNK = {"v_mfma_f32_32x32x16_fp8_fp8": 32 * 32 * 16, "v_mfma_f32_32x32x64_f8f6f4": 32 * 32 * 64,
       "v_mfma_f32_32x32x8_bf16": 32 * 32 * 8, "v_mfma_f32_32x32x16_bf16": 32 * 32 * 16}


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: {r.stderr}")
    return r.stdout


def one(build, stats, chip, flags, tmp):
    out = os.path.join(tmp, "k")
    run([os.path.join(build, "bin", "fmha-compile"), "--chip", chip, "-o", out,
         "--qo-len", "128,96", "--kv-len", "1280,1100"] + flags)
    man = json.load(open(out + ".json"))
    dis = out + ".dis"
    with open(dis, "w") as f:
        f.write(run([os.path.join(LLVM, "llvm-objdump"), "-d", "--mcpu=" + chip, out + ".hsaco"]))
    # llvm-mca behind a 60 s timeout: on one gfx950 loop (no mask) it spins
    # for more than 10 minutes; that row then reports no cycle model.
    wrap = os.path.join(tmp, "bin")
    os.makedirs(wrap, exist_ok=True)
    with open(os.path.join(wrap, "llvm-mca"), "w") as f:
        f.write(f'#!/bin/sh\nexec timeout 60 {LLVM}/llvm-mca "$@"\n')
    os.chmod(os.path.join(wrap, "llvm-mca"), 0o755)
    env = dict(os.environ, PATH=wrap + os.pathsep + LLVM + os.pathsep + os.environ["PATH"])
    text = run([sys.executable, stats, dis, chip], env=env)
    counts = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", text.splitlines()[0]))
    n = int(re.search(r": (\d+) instructions", text).group(1))
    kinds = eval(re.search(r"mfma kinds: (\{.*\})", text).group(1))
    m = re.search(r"cycles/iteration \(model\): (\S+); MFMA cycles (\S+); MFMA fraction (\S+)", text)
    req = man["request"]
    # MACs of one block_m x block_n KV tile (QK and PV) over the MFMA's MACs.
    cfg = man["config"]
    macs = cfg["block_m"] * cfg["block_n"] * (req["head_dim"] + req["head_dim_v"])
    minimum = macs // MNK[next(iter(kinds))] if kinds else 0
    mfma = counts.get("mfma", 0)
    waves = cfg.get("warps", 4)
    # KV tiles one iteration runs (fmha-unroll-kv-loop: 2 for kv_blockscale).
    tiles = mfma // (minimum // waves) if minimum else 1
    cycles = float(m.group(1)) if m else float("nan")
    return {
        "chip": chip, "flags": flags,
        "vgpr": man["vgpr"], "agpr": man["agpr"], "sgpr": man["sgpr"], "lds": man["lds_bytes"],
        "scratch": man["scratch_bytes"], "spills": man["vgpr_spills"] + man["sgpr_spills"],
        "vgpr_spills": man["vgpr_spills"], "sgpr_spills": man["sgpr_spills"],
        "waves_per_simd": man["waves_per_simd"],
        "loop_instructions": n, "mfma_kinds": kinds, "mfma": counts.get("mfma", 0),
        "mfma_min_per_wave": minimum // waves,
        "valu": counts.get("valu", 0), "salu": counts.get("salu", 0), "lds_ops": counts.get("lds", 0),
        "vmem": counts.get("vmem", 0), "smem": counts.get("smem", 0), "waitcnt": counts.get("waitcnt", 0),
        "barrier": counts.get("barrier", 0), "v_exp": counts.get("v_exp", 0), "cvt_fp8": counts.get("cvt_fp8", 0),
        "tiles": tiles,
        "mca_cycles": cycles,
        "mca_cycles_per_tile": cycles / tiles,
        "mfma_cycles": float(m.group(2)) if m else float("nan"),
        "mfma_fraction": float(m.group(3)) if m else float("nan"),
    }


def goals(rows):
    """Issue 15 item 4's goals and item 3's 8-wave one, from the rows (the same model)."""
    by = {(r["chip"], r["label"]): r for r in rows}
    lab = [l for l, _ in REQUESTS]

    def named(start):
        return next(l for l in lab if l.startswith(start))
    default = lab[0]
    p16, p64 = named("P=16, kv_blockscale"), named("P=64, kv_blockscale")
    win = named("P=1024, kv_blockscale, window")
    d64, d256 = named("D=64, P=1024"), named("D=256, P=1024")
    p1 = named("P=1, kv_blockscale")

    def per_mfma(r):
        return (r["loop_instructions"] - r["mfma"]) / r["mfma"]

    out = ["| goal (issue 15, item 4; the 8-wave rows item 3) | measured | met |", "|---|---|---|"]

    def add(goal, value, ok):
        out.append(f"| {goal} | {value} | {'yes' if ok else 'no'} |")

    g = by[("gfx942", default)]
    add("gfx942 default: <= 7.5 non-MFMA per MFMA", f"{per_mfma(g):.2f}", per_mfma(g) <= 7.5)
    add("gfx942 default: MFMA fraction >= 0.60", f"{g['mfma_fraction']:.2f}", g["mfma_fraction"] >= 0.60)
    g950 = by[("gfx950", default)]
    add("gfx950 default: <= 24 non-MFMA per K=64 MFMA", f"{per_mfma(g950):.1f}", per_mfma(g950) <= 24)
    for chip in ("gfx942", "gfx950"):
        # Cycles a KV tile (a loop iteration may run two: fmha-unroll-kv-loop).
        base = by[(chip, default)]["mca_cycles_per_tile"]
        for label, name in ((p16, "page 16"), (p64, "page 64")):
            ratio = by[(chip, label)]["mca_cycles_per_tile"] / base
            add(f"{chip} {name}: <= 1.25x the cycles of page 1024", f"{ratio:.2f}x", ratio <= 1.25)
        # Not an item-4 goal: page 1 (SGLang's default page), the same
        # measure.
        ratio = by[(chip, p1)]["mca_cycles_per_tile"] / base
        add(f"{chip} page 1 (not a goal of item 4): cycles against page 1024", f"{ratio:.2f}x",
            ratio <= 1.25)
        w = by[(chip, win)]
        ratio = w["mca_cycles_per_tile"] / base
        add(f"{chip} window: <= 1.2x causal, no SGPR spills",
            f"{ratio:.2f}x, {w['sgpr_spills']} SGPR spills", ratio <= 1.2 and w["sgpr_spills"] == 0)
        r64 = by[(chip, d64)]
        if chip == "gfx942":
            add("gfx942 D 64: <= 10 non-MFMA per MFMA", f"{per_mfma(r64):.2f}", per_mfma(r64) <= 10)
        r256 = by[(chip, d256)]
        add(f"{chip} D 256: no spills", f"{r256['vgpr_spills']} VGPR, {r256['sgpr_spills']} SGPR spills, "
            f"{r256['waves_per_simd']} waves/SIMD", r256["spills"] == 0)
        # Item 3: more waves sharing a K/V tile (the "8 waves" rows, the
        # option's chip-default loads), at least 2 waves a SIMD, no spills.
        w8 = [r for l, r in ((l, by.get((chip, l))) for l in lab)
              if r and l.startswith("8 waves")]
        add(f"{chip} 8 waves (item 3; {len(w8)} rows): >= 2 waves/SIMD, no spills",
            ", ".join(f"{r['waves_per_simd']}/{r['spills']}" for r in w8) + " (waves/spills)",
            all(r["waves_per_simd"] >= 2 and r["spills"] == 0 for r in w8))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--stats", default=os.path.join(ROOT, "..", "shared", "tools", "isa_loop_stats.py"))
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for chip in ("gfx942", "gfx950"):
            for label, flags in REQUESTS:
                if any(ONLY.get(f, chip) != chip for f in flags):
                    continue
                r = one(a.build, a.stats, chip, flags, tmp)
                r["label"] = label
                rows.append(r)
    head = ("| chip | request | VGPR | AGPR | SGPR | LDS | scratch | spills | waves/SIMD | loop instr "
            "| MFMA (min/wave) | tiles/iter | VALU | SALU | LDS ops | VMEM | SMEM | waitcnt | v_exp | cvt_pk | "
            "mca cyc/iter (model) | mca cyc/tile | MFMA frac (model) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        kinds = ", ".join(f"{v} {k.replace('v_mfma_f32_', '')}" for k, v in r["mfma_kinds"].items())
        lines.append(
            f"| {r['chip']} | {r['label']} | {r['vgpr']} | {r['agpr']} | {r['sgpr']} | {r['lds']} | "
            f"{r['scratch']} | {r['spills']} | {r['waves_per_simd']} | {r['loop_instructions']} | "
            f"{kinds} ({r['mfma_min_per_wave']}) | {r['tiles']} | {r['valu']} | {r['salu']} | {r['lds_ops']} | "
            f"{r['vmem']} | {r['smem']} | {r['waitcnt']} | {r['v_exp']} | {r['cvt_fp8']} | {r['mca_cycles']:.0f} | "
            f"{r['mca_cycles_per_tile']:.0f} | {r['mfma_fraction']:.2f} |")
    table = "\n".join(lines) + "\n\n" + goals(rows)
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(), "model": "llvm-mca (llvm-22), not a timing",
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
