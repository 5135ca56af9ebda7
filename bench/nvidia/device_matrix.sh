#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the numerics matrix
# (issue 7 item 3, issue 12 item 5) and compute-sanitizer memcheck on a sample.
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
# Wall times of the parts go to clocks.txt (the whole command must stay under
# the device tool's 10 minutes; the matrix of 306 cases is estimated at 3-4 min).
t0=$(date +%s)
echo "matrix start: $(date -u +%H:%M:%SZ)" >> "$OUT/clocks.txt"
JOBS=${JOBS:-14} REPEAT=0 CASE_TIMEOUT=${CASE_TIMEOUT:-420} \
  bench/h200/run_matrix.sh "$KDIR" "$work"
cp "$work/results.md" "$work/results.jsonl" "$work/env.txt" "$work/build.log" "$OUT/" 2>/dev/null
t1=$(date +%s)
echo "matrix (build included): $((t1 - t0)) s" >> "$OUT/clocks.txt"
# memcheck: a sample (small head counts keep the CPU checks short). The
# short-* cases: Sk = 0 as the last CSR sequence with a uniform page id (the
# prologue's page-id prefetch, docs/REGIMES.md), the page_groups route with
# partly filled last pages (P 32), a page larger than the tile but not a
# multiple of it (P 96), page 1 with the block table.
runner=build-dev-gpu/bin/fmha-cuda-run
: > "$OUT/memcheck.txt"
for c in p16-csr-kv_blockscale-causal-16x16 p1-block-per_tensor-window-16x16 \
         p1024-csr-kv_blockscale-none-16x16 p48-block-kv_blockscale-causal-16x16 \
         short-p1024-csr-nhd-kv_blockscale-causal-8x2 short-p64-csr-hnd-per_tensor-none-8x2 \
         short-p32-csr-nhd-kv_blockscale-causal-8x2 short-p96-block-hnd-kv_blockscale-window-8x2 \
         short-p1-block-hnd-per_tensor-window-8x2; do
  [ -f "$KDIR/$c.json" ] || continue
  echo "== $c" >> "$OUT/memcheck.txt"
  timeout 300 compute-sanitizer --tool memcheck --leak-check no "$runner" "$KDIR/$c.json" \
    >> "$OUT/memcheck.txt" 2>&1
  echo "rc=$?" >> "$OUT/memcheck.txt"
done
echo "memcheck: $(($(date +%s) - t1)) s" >> "$OUT/clocks.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/clocks.txt" 2>&1
exit 0
