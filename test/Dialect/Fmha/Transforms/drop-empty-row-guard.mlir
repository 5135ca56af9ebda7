// RUN: fmha-opt %s --split-input-file --fmha-drop-empty-row-guard | FileCheck %s
// Through the tiling passes: the default request's (e4m3 FNUZ) full-tile
// loop loses the guard, its masked loop keeps it.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids --fmha-peel-masked-tiles --fmha-drop-empty-row-guard | FileCheck %s --check-prefix=TILED
// TILED: scf.for
// TILED-NOT: arith.cmpf oeq
// TILED: fmha.full_tiles
// TILED: scf.for
// TILED: arith.cmpf oeq
// TILED: arith.select
// TILED: fmha.masked_tiles

// A loop of full tiles whose scores multiply e4m3 values: the max is never
// -inf, the select (and its compare) go, the max itself is used.
// CHECK-LABEL: func @full_e4m3fnuz
// CHECK: scf.for
// CHECK: %[[M:.*]] = arith.maxnumf
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.select
// CHECK: arith.subf %{{.*}}, %[[M]]
// CHECK: scf.yield %[[M]]
func.func @full_e4m3fnuz(%q: vector<16x32xf8E4M3FNUZ>, %k: vector<32x32xf8E4M3FNUZ>,
                         %m0: vector<16xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0) -> (vector<16xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<16x32xf8E4M3FNUZ>, vector<32x32xf8E4M3FNUZ> -> vector<16x32xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
    %rm = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<16x32xf32> to vector<16xf32>
    %mn = arith.maxnumf %m, %rm : vector<16xf32>
    %c = arith.constant 0xFF800000 : f32
    %cb = vector.broadcast %c : f32 to vector<16xf32>
    %e = arith.cmpf oeq, %mn, %cb : vector<16xf32>
    %zero = arith.constant 0.0 : f32
    %zb = vector.broadcast %zero : f32 to vector<16xf32>
    %safe = arith.select %e, %zb, %mn : vector<16xi1>, vector<16xf32>
    %d = arith.subf %m, %safe : vector<16xf32>
    scf.yield %mn : vector<16xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16xf32>
}

// -----

// OCP e4m3 (gfx950, sm_90): no infinity either.
// CHECK-LABEL: func @full_e4m3fn
// CHECK-NOT: arith.select
// CHECK: return
func.func @full_e4m3fn(%q: vector<16x32xf8E4M3FN>, %k: vector<32x32xf8E4M3FN>,
                       %m0: vector<16xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0) -> (vector<16xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<16x32xf8E4M3FN>, vector<32x32xf8E4M3FN> -> vector<16x32xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
    %rm = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<16x32xf32> to vector<16xf32>
    %mn = arith.maxnumf %m, %rm : vector<16xf32>
    %cb = arith.constant dense<0xFF800000> : vector<16xf32>
    %e = arith.cmpf oeq, %mn, %cb : vector<16xf32>
    %zb = arith.constant dense<0.0> : vector<16xf32>
    %safe = arith.select %e, %zb, %mn : vector<16xi1>, vector<16xf32>
    %d = arith.subf %m, %safe : vector<16xf32>
    scf.yield %d : vector<16xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16xf32>
}

// -----

// A masked loop keeps the guard: a row may have no visible key.
// CHECK-LABEL: func @masked
// CHECK: arith.cmpf oeq
// CHECK: arith.select
func.func @masked(%q: vector<16x32xf8E4M3FN>, %k: vector<32x32xf8E4M3FN>,
                  %m0: vector<16xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0) -> (vector<16xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<16x32xf8E4M3FN>, vector<32x32xf8E4M3FN> -> vector<16x32xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
    %rm = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<16x32xf32> to vector<16xf32>
    %mn = arith.maxnumf %m, %rm : vector<16xf32>
    %e = arith.cmpf oeq, %mn, %ninf : vector<16xf32>
    %zb = arith.constant dense<0.0> : vector<16xf32>
    %safe = arith.select %e, %zb, %mn : vector<16xi1>, vector<16xf32>
    scf.yield %safe : vector<16xf32>
  } {fmha.masked_tiles, fmha.kv_loop}
  return %r : vector<16xf32>
}

// -----

// e5m2 and 16-bit operands hold infinities: a score may be -inf, the guard
// stays.
// CHECK-LABEL: func @e5m2
// CHECK: arith.select
// CHECK-LABEL: func @bf16
// CHECK: arith.select
func.func @e5m2(%q: vector<16x32xf8E4M3FN>, %k: vector<32x32xf8E5M2>,
                %m0: vector<16xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0) -> (vector<16xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<16x32xf8E4M3FN>, vector<32x32xf8E5M2> -> vector<16x32xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
    %rm = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<16x32xf32> to vector<16xf32>
    %mn = arith.maxnumf %m, %rm : vector<16xf32>
    %e = arith.cmpf oeq, %mn, %ninf : vector<16xf32>
    %zb = arith.constant dense<0.0> : vector<16xf32>
    %safe = arith.select %e, %zb, %mn : vector<16xi1>, vector<16xf32>
    scf.yield %safe : vector<16xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16xf32>
}
func.func @bf16(%q: vector<16x32xbf16>, %k: vector<32x32xbf16>,
                %m0: vector<16xf32>, %lo: index, %hi: index) -> vector<16xf32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%m = %m0) -> (vector<16xf32>) {
    %z = arith.constant dense<0.0> : vector<16x32xf32>
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<16x32xbf16>, vector<32x32xbf16> -> vector<16x32xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
    %rm = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<16x32xf32> to vector<16xf32>
    %mn = arith.maxnumf %m, %rm : vector<16xf32>
    %e = arith.cmpf oeq, %mn, %ninf : vector<16xf32>
    %zb = arith.constant dense<0.0> : vector<16xf32>
    %safe = arith.select %e, %zb, %mn : vector<16xi1>, vector<16xf32>
    scf.yield %safe : vector<16xf32>
  } {fmha.full_tiles, fmha.kv_loop}
  return %r : vector<16xf32>
}
