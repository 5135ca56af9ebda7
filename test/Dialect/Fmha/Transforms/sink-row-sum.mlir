// RUN: fmha-opt %s --split-input-file --fmha-sink-row-sum | FileCheck %s
// Through the tiling passes: gfx942 page 16 (the exp2_bias route, a row sum
// of p / vd) has its weights, the sum and l's update after P x V, in both
// KV loops; the default request (page 1024, a plain row sum) keeps them.
// RUN: sed 's/x1024x8x128/x16x8x128/g; s/page_size = 1024/page_size = 16/' \
// RUN:   %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-exp2 --fmha-fold-vd-rescale \
// RUN:   --fmha-prefetch-page-ids --fmha-peel-masked-tiles --fmha-accumulate-pv \
// RUN:   --fmha-sink-row-sum | FileCheck %s --check-prefix=TILED
// TILED: scf.for
// TILED: fmha.tile_mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : vector<128x128xf8E4M3FNUZ>
// TILED-NEXT: arith.mulf %{{.*}}, %arg{{[0-9]+}} : vector<128xf32>
// TILED-NEXT: arith.constant
// TILED-NEXT: vector.broadcast
// TILED-NEXT: vector.broadcast
// TILED-NEXT: arith.divf
// TILED-NEXT: vector.broadcast
// TILED-NEXT: arith.mulf
// TILED-NEXT: vector.multi_reduction <add>
// TILED-NEXT: arith.addf
// TILED-NEXT: scf.yield
// TILED: fmha.full_tiles
// TILED: scf.for
// TILED: fmha.tile_mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : vector<128x128xf8E4M3FNUZ>
// TILED: vector.multi_reduction <add>
// TILED-NEXT: arith.addf
// TILED-NEXT: scf.yield
// TILED: fmha.masked_tiles
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 \
// RUN:   --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale -o %t.plain.mlir
// RUN: fmha-opt %t.plain.mlir -o %t.plain.before.mlir
// RUN: fmha-opt %t.plain.mlir --fmha-sink-row-sum -o %t.plain.after.mlir
// RUN: diff %t.plain.before.mlir %t.plain.after.mlir

// The weighted row sum (p * w, w per key) and l's update move to the end of
// the body, after P x V, in their order; the weights' division, used only
// by them, moves too. p itself (used by its cast) stays.
// CHECK-LABEL: func @weighted
// CHECK: scf.for
// CHECK: %[[E:.*]] = math.exp2
// CHECK: fmha.tile_mma
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.divf
// CHECK-NEXT: vector.broadcast
// CHECK-NEXT: arith.mulf %[[E]]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: vector.multi_reduction <add>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[L:.*]] = arith.addf
// CHECK-NEXT: scf.yield %{{.*}}, %[[L]],
func.func @weighted(%s: vector<16x32xf32>, %p8: vector<16x32xf8E4M3FNUZ>,
                    %v: vector<32x32xf8E4M3FNUZ>, %vd: vector<32xf32>,
                    %alpha: vector<16xf32>, %m0: vector<16xf32>, %l0: vector<16xf32>,
                    %o0: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %e = math.exp2 %s : vector<16x32xf32>
    %one = arith.constant dense<1.0> : vector<32xf32>
    %w = arith.divf %one, %vd : vector<32xf32>
    %wt = vector.broadcast %w : vector<32xf32> to vector<16x32xf32>
    %pw = arith.mulf %e, %wt : vector<16x32xf32>
    %z = arith.constant dense<0.0> : vector<16xf32>
    %sum = vector.multi_reduction <add>, %pw, %z [1] : vector<16x32xf32> to vector<16xf32>
    %al = arith.mulf %alpha, %l : vector<16xf32>
    %ln = arith.addf %al, %sum : vector<16xf32>
    %pe = arith.truncf %e : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
    %on = fmha.tile_mma %pe, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %m, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  return %r#1 : vector<16xf32>
}

// -----

