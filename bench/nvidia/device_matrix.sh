#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the numerics matrix
# (issue 7 item 3) and compute-sanitizer memcheck on a sample.
#   bench/nvidia/device_matrix.sh KDIR OUTDIR
# KDIR from bench/nvidia/make_matrix.py (compiled here, carried). Writes at most
# 6 files to OUTDIR (the device tool returns 8): results.md, results.jsonl,
# env.txt, clocks.txt, memcheck.txt, build.log.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
work=/tmp/matrix
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$OUT/clocks.txt" 2>&1
JOBS=${JOBS:-14} REPEAT=0 CASE_TIMEOUT=${CASE_TIMEOUT:-420} \
  bench/h200/run_matrix.sh "$KDIR" "$work"
cp "$work/results.md" "$work/results.jsonl" "$work/env.txt" "$work/build.log" "$OUT/" 2>/dev/null
# memcheck: a sample (small head counts keep the CPU checks short).
runner=build-dev-gpu/bin/fmha-cuda-run
: > "$OUT/memcheck.txt"
for c in p16-csr-kv_blockscale-causal-16x16 p1-block-per_tensor-window-16x16 \
         p1024-csr-kv_blockscale-none-16x16 p48-block-kv_blockscale-causal-16x16; do
  [ -f "$KDIR/$c.json" ] || continue
  echo "== $c" >> "$OUT/memcheck.txt"
  timeout 300 compute-sanitizer --tool memcheck --leak-check no "$runner" "$KDIR/$c.json" \
    >> "$OUT/memcheck.txt" 2>&1
  echo "rc=$?" >> "$OUT/memcheck.txt"
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/clocks.txt" 2>&1
exit 0
