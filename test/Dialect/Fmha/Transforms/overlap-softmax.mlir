// fmha-overlap-softmax on the warp-specialized sm_90a kernel of the default
// request (page 1024: the scalar-vd route, P V without per-key descales):
// the consumers' pipelined loop of full tiles runs stage 0 (wait, S, softmax)
// of tile j + 1 beside stage 1 (P V, o, release) of tile j.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse "--fmha-warp-specialize=transpose-v=true" \
// RUN:   --canonicalize --cse -o %t.ws.mlir
// RUN: fmha-opt %t.ws.mlir --fmha-overlap-softmax --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Idempotent: the loops it wrote wait for their products already. One
// wait in the first tile's loop (S), two in the loop (S, P V), one in the
// last tile's (P V), and none added by a second run.
// RUN: fmha-opt %t.mlir --fmha-overlap-softmax | FileCheck %s
// RUN: fmha-opt %t.mlir --fmha-overlap-softmax | FileCheck %s --check-prefix=ONCE
// ONCE-COUNT-4: fmha.mma_wait
// ONCE-NOT: fmha.mma_wait
//
// CHECK: consumer(
// The first tile's stage 0, one trip at most (min(n, lb + 1)): its wait,
// S and softmax, no P V and no release.
// CHECK: %[[PUB:.*]] = arith.minsi %[[N:.*]], %c1 : index
// CHECK-NEXT: %[[PRO:.*]]:9 = scf.for %{{.*}} = %[[LB:.*]] to %[[PUB]]
// CHECK: fmha.stage_wait
// CHECK: %[[S0:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// CHECK: fmha.mma_wait %[[S0]]
// CHECK-NOT: fmha.stage_release
// CHECK: math.exp2
// CHECK-NOT: fmha.stage_release
// CHECK: scf.yield
// CHECK-NEXT: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// The loop, to n - 1: tile j + 1's wait and S started, tile j's P V
// started (its V read from the slot carried from stage 0, P cast from the
// carried f32 probabilities), then S's wait and the softmax, then P V's
// wait and the release of tile j's slot.
// CHECK: %[[MUB:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[MAIN:.*]]:10 = scf.for %{{.*}} = %[[LB]] to %[[MUB]] {{.*}} %[[SLOT:arg[0-9]+]] = %[[PRO]]#6, %[[P:arg[0-9]+]] = %[[PRO]]#7
// CHECK: fmha.stage_wait
// CHECK: %[[S:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// CHECK-NEXT: %[[V:.*]] = fmha.staged_kv slot(%[[SLOT]]) {{.*}}ring = 2
// CHECK-NEXT: %[[PF8:.*]] = arith.truncf %[[P]]
// CHECK: %[[PV:.*]] = fmha.tile_mma %[[PF8]], %[[V]], %{{.*}} :
// CHECK: %[[SW:.*]] = fmha.mma_wait %[[S]]
// CHECK: vector.multi_reduction <maximumf>, %[[SW]]
// CHECK: math.exp2
// CHECK: %[[PVW:.*]] = fmha.mma_wait %[[PV]]
// CHECK-NEXT: fmha.stage_release slot(%[[SLOT]])
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// The last tile's stage 1, one trip at most (from max(n - 1, lb)).
// CHECK: %[[ELB:.*]] = arith.maxsi %[[MUB]], %[[LB]] : index
// CHECK: scf.for %{{.*}} = %[[ELB]] to %[[N]]
// CHECK-NOT: transpose_rhs
// CHECK-NOT: fmha.stage_wait
// CHECK: fmha.staged_kv slot(%[[MAIN]]#7)
// CHECK: fmha.tile_mma
// CHECK: fmha.mma_wait
// CHECK: fmha.stage_release slot(%[[MAIN]]#7)
// The masked tail loop is not pipelined: left alone.
// CHECK: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// CHECK-NOT: fmha.mma_wait
// CHECK: fmha.masked_tiles
//
// Page 16 on the scaled_p route (stated; the chip's choice there is
// exp2_bias. P V takes per-key V descales, a column-form vector that
// cannot be carried): stage 1 reads its tile's page ids and vd again
// (from the tile start, which crosses as a scalar), after tile j + 1's S
// is started and before P V.
// RUN: sed -e 's/f8E4M3FNUZ/f8E4M3FN/g' -e 's/x1024x/x16x/g' -e 's/page_size = 1024/page_size = 16/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt "--fmha-select-config=chip=sm_90a vd-route=scaled_p" --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse "--fmha-warp-specialize=transpose-v=true" \
// RUN:   --canonicalize --cse --fmha-overlap-softmax --canonicalize --cse | FileCheck %s --check-prefix=KSCALE
// KSCALE: consumer(
// KSCALE: scf.for
// KSCALE: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
// KSCALE: scf.for %{{.*}} iter_args({{.*}}, %[[START:arg[0-9]+]] = %{{.*}}#4
// KSCALE: %[[S:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// KSCALE-NEXT: %[[IDS:.*]] = fmha.page_ids %subview[%[[START]]] {{.*}} -> vector<128xi32>
// KSCALE-NEXT: %[[VD:.*]] = fmha.gather_descale %arg9[%[[IDS]]] {{.*}} -> vector<128xf32>
// KSCALE: %[[PV:.*]] = fmha.tile_mma %{{.*}} k_scale(%{{.*}} : vector<128xf32>)
// KSCALE: fmha.mma_wait %[[S]]
// KSCALE: fmha.mma_wait %[[PV]]
// KSCALE: vd_route = scaled_p
//
// Left alone: loops whose consumers take turns (fmha-ping-pong).
// RUN: fmha-opt %t.ws.mlir --fmha-ping-pong --fmha-overlap-softmax | FileCheck %s --check-prefix=TURNS
// TURNS: fmha.turn_take
// TURNS-NOT: arith.truncf %arg
// TURNS: fmha.store_rows
//
// Left alone: a pipelined loop whose consumer copies its own stages (no
// warp roles: fmha.stage_kv in the loop, whose cp.async groups count on
// the order).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-overlap-softmax \
// RUN:   | FileCheck %s --check-prefix=ONEGROUP
// ONEGROUP: fmha.stage_kv
// ONEGROUP-NOT: fmha.mma_wait
// ONEGROUP: return
