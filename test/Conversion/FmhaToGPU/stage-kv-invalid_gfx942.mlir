// convert-fmha-to-gpu refuses staged K/V tiles (fmha-pipeline-kv-stages) on
// a chip whose lowering has no asynchronous copies into LDS (gfx942 today),
// with a diagnostic, not a crash: the pipelines run the pass on sm_90a only.
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir \
// RUN:   --fmha-select-config=chip=gfx942 --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --fmha-outline-kernel=chip=gfx942 \
// RUN:   --convert-fmha-to-gpu=chip=gfx942 2>&1 | FileCheck %s
// CHECK: error: {{.*}}fmha.stage_kv needs asynchronous copies into shared memory, which this chip's lowering does not have
