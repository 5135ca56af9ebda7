#!/usr/bin/env bash
# On the H200 (device tool), from the repository root, after a build of
# build-dev-gpu/bin/fmha-cuda-run (device_matrix.sh makes it):
#   bench/nvidia/device_bench.sh BDIR OUTDIR
# BDIR from bench/nvidia/make_bench.py. Ours: fmha-cuda-run --no-check
# --repeat 30 (3 warm-ups, CUDA events per launch, L2 flushed between
# launches); peers: bench/nvidia/peers_h200.py (torch SDPA flash and cuDNN,
# bf16, dense). Writes ours.jsonl, peers.json, clocks.txt to OUTDIR.
set -u
BDIR=$1
OUT=$2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
runner=build-dev-gpu/bin/fmha-cuda-run
if [ ! -x "$runner" ]; then
  cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    ninja -C build-dev-gpu fmha-cuda-run > /dev/null || exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$OUT/clocks.txt" 2>&1
: > "$OUT/ours.jsonl"
fmha_dev_time_folder "$BDIR" "$OUT/ours.jsonl"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/clocks.txt" 2>&1
python3 bench/nvidia/peers_h200.py "$BDIR/bench.txt" "$OUT/peers.json"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/clocks.txt" 2>&1
exit 0
