#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the Python package's
# aiter-shaped entry point on prebuilt sm_90a kernels (bench/python/h200_aiter.py:
# numerics, a CUDA graph, speed beside torch SDPA), then the same speed kernels
# through fmha-cuda-run (3 warm-ups, CUDA events, L2 flushed: its own method),
# so the Python call's kernel time can be put beside the C++ launcher's.
#   bench/python/device_aiter.sh OUTDIR KDIR
set -u
OUT=$1
KDIR=$2
mkdir -p "$OUT"
runner=build-dev-gpu/bin/fmha-cuda-run
if [ ! -x "$runner" ]; then
  cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    ninja -C build-dev-gpu fmha-cuda-run > /dev/null || exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/clocks.txt" 2>&1
timeout 400 python3 bench/python/h200_aiter.py "$KDIR" "$OUT/aiter.json" > "$OUT/aiter.log" 2>&1
echo "h200_aiter.py rc=$?" >> "$OUT/aiter.log"
for k in speed_p1024 speed_p64; do
  timeout 120 "$runner" "$KDIR/$k.json" --no-check --repeat 30 --json 2>/dev/null | grep -m1 '^{' > "$OUT/cuda-run-$k.json"
done
for k in num_p16_causal num_p1024_none rt_window_sm90 rt_window_sm90a; do
  timeout 120 "$runner" "$KDIR/$k.json" --json 2>/dev/null | grep -m1 '^{' > "$OUT/cuda-run-check-$k.json"
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
exit 0
