#!/usr/bin/env python3
"""Probe (not a compiler feature): copies a make_bench.py folder with the
second consumer warpgroup (warpgroup index 2) sleeping NS nanoseconds once
after its setmaxnreg.inc, before its first tile. Tests whether an initial
phase offset between the two consumers persists and changes the tile pair's
time (bench/NOTES.md, twenty-first session).
  phase_offset.py SRC DST NS"""
import re
import sys

from ptx_folder import edit_folder

src, dst, ns = sys.argv[1], sys.argv[2], int(sys.argv[3])


def edit(t):
    inc = "setmaxnreg.inc.sync.aligned.u32 \t232;\n"
    assert t.count(inc) == 1
    # The warpgroup index register: `shfl.sync.idx.b32 %rN, %rM, 0, 31, -1`
    # of tid.x >> 7, tested against 0 just before the role branch.
    m = re.search(r"shr\.u32 \t(%r\d+), %r1, 7;\n\tshfl\.sync\.idx\.b32 \t(%r\d+), \1, 0, 31, -1;", t)
    assert m
    wg = m.group(2)
    t = t.replace(".reg .pred \t%p<", ".reg .pred \t%pOFS;\n\t.reg .pred \t%p<", 1)
    return t.replace(inc, inc + f"\tsetp.eq.b32 \t%pOFS, {wg}, 2;\n\t@%pOFS nanosleep.u32 \t{ns};\n", 1)


edit_folder(src, dst, edit)
