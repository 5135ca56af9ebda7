// fmha-outline-kernel with tma on the warp-specialized sm_90a kernel of the
// default request at page 16: every fmha.stage_kv is planned as TMA boxes of
// gcd(16, 128) = 16 rows of 128 bytes (its fmha.tma attribute), the kernel
// gets one !llvm.ptr tensor-map argument a cache after the flat ones, its
// record a "tensormap" entry a cache (the memref type's shape and strides:
// [?, 16, 8, 128] row-major, strides 16 x 8 x 128, 8 x 128, 128, 1), and
// the launch a null placeholder for each. (The example's arguments carry no
// fmha.operand_name: the record names them argN.)
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x/x16x/g; s/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir > %t.req
// RUN: fmha-opt %t.req --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse "--fmha-warp-specialize=transpose-v=true" \
// RUN:   --canonicalize --cse -o %t.ws
// RUN: fmha-opt %t.ws "--fmha-outline-kernel=chip=sm_90a tma=true" | FileCheck %s
// CHECK: %[[Z0:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[Z1:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: gpu.launch_func @fmha_kernels::@{{.*}} args({{.*}}, %[[Z0]] : !llvm.ptr, %[[Z1]] : !llvm.ptr)
// CHECK: gpu.func @{{.*}}, %arg[[#KM:]]: !llvm.ptr,
// CHECK-SAME: %arg[[#KM+1]]: !llvm.ptr) kernel
// CHECK-SAME: {box = [128, 16, 1, 1], dims = [3, 1, 2, 0], element_bytes = 1 : i64, name = "arg1", operand = 1 : i64, part = "tensormap", shape = [-1, 16, 8, 128], strides = [16384, 1024, 128, 1], swizzle = 128 : i64}
// CHECK-SAME: {box = [128, 16, 1, 1], dims = [3, 1, 2, 0], element_bytes = 1 : i64, name = "arg2", operand = 2 : i64, part = "tensormap", shape = [-1, 16, 8, 128], strides = [16384, 1024, 128, 1], swizzle = 128 : i64}
// The first tile's K and V stages, then the loop's: K's map, then V's.
// CHECK: fmha.stage_kv {{.*}}fmha.tma = {arg = [[#KM]] : i64, box_cols = 128 : i64, box_rows = 16 : i64, operand = 1 : i64}
// CHECK: fmha.stage_kv {{.*}}fmha.tma = {arg = [[#KM+1]] : i64, box_cols = 128 : i64, box_rows = 16 : i64, operand = 2 : i64}
// CHECK: fmha.stage_kv {{.*}}fmha.tma = {arg = [[#KM]] : i64, box_cols = 128 : i64, box_rows = 16 : i64, operand = 1 : i64}
// CHECK: fmha.stage_kv {{.*}}fmha.tma = {arg = [[#KM+1]] : i64, box_cols = 128 : i64, box_rows = 16 : i64, operand = 2 : i64}
//
// Without tma, or with boxes of fewer rows than tma-min-box-rows asks (16
// < 64, the chip's choice's minimum), nothing changes: no map, no plan.
// RUN: fmha-opt %t.ws "--fmha-outline-kernel=chip=sm_90a" | FileCheck %s --check-prefix=NONE
// RUN: fmha-opt %t.ws "--fmha-outline-kernel=chip=sm_90a tma=true tma-min-box-rows=64" | FileCheck %s --check-prefix=NONE
// NONE-NOT: tensormap
// NONE-NOT: fmha.tma
// NONE: gpu.func
// tma-staged-min-box-rows: where the producer also stages the descales
// (fmha.stage_descale, fmha-warp-specialize stage-descales) the boxes of
// 16 rows are planned under that minimum (8, the chip's choice) although
// tma-min-box-rows asks 64; without staged descales they are not (above).
// RUN: fmha-opt %t.req --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads \
// RUN:   "--fmha-warp-specialize=transpose-v=true stage-descales=true" --canonicalize --cse -o %t.sd
// RUN: fmha-opt %t.sd "--fmha-outline-kernel=chip=sm_90a tma=true tma-min-box-rows=64 tma-staged-min-box-rows=8" | FileCheck %s --check-prefix=STAGED
// STAGED: part = "tensormap"
// STAGED: fmha.stage_kv {{.*}}fmha.tma = {arg = {{.*}}, box_rows = 16 : i64
// RUN: fmha-opt %t.sd "--fmha-outline-kernel=chip=sm_90a tma=true tma-min-box-rows=64 tma-staged-min-box-rows=32" | FileCheck %s --check-prefix=NONE
// NONE-NOT: tensormap
// NONE-NOT: fmha.tma
//
// A kernel whose producer does not transpose V (the consumers do: the
// cp.async waits stay with them) is not planned either.
// RUN: fmha-opt %t.req --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-warp-specialize \
// RUN:   --canonicalize --cse "--fmha-outline-kernel=chip=sm_90a tma=true" | FileCheck %s --check-prefix=NONE
