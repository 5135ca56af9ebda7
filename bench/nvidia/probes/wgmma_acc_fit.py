#!/usr/bin/env python3
"""Checks the FP8 wgmma sum model (fmha/Reference/MmaSum.h) against the
probe's results: wgmma_acc_gen.py's rows, and what wgmma_acc_probe returned
for them with each B value. Prints, per file, how many rows the model gives
bit for bit, and the same for two rejected variants (product exponents
normalised; no final cut of the sum).
  wgmma_acc_fit.py ROWS.bin OUT-0x38.bin [OUT-0x3C.bin ...]
(the B byte is read from the file name; default 0x38, 1.0)"""
import math
import re
import struct
import sys
from fractions import Fraction

import numpy as np

from wgmma_acc_gen import E4M3

FRAC = 13  # bits kept below the largest term's exponent


def load_rows(path):
    with open(path, "rb") as f:
        rows = struct.unpack("<i", f.read(4))[0]
        a = np.frombuffer(f.read(rows * 32), dtype=np.uint8).reshape(rows, 32)
        c = np.frombuffer(f.read(rows * 4), dtype="<f4")
    return a, c


def expo(x):
    """An e4m3 operand's exponent: floor(log2|x|), subnormals -6."""
    return max(math.frexp(x)[1] - 1, -6)


def model(c, pairs, normalised=False, final_cut=True):
    terms = []
    if c:
        terms.append((Fraction(float(c)), math.frexp(float(c))[1] - 1))
    for a, b in pairs:
        if a and b:
            t = Fraction(a) * Fraction(b)
            e = math.frexp(a * b)[1] - 1 if normalised else expo(a) + expo(b)
            terms.append((t, e))
    if not terms:
        return 0.0
    g = Fraction(2) ** (max(e for _, e in terms) - FRAC)
    s = sum(Fraction(math.trunc(t / g)) * g for t, _ in terms)
    if s and final_cut:
        q = Fraction(2) ** (math.frexp(float(s))[1] - 1 - FRAC)
        s = Fraction(math.trunc(s / q)) * q
    return float(np.float32(float(s)))


def main():
    a, c = load_rows(sys.argv[1])
    for out in sys.argv[2:]:
        m = re.search(r"0x[0-9A-Fa-f]{2}", out)
        b = E4M3[int(m.group(0), 16)] if m else 1.0
        d = np.fromfile(out, dtype="<f4")
        counts = [0, 0, 0]
        for i in range(len(d)):
            pairs = [(E4M3[x], b) for x in a[i]]
            hw = float(d[i])
            counts[0] += model(c[i], pairs) == hw
            counts[1] += model(c[i], pairs, normalised=True) == hw
            counts[2] += model(c[i], pairs, final_cut=False) == hw
        print(f"{out}: b={b}: model {counts[0]}/{len(d)}, normalised product "
              f"exponents {counts[1]}/{len(d)}, no final cut {counts[2]}/{len(d)}")


if __name__ == "__main__":
    main()
