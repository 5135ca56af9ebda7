#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the soft cap on the
# GPU (fmha-expand-tanh). The `softcap` matrix set for sm_90 and sm_90a
# (make_matrix.py --sets softcap, checked against the oracle and the
# emulation), compute-sanitizer memcheck on two of them, and the sm_90a
# benchmark kernels at page 1024 with and without a cap of 30
# (make_bench.py [--flag=--soft-cap=30]) timed side by side.
#   bench/nvidia/device_softcap.sh KDIR OUTDIR
# KDIR holds sc90/, sc90a/ (make_matrix.py) and b90a*/ (make_bench.py; b90a
# first: the peers run on its shapes). Writes OUTDIR/{results-sm_90.md,
# results-sm_90a.md, memcheck.txt, ours-b90a*.jsonl, peers.json, clocks.txt}.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
runner=build-dev-gpu/bin/fmha-cuda-run
for chip in sm_90 sm_90a; do
  d=sc${chip#sm_}
  JOBS=${JOBS:-8} REPEAT=0 CASE_TIMEOUT=300 SKIP_BUILD=$([ -x "$runner" ] && echo 1 || echo 0) \
    bench/h200/run_matrix.sh "$KDIR/$d" "/tmp/softcap-$chip" > /dev/null 2>&1
  cp "/tmp/softcap-$chip/results.md" "$OUT/results-$chip.md" 2>/dev/null ||
    cp "/tmp/softcap-$chip/build.log" "$OUT/build-$chip.log"
done
: > "$OUT/memcheck.txt"
for c in sc90a/softcap5-spread-p16-csr-kv_blockscale-causal-16x16 \
         sc90/softcap30-p1024-block-per_tensor-window-32x8; do
  echo "== $c" >> "$OUT/memcheck.txt"
  timeout 300 compute-sanitizer --tool memcheck --leak-check no "$runner" "$KDIR/$c.json" \
    2>&1 | tail -4 >> "$OUT/memcheck.txt"
  echo "rc=${PIPESTATUS[0]}" >> "$OUT/memcheck.txt"
done
timeout 500 bench/nvidia/device_speed.sh "$OUT" "$KDIR"/b90a* > /dev/null 2>&1
