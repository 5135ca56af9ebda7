// The rings of fmha-pipeline-kv-stages count against the most shared memory
// a workgroup may have with the launcher's opt-in (227 KiB = 232448 bytes on
// sm_90a): 8 stages of K and of V (128 x 128 fp8 each: 8 x 2 x 16384) plus
// the masked tiles' K and V^T (2 x 16384) are 294912 bytes: refused with the
// sizes, not a kernel the driver cannot launch. 2 stages (the pipelines')
// fit: two rings of 2 x 16384 bytes (65536) beside the 32768.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | not fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages=stages=8 --fmha-outline-kernel=chip=sm_90a \
// RUN:   --convert-fmha-to-gpu=chip=sm_90a 2>&1 | FileCheck %s
// CHECK: error: 'gpu.func' op convert-fmha-to-gpu (sm_90a): the K and V tiles and their stage rings need 294912 bytes of workgroup memory, more than the 232448 one workgroup may have
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --fmha-outline-kernel=chip=sm_90a \
// RUN:   --convert-fmha-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=FITS
// FITS-COUNT-2: memref<32768xi8, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}
