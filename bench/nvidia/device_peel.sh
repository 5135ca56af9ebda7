#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the numerics matrix on
# sm_90a with memcheck (device_matrix.sh), then the speed of the sm_90a
# benchmark kernels with and without fmha-peel-masked-tiles beside the peers
# (device_speed.sh), in one machine session.
#   bench/nvidia/device_peel.sh MATRIX_KDIR PEEL_BDIR NOPEEL_BDIR OUTDIR
# Writes OUTDIR/results.md (the matrix table) and OUTDIR/all.tgz (everything).
set -u
M=$1; P=$2; N=$3; OUT=$4
mkdir -p "$OUT" /tmp/peel-run
bench/nvidia/device_matrix.sh "$M" /tmp/peel-run/matrix
bench/nvidia/device_speed.sh /tmp/peel-run/speed "$P" "$N"
cp /tmp/peel-run/matrix/results.md "$OUT/results.md" 2>/dev/null
tar -czf "$OUT/all.tgz" -C /tmp/peel-run .
exit 0
