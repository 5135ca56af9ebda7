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
runner=build-dev-gpu/bin/fmha-cuda-run
if [ ! -x "$runner" ]; then
  cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    ninja -C build-dev-gpu fmha-cuda-run > /dev/null || exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$OUT/clocks.txt" 2>&1
for BDIR in "$@"; do
  o="$OUT/ours-$(basename "$BDIR").jsonl"
  : > "$o"
  while IFS=$'\t' read -r name page mask sk; do
    timeout 120 "$runner" "$BDIR/$name.json" --no-check --repeat 30 --json 2>/dev/null |
      grep -m1 '^{' | sed "s/^{/{\"case\": \"$name\", \"page\": $page, \"mask\": \"$mask\", \"sk\": $sk, /" >> "$o"
  done < "$BDIR/bench.txt"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
done
python3 bench/nvidia/peers_h200.py "$1/bench.txt" "$OUT/peers.json"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
exit 0
