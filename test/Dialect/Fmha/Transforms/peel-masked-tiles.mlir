// RUN: fmha-opt %s --split-input-file --fmha-peel-masked-tiles --canonicalize | FileCheck %s
// The pass is idempotent: the loops it writes are not split again.
// RUN: fmha-opt %s --split-input-file --fmha-peel-masked-tiles --fmha-peel-masked-tiles --canonicalize | FileCheck %s
// Through fmha-tile: the default request's loop (causal, BlockM 16 x BlockN
// 32 on the host) becomes the full loop and the masked one.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids --fmha-peel-masked-tiles | FileCheck %s --check-prefix=TILED

// Keys [32 t, 32 t + 32) and query positions [q, q + 16). A tile is full
// when 32 t + 32 <= sk (t < floor((sk - 32) / 32) + 1) and, causal, when
// 32 t + 31 <= q (t < floor((q - 31) / 32) + 1); the full loop is
// [lo, min(both, hi) clamped to [lo, hi]), then the masked rest.
// CHECK-LABEL: func @causal
// CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<16x32xf32>, %[[Q:[a-z0-9]+]]: index, %[[SK:[a-z0-9]+]]: index, %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index)
// CHECK-DAG: %[[CM31:.*]] = arith.constant -31 : index
// CHECK-DAG: %[[CM32:.*]] = arith.constant -32 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[A0:.*]] = arith.addi %[[SK]], %[[CM32]]
// CHECK: %[[A1:.*]] = arith.floordivsi %[[A0]], %[[C32]]
// CHECK: %[[A:.*]] = arith.addi %[[A1]], %{{.*}}
// CHECK: %[[B0:.*]] = arith.addi %[[Q]], %[[CM31]]
// CHECK: %[[B1:.*]] = arith.floordivsi %[[B0]], %[[C32]]
// CHECK: %[[B:.*]] = arith.addi %[[B1]], %{{.*}}
// CHECK: %[[MIN:.*]] = arith.minsi %[[A]], %[[B]]
// CHECK: %[[MAX:.*]] = arith.maxsi %[[MIN]], %[[LO]]
// CHECK: %[[FHI:.*]] = arith.minsi %[[MAX]], %[[HI]]
// CHECK: %[[FULL:.*]] = scf.for %{{.*}} = %[[LO]] to %[[FHI]] step %{{.*}} iter_args(%{{.*}} = %[[S]])
// CHECK-NOT: fmha.mask_tile
// CHECK: } {fmha.full_tiles, fmha.kv_loop}
// CHECK: scf.for %{{.*}} = %[[FHI]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[FULL]])
// CHECK: fmha.mask_tile
// CHECK: } {fmha.kv_loop, fmha.masked_tiles}
// CHECK-NOT: scf.for
func.func @causal(%s: vector<16x32xf32>, %q: index, %sk: index, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %s) -> (vector<16x32xf32>) {
    %t0 = arith.muli %t, %c32 : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  return %r : vector<16x32xf32>
}

// -----

// A window (left 100, right 3): full also needs 32 t + 31 <= q + 3 (the right
// bound: floor((q - 28) / 32) + 1) and 32 t >= q + 15 - 100 (the left bound:
// ceil((q - 85) / 32)), so masked tiles come before the full ones too: three
// loops, chained.
// CHECK-LABEL: func @window
// CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<16x32xf32>, %[[Q:[a-z0-9]+]]: index, %[[SK:[a-z0-9]+]]: index, %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index)
// CHECK-DAG: %[[CM28:.*]] = arith.constant -28 : index
// CHECK-DAG: %[[CM85:.*]] = arith.constant -85 : index
// CHECK: arith.addi %[[Q]], %[[CM28]]
// CHECK: %[[L0:.*]] = arith.addi %[[Q]], %[[CM85]]
// CHECK: arith.ceildivsi %[[L0]], %{{.*}}
// CHECK: %[[FLO:.*]] = arith.minsi %{{.*}}, %[[HI]]
// CHECK: %[[FHI:.*]] = arith.minsi %{{.*}}, %[[HI]]
// CHECK: %[[PRE:.*]] = scf.for %{{.*}} = %[[LO]] to %[[FLO]] step %{{.*}} iter_args(%{{.*}} = %[[S]])
// CHECK: fmha.mask_tile
// CHECK: } {fmha.kv_loop, fmha.masked_tiles}
// CHECK: %[[FULL:.*]] = scf.for %{{.*}} = %[[FLO]] to %[[FHI]] step %{{.*}} iter_args(%{{.*}} = %[[PRE]])
// CHECK-NOT: fmha.mask_tile
// CHECK: } {fmha.full_tiles, fmha.kv_loop}
// CHECK: scf.for %{{.*}} = %[[FHI]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[FULL]])
// CHECK: fmha.mask_tile {{.*}} {mask = #fmha.mask<window, left = 100, right = 3>}
// CHECK: } {fmha.kv_loop, fmha.masked_tiles}
func.func @window(%s: vector<16x32xf32>, %q: index, %sk: index, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %s) -> (vector<16x32xf32>) {
    %t0 = arith.muli %c32, %t : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<window, left = 100, right = 3>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  return %r : vector<16x32xf32>
}

