#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: one feature's check
# and cost. The matrix set of the feature for sm_90 and sm_90a (checked
# against the oracle and the emulation), compute-sanitizer memcheck on the
# first case of each, and benchmark folders timed side by side with the peers.
#   bench/nvidia/device_feature.sh KDIR OUTDIR PREFIX
# KDIR holds PREFIX90/ and PREFIX90a/ (make_matrix.py --sets FEATURE --chip
# sm_90 / sm_90a) and b90a*/ (make_bench.py; b90a first: the peers run on its
# shapes). Used as `... dev-kernels OUT sc` for the soft cap (--sets softcap;
# b90a, b90a-cap30*) and `... dev-kernels OUT ks` for strided K/V (--sets
# kvstrided; b90a, b90a-kvstrided). Writes OUTDIR/{results-sm_90.md,
# results-sm_90a.md, memcheck.txt, ours-b90a*.jsonl, peers.json, clocks.txt}.
set -u
KDIR=$1
OUT=$2
PREFIX=$3
mkdir -p "$OUT"
runner=build-dev-gpu/bin/fmha-cuda-run
for chip in sm_90 sm_90a; do
  d=$PREFIX${chip#sm_}
  JOBS=${JOBS:-8} REPEAT=0 CASE_TIMEOUT=300 SKIP_BUILD=$([ -x "$runner" ] && echo 1 || echo 0) \
    bench/h200/run_matrix.sh "$KDIR/$d" "/tmp/feature-$chip" > /dev/null 2>&1
  cp "/tmp/feature-$chip/results.md" "$OUT/results-$chip.md" 2>/dev/null ||
    cp "/tmp/feature-$chip/build.log" "$OUT/build-$chip.log"
done
: > "$OUT/memcheck.txt"
for d in "$KDIR/${PREFIX}90a" "$KDIR/${PREFIX}90"; do
  c=$(cut -f1 "$d/cases.txt" | head -1)
  echo "== $d/$c" >> "$OUT/memcheck.txt"
  timeout 300 compute-sanitizer --tool memcheck --leak-check no "$runner" "$d/$c.json" \
    2>&1 | tail -4 >> "$OUT/memcheck.txt"
  echo "rc=${PIPESTATUS[0]}" >> "$OUT/memcheck.txt"
done
timeout 500 bench/nvidia/device_speed.sh "$OUT" "$KDIR"/b90a* > /dev/null 2>&1
