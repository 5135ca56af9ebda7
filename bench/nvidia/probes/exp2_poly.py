#!/usr/bin/env python3
"""Probe (not a compiler feature): copies a make_bench.py folder with K of
every N `ex2.approx.ftz.f32` of each kernel replaced by an exp2 on the FMA
pipe (FA4's idea for Blackwell, tried on sm_90a's FP8 softmax, whose
64 MUFU.EX2 a thread and tile bound its exp phase): x clamped to -125,
j = round(x) by the 1.5 x 2^23 add, f = x - j in [-0.5, 0.5], 2^f by a
degree-3 polynomial (relative error 7.5e-5 over f32; fitted for relative
error), 2^j added to its exponent bits. Nine instructions for one MUFU.
  exp2_poly.py SRC DST K N"""
import re
import sys

from ptx_folder import edit_folder

src, dst, k, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
POLY = ("0f3D61FBB0", "0f3E786F0E", "0f3F31798D", "0f3F7FFB49")


def emulate(m):
    d, s = m.group(1), m.group(2)
    return ("{\n\t.reg .b32 \t%ex, %et, %ej, %ef, %ep, %ee;\n"
            f"\tmax.f32 \t%ex, {s}, 0fC2FA0000;\n"
            "\tadd.rn.f32 \t%et, %ex, 0f4B400000;\n"
            "\tsub.rn.f32 \t%ej, %et, 0f4B400000;\n"
            "\tsub.rn.f32 \t%ef, %ex, %ej;\n"
            f"\tfma.rn.f32 \t%ep, %ef, {POLY[0]}, {POLY[1]};\n"
            f"\tfma.rn.f32 \t%ep, %ep, %ef, {POLY[2]};\n"
            f"\tfma.rn.f32 \t%ep, %ep, %ef, {POLY[3]};\n"
            "\tshl.b32 \t%ee, %et, 23;\n"
            f"\tadd.s32 \t{d}, %ep, %ee;\n"
            "\t}")


def edit(t):
    count = [0]

    def sub(m):
        i = count[0]
        count[0] += 1
        return emulate(m) if i % n >= n - k else m.group(0)

    return re.sub(r"ex2\.approx\.ftz\.f32 (%r\d+), (%r\d+);", sub, t)


edit_folder(src, dst, edit)
