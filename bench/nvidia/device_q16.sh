#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: a 16-bit Q with the
# fp8 cache on sm_90 (config q_scale = per_tile, each Q tile quantized on the
# fly). The q16 matrix set (make_matrix.py --sets q16), judged against the
# oracle of the quantized Q and the emulation, with the error against the
# exact Q reported per case; memcheck on two cases; then the speed of the
# bf16-Q kernels next to the fp8-Q ones (make_bench.py, page 1024) and the
# peers.
#   bench/nvidia/device_q16.sh KDIR OUTDIR
# KDIR holds q90/ (the matrix set), b90/ and b90-q16/ (make_bench.py
# --pages 1024, the second with --flag=--q-dtype=bf16). Writes
# OUTDIR/{results.md, results.jsonl, memcheck.txt, ours-b90*.jsonl,
# peers.json, clocks.txt}.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
runner=build-dev-gpu/bin/fmha-cuda-run
JOBS=${JOBS:-8} REPEAT=0 CASE_TIMEOUT=300 SKIP_BUILD=$([ -x "$runner" ] && echo 1 || echo 0) \
  bench/h200/run_matrix.sh "$KDIR/q90" /tmp/q16 > /dev/null 2>&1
cp /tmp/q16/results.md /tmp/q16/results.jsonl "$OUT/" 2>/dev/null ||
  cp /tmp/q16/build.log "$OUT/build.log"
: > "$OUT/memcheck.txt"
for c in q16-bf16-spread-p16-csr-nhd-kv_blockscale-causal-16x16 \
         q16-f16-p1024-block-hnd-per_tensor-window-32x8; do
  echo "== $c" >> "$OUT/memcheck.txt"
  timeout 300 compute-sanitizer --tool memcheck --leak-check no "$runner" "$KDIR/q90/$c.json" \
    2>&1 | tail -4 >> "$OUT/memcheck.txt"
  echo "rc=${PIPESTATUS[0]}" >> "$OUT/memcheck.txt"
done
timeout 400 bench/nvidia/device_speed.sh "$OUT" "$KDIR/b90" "$KDIR/b90-q16" > /dev/null 2>&1
exit 0
