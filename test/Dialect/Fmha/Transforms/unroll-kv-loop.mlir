// RUN: fmha-opt %s --allow-unregistered-dialect --split-input-file --fmha-unroll-kv-loop=factor=2 | FileCheck %s
// Once: the loops it writes carry fmha.unrolled and are not unrolled again.
// RUN: fmha-opt %s --allow-unregistered-dialect --split-input-file --fmha-unroll-kv-loop=factor=2 --fmha-unroll-kv-loop=factor=2 | FileCheck %s
// RUN: fmha-opt %s --allow-unregistered-dialect --split-input-file --fmha-unroll-kv-loop=factor=1 | FileCheck %s --check-prefix=ONE
// RUN: fmha-opt %s --allow-unregistered-dialect --split-input-file --fmha-unroll-kv-loop | FileCheck %s --check-prefix=AUTO
// RUN: not fmha-opt %s --allow-unregistered-dialect --split-input-file --fmha-unroll-kv-loop=factor=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: fmha-unroll-kv-loop: factor must be at least 1 (or -1: the rule), got 0

// Tiles [lo, hi): (hi - lo) / 2 groups of two tiles (lo + 2 j, lo + 2 j + 1),
// counted by an i32 from 0, the second tile taking the first's results;
// then the original loop from lo + 2 groups to hi for the odd tile.
// CHECK-LABEL: func @full
// CHECK-SAME: (%[[A:.*]]: vector<16x32xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[D:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}}
// CHECK: %[[G:.*]] = arith.divui %[[N]], %[[C2]]
// CHECK: %[[GI:.*]] = arith.index_castui %[[G]] : index to i32
// CHECK: %[[MAIN:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[GI]] step %{{.*}} iter_args(%[[X:.*]] = %[[A]]) -> (vector<16x32xf32>)  : i32 {
// CHECK: %[[JI:.*]] = arith.index_castui %[[J]] : i32 to index
// CHECK: %[[J2:.*]] = arith.muli %[[JI]], %[[C2]]
// CHECK: %[[T0:.*]] = arith.addi %[[LO]], %[[J2]]
// CHECK: %[[K0:.*]] = arith.muli %[[T0]], %[[C32]]
// CHECK: %[[S0:.*]] = "test.tile"(%[[X]], %[[K0]])
// CHECK: %[[T1:.*]] = arith.addi %[[T0]], %{{.*}}
// CHECK: %[[K1:.*]] = arith.muli %[[T1]], %[[C32]]
// CHECK: %[[S1:.*]] = "test.tile"(%[[S0]], %[[K1]])
// CHECK: scf.yield %[[S1]]
// CHECK: } {fmha.full_tiles, fmha.kv_loop, fmha.unrolled = 2 : i64}
// CHECK: %[[R2:.*]] = arith.muli %[[G]], %[[C2]]
// CHECK: %[[RLO:.*]] = arith.addi %[[LO]], %[[R2]]
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[RLO]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK: "test.tile"
// CHECK-NOT: "test.tile"
// CHECK: } {fmha.full_tiles, fmha.kv_loop, fmha.unrolled = 1 : i64}
// CHECK: return %[[REST]]
// ONE-LABEL: func @full
// ONE-NOT: fmha.unrolled
func.func @full(%a: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%x = %a) -> (vector<16x32xf32>) {
    %k = arith.muli %t, %c32 : index
    %s = "test.tile"(%x, %k) : (vector<16x32xf32>, index) -> vector<16x32xf32>
    scf.yield %s : vector<16x32xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16x32xf32>
}

// -----

// Masked loops, and loops of another step, are left alone.
// CHECK-LABEL: func @others
// CHECK-NOT: fmha.unrolled
// CHECK: return
func.func @others(%a: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%x = %a) -> (vector<16x32xf32>) {
    %s = "test.tile"(%x, %t) : (vector<16x32xf32>, index) -> vector<16x32xf32>
    scf.yield %s : vector<16x32xf32>
  } {fmha.masked_tiles, fmha.kv_loop}
  %r2 = scf.for %t = %lo to %hi step %c2 iter_args(%x = %r) -> (vector<16x32xf32>) {
    %s = "test.tile"(%x, %t) : (vector<16x32xf32>, index) -> vector<16x32xf32>
    scf.yield %s : vector<16x32xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r2 : vector<16x32xf32>
}

// -----

// The rule (factor -1, the default): a loop that gathers descales
// (kv_blockscale) by 2, one that does not (@full above) stays.
// AUTO-LABEL: func @full
// AUTO-NOT: fmha.unrolled
// AUTO-LABEL: func @descales
// AUTO: fmha.gather_descale
// AUTO: fmha.gather_descale
// AUTO: fmha.unrolled = 2
// AUTO: fmha.gather_descale
// AUTO-NOT: fmha.gather_descale
// AUTO: fmha.unrolled = 1
func.func @descales(%kd: memref<?x8xf32>, %ids: i32, %g: index, %a: f32,
                    %lo: index, %hi: index) -> f32 {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%x = %a) -> (f32) {
    %d = fmha.gather_descale %kd[%ids] head(%g) : memref<?x8xf32>, i32 -> f32
    %s = arith.addf %x, %d : f32
    scf.yield %s : f32
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : f32
}

// -----

// hi < lo runs no tile: the group count is max(hi - lo, 0) / 2, so the
// rest loop starts at lo + 0 and runs nothing either.
// CHECK-LABEL: func @empty
// CHECK: %[[D:.*]] = arith.subi
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}}
// CHECK: arith.divui %[[N]]
func.func @empty(%a: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%x = %a) -> (vector<16x32xf32>) {
    %s = "test.tile"(%x, %t) : (vector<16x32xf32>, index) -> vector<16x32xf32>
    scf.yield %s : vector<16x32xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16x32xf32>
}
