#!/usr/bin/env bash
# The main job: builds the project and runs it on the default request of
# examples/default_request.mlir (FP8 e4m3 Q/K/V, kv_blockscale, page size 1024,
# Hq/Hkv 32/8, D 128, causal, CSR page table, bf16 out):
# 1. verifies the request with fmha-opt;
# 2. compiles it to AMDGPU code objects for gfx942 (fp8 FNUZ) and gfx950 (fp8
#    OCP) with fmha-compile and prints each manifest's summary (no ROCm, no
#    AMD GPU needed; files under $FMHA_BUILD_DIR/demo/);
# 3. compiles it to PTX for sm_90 (NVIDIA Hopper; run on an H200 with
#    fmha-cuda-run, see bench/results/h200-2026-11-29);
# 4. compiles it through fmha-to-host-pipeline and runs it on the host JIT
#    against the oracle (fmha-run).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"

fmha_install_packages
fmha_configure
ninja -C "$FMHA_BUILD_DIR" -j"$FMHA_JOBS" fmha-opt fmha-run fmha-compile

echo "== fmha-opt examples/default_request.mlir"
"$FMHA_BUILD_DIR/bin/fmha-opt" "$root/examples/default_request.mlir"

out="$FMHA_BUILD_DIR/demo"
mkdir -p "$out"
for chip in gfx942 gfx950; do
  echo "== fmha-compile --chip $chip (default request, Sq 128/96, Sk 1280/1100) -> $out/default_$chip.{hsaco,json}"
  "$FMHA_BUILD_DIR/bin/fmha-compile" --chip "$chip" --qo-len 128,96 --kv-len 1280,1100 \
    -o "$out/default_$chip"
  python3 - "$out/default_$chip.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(f"   {m['target']}: kernel {m['kernel']}, {len(m['args'])} args ({m['kernarg_size']} bytes), "
      f"workgroup {m['workgroup'][0]}, grid ({m['grid']['x']}, {m['grid']['y']}, {m['grid']['z']}) "
      f"= {tuple(m['grid_for_request'])}")
print(f"   LDS {m['lds_bytes']} B, VGPR {m['vgpr']}, AGPR {m['agpr']}, SGPR {m['sgpr']}, "
      f"scratch {m['scratch_bytes']} B, spills {m['vgpr_spills']}+{m['sgpr_spills']}, "
      f"waves/SIMD {m['waves_per_simd']}")
PY
done

echo "== fmha-compile --chip sm_90 -> $out/default_sm_90.{ptx,json}"
"$FMHA_BUILD_DIR/bin/fmha-compile" --chip sm_90 --qo-len 128,96 --kv-len 1280,1100 \
  -o "$out/default_sm_90"
python3 - "$out/default_sm_90.json" "$out/default_sm_90.ptx" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
ptx = open(sys.argv[2]).read()
print(f"   {m['target']}: kernel {m['kernel']}, {len(m['args'])} args, block {m['workgroup'][0]}, "
      f"grid {tuple(m['grid_for_request'])}, shared {m['lds_bytes']} B, "
      f"{ptx.count('mma.sync.aligned.m16n8k32')} fp8 mma.sync in the PTX")
PY

echo "== fmha-run --target host (default request: e4m3 kv_blockscale, P=1024, 32/8, D=128, causal, csr, bf16 out)"
"$FMHA_BUILD_DIR/bin/fmha-run" --target host