// -----

// Run-time bounds: each condition applies only when its bound is >= 0.
// CHECK-LABEL: func @runtime_window
// CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<16x32xf32>, %[[Q:[a-z0-9]+]]: index, %[[SK:[a-z0-9]+]]: index, %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index, %[[WL:[a-z0-9]+]]: index, %[[WR:[a-z0-9]+]]: index)
// CHECK: arith.addi %[[Q]], %[[WR]]
// CHECK: %[[RPOS:.*]] = arith.cmpi sge, %[[WR]], %{{.*}}
// CHECK: arith.select %[[RPOS]]
// CHECK: arith.subi %{{.*}}, %[[WL]]
// CHECK: %[[LPOS:.*]] = arith.cmpi sge, %[[WL]], %{{.*}}
// CHECK: arith.select %[[LPOS]]
// CHECK: scf.for
// CHECK: fmha.mask_tile {{.*}} window(%[[WL]], %[[WR]])
// CHECK: } {fmha.kv_loop, fmha.masked_tiles}
// CHECK: scf.for
// CHECK-NOT: fmha.mask_tile
// CHECK: } {fmha.full_tiles, fmha.kv_loop}
// CHECK: scf.for
// CHECK: fmha.mask_tile {{.*}} window(%[[WL]], %[[WR]])
// CHECK: } {fmha.kv_loop, fmha.masked_tiles}
func.func @runtime_window(%s: vector<16x32xf32>, %q: index, %sk: index, %lo: index, %hi: index, %wl: index, %wr: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %s) -> (vector<16x32xf32>) {
    %t0 = arith.muli %t, %c32 : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) window(%wl, %wr) {mask = #fmha.mask<window, left = -1, right = -1>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  return %r : vector<16x32xf32>
}

// -----

// Left alone: a query position computed in the loop, a key start that is not
// iv * C, a step of 2, and a loop without the KV-loop marker.
// CHECK-LABEL: func @not_provable
// CHECK-NOT: fmha.full_tiles
// CHECK-NOT: fmha.masked_tiles
// CHECK: return
func.func @not_provable(%s: vector<16x32xf32>, %q: index, %sk: index, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %r0 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %s) -> (vector<16x32xf32>) {
    %t0 = arith.muli %t, %c32 : index
    %qt = arith.addi %q, %t : index
    %m = fmha.mask_tile %acc rows(%qt) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  %r1 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %r0) -> (vector<16x32xf32>) {
    %t0 = arith.addi %t, %c32 : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  %r2 = scf.for %t = %lo to %hi step %c2 iter_args(%acc = %r1) -> (vector<16x32xf32>) {
    %t0 = arith.muli %t, %c32 : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  } {fmha.kv_loop}
  %r3 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %r2) -> (vector<16x32xf32>) {
    %t0 = arith.muli %t, %c32 : index
    %m = fmha.mask_tile %acc rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<16x32xf32>
    %n = arith.addf %m, %m : vector<16x32xf32>
    scf.yield %n : vector<16x32xf32>
  }
  return %r3 : vector<16x32xf32>
}

// TILED: scf.forall
// The loop carries m, l, o, the V-descale fold's vd_prev and the prefetched
// id, kd and vd; the masked loop starts from all seven.
// TILED: %[[FULL:.*]]:7 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, f32, i32, f32, f32)
// TILED-NOT: fmha.mask_tile
// TILED: } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop}
// TILED: scf.for {{.*}} iter_args(%{{.*}} = %[[FULL]]#0, %{{.*}} = %[[FULL]]#1, %{{.*}} = %[[FULL]]#2, %{{.*}} = %[[FULL]]#3, %{{.*}} = %[[FULL]]#4, %{{.*}} = %[[FULL]]#5, %{{.*}} = %[[FULL]]#6)
// TILED: fmha.mask_tile {{.*}} {mask = #fmha.mask<causal>} : vector<16x32xf32>
// TILED: } {fmha.descales_folded, fmha.kv_loop, fmha.masked_tiles}
