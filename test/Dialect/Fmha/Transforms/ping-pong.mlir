// fmha-ping-pong on the warp-specialized sm_90a kernel of the default
// request (fmha-warp-specialize with the producer transposing V): the two
// consumers take turns at issuing S = Q K^T in both KV loops (the masked
// tail and the full tiles).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse "--fmha-warp-specialize=transpose-v=true" \
// RUN:   --canonicalize --cse -o %t.ws.mlir
// RUN: fmha-opt %t.ws.mlir --fmha-ping-pong -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// The producer takes no turn:
// RUN: sed -n '/fmha.warp_roles/,/consumer(/p' %t.mlir | FileCheck %s --check-prefix=PROD
// Idempotent: the turns are not added twice.
// RUN: fmha-opt %t.mlir --fmha-ping-pong | FileCheck %s --check-prefix=ONCE
//
// The last consumer (1 of 2) passes first: consumer 0 has the first turn.
// CHECK: } consumer(%[[C:.*]]) {
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.cmpi eq, %[[C]], %[[C1]] : index
// CHECK-NEXT: fmha.turn_pass consumer(%[[C]]) if(%[[LAST]])
// In each KV loop, once the stage is filled: take, issue S, pass, then
// wait for S (an fmha.mma_wait the pass wrote); the take and pass of an S
// are unconditional (a true constant).
// CHECK: scf.for
// CHECK: fmha.stage_wait
// CHECK: %[[T:.*]] = arith.constant true
// CHECK-NEXT: fmha.turn_take consumer(%[[C]]) if(%[[T]])
// CHECK-NEXT: %[[S:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} {transpose_rhs}
// CHECK-NEXT: fmha.turn_pass consumer(%[[C]]) if(%[[T]])
// CHECK-NEXT: %{{.*}} = fmha.mma_wait %[[S]]
// CHECK: fmha.stage_release
// The masked tail loop (each consumer gathers its tiles):
// CHECK: scf.for
// CHECK: fmha.gather_kv
// CHECK: %[[T2:.*]] = arith.constant true
// CHECK-NEXT: fmha.turn_take consumer(%[[C]]) if(%[[T2]])
// CHECK-NEXT: %[[S2:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} {transpose_rhs}
// CHECK-NEXT: fmha.turn_pass consumer(%[[C]]) if(%[[T2]])
// CHECK-NEXT: %{{.*}} = fmha.mma_wait %[[S2]]
// Consumer 0 takes the last consumer's last pass at the end.
// CHECK: fmha.store_rows
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[C]], %[[ZERO]] : index
// CHECK-NEXT: fmha.turn_take consumer(%[[C]]) if(%[[FIRST]])
// CHECK-NEXT: }
//
// PROD-NOT: fmha.turn_
// PROD: consumer(
//
// ONCE-COUNT-3: fmha.turn_take
// ONCE-NOT: fmha.turn_take
//
// With S already waited for apart (fmha-overlap-score-mma), that wait stays
// and no second one is written.
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages --canonicalize --cse --fmha-overlap-score-mma \
// RUN:   --fmha-warp-specialize --canonicalize --cse --fmha-ping-pong \
// RUN:   | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: consumer(
// OVERLAP: %[[S:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// OVERLAP-NEXT: fmha.turn_pass
// OVERLAP-NOT: fmha.mma_wait %[[S]]
// OVERLAP: fmha.mma_wait %[[S]]
// OVERLAP-NOT: fmha.mma_wait %[[S]]
// OVERLAP: fmha.tile_mma
//
// Left alone: warp roles of one consumer (no one to take turns with).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a --fmha-tile --fmha-prefetch-page-ids=per-token=false \
// RUN:   --fmha-peel-masked-tiles --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-pipeline-kv-stages "--fmha-warp-specialize=consumers=1" --fmha-ping-pong \
// RUN:   | FileCheck %s --check-prefix=SINGLE
// SINGLE: fmha.warp_roles consumers(1)
// SINGLE-NOT: fmha.turn_
//
// Every consumer must take its turns the same number of times, so the
// loops and guards around each S must not depend on the consumer: a loop
// bound or an scf.if condition computed from the consumer index leaves the
// roles alone (the same IR with a consumer-independent bound takes turns).
// RUN: fmha-opt %S/Inputs/ping-pong-counts.mlir --fmha-ping-pong | FileCheck %s --check-prefix=COUNTS
// COUNTS-LABEL: func.func @same_bound
// COUNTS: fmha.turn_pass
// COUNTS: fmha.turn_take
// COUNTS: fmha.tile_mma
// COUNTS-NEXT: fmha.turn_pass
// COUNTS-LABEL: func.func @per_consumer_bound
// COUNTS-NOT: fmha.turn_
// COUNTS-LABEL: func.func @per_consumer_guard
// COUNTS-NOT: fmha.turn_
//
// After fmha-overlap-softmax (the pipeline runs it first: it leaves loops
// with turns alone), a turn also holds the products issued with S before
// S's first use: in the overlapped loop S of tile j + 1 and P V of tile j
// are issued in one turn (FA3's schedule), the waits after the pass.
// RUN: fmha-opt %t.ws.mlir --fmha-overlap-softmax --canonicalize --cse --fmha-ping-pong \
// RUN:   | FileCheck %s --check-prefix=WITHPV
// WITHPV: consumer(
// The first tile's loop: S alone in its turn.
// WITHPV: scf.for
// WITHPV: fmha.turn_take
// WITHPV-NEXT: %[[S0:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// WITHPV-NEXT: fmha.turn_pass
// WITHPV: fmha.mma_wait %[[S0]]
// The overlapped loop: take, S(j + 1), P V(j), pass, then both waits.
// WITHPV: scf.for
// WITHPV: fmha.turn_take
// WITHPV-NEXT: %[[S1:.*]] = fmha.tile_mma %{{.*}} {transpose_rhs}
// WITHPV-NOT: fmha.turn_
// WITHPV-NOT: fmha.mma_wait
// WITHPV: %[[PV:.*]] = fmha.tile_mma
// WITHPV-NEXT: fmha.turn_pass
// WITHPV: fmha.mma_wait %[[S1]]
// WITHPV: fmha.mma_wait %[[PV]]
// WITHPV: fmha.stage_release
// The last tile's loop issues only P V: no turn.
// WITHPV: scf.for
// WITHPV-NOT: fmha.turn_
// WITHPV: fmha.stage_release
