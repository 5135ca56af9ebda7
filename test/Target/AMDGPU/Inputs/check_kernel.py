#!/usr/bin/env python3
"""Compiles one request with fmha-compile and checks its code object as a file.

Usage: check_kernel.py --chip CHIP --out PREFIX [--name LABEL] -- REQUEST FLAGS

Runs `fmha-compile --chip CHIP -o PREFIX FLAGS` (NAME.hsaco + NAME.json), then
llvm-readelf and llvm-objdump (all from PATH), and prints one line:

  LABEL: elf=EM_AMDGPU target=... kd=yes args=N/N scratch=S vspill=V sspill=S
         lds=B mfma=KIND*COUNT exp=E cvt=C p_from_exp=K/C page_id=sgpr|vgpr

- args: manifest arguments equal to the ELF note's .args by position (offset,
  size, value kind: pointer = global_buffer, i64 = by_value).
- mfma, exp, cvt: counts inside the KV loop (the backward branch whose body
  holds the most MFMAs), per KV tile: divided by the tiles one iteration
  runs (fmha-unroll-kv-loop; the loop's MFMAs over a tile's, block_m x
  block_n x (D + Dv) MACs over the MFMA's M N K and the waves), printed at
  the end as tiles=T.
- p_from_exp: v_cvt_pk_fp8_f32 source operands (VGPRs) whose last writer (around
  the loop, through plain moves) is a v_exp_f32: no multiply, ldexp or
  select of P between the exp and the fp8 convert.
- page_id: sgpr when the loop loads the page id with s_load_dword[xN] and does no
  per-lane dword load (global_load_dword); vgpr otherwise.
- page_base: how the loop forms the 64-bit page base: s64 (scalar 64-bit
  shift or multiply: s_lshl_b64 / s_mul_hi_u32), v64 (per lane:
  v_lshl_add_u64, v_mad_u64_u32, v_lshlrev_b64), none (no 64-bit address
  arithmetic: a pool over 4 GiB would wrap).
"""
import argparse
import json
import re
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def parse_notes(text):
    """The .args of the one kernel in `llvm-readelf --notes` (YAML text)."""
    args, cur = [], None
    in_args = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(".args:"):
            in_args = True
            continue
        if in_args:
            if s.startswith("- "):
                cur = {}
                args.append(cur)
                s = s[2:].strip()
            elif not s.startswith(".") or line.startswith("    .") and not line.startswith("      "):
                if not line.startswith("      ") and not line.startswith("        "):
                    in_args = False
                    continue
            m = re.match(r"\.(\w+):\s*(.*)", s)
            if m and cur is not None:
                cur[m.group(1)] = m.group(2)
    return args


def registers(operand):
    """VGPR numbers named by an operand: v7, v[4:7]."""
    m = re.fullmatch(r"v(\d+)", operand)
    if m:
        return [int(m.group(1))]
    m = re.fullmatch(r"v\[(\d+):(\d+)\]", operand)
    if m:
        return list(range(int(m.group(1)), int(m.group(2)) + 1))
    return []


def instructions(dis):
    out = []
    for line in dis.splitlines():
        m = re.match(r"\s+([a-z_0-9]+)\s*(.*?)\s*//\s*([0-9A-Fa-f]+):", line)
        if not m:
            continue
        # Operands, modifiers dropped ("v45 op_sel:[0,0,1]" -> "v45").
        ops = [o.strip().split(" ")[0] for o in m.group(2).split(",")] if m.group(2) else []
        out.append((int(m.group(3), 16), m.group(1), ops, line))
    return out


def kv_loop(insts):
    """(lo, hi) indices of the backward-branch loop with the most MFMAs."""
    addr_index = {a: i for i, (a, _, _, _) in enumerate(insts)}
    best, best_n = None, -1
    for i, (a, mn, ops, line) in enumerate(insts):
        if not mn.startswith("s_cbranch") and mn != "s_branch":
            continue
        m = re.search(r"<[^+>]+\+0x([0-9a-f]+)>", line)
        if not m:
            continue
        # objdump prints the target as function+offset; find it by offset.
        base = insts[0][0]
        target = base + int(m.group(1), 16)
        j = addr_index.get(target)
        if j is None or j >= i:
            continue
        n = sum(1 for k in range(j, i) if insts[k][1].startswith("v_mfma"))
        if n > best_n:
            best, best_n = (j, i), n
    return best


