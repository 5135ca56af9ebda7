#!/usr/bin/env python3
"""The lane emulator against the H200: the same sm_90 kernels, the same inputs.

  emu_vs_h200.py compile --fmha-compile PATH --out DIR
      writes DIR/NAME.ptx + DIR/NAME.json for every case below (f32 output, so
      no bf16 rounding hides a difference) and DIR/cases.txt
  emu_vs_h200.py compare --fmha-run PATH --kernels DIR --h200 DUMPDIR [--md FILE]
      runs every case on the lane emulator (`fmha-run --target sm_90 FLAGS
      --dump`), reads the H200's raw output DUMPDIR/NAME.out (written by
      `fmha-cuda-run NAME.json --dump-out DUMPDIR/NAME.out`) and prints, per
      case, how far the two f32 outputs are apart: max |diff|, max |diff| in
      units of the larger value's f32 ulp, and the count of elements that
      differ at all.

The cases cover the sm_90 regimes of docs/REGIMES.md (uniform page ids with a
tile in one page and a page spanning tiles, page groups with one MMA step,
scaled p aligned and unaligned, per_tensor), short and long sequences, every
mask, both tables, spread data, and lse. Both sides generate their inputs from
the request and seed in the manifest, so they are equal byte for byte.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

COMMON = ["--out-dtype", "f32", "--lse", "--seed", "11"]
CASES = {
    "p1024-causal": "--page-size 1024 --qo-len 100,37 --kv-len 1100,300 --heads 8/2 --head-dim 128",
    "p64-none-block": "--page-size 64 --qo-len 70,5 --kv-len 200,65 --heads 4/2 --head-dim 128 --mask none --table block --layout hnd",
    "p32-causal-short": "--page-size 32 --qo-len 1,5,9 --kv-len 5,33,65 --heads 4/1 --head-dim 64",
    "p32-window": "--page-size 32 --qo-len 40,64 --kv-len 300,130 --heads 4/2 --head-dim 128 --mask window:24,4",
    "p16-causal": "--page-size 16 --qo-len 33,100 --kv-len 300,130 --heads 4/2 --head-dim 128",
    "p1-none": "--page-size 1 --qo-len 17,9 --kv-len 70,20 --heads 2/2 --head-dim 64 --mask none",
    "p48-causal-block": "--page-size 48 --qo-len 65,3 --kv-len 200,49 --heads 4/2 --head-dim 64 --table block",
    "p96-causal": "--page-size 96 --qo-len 20,70 --kv-len 97,250 --heads 4/2 --head-dim 128",
    "p16-per-tensor": "--page-size 16 --qo-len 30,64 --kv-len 100,64 --heads 4/2 --head-dim 128 --quant per_tensor",
    "p16-spread": "--page-size 16 --qo-len 33,100 --kv-len 300,130 --heads 4/2 --head-dim 128 --data spread",
    "p1024-spread-none": "--page-size 1024 --qo-len 64,10 --kv-len 1100,70 --heads 4/2 --head-dim 64 --data spread --mask none",
    "p32-spread-block": "--page-size 32 --qo-len 20,50 --kv-len 65,200 --heads 4/2 --head-dim 128 --data spread --table block --layout hnd",
}


def flags(name):
    return CASES[name].split() + COMMON


def compile_all(a):
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "cases.txt"), "w") as f:
        for name in CASES:
            p = subprocess.run([a.fmha_compile, "--chip", "sm_90", "-o", os.path.join(a.out, name)]
                               + flags(name), capture_output=True, text=True)
            status = "ok" if p.returncode == 0 else "compile-failed"
            f.write(f"{name}\t{status}\t{' '.join(flags(name))}\n")
            print(status, name, p.stderr.strip()[:200])


def ulp(x):
    x = abs(x)
    if x == 0 or not math.isfinite(x):
        return 2.0 ** -149
    return 2.0 ** (math.floor(math.log2(x)) - 23)


def read_f32(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack(f"<{len(b) // 4}f", b)


def compare(a):
    rows = []
    worst = (0.0, 0.0, "")
    for name in CASES:
        h200 = os.path.join(a.h200, name + ".out")
        if not os.path.exists(h200):
            rows.append(f"| {name} | no H200 output | | | |")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([a.fmha_run, "--target", "sm_90", "--dump", tmp] + flags(name),
                               capture_output=True, text=True)
            emu = read_f32(os.path.join(tmp, "out.bin"))
            verdict = "PASS" if p.returncode == 0 else f"rc={p.returncode}"
        dev = read_f32(h200)
        if len(dev) != len(emu):
            rows.append(f"| {name} | size {len(dev)} vs {len(emu)} | | | |")
            continue
        maxd, maxu, ndiff = 0.0, 0.0, 0
        for x, y in zip(dev, emu):
            if x != y:
                ndiff += 1
                d = abs(x - y)
                maxd = max(maxd, d)
                maxu = max(maxu, d / ulp(max(abs(x), abs(y))))
        if maxd > worst[0]:
            worst = (maxd, maxu, name)
        rows.append(f"| {name} | {verdict} | {len(emu)} | {ndiff} ({100.0 * ndiff / len(emu):.2f}%) "
                    f"| {maxd:.3g} | {maxu:.0f} |")
    out = ["| case | emulator vs oracle | elements | elements that differ | max abs diff | max diff (f32 ulp) |",
           "|---|---|---|---|---|---|"] + rows
    out.append("")
    out.append(f"largest difference: {worst[0]:.3g} ({worst[1]:.0f} ulp) in {worst[2]}")
    text = "\n".join(out)
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--fmha-compile", required=True)
    c.add_argument("--out", required=True)
    m = sub.add_parser("compare")
    m.add_argument("--fmha-run", required=True)
    m.add_argument("--kernels", required=True)
    m.add_argument("--h200", required=True)
    m.add_argument("--md")
    a = ap.parse_args()
    return compile_all(a) if a.cmd == "compile" else compare(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
