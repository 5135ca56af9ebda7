// fmha-warp-specialize on the tiled sm_90a kernel of the default request
// (32 query heads over 8 KV heads: groups of 4, so two consumers a
// workgroup share their KV head).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-warp-specialize --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// The producer's region holds no product, store or descale read:
// RUN: sed -n '/fmha.warp_roles/,/consumer(/p' %t.mlir | FileCheck %s --check-prefix=PROD
// Idempotent: a split grid is left alone.
// RUN: fmha-opt %t.mlir --fmha-warp-specialize | FileCheck %s --check-prefix=ONCE
//
// The grid takes two heads a point.
// CHECK: scf.forall (%{{.*}}, %[[H:.*]], %{{.*}}) in (%{{.*}}, 16, %{{.*}})
// CHECK: fmha.warp_roles consumers(2) warps(4) regs(24, 240) producer {
// The producer stages for KV head (2 h) / 4: the first tile behind a
// free stage 0 (fill 0), then tile t + 1 into stage (t + 1) % 2, fill
// (t + 1) / 2, each run of stage ops ended by stage_filled.
// CHECK: %[[H0:.*]] = arith.muli %[[H]], %c2 : index
// CHECK: %[[G:.*]] = arith.divui %[[H0]], %c4 : index
// CHECK: fmha.stage_free slot(%c0) fill(%c0) if(%[[RUNS:.*]]) {stages = 2 : i64}
// CHECK-NEXT: fmha.stage_kv %{{.*}} head(%[[G]]) {{.*}} slot(%c0) if(%[[RUNS]]) {{{.*}}ring = 0
// CHECK-NEXT: fmha.stage_kv %{{.*}} head(%[[G]]) {{.*}} slot(%c0) if(%[[RUNS]]) {{{.*}}ring = 1
// CHECK-NEXT: fmha.stage_filled slot(%c0) if(%[[RUNS]]) {stages = 2 : i64}
// CHECK: scf.for %[[T:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[T1]],
// CHECK: %[[SN:.*]] = arith.remui %[[T1]], %c2 : index
// CHECK: %[[FN:.*]] = arith.divui %[[T1]], %c2 : index
// CHECK: fmha.stage_free slot(%[[SN]]) fill(%[[FN]]) if(%[[MORE]])
// CHECK-NEXT: fmha.stage_kv {{.*}} slot(%[[SN]]) if(%[[MORE]]) {{{.*}}ring = 0
// CHECK-NEXT: fmha.stage_kv {{.*}} slot(%[[SN]]) if(%[[MORE]]) {{{.*}}ring = 1
// CHECK-NEXT: fmha.stage_filled slot(%[[SN]]) if(%[[MORE]])
// CHECK: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// Consumer c: head 2 h + c, for Q and the output alike; no stage op.
// CHECK: } consumer(%[[C:.*]]) {
// CHECK: %[[H2:.*]] = arith.muli %[[H]], %c2 : index
// CHECK: %[[HC:.*]] = arith.addi %[[H2]], %[[C]] : index
// CHECK-NOT: fmha.stage_kv
// CHECK: fmha.load_rows %{{.*}}[%{{.*}}, %[[HC]]]
// CHECK: scf.for %[[TC:.*]] = %c0 to
// CHECK: %[[S:.*]] = arith.remui %[[TC]], %c2 : index
// CHECK: %[[F:.*]] = arith.divui %[[TC]], %c2 : index
// CHECK: fmha.stage_wait slot(%[[S]]) fill(%[[F]]) {stages = 2 : i64}
// CHECK-NEXT: %[[K:.*]] = fmha.staged_kv slot(%[[S]]) {by_barrier, pending = 0 : i64, ring = 0
// CHECK-NEXT: %[[V:.*]] = fmha.staged_kv slot(%[[S]]) {by_barrier, pending = 0 : i64, ring = 1
// The stage is released once S = Q K^T has read K (V was transposed out
// at its staged_kv), before the softmax and P V.
// CHECK: fmha.tile_mma %{{.*}}, %[[K]], %{{.*}} {transpose_rhs}
// CHECK-NEXT: fmha.stage_release slot(%[[S]]) {stages = 2 : i64}
// CHECK: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} :
// CHECK: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// CHECK-NOT: fmha.stage_kv
// CHECK: fmha.store_rows %{{.*}}, %{{.*}}[%{{.*}}, %[[HC]]]
//
// PROD-NOT: fmha.tile_mma
// PROD-NOT: fmha.store_rows
// PROD-NOT: fmha.gather_descale
// PROD-NOT: fmha.load_rows
// PROD: consumer(
//
// ONCE: in (%{{.*}}, 16, %{{.*}})
// ONCE: fmha.warp_roles
// ONCE-NOT: fmha.warp_roles

