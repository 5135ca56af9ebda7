#!/usr/bin/env python3
"""Rows for wgmma_acc_probe: designed cases (which small addends survive
beside a large one, per-term or per-sum truncation, signs, the C operand)
and random rows (fp8 data as S = Q K^T and P V see it). Writes IN.bin
(int32 rows, rows x 32 e4m3 bytes, rows f32 C) and IN.json (labels).
  wgmma_acc_gen.py IN.bin"""
import json
import struct
import sys

import numpy as np


def e4m3_table():
    t = np.zeros(256)
    for b in range(256):
        s, e, m = b >> 7, (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            t[b] = np.nan
        elif e == 0:
            t[b] = m / 8 * 2.0 ** -6
        else:
            t[b] = (1 + m / 8) * 2.0 ** (e - 7)
        if s:
            t[b] = -t[b]
    return t


E4M3 = e4m3_table()


def enc(x):
    """The e4m3 byte holding exactly x (x must be representable)."""
    i = np.where(E4M3 == x)[0]
    if len(i) == 0:
        raise ValueError(f"{x} is not an e4m3 value")
    return int(i[0])


def main():
    rows, labels = [], []

    def add(label, avals, c=0.0):
        b = [enc(0.0)] * 32
        for i, v in enumerate(avals):
            b[i] = enc(v)
        rows.append((b, float(np.float32(c))))
        labels.append(label)

    # A small addend beside a large product: 256 + 2^-k.
    for k in range(0, 10):
        add(f"big256+2^-{k}", [256.0, 2.0 ** -k])
        add(f"big256-2^-{k}", [256.0, -(2.0 ** -k)])
        add(f"big256+3*2^-{k + 1}", [256.0, 1.5 * 2.0 ** -k]) if k < 9 else None
    # 31 small addends beside a large one: per-term or per-sum truncation.
    for k in range(0, 10):
        add(f"big256+31x2^-{k}", [256.0] + [2.0 ** -k] * 31)
        add(f"big256-31x2^-{k}", [256.0] + [-(2.0 ** -k)] * 31)
    # The C operand: 2^s + 1 and 2^s - 1, and a small C beside 256.
    for s in range(8, 32):
        add(f"C=2^{s} +1", [1.0], 2.0 ** s)
        add(f"C=2^{s} -1", [-1.0], 2.0 ** s)
        add(f"C=2^{s} +1.5", [1.5], 2.0 ** s)
    for k in range(0, 24):
        add(f"C=2^-{k} +256", [256.0], 2.0 ** -k)
        add(f"C=-2^-{k} +256", [256.0], -(2.0 ** -k))
        add(f"C=3*2^-{k + 1} +256", [256.0], 1.5 * 2.0 ** -k)
    # Cancellation: the largest product cancels, the result's exponent drops.
    for k in range(0, 10):
        add(f"256-256+2^-{k}", [256.0, -256.0, 2.0 ** -k])
        add(f"256-240+2^-{k}", [256.0, -240.0, 2.0 ** -k])
    # Random rows: mixed sign (Q K^T), positive (P V with P >= 0), and with
    # random C of a chosen magnitude.
    rng = np.random.default_rng(7)
    finite = [b for b in range(256) if not np.isnan(E4M3[b])]
    pos = [b for b in finite if E4M3[b] >= 0]
    for i in range(64 * 40):
        kind = i % 4
        if kind == 0:
            b = list(rng.choice(finite, 32))
            c = 0.0
        elif kind == 1:
            b = list(rng.choice(pos, 32))
            c = 0.0
        elif kind == 2:
            b = list(rng.choice(finite, 32))
            c = float(rng.standard_normal() * 2.0 ** rng.integers(-4, 14))
        else:
            b = list(rng.choice(pos, 32))
            c = float(abs(rng.standard_normal()) * 2.0 ** rng.integers(0, 16))
        rows.append(([int(x) for x in b], float(np.float32(c))))
        labels.append(f"random{kind}")
    while len(rows) % 64:
        rows.append(([0] * 32, 0.0))
        labels.append("pad")
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<i", len(rows)))
        for b, _ in rows:
            f.write(bytes(b))
        f.write(np.array([c for _, c in rows], dtype="<f4").tobytes())
    with open(sys.argv[1].rsplit(".", 1)[0] + ".json", "w") as f:
        json.dump(labels, f)
    print(len(rows), "rows")


if __name__ == "__main__":
    main()
