#!/usr/bin/env bash
# Compiles the default kernel of each chip and one kernel per page regime
# (bench/regimes.py's pages, kv_blockscale and per_tensor) and prints one line
# per kernel: sha256 of the binary (HSACO / PTX), and for AMDGPU the VGPR /
# SGPR counts and ISA instruction counts from the manifest and the assembly.
# Used to show a refactoring of the lowering leaves the kernels unchanged:
#   bench/lowering/fingerprint.sh build/bin/fmha-compile > before.txt
#   ... change ...
#   bench/lowering/fingerprint.sh build/bin/fmha-compile | diff before.txt -
set -euo pipefail
fc=${1:?usage: fingerprint.sh FMHA_COMPILE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # label chip args...
  local label=$1 chip=$2; shift 2
  local o=$tmp/k
  "$fc" --chip "$chip" -o "$o" "$@" >/dev/null
  local bin=$o.hsaco; [ "$chip" = sm_90 ] && bin=$o.ptx
  local sum; sum=$(sha256sum "$bin" | cut -c1-16)
  local regs="" isa=""
  if [ "$chip" != sm_90 ]; then
    regs=$(python3 -c "import json,sys; m=json.load(open('$o.json')); print('vgpr=%d agpr=%d sgpr=%d spill=%d lds=%d' % (m['vgpr'], m['agpr'], m['sgpr'], m['vgpr_spills'], m['lds_bytes']))")
    "$fc" --chip "$chip" -o "$o" --emit=isa "$@" >/dev/null
    isa=$(grep -cE '^\s+[vsdgb][a-z_0-9]+' "$o.s" || true)
    isa="insts=$isa mfma=$(grep -c 'v_mfma' "$o.s" || true)"
  else
    isa="lines=$(wc -l < "$bin") mma=$(grep -c 'mma.sync' "$bin" || true)"
  fi
  printf '%-34s %s %s %s\n' "$label" "$sum" "$regs" "$isa"
}
for chip in gfx942 gfx950 sm_90; do
  one "$chip.default" "$chip"
  fp8=f8E4M3FN; [ "$chip" = gfx942 ] && fp8=f8E4M3FNUZ
  for quant in kv_blockscale per_tensor; do
    for p in 1 16 32 48 64 128 192 1024; do
      one "$chip.$quant.p$p" "$chip" --q-dtype $fp8 --kv-dtype $fp8 --quant $quant \
        --page-size $p --heads 4/2 --head-dim 128 --qo-len 200 --kv-len 300,77 --mask causal
    done
  done
done
