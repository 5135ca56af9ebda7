#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: our kernels of one or
# more benchmark folders (make_bench.py, one per chip) and the peers, in one
# process lifetime of the machine, so that the numbers are side by side.
#   bench/nvidia/device_speed.sh OUTDIR BDIR...
# Per BDIR: OUTDIR/ours-$(basename BDIR).jsonl (fmha-cuda-run --no-check
# --repeat 30: 3 warm-ups, CUDA events per launch, L2 flushed between
# launches); once: OUTDIR/peers.json (peers_h200.py on the first BDIR's
# shapes: torch SDPA flash and cuDNN, bf16, dense) and OUTDIR/clocks.txt.
set -u
OUT=$1
shift
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$OUT/clocks.txt" 2>&1
for BDIR in "$@"; do
  fmha_dev_time_folder "$BDIR" "$OUT/ours-$(basename "$BDIR").jsonl"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
done
python3 bench/nvidia/peers_h200.py "$1/bench.txt" "$OUT/peers.json"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
exit 0