// Left alone: one query head a KV head (no two heads share a staged tile),
// a grid without a pipelined loop (--no-peel), and a 16-bit Q (its per-tile
// quantization reduces over the workgroup).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/?x1024x8x128/?x1024x32x128/g; s/x8xf32/x32xf32/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --fmha-warp-specialize | FileCheck %s --check-prefix=MHA
// MHA-NOT: fmha.warp_roles
// MHA: in (%{{.*}}, 32, %{{.*}})
// MHA: fmha.stage_kv
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-expand-masks --fmha-pipeline-kv-stages --fmha-warp-specialize | FileCheck %s --check-prefix=NOPIPE
// NOPIPE-NOT: fmha.warp_roles
// NOPIPE: in (%{{.*}}, 32, %{{.*}})
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-warp-specialize=consumers=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: fmha-warp-specialize: consumers must be at least 1, got 0

// transpose-v: the producer transposes each V tile into a ring of its own
// (ring 2), the consumers read V^T from it as it is. Tile t (copied in the
// iteration before) is transposed at the top of iteration t, once all its
// copies landed (pending 0), and its fill completed by the producer's own
// stores (written); only then the wait for a free stage and tile t + 1's
// copies. The consumers release a stage after P V (which reads V^T there).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse "--fmha-warp-specialize=transpose-v=true" \
// RUN:   --canonicalize --cse | FileCheck %s --check-prefix=TV
// TV: fmha.warp_roles
// TV: fmha.stage_free slot(%c0) fill(%c0)
// TV-NEXT: fmha.stage_kv {{.*}} if({{.*}}) {{{.*}}ring = 0
// TV-NEXT: fmha.stage_kv {{.*}} if({{.*}}) {{{.*}}ring = 1
// TV-NOT: fmha.stage_filled
// TV: scf.for %[[T:.*]] = %c0 to
// TV: %[[S:.*]] = arith.remui %[[T]], %c2 : index
// TV-NEXT: %[[F:.*]] = arith.divui %[[T]], %c2 : index
// TV-NEXT: fmha.stage_transpose slot(%[[S]]) fill(%[[F]]) {from = 1 : i64, pending = 0 : i64, ring = 2 : i64, stages = 2 : i64, tile_type = vector<128x128xf8E4M3FN>}
// TV-NEXT: fmha.stage_filled slot(%[[S]]) if(%true) {stages = 2 : i64, written}
// TV-NEXT: fmha.stage_free
// TV-NEXT: fmha.stage_kv {{.*}} if({{.*}}) {{{.*}}ring = 0
// TV-NEXT: fmha.stage_kv {{.*}} if({{.*}}) {{{.*}}ring = 1
// TV-NEXT: } {fmha.descales_folded
// TV: consumer(
// TV: fmha.stage_wait
// TV-NEXT: %[[K:.*]] = fmha.staged_kv {{.*}}ring = 0
// TV-NEXT: %[[V:.*]] = fmha.staged_kv {{.*}}ring = 2
// TV-NOT: fmha.stage_release
// TV: fmha.tile_mma %{{.*}}, %[[V]], %{{.*}} :
// TV-NEXT: fmha.stage_release

