"""Runs descale-mutations.test's grid: a line `CHIP MUTATION PASS|FAIL` per
run, FAIL only for a numerics failure (exit 1) of both bars; any other exit
is printed as ERROR."""
import json
import subprocess
import sys

FLAGS = ["--data", "spread", "--page-size", "16", "--qo-len", "17,40", "--kv-len", "150,70",
         "--heads", "4/2", "--head-dim", "64", "--json"]
for chip in ["gfx942", "gfx950", "sm_90", "sm_90a"]:
    for m in ["none", "swap-kv", "logical-page", "wrong-head", "per-tile", "global"]:
        p = subprocess.run([sys.argv[1], "--target", chip, "--mutate-descales=" + m] + FLAGS,
                           capture_output=True, text=True)
        if p.returncode == 0:
            verdict = "PASS"
        elif p.returncode == 1:
            r = json.loads(p.stdout.strip().splitlines()[-1])
            both = not r["oracle"]["pass"] and not r["emulation"]["pass"]
            verdict = "FAIL" if both else "FAIL-ONE-BAR"
        else:
            verdict = f"ERROR rc={p.returncode}"
        print(chip, m, verdict)
