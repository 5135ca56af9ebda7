#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the fp8 regression
# check of a lowering change, the quick matrix (make_matrix.py --quick: one
# main case per page size, the short and spread sets causal kv_blockscale)
# on sm_90 and sm_90a against the oracle and the emulation, and memcheck on
# one case of each.
#   bench/nvidia/device_regression.sh KDIR OUTDIR   (KDIR/m90, KDIR/m90a)
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
for d in m90 m90a; do
  fmha_dev_check_set "$KDIR" "$d" "$OUT"
done
: > "$OUT/memcheck.txt"
for d in m90 m90a; do
  fmha_dev_memcheck "$KDIR/$d" "$OUT/memcheck.txt" short-p16-csr-nhd-kv_blockscale-causal-8x2
done
grep -E "ERROR SUMMARY|^rc=" "$OUT/memcheck.txt"
