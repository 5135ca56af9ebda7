// fmha-pipeline-kv-stages single-stage (gfx950's loads straight into LDS)
// on the tiled gfx950 kernel of the default request (page 1024: one page
// id a tile, carried by the KV loop). K and V get a ring of one stage
// each; K is started a tile ahead, V within its own tile.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=gfx950 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages=single-stage --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Idempotent: a pipelined loop is marked and left alone.
// RUN: fmha-opt %t.mlir --fmha-pipeline-kv-stages=single-stage --canonicalize --cse | FileCheck %s
//
// Before the loop: only the first tile's K (ring 0, one stage), with the
// loop's initial page id, when the loop runs.
// CHECK: %[[ID0:.*]] = fmha.page_ids
// CHECK: %[[RUNS:.*]] = arith.cmpi sgt, %[[UB:.*]], %c0 : index
// CHECK-NOT: fmha.stage_kv
// CHECK: fmha.stage_kv %arg1[%[[ID0]]] head(%{{.*}}) tile(%c0, %{{.*}}) slot(%c0) if(%[[RUNS]]) {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 1 : i64, tile_type = vector<128x128xf8E4M3FN>}
// CHECK-NOT: fmha.stage_kv
// CHECK: scf.for %[[T:.*]] = %c0 to %[[UB]] step %c1 iter_args({{.*}}, %[[ID:[a-z0-9_]+]] = %[[ID0]],
// CHECK: %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// CHECK: %[[S1:.*]] = arith.muli %[[T1]], %c128 : index
// CHECK: %[[IDN:.*]] = fmha.page_ids %{{.*}}[%[[S1]]]
// CHECK: %[[S0:.*]] = arith.muli %[[T]], %c128 : index
// Iteration t: K's read (all of the stage's loads, pending 0), then at
// once tile t's own V into ring 1 (its page id: this tile's, carried).
// CHECK: %[[K:.*]] = fmha.staged_kv slot(%c0) {pending = 0 : i64, ring = 0 : i64, stages = 1 : i64} : vector<128x128xf8E4M3FN>
// CHECK-NEXT: fmha.stage_kv %arg2[%[[ID]]] head(%{{.*}}) tile(%[[S0]], %{{.*}}) slot(%c0) if(%true) {{{.*}}ring = 1 : i64, stages = 1 : i64
// CHECK: fmha.tile_mma %{{.*}}, %[[K]], %{{.*}} {transpose_rhs}
// V is read just before P V (the loads ran behind S and the softmax), and
// right after it the K of tile min(t + 1, ub - 1) is started (behind P V)
// in every iteration: no branch (the last iteration loads its own K
// again).
// (The clamp in 32 bits: AMDGPU has no 64-bit scalar min.)
// CHECK: %[[LAST:.*]] = arith.subi %[[UB]], %c1 : index
// CHECK: %[[MIN:.*]] = arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[TC:.*]] = arith.index_cast %[[MIN]] : i32 to index
// CHECK: %[[SC:.*]] = arith.muli %[[TC]], %c128 : index
// CHECK: %[[V:.*]] = fmha.staged_kv slot(%c0) {pending = 0 : i64, ring = 1 : i64, stages = 1 : i64} : vector<128x128xf8E4M3FN>
// CHECK-NEXT: fmha.stage_kv %arg1[%[[IDN]]] head(%{{.*}}) tile(%[[SC]], %{{.*}}) slot(%c0) if(%true) {{{.*}}ring = 0 : i64, stages = 1 : i64
// CHECK-NEXT: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} :
// CHECK-NOT: fmha.gather_kv
// CHECK: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// The masked tiles keep their gathers.
// CHECK: scf.for
// CHECK: fmha.gather_kv
// CHECK: fmha.gather_kv
// CHECK: } {fmha.descales_folded, fmha.kv_loop, fmha.masked_tiles}

// Left alone: a cache whose row stride is not static (the loads into LDS
// read through a bounded view of the rows), a 16-bit cache, and no
// full-tiles loop (--no-peel).
// RUN: fmha-compile --chip gfx950 --lds-loads --kv-strided --emit mlir -o - | FileCheck %s --check-prefix=STRIDED
// RUN: fmha-compile --chip gfx950 --lds-loads --q-dtype bf16 --kv-dtype bf16 --quant none --emit mlir -o - | FileCheck %s --check-prefix=STRIDED
// RUN: fmha-compile --chip gfx950 --lds-loads --no-peel --emit mlir -o - | FileCheck %s --check-prefix=STRIDED
// STRIDED-NOT: amdgpu.gather_to_lds
// STRIDED: amdgpu.mfma
// gfx942 takes them only when asked (its loads into LDS take 4 bytes a
// lane: the chip's choice is off); NVIDIA ignores --lds-loads (it has its
// cp.async ring).
// RUN: fmha-compile --chip gfx942 --emit mlir -o - | FileCheck %s --check-prefix=STRIDED
// RUN: fmha-compile --chip sm_90 --lds-loads --emit mlir -o - | FileCheck %s --check-prefix=NV
// NV-NOT: amdgpu.gather_to_lds
// NV: nvgpu.device_async_copy
// RUN: fmha-compile --chip gfx942 --lds-loads --emit mlir -o - | FileCheck %s --check-prefix=G942
// G942: amdgpu.gather_to_lds {{.*}} : i32,
// RUN: fmha-compile --chip gfx942 --lds-loads=false --emit mlir -o - | FileCheck %s --check-prefix=STRIDED

// v-after-scores (gfx942, whose V comes through registers and whose V^T
// the lanes write at V's read): V's read, and the next tile's K started
// right after it, follow the first product of K (S = Q K^T) instead of
// preceding P V, so that V's loads run behind S and the barrier after the
// V^T writes comes before the softmax.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=gfx950 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages="single-stage v-after-scores" --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefix=VAS
// VAS: scf.for
// VAS: %[[K:.*]] = fmha.staged_kv slot(%c0) {pending = 0 : i64, ring = 0 : i64, stages = 1 : i64}
// VAS-NEXT: fmha.stage_kv %arg2[{{.*}}] {{.*}}ring = 1 : i64, stages = 1 : i64
// VAS: %[[S:.*]] = fmha.tile_mma %{{.*}}, %[[K]], %{{.*}} {transpose_rhs}
// VAS: %[[V:.*]] = fmha.staged_kv slot(%c0) {pending = 0 : i64, ring = 1 : i64, stages = 1 : i64}
// VAS-NEXT: fmha.stage_kv %arg1[{{.*}}] {{.*}}ring = 0 : i64, stages = 1 : i64
// The softmax of S comes after V's read: its row max is the first use of S.
// VAS: vector.multi_reduction <maximumf>, %[[S]]
// VAS: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} :
// VAS: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
