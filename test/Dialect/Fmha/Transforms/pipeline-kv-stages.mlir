// fmha-pipeline-kv-stages on the tiled sm_90a kernel of the default request
// (page 1024: one prefetched page id per tile, carried by the KV loop).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Idempotent: a pipelined loop is marked and left alone.
// RUN: fmha-opt %t.mlir --fmha-pipeline-kv-stages --canonicalize --cse | FileCheck %s
//
// Before the full tiles' loop: the first tile's K and V (ring 0, ring 1)
// into stage lb % 2 = 0, with the loop's initial page id, when it runs.
// CHECK: %[[ID0:.*]] = fmha.page_ids
// CHECK: %[[RUNS:.*]] = arith.cmpi sgt, %[[UB:.*]], %c0 : index
// CHECK: fmha.stage_kv %{{.*}}[%[[ID0]]] head(%{{.*}}) tile(%c0, %{{.*}}) slot(%c0) if(%[[RUNS]]) {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64, tile_type = vector<128x128xf8E4M3FN>}
// CHECK: fmha.stage_kv %{{.*}}[%[[ID0]]] head(%{{.*}}) tile(%c0, %{{.*}}) slot(%c0) if(%[[RUNS]]) {{{.*}}ring = 1 : i64
// CHECK: scf.for %[[T:.*]] = %c0 to %[[UB]] step %c1 iter_args({{.*}}, %[[ID:[a-z0-9_]+]] = %[[ID0]],
// Iteration t: tile t + 1's page id (fmha-prefetch-page-ids) stages tile
// t + 1 into stage (t + 1) % 2 while t + 1 < ub, then tile t is taken from
// stage t % 2 once the groups after its own are at most 3 (K) and 2 (V).
// CHECK: %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// CHECK: %[[S1:.*]] = arith.muli %[[T1]], %c128 : index
// CHECK: %[[IDN:.*]] = fmha.page_ids %{{.*}}[%[[S1]]]
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[T1]], %[[UB]] : index
// CHECK: %[[NEXT:.*]] = arith.remui %[[T1]], %c2 : index
// CHECK: %[[THIS:.*]] = arith.remui %[[T]], %c2 : index
// CHECK: fmha.stage_kv %{{.*}}[%[[IDN]]] head(%{{.*}}) tile(%[[S1]], %{{.*}}) slot(%[[NEXT]]) if(%[[MORE]]) {{{.*}}ring = 0 : i64
// CHECK: fmha.stage_kv %{{.*}}[%[[IDN]]] head(%{{.*}}) tile(%[[S1]], %{{.*}}) slot(%[[NEXT]]) if(%[[MORE]]) {{{.*}}ring = 1 : i64
// CHECK: %[[K:.*]] = fmha.staged_kv slot(%[[THIS]]) {pending = 3 : i64, ring = 0 : i64, stages = 2 : i64} : vector<128x128xf8E4M3FN>
// CHECK: %[[V:.*]] = fmha.staged_kv slot(%[[THIS]]) {pending = 2 : i64, ring = 1 : i64, stages = 2 : i64} : vector<128x128xf8E4M3FN>
// CHECK-NOT: fmha.gather_kv
// CHECK: fmha.tile_mma %{{.*}}, %[[K]], %{{.*}} {transpose_rhs}
// CHECK: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} :
// CHECK: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// The masked tiles (zero-fill past the end) keep their gathers.
// CHECK: scf.for
// CHECK: fmha.gather_kv
// CHECK: fmha.gather_kv
// CHECK: } {fmha.descales_folded, fmha.kv_loop, fmha.masked_tiles}

// Page 16 (per-token ids computed in the iteration): tile t + 1's ids are
// that page_ids op again at (t + 1) * 128, cloned into iteration t, and
// since they are reads, tile t + 1's stages go after tile t's S = Q K^T
// (the reads in flight during the waits and the product); the waits, all
// before S, then have no group of tile t + 1 after them: 1 (K: its V) and
// 0 (V). (The cp.async kernel: at page 16 the chip's choice is TMA.)
// RUN: fmha-compile --chip sm_90a --pipeline --tma=false --page-size 16 --emit mlir -o - 2>&1 | FileCheck %s --check-prefix=LANES16
// LANES16: nvgpu.device_async_copy
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/1024x8x128/16x8x128/g; s/page_size = 1024/page_size = 16/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse | FileCheck %s --check-prefix=P16
// P16: %[[IDS0:.*]] = fmha.page_ids %{{.*}}[%c0] {{.*}} -> vector<128xi32>
// P16: fmha.stage_kv %{{.*}}[%[[IDS0]]]
// P16: scf.for %[[T:.*]] = %c0
// P16: %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// P16: %[[S1:.*]] = arith.muli %[[T1]], %c128 : index
// P16: %[[IDSN:.*]] = fmha.page_ids %{{.*}}[%[[S1]]] {{.*}} -> vector<128xi32>
// P16-NOT: fmha.stage_kv
// P16: fmha.staged_kv slot(%{{.*}}) {pending = 1 : i64, ring = 0
// P16-NEXT: fmha.staged_kv slot(%{{.*}}) {pending = 0 : i64, ring = 1
// P16-NEXT: fmha.tile_mma {{.*}} {transpose_rhs}
// P16-NEXT: fmha.stage_kv %{{.*}}[%[[IDSN]]] head(%{{.*}}) tile(%[[S1]], {{.*}}ring = 0
// P16-NEXT: fmha.stage_kv %{{.*}}[%[[IDSN]]] head(%{{.*}}) tile(%[[S1]], {{.*}}ring = 1
// P16: } {fmha.full_tiles, fmha.kv_loop, fmha.pipelined}

// Left alone: without fmha-peel-masked-tiles there is no full-tiles loop
// (every tile may zero-fill), and a 16-bit cache keeps its gathers.
// RUN: fmha-compile --chip sm_90a --pipeline --no-peel --emit mlir -o - | FileCheck %s --check-prefix=NOPEEL
// NOPEEL-NOT: nvgpu.device_async_copy
// NOPEEL: nvvm.wgmma
// RUN: fmha-compile --chip sm_90a --pipeline --q-dtype bf16 --kv-dtype bf16 --quant none --emit mlir -o - | FileCheck %s --check-prefix=BF16
// BF16-NOT: nvgpu.device_async_copy
// BF16: nvvm.wgmma
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-pipeline-kv-stages=stages=1 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: fmha-pipeline-kv-stages: stages must be at least 2, got 1
