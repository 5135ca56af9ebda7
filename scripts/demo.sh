#!/usr/bin/env bash
# The main job: builds the project and runs it on the default request of
# examples/default_request.mlir (FP8 e4m3 Q/K/V, kv_blockscale, page size 1024,
# Hq/Hkv 32/8, D 128, causal, CSR page table, bf16 out).
# Today: verifies the request with fmha-opt, then compiles the default request
# through fmha-to-host-pipeline and runs it on the host JIT against the oracle
# (fmha-run). The HSACO/PTX steps arrive with the GPU lowerings.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"

fmha_install_packages
fmha_configure
ninja -C "$FMHA_BUILD_DIR" -j"$FMHA_JOBS" fmha-opt fmha-run

echo "== fmha-opt examples/default_request.mlir"
"$FMHA_BUILD_DIR/bin/fmha-opt" "$root/examples/default_request.mlir"

echo "== fmha-run --target host (default request: e4m3 kv_blockscale, P=1024, 32/8, D=128, causal, csr, bf16 out)"
"$FMHA_BUILD_DIR/bin/fmha-run" --target host
