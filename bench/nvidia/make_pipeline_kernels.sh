#!/usr/bin/env bash
# Here (not on the H200): compiles the kernels bench/nvidia/device_pipeline.sh
# runs, into KDIR (default dev-kernels, ignored by git; carry it to the
# device): the quick fp8 matrices of sm_90a and sm_90 with the pipeline
# (m90a, m90), and the benchmark grid of both chips with and without it
# (b90a-pipe, b90a-sync, b90-pipe, b90-sync). The pipeline is the default
# since 2026-12-05; the -sync kernels ask for --pipeline=false.
#   bench/nvidia/make_pipeline_kernels.sh [KDIR] [BUILD]
set -euo pipefail
KDIR=${1:-dev-kernels}
BUILD=${2:-build}
fc="$BUILD/bin/fmha-compile"
[ -x "$fc" ] || { echo "no $fc: build first (scripts/test.sh)"; exit 2; }
mkdir -p "$KDIR"
py=bench/nvidia
python3 $py/make_matrix.py --fmha-compile "$fc" --out "$KDIR/m90a" --chip sm_90a --quick --flag=--pipeline
python3 $py/make_matrix.py --fmha-compile "$fc" --out "$KDIR/m90" --chip sm_90 --quick --flag=--pipeline
for chip in sm_90a sm_90; do
  tag=b${chip#sm_}
  python3 $py/make_bench.py --fmha-compile "$fc" --out "$KDIR/$tag-pipe" --chip $chip --flag=--pipeline
  python3 $py/make_bench.py --fmha-compile "$fc" --out "$KDIR/$tag-sync" --chip $chip --flag=--pipeline=false
done
du -sh "$KDIR"
