#!/usr/bin/env python3
"""Runs the lane-emulator regime matrix of one chip and prints a table.

Every case of cases.py for the chip runs as `fmha-run --target CHIP flags
--json`: the chip's lane-level kernel (what convert-fmha-to-gpu emits for it)
executed on the CPU by the lane emulator, checked against the oracle and the
emulating reference of SPEC section 6. A case passes when fmha-run exits 0;
anything else (a failed check, an invalid request, a crash, a runtime error
such as divergent lanes, a kernel whose V-descale route is not the regime's)
fails it. A case cases.py marks as a known out-of-bounds read (oob=True)
passes only when fmha-run reports it: exit 3 with "lane emulator:
out-of-bounds memory access" (the kernel is built with check-bounds). A
case named by --refused NAME:TEXT passes only when fmha-run refuses it
(exit 2, TEXT in the error): a rule the --extra flags break. Nothing is
skipped. The line "N passed, 0 failed" is what the lit test checks; a
matrix whose kernels copy by TMA (sm_90a --tma) ends with "K cases copied
by TMA" (the emulator's count of boxes, `tma_loads`).
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

regimes = cases.regimes

OOB = "lane emulator: out-of-bounds memory access"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmha-run", required=True)
    ap.add_argument("--chip", required=True)
    ap.add_argument("--extra", default="", help="flags added to every case")
    ap.add_argument("--refused", action="append", default=[], metavar="NAME:TEXT",
                    help="case NAME must be refused: exit 2 with TEXT in its "
                         "error (a rule the extra flags break); it then counts "
                         "as passed, and as failed if it runs")
    args = ap.parse_args()
    refused = dict(r.split(":", 1) for r in args.refused)
    rows, failed, with_tma = [], 0, 0
    todo = cases.all_cases([args.chip])
    for chip, name, flags, regime in todo:
        cmd = [args.fmha_run, "--target", chip] + flags + args.extra.split() + ["--json"]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.time() - t0
        if name in refused:
            ok = p.returncode == 2 and refused[name] in p.stderr
            failed += not ok
            rows.append(f"{'REFUSED' if ok else 'FAIL'} {name:55s} (expected) rc={p.returncode} "
                        f"{p.stderr.strip()[-300:]}")
            continue
        try:
            r = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            r = None
        if regime.get("expect") == "out-of-bounds":
            ok = p.returncode == 3 and OOB in p.stderr
            failed += not ok
            why = (p.stderr.strip()[-300:] if ok else
                   "in bounds now: drop oob=True in cases.py"
                   if p.returncode == 0 else f"rc={p.returncode} {p.stderr.strip()[-300:]}")
            rows.append(f"{'OOB ' if ok else 'FAIL'} {name:55s} (known) {why}")
            continue
        ok = p.returncode == 0 and r is not None and r.get("pass")
        # The kernel must have taken the regime's V-descale route (scaled_p
        # and exp2_bias by name; the others read as page_groups).
        route = r.get("lanes", {}).get("vd_route", "?") if r is not None else "?"
        if ok and regimes.route_of(route) != regimes.route_of(regime["vd_route"]):
            ok = False
        if not ok:
            failed += 1
        if r:
            emu = r.get("emulation", {}).get("rel_fro_err", float("nan"))
            route = r.get("lanes", {}).get("vd_route", "?")
            tma = r.get("lanes", {}).get("tma_loads", 0)
            with_tma += tma > 0
            rows.append(f"{'PASS' if ok else 'FAIL'} {name:55s} max_abs={r['max_abs_err']:.4f} "
                        f"emu_rel_fro={emu:.2e} route={route}{f' tma={tma}' if tma else ''} {dt:.1f}s")
        else:
            rows.append(f"FAIL {name:55s} rc={p.returncode} {p.stderr.strip()[-300:]}")
    print(f"lane matrix {args.chip}: {len(todo)} cases")
    for row in rows:
        print(row)
    print(f"{len(todo) - failed} passed, {failed} failed")
    if with_tma:
        print(f"{with_tma} cases copied by TMA")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
