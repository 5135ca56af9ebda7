// fmha-hoist-tile-reads on the tiled sm_90a kernel at page 16 (per-token
// page ids; the scaled_p route reads a K and a V descale per key): in the
// pipelined full-tile loop both descale gathers of tile t, with the
// page_ids op they read, move above the loop's first fmha.staged_kv; the
// masked tiles' loop (not pipelined) keeps its order.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x8x128/x16x8x128/g; s/page_size = 1024/page_size = 16/' \
// RUN:   %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse -o %t.before.mlir
// RUN: fmha-opt %t.before.mlir --fmha-hoist-tile-reads | FileCheck %s
// Without the pass the reads follow S = Q K^T (what the pass is for):
// RUN: FileCheck %s --check-prefix=BEFORE < %t.before.mlir
//
// The prologue stages the first tile, then the full tiles' loop:
// CHECK: fmha.stage_kv {{.*}}ring = 1
// CHECK: scf.for
// CHECK: %[[IDS:.*]] = fmha.page_ids %{{.*}} -> vector<128xi32>
// CHECK: fmha.gather_descale %{{.*}}[%[[IDS]]] {{.*}} -> vector<128xf32>
// CHECK-NEXT: fmha.gather_descale %{{.*}}[%[[IDS]]] {{.*}} -> vector<128xf32>
// CHECK-NEXT: fmha.staged_kv {{.*}}pending = 1
// CHECK-NEXT: fmha.staged_kv {{.*}}pending = 0
// CHECK-NEXT: fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK-NOT: fmha.gather_descale {{.*}} -> vector<128xf32>
// CHECK: fmha.pipelined
// The masked loop: gathers (then the next tile's prefetched vd of its first
// page, fmha-prefetch-page-ids), S, then the descales, as before.
// CHECK: fmha.gather_kv
// CHECK: fmha.gather_kv
// CHECK-NEXT: fmha.gather_descale {{.*}} i32 -> f32
// CHECK-NEXT: fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK-NEXT: fmha.gather_descale
// CHECK-NEXT: fmha.gather_descale
// CHECK: fmha.masked_tiles
//
// BEFORE: fmha.staged_kv {{.*}}pending = 0
// BEFORE-NEXT: fmha.gather_descale {{.*}} i32 -> f32
// BEFORE-NEXT: fmha.tile_mma {{.*}} {transpose_rhs}
// BEFORE-NEXT: fmha.stage_kv
// BEFORE-NEXT: fmha.stage_kv
// BEFORE-NEXT: fmha.gather_descale
// BEFORE-NEXT: fmha.gather_descale
//
// The NVIDIA pipelines run it after the staging (and neither without it):
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-to-lanes-pipeline=chip=sm_90a --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | tr ',' '\n' | FileCheck %s --check-prefix=PIPE
// PIPE: fmha-pipeline-kv-stages
// PIPE: fmha-hoist-tile-reads
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt "--fmha-to-lanes-pipeline=chip=sm_90a pipeline=false" --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | tr ',' '\n' | FileCheck %s --check-prefix=NOPIPE
// NOPIPE-NOT: fmha-hoist-tile-reads
// NOPIPE: convert-fmha-to-gpu
