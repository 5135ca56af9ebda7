#!/usr/bin/env python3
"""Seeds of FmhaIRFuzzer: every chunk ("// -----") of the fmha dialect's lit
tests behind a schedule line that runs a pipeline on it (the schedules in
turn).
   fuzz/make_ir_seeds.py OUT_DIR TEST_DIR..."""
import hashlib
import pathlib
import sys

# Indices into FmhaIRFuzzer.cpp's kPasses: the tiling stages and the lane
# lowering for gfx942, the host, sm_90 and sm_90a, with and without folds.
SCHEDULES = [
    "0 5 6 7 8 9 11 12",
    "4 5 6 7 8 9 13",
    "2 5 10 11 12",
    "3 5 6 7 8 11 12",
    "1 5 8 13 14",
    "5 0",
]


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for d in sys.argv[2:]:
        for f in sorted(pathlib.Path(d).rglob("*.mlir")):
            for i, chunk in enumerate(f.read_text().split("// -----")):
                if "fmha." not in chunk:
                    continue
                # One schedule per chunk, in turn: the mutations mix them.
                sched = SCHEDULES[n % len(SCHEDULES)]
                text = "// schedule: %s\n%s" % (sched, chunk.strip() + "\n")
                name = hashlib.sha1(text.encode()).hexdigest()[:16]
                (out / ("%s-%d-%s" % (f.stem, i, name))).write_text(text)
                n += 1
    print("%d IR seeds in %s" % (n, out))


if __name__ == "__main__":
    main()