// Left alone: a plain row sum (no per-key weight), a weighted one in a loop
// that is not a KV loop, and an l that is no row sum.
// CHECK-LABEL: func @negative
// CHECK: vector.multi_reduction <add>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: fmha.tile_mma
// CHECK: vector.multi_reduction <add>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: fmha.tile_mma
// CHECK: arith.addf
// CHECK-NEXT: fmha.tile_mma
func.func @negative(%s: vector<16x32xf32>, %p8: vector<16x32xf8E4M3FNUZ>,
                    %v: vector<32x32xf8E4M3FNUZ>, %vd: vector<32xf32>,
                    %m0: vector<16xf32>, %l0: vector<16xf32>,
                    %o0: vector<16x32xf32>, %lo: index, %hi: index) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : vector<16xf32>
  %r1:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %e = math.exp2 %s : vector<16x32xf32>
    %sum = vector.multi_reduction <add>, %e, %z [1] : vector<16x32xf32> to vector<16xf32>
    %ln = arith.addf %l, %sum : vector<16xf32>
    %on = fmha.tile_mma %p8, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %m, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r2:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %e = math.exp2 %s : vector<16x32xf32>
    %wt = vector.broadcast %vd : vector<32xf32> to vector<16x32xf32>
    %pw = arith.mulf %e, %wt : vector<16x32xf32>
    %sum = vector.multi_reduction <add>, %pw, %z [1] : vector<16x32xf32> to vector<16xf32>
    %ln = arith.addf %l, %sum : vector<16xf32>
    %on = fmha.tile_mma %p8, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %m, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  }
  %r3:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %ln = arith.addf %l, %m : vector<16xf32>
    %on = fmha.tile_mma %p8, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %m, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  return %r1#1, %r2#1, %r3#1 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// l_new with another user in the body stays (it would move past it); an
// op with an effect in the chain (a load of the weights) stays where it is
// while the pure ops after it move.
// CHECK-LABEL: func @root_used_and_load
// CHECK: vector.multi_reduction <add>
// CHECK-NEXT: %[[L:.*]] = arith.addf
// CHECK-NEXT: arith.addf %[[L]]
// CHECK: fmha.tile_mma
// CHECK: scf.for
// CHECK: %[[W:.*]] = vector.load
// CHECK: fmha.tile_mma
// CHECK-NEXT: vector.broadcast %[[W]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.constant
// CHECK-NEXT: vector.multi_reduction <add>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
func.func @root_used_and_load(%s: vector<16x32xf32>, %v: vector<32x32xf8E4M3FNUZ>,
                              %vd: vector<32xf32>, %mem: memref<32xf32>,
                              %m0: vector<16xf32>, %l0: vector<16xf32>,
                              %o0: vector<16x32xf32>, %lo: index, %hi: index) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r1:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %e = math.exp2 %s : vector<16x32xf32>
    %wt = vector.broadcast %vd : vector<32xf32> to vector<16x32xf32>
    %pw = arith.mulf %e, %wt : vector<16x32xf32>
    %z = arith.constant dense<0.0> : vector<16xf32>
    %sum = vector.multi_reduction <add>, %pw, %z [1] : vector<16x32xf32> to vector<16xf32>
    %ln = arith.addf %l, %sum : vector<16xf32>
    %mn = arith.addf %ln, %m : vector<16xf32>
    %pe = arith.truncf %e : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
    %on = fmha.tile_mma %pe, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %mn, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r2:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %e = math.exp2 %s : vector<16x32xf32>
    %w = vector.load %mem[%c0] : memref<32xf32>, vector<32xf32>
    %wt = vector.broadcast %w : vector<32xf32> to vector<16x32xf32>
    %pw = arith.mulf %e, %wt : vector<16x32xf32>
    %z = arith.constant dense<0.0> : vector<16xf32>
    %sum = vector.multi_reduction <add>, %pw, %z [1] : vector<16x32xf32> to vector<16xf32>
    %ln = arith.addf %l, %sum : vector<16xf32>
    %pe = arith.truncf %e : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
    %on = fmha.tile_mma %pe, %v, %o : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    scf.yield %m, %ln, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  return %r1#1, %r2#1 : vector<16xf32>, vector<16xf32>
}
