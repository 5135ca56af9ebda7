#!/usr/bin/env bash
# The main job: builds the project and runs it on the default request of
# examples/default_request.mlir (FP8 e4m3 Q/K/V, kv_blockscale, page size 1024,
# Hq/Hkv 32/8, D 128, causal, CSR page table, bf16 out).
# Today: parses, verifies and prints the request with fmha-opt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"

fmha_install_packages
fmha_configure
ninja -C "$FMHA_BUILD_DIR" -j"$FMHA_JOBS" fmha-opt

echo "== fmha-opt examples/default_request.mlir"
"$FMHA_BUILD_DIR/bin/fmha-opt" "$root/examples/default_request.mlir"