def p_from_exp(insts):
    """(cvt sources last written by v_exp_f32, all cvt VGPR sources).

    The loop body is walked twice and counted the second time: a cvt
    whose exp LLVM placed later in the laid-out loop (a rotated loop, its
    latch block in the middle) is written by the previous iteration's.
    """
    writer = {}
    good = total = 0
    for walk, (_, mn, ops, line) in [(w, i) for w in (0, 1) for i in insts]:
        if mn.startswith("v_cvt_pk_fp8_f32") and walk:
            for src in ops[1:3]:
                regs = registers(src)
                if not regs:
                    continue
                total += 1
                w = writer.get(regs[0])
                if w and w.startswith("v_exp_f32"):
                    good += 1
        # A load straight into LDS (buffer_load* ... lds) writes no VGPR:
        # its first operand is the offset it reads.
        if mn.startswith("buffer_load") and line.split("//")[0].split()[-1] == "lds":
            continue
        if mn.startswith(("v_", "ds_read", "global_load", "buffer_load")) and ops:
            dst = registers(ops[0])
            if mn.startswith("v_mov_b32") and len(ops) > 1 and registers(ops[1]):
                src_w = writer.get(registers(ops[1])[0], mn)
                for r in dst:
                    writer[r] = src_w
                continue
            if mn.startswith(("v_cmp", "v_writelane", "v_readlane", "v_readfirstlane")):
                continue
            for r in dst:
                writer[r] = mn
    return good, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="")
    ap.add_argument("flags", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    flags = [f for f in a.flags if f != "--"]
    run(["fmha-compile", "--chip", a.chip, "-o", a.out] + flags)
    hsaco, manifest = a.out + ".hsaco", json.load(open(a.out + ".json"))

    header = run(["llvm-readelf", "-h", hsaco])
    elf = "EM_AMDGPU" if re.search(r"Machine:\s+EM_AMDGPU", header) else "?"
    symbols = run(["llvm-readelf", "-s", hsaco])
    kd = "yes" if re.search(r"\s" + re.escape(manifest["kernel"]) + r"\.kd\b", symbols) else "no"
    notes = run(["llvm-readelf", "--notes", hsaco])
    target = re.search(r"amdhsa\.target:\s+'?([^'\s]+)", notes)
    note_args = parse_notes(notes)
    same = 0
    for mine, theirs in zip(manifest["args"], note_args):
        kind = "global_buffer" if mine["kind"] == "pointer" else "by_value"
        if (str(mine["offset"]) == theirs.get("offset") and str(mine["size"]) == theirs.get("size")
                and theirs.get("value_kind") == kind):
            same += 1

    insts = instructions(run(["llvm-objdump", "-d", "--mcpu=" + a.chip, hsaco]))
    lo, hi = kv_loop(insts)
    body = insts[lo:hi + 1]
    mfma = {}
    for _, mn, _, _ in body:
        if mn.startswith("v_mfma"):
            mfma[mn] = mfma.get(mn, 0) + 1
    exp = sum(1 for _, mn, _, _ in body if mn.startswith("v_exp_f32"))
    cvt = sum(1 for _, mn, _, _ in body if mn.startswith("v_cvt_pk_fp8_f32"))
    good, total = p_from_exp(body)
    smem = any(mn.startswith("s_load_dword") for _, mn, _, _ in body)
    lane_dword = any(mn == "global_load_dword" for _, mn, _, _ in body)
    page_id = "sgpr" if smem and not lane_dword else "vgpr"
    mns = {mn for _, mn, _, _ in body}
    page_base = ("s64" if mns & {"s_lshl_b64", "s_mul_hi_u32"}
                 else "v64" if mns & {"v_lshl_add_u64", "v_mad_u64_u32", "v_lshlrev_b64"}
                 else "none")
    # A tile's MFMAs for one wave, from the config and the MFMA's shape.
    cfg, req = manifest["config"], manifest["request"]
    macs = cfg["block_m"] * cfg["block_n"] * (req["head_dim"] + req["head_dim_v"])
    per_tile = 0
    for mn, n in mfma.items():
        m, nn, k = map(int, re.search(r"_(\d+)x(\d+)x(\d+)", mn).groups())
        per_tile += macs // (m * nn * k) // cfg["warps"]
    tiles = sum(mfma.values()) // per_tile if per_tile else 1
    if tiles < 1 or sum(mfma.values()) != tiles * per_tile:
        sys.exit(f"the KV loop's {sum(mfma.values())} MFMAs are not whole tiles of {per_tile}")
    mfma = {k: v // tiles for k, v in mfma.items()}
    exp, cvt = exp // tiles, cvt // tiles
    good, total = good // tiles, total // tiles
    kinds = ",".join(f"{k}*{v}" for k, v in sorted(mfma.items()))
    print(f"{a.name or a.out}: elf={elf} target={target.group(1) if target else '?'} kd={kd} "
          f"args={same}/{len(manifest['args'])}/{len(note_args)} "
          f"scratch={manifest['scratch_bytes']} vspill={manifest['vgpr_spills']} "
          f"sspill={manifest['sgpr_spills']} lds={manifest['lds_bytes']} mfma={kinds} "
          f"exp={exp} cvt={cvt} p_from_exp={good}/{total} page_id={page_id} page_base={page_base} "
          f"tiles={tiles}")


if __name__ == "__main__":
    main()
