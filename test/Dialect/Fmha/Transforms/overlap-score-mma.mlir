// fmha-overlap-score-mma on the tiled sm_90a default kernel: in the
// pipelined full-tile loop, S = Q K^T moves before the V tile's
// fmha.staged_kv (its wait and transpose) and an fmha.mma_wait stands
// before S's first use (the row max), so the transpose runs while the wgmma
// computes S; P V still reads the V tile. The masked tiles' loop (not
// pipelined) is left alone, and a second run changes nothing.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads -o %t.before.mlir
// RUN: fmha-opt %t.before.mlir --fmha-overlap-score-mma -o %t.after.mlir
// RUN: FileCheck %s < %t.after.mlir
// RUN: fmha-opt %t.after.mlir --fmha-overlap-score-mma | FileCheck %s
// Without the pass V's wait comes before S (what the pass is for):
// RUN: FileCheck %s --check-prefix=BEFORE < %t.before.mlir
//
// CHECK: scf.for
// CHECK: %[[K:.*]] = fmha.staged_kv {{.*}}pending = 3 : i64, ring = 0
// CHECK-NEXT: %[[S:.*]] = fmha.tile_mma %{{.*}}, %[[K]], %{{.*}} {transpose_rhs}
// CHECK-NEXT: %[[V:.*]] = fmha.staged_kv {{.*}}pending = 2 : i64, ring = 1
// CHECK-NOT: %[[S]]
// CHECK: %[[W:.*]] = fmha.mma_wait %[[S]] : vector<64x128xf32>
// CHECK-NEXT: vector.multi_reduction <maximumf>, %[[W]]
// CHECK-NOT: fmha.mma_wait
// CHECK: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} : vector<64x128xf8E4M3FN>
// CHECK: fmha.pipelined
// CHECK-NOT: fmha.mma_wait
// CHECK: fmha.masked_tiles
//
// BEFORE: fmha.staged_kv {{.*}}ring = 1
// BEFORE-NEXT: fmha.tile_mma {{.*}} {transpose_rhs}
// BEFORE-NOT: fmha.mma_wait
