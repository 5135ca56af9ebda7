#!/usr/bin/env bash
# On the device (device tool), from the repository root: the first run of
# the warp-specialized sm_90a kernels (fmha-warp-specialize). One WS kernel
# first, under a short timeout (a wrong mbarrier count hangs, it does not
# fail); then the benchmark folders side by side, the quick WS matrices and
# the sanitizers on two WS kernels (in that order: what a cut call loses
# last matters least).
#   bench/nvidia/device_ws.sh KDIR OUT "MATRIX..." SANITIZE_CASES TIME_FOLDERS...
#   e.g. device_ws.sh dev-kernels $OUT/r "m-ws m-wsv" "p16-csr-kv_blockscale-causal-32x8 p1024-csr-kv_blockscale-causal-32x8" b-base b-ws
# (the probe and the sanitizers on the first matrix's kernels, the check on
# each matrix)
set -u
KDIR=$1
OUT=$2
MATRIX=$3
SAN=$4
shift 4
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/clocks.txt" 2>&1
first=$(echo $SAN | cut -d' ' -f1)
m0=$(echo $MATRIX | cut -d' ' -f1)
timeout 30 "$runner" "$KDIR/$m0/$first.json" > "$OUT/probe.txt" 2>&1
echo "probe rc=$?" >> "$OUT/probe.txt"
for b in "$@"; do
  # A hang costs 20 s a kernel, not 120.
  : > "$OUT/ours-$b.jsonl"
  while IFS=$'\t' read -r name page mask sk nb sq; do
    timeout 20 "$runner" "$KDIR/$b/$name.json" --no-check --repeat 30 --json > /tmp/one.txt 2>&1
    rc=$?
    grep -m1 '^{' /tmp/one.txt | sed "s/^{/{\"case\": \"$name\", \"page\": $page, \"mask\": \"$mask\", \"sk\": $sk, \"b\": ${nb:-4}, \"sq\": ${sq:-512}, /" >> "$OUT/ours-$b.jsonl"
    # A hang (rc 124) ends the folder: its other kernels would hang too.
    if [ $rc -eq 124 ]; then echo "$b/$name: timeout, folder skipped" >> "$OUT/probe.txt"; break; fi
  done < "$KDIR/$b/bench.txt"
done
if grep -q "probe rc=0" "$OUT/probe.txt"; then
  for m in $MATRIX; do
    JOBS=14 fmha_dev_check_set "$KDIR" "$m" "$OUT" >> "$OUT/check-summary.txt"
  done
  for k in $SAN; do
    for tool in memcheck racecheck synccheck; do
      echo "== $tool $k" >> "$OUT/sanitize.txt"
      timeout 120 compute-sanitizer --tool $tool "$runner" "$KDIR/$m0/$k.json" 2>&1 | tail -3 >> "$OUT/sanitize.txt"
      echo "rc=${PIPESTATUS[0]}" >> "$OUT/sanitize.txt"
    done
  done
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
tar czf "$OUT.tgz" -C "$OUT" . 2>/dev/null
exit 0
