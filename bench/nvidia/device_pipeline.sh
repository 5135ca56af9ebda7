#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: fmha-pipeline-kv-stages
# (sm_90a, K/V of the next tile by cp.async into a 2-stage ring, all shared
# memory dynamic). The quick fp8 matrix on sm_90a (and sm_90, whose shared
# memory became dynamic too) against the oracle and the emulation; the
# benchmark grid with and without the pipeline in one process lifetime;
# compute-sanitizer memcheck, racecheck and synccheck on pipelined kernels.
#   bench/nvidia/device_pipeline.sh KDIR OUTDIR [check|check90|speed|peers]...
# KDIR is what bench/nvidia/make_pipeline_kernels.sh compiles here (28 MiB:
# carry it). One device call fits check + speed; check90 + peers a second.
# KDIR: m90a and m90 (make_matrix.py --quick --chip sm_90a|sm_90
# --flag=--pipeline), b90a-pipe and b90a-sync (make_bench.py --chip sm_90a
# with and without --flag=--pipeline), and, when present, b90-pipe and
# b90-sync (the same for sm_90).
set -u
KDIR=$1
OUT=$2
shift 2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
for step in "$@"; do
  case $step in
  check)
    fmha_dev_check_set "$KDIR" m90a "$OUT"
    : > "$OUT/sanitize.txt"
    fmha_dev_memcheck "$KDIR/m90a" "$OUT/sanitize.txt" short-p16-csr-nhd-kv_blockscale-causal-8x2 \
      short-p1024-csr-nhd-kv_blockscale-causal-8x2 short-p64-csr-nhd-kv_blockscale-causal-8x2
    for tool in racecheck synccheck; do
      for c in short-p16-csr-nhd-kv_blockscale-causal-8x2 short-p1024-csr-nhd-kv_blockscale-causal-8x2; do
        echo "== $tool $c" >> "$OUT/sanitize.txt"
        timeout 200 compute-sanitizer --tool $tool "$runner" "$KDIR/m90a/$c.json" 2>&1 | tail -3 >> "$OUT/sanitize.txt"
        echo "rc=${PIPESTATUS[0]}" >> "$OUT/sanitize.txt"
      done
    done
    grep -E "^==|ERROR SUMMARY|RACECHECK SUMMARY|^rc=" "$OUT/sanitize.txt" ;;
  check90)
    fmha_dev_check_set "$KDIR" m90 "$OUT" ;;
  speed)
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/clocks.txt" 2>&1
    for b in b90a-pipe b90a-sync b90-pipe b90-sync; do
      [ -d "$KDIR/$b" ] && fmha_dev_time_folder "$KDIR/$b" "$OUT/ours-$b.jsonl"
    done
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1 ;;
  peers)
    timeout 300 python3 bench/nvidia/peers_h200.py "$KDIR/b90a-pipe/bench.txt" "$OUT/peers.json" > /dev/null 2>&1 ;;
  esac
done
exit 0
