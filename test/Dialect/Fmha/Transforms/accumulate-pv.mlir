// RUN: fmha-opt %s --split-input-file --fmha-accumulate-pv | FileCheck %s
// Through the tiling passes: gfx942 page 16 takes the exp2_bias route, whose
// P x V has no k_scale after fmha-fold-vd-exp2; both of its KV loops (full
// and masked tiles) accumulate into the rescaled o.
// RUN: sed 's/x1024x8x128/x16x8x128/g; s/page_size = 1024/page_size = 16/' \
// RUN:   %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-exp2 --fmha-fold-vd-rescale \
// RUN:   --fmha-prefetch-page-ids --fmha-peel-masked-tiles --fmha-accumulate-pv \
// RUN:   | FileCheck %s --check-prefix=TILED
// TILED: scf.for
// TILED-NOT: fmha.tile_mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z_]+}} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
// TILED: %[[R:.*]] = arith.mulf %{{[0-9]+}}, %arg{{[0-9]+}} : vector<128x128xf32>
// TILED-NEXT: %[[O:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %[[R]] : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
// TILED-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[O]],
// TILED: fmha.full_tiles
// TILED: scf.for
// TILED: %[[R2:.*]] = arith.mulf %{{[0-9]+}}, %arg{{[0-9]+}} : vector<128x128xf32>
// TILED-NEXT: %[[O2:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %[[R2]]
// TILED-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[O2]],
// TILED: fmha.masked_tiles
//
// The default request (page 1024, the scalar route) was already made one
// accumulating product by fmha-fold-vd-rescale: nothing changes.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 \
// RUN:   --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-exp2 \
// RUN:   --fmha-fold-vd-rescale -o %t.scalar.mlir
// RUN: fmha-opt %t.scalar.mlir -o %t.scalar.before.mlir
// RUN: fmha-opt %t.scalar.mlir --fmha-accumulate-pv -o %t.scalar.after.mlir
// RUN: diff %t.scalar.before.mlir %t.scalar.after.mlir

// o_new = rowbcast(alpha) * o + P x V (from zero): P x V accumulates into
// the rescaled o, the add goes.
// CHECK-LABEL: func @update
// CHECK: scf.for
// CHECK: %[[R:.*]] = arith.mulf %{{.*}}, %[[OA:.*]] : vector<16x32xf32>
// CHECK-NOT: arith.addf
// CHECK: %[[U:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %[[R]] : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
// CHECK-NOT: arith.addf
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[U]]
func.func @update(%p: vector<16x32xf8E4M3FNUZ>, %v: vector<32x32xf8E4M3FNUZ>,
                  %alpha: vector<16xf32>, %m0: vector<16xf32>, %l0: vector<16xf32>,
                  %o0: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %u = fmha.tile_mma %p, %v, %z : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %a = vector.shape_cast %alpha : vector<16xf32> to vector<16x1xf32>
    %ab = vector.broadcast %a : vector<16x1xf32> to vector<16x32xf32>
    %ro = arith.mulf %ab, %o : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  return %r#2 : vector<16x32xf32>
}

// -----

// The add's operands the other way round, and o on the multiply's left.
// CHECK-LABEL: func @update_swapped
// CHECK: %[[R:.*]] = arith.mulf
// CHECK: %[[U:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %[[R]]
// CHECK-NOT: arith.addf
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[U]]
func.func @update_swapped(%p: vector<16x32xf8E4M3FNUZ>, %v: vector<32x32xf8E4M3FNUZ>,
                          %alpha: vector<16xf32>, %m0: vector<16xf32>, %l0: vector<16xf32>,
                          %o0: vector<16x32xf32>, %lo: index, %hi: index) -> vector<16x32xf32> {
  %c1 = arith.constant 1 : index
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %u = fmha.tile_mma %p, %v, %z : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %a = vector.shape_cast %alpha : vector<16xf32> to vector<16x1xf32>
    %ab = vector.broadcast %a : vector<16x1xf32> to vector<16x32xf32>
    %ro = arith.mulf %o, %ab : vector<16x32xf32>
    %on = arith.addf %u, %ro : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  return %r#2 : vector<16x32xf32>
}

// -----

// Left alone: a product with a per-key scale (k_scale), one from a non-zero
// accumulator, one used twice, one that is not added to the rescaled o, and
// a loop that is not a KV loop.
// CHECK-LABEL: func @negative
// CHECK-COUNT-6: arith.addf
// CHECK-NOT: arith.addf
func.func @negative(%p: vector<16x32xf8E4M3FNUZ>, %v: vector<32x32xf8E4M3FNUZ>,
                    %ks: vector<32xf32>, %alpha: vector<16xf32>, %m0: vector<16xf32>,
                    %l0: vector<16xf32>, %o0: vector<16x32xf32>, %lo: index,
                    %hi: index) -> (vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>) {
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : vector<16x32xf32>
  %one = arith.constant dense<1.0> : vector<16x32xf32>
  %a = vector.shape_cast %alpha : vector<16xf32> to vector<16x1xf32>
  %ab = vector.broadcast %a : vector<16x1xf32> to vector<16x32xf32>
  %r1:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %u = fmha.tile_mma %p, %v, %z k_scale(%ks : vector<32xf32>) : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ro = arith.mulf %ab, %o : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r2:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %u = fmha.tile_mma %p, %v, %one : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ro = arith.mulf %ab, %o : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r3:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %u = fmha.tile_mma %p, %v, %z : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ro = arith.mulf %ab, %o : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    %twice = arith.addf %on, %u : vector<16x32xf32>
    scf.yield %m, %l, %twice : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r4:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %u = fmha.tile_mma %p, %v, %z : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ro = arith.mulf %ab, %o0 : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  } {fmha.kv_loop}
  %r5:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0, %l = %l0, %o = %o0)
      -> (vector<16xf32>, vector<16xf32>, vector<16x32xf32>) {
    %u = fmha.tile_mma %p, %v, %z : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ro = arith.mulf %ab, %o : vector<16x32xf32>
    %on = arith.addf %ro, %u : vector<16x32xf32>
    scf.yield %m, %l, %on : vector<16xf32>, vector<16xf32>, vector<16x32xf32>
  }
  return %r1#2, %r2#2, %r3#2, %r4#2, %r5#2 : vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>, vector<16x32xf32>
}