// stage-descales (with transpose-v), page 16 (tiles of 8 whole pages): the
// producer writes tile t + 1's per-key vd and kd into rings 4 and 3 beside
// its stage ops (the first tile's before the loop), with the stage ops'
// ids, head, slot and condition; the consumers read them after the stage
// wait, and gather no per-key descale in the pipelined loop.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x/x16x/g; s/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads \
// RUN:   "--fmha-warp-specialize=transpose-v=true stage-descales=true" --canonicalize --cse | FileCheck %s --check-prefix=SD
// SD: fmha.warp_roles
// SD: fmha.stage_kv %{{.*}}[%[[IDS0:.*]]] head(%[[G0:[^)]*]]) {{.*}} slot(%c0) if(%[[RUN0:[^)]*]]) {{{.*}}ring = 1
// SD-NEXT: fmha.stage_descale %[[VD:.*]][%[[IDS0]]] head(%[[G0]]) slot(%c0) if(%[[RUN0]]) {ring = 4 : i64, stages = 2 : i64}
// SD-NEXT: fmha.stage_descale %[[KD:.*]][%[[IDS0]]] head(%[[G0]]) slot(%c0) if(%[[RUN0]]) {ring = 3 : i64, stages = 2 : i64}
// SD: scf.for
// SD: fmha.stage_kv %{{.*}}[%[[IDS:.*]]] head(%[[G:[^)]*]]) {{.*}} slot(%[[SN:[^)]*]]) if(%[[MORE:[^)]*]]) {{{.*}}ring = 1
// SD-NEXT: fmha.stage_descale %[[VD]][%[[IDS]]] head(%[[G]]) slot(%[[SN]]) if(%[[MORE]]) {ring = 4
// SD-NEXT: fmha.stage_descale %[[KD]][%[[IDS]]] head(%[[G]]) slot(%[[SN]]) if(%[[MORE]]) {ring = 3
// SD: consumer(
// SD: scf.for
// SD-NOT: fmha.gather_descale {{.*}} vector<128xi32> -> vector<128xf32>
// SD: fmha.stage_wait slot(%[[S:[^)]*]]) fill(
// SD-NEXT: fmha.staged_descale slot(%[[S]]) {page_size = 16 : i64, ring = 4 : i64, stages = 2 : i64} : vector<128xf32>
// SD-NEXT: fmha.staged_descale slot(%[[S]]) {page_size = 16 : i64, ring = 3 : i64, stages = 2 : i64} : vector<128xf32>
// SD: fmha.stage_release
// With exp2_bias (stated; the chip's route at page 8) and its fold
// (fmha-fold-vd-exp2: the consumers take log2(vd)
// and 1 / vd, nothing of vd itself) the producer stages those two instead
// of vd, a ring each (rings 4 and 5; kd stays a value, ring 3): the
// consumers' per-page lg2 and rcp leave the pipelined loop (the masked
// tail loop, not pipelined, keeps its own).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x/x16x/g; s/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt "--fmha-select-config=chip=sm_90a vd-route=exp2_bias" --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-exp2 --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads \
// RUN:   "--fmha-warp-specialize=transpose-v=true stage-descales=true" --canonicalize --cse | FileCheck %s --check-prefix=SDX
// SDX: fmha.warp_roles
// SDX: scf.for
// SDX: fmha.stage_descale %[[VD:arg[0-9]+]][%[[IDS:[0-9]+]]] head({{.*}}) {form = #fmha.descale_form<reciprocal>, ring = 5
// SDX-NEXT: fmha.stage_descale %[[VD]][%[[IDS]]] head({{.*}}) {form = #fmha.descale_form<log2>, ring = 4
// SDX-NEXT: fmha.stage_descale %{{.*}}[%[[IDS]]] head({{.*}}) {ring = 3 : i64
// SDX: consumer(
// SDX: fmha.stage_wait
// SDX-NEXT: fmha.staged_descale {{.*}}ring = 5
// SDX-NEXT: fmha.staged_descale {{.*}}ring = 4
// SDX-NEXT: fmha.staged_descale {{.*}}ring = 3
// SDX-NOT: math.log2
// SDX-NOT: arith.divf %{{.*}} : vector<128xf32>
// SDX: fmha.stage_release
// SDX: fmha.masked_tiles
// A vd taken as itself anywhere (page 16's scaled_p route) keeps one
// ring of values (the SD case above, without the fold, is the same).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x/x16x/g; s/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt "--fmha-select-config=chip=sm_90a vd-route=scaled_p" --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-exp2 --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads \
// RUN:   "--fmha-warp-specialize=transpose-v=true stage-descales=true" --canonicalize --cse | FileCheck %s --check-prefix=SDV
// SDV: fmha.warp_roles
// SDV-NOT: descale_form
// SDV: fmha.stage_descale {{.*}} {ring = 4 : i64, stages = 2 : i64}
// SDV-NOT: descale_form
// SDV: consumer(
// stage-descales-max-page (the chip's choice takes 16): page 16 is staged
// under a bound of 16, not under one of 8.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x/x16x/g; s/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads -o %t.p16
// RUN: fmha-opt %t.p16 "--fmha-warp-specialize=transpose-v=true stage-descales=true stage-descales-max-page=16" | FileCheck %s --check-prefix=SDMAX16
// SDMAX16-COUNT-4: fmha.stage_descale
// SDMAX16: fmha.staged_descale
// RUN: fmha-opt %t.p16 "--fmha-warp-specialize=transpose-v=true stage-descales=true stage-descales-max-page=8" | FileCheck %s --check-prefix=SDMAX8
// SDMAX8: fmha.warp_roles
// SDMAX8-NOT: fmha.stage_descale
// SDMAX8-NOT: fmha.staged_descale

// stage-descales at page 1024 (one descale a tile, uniform ids): nothing
// to stage, the pass leaves the descales alone.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-hoist-tile-reads \
// RUN:   "--fmha-warp-specialize=transpose-v=true stage-descales=true" --canonicalize --cse | FileCheck %s --check-prefix=SD1024
// SD1024: fmha.warp_roles
// SD1024-NOT: fmha.stage_descale
// SD1024-NOT: fmha.staged_descale
// SD1024: fmha.gather_descale
