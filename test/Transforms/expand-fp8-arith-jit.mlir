// REQUIRES: mlir-runner
// RUN: fmha-opt %s --fmha-expand-fp8-arith --convert-vector-to-scf \
// RUN:   --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-ub-to-llvm --convert-cf-to-llvm \
// RUN:   --convert-func-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

// fmha-expand-fp8-arith run on the CPU. Every expected value below is derived
// from the format definitions (sign | exponent | mantissa, bias B, M mantissa
// bits, smallest subnormal u = 2^(1-B-M)), not from a run:
//   f8E4M3FN   B=7  M=3  u=2^-9   min normal 2^-6   max 448   = 0x7E, NaN 0x7F
//   f8E4M3FNUZ B=8  M=3  u=2^-10  min normal 2^-7   max 240   = 0x7F, NaN 0x80
//   f8E5M2     B=15 M=2  u=2^-16  min normal 2^-14  max 57344 = 0x7B, inf 0x7C
//   f8E5M2FNUZ B=16 M=2  u=2^-17  min normal 2^-15  max 57344 = 0x7F, NaN 0x80
// Inputs come in through function arguments so that nothing folds at compile
// time; codes are printed zero-extended to i32. printF32 uses %g.

// Sweep over all 256 codes of a format, extf to f64 (scalar path):
//  - the sum of the finite values of codes 0..127, in units of u (exact in f64):
//    subnormals sum to 1+..+(2^M-1), exponent e >= 1 to
//    sum_m (2^M + m) * 2^(e-1), i.e. 92 * 2^(e-1) for M=3, 22 * 2^(e-1) for M=2;
//  - the sum over all 256 codes (negative codes mirror positive ones): 0;
//  - the number of NaN codes;
//  - the number of codes c with truncf(extf(c)) != c, truncf from f64 in a
//    separate function (in one function, truncf(extf(x)) folds to x).
func.func @truncf_f64_f8E4M3FN_scalar(%v: f64) -> i8 {
  %t = arith.truncf %v : f64 to f8E4M3FN
  %c = arith.bitcast %t : f8E4M3FN to i8
  return %c : i8
}

func.func @sweep_f8E4M3FN(%scale: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %r:4 = scf.for %i = %c0 to %c256 step %c1
      iter_args(%pos = %z, %neg = %z, %nans = %zi, %bad = %zi) -> (f64, f64, i64, i64) {
    %code = arith.index_cast %i : index to i8
    %f = arith.bitcast %code : i8 to f8E4M3FN
    %v = arith.extf %f : f8E4M3FN to f64
    %lt = arith.cmpf olt, %v, %inf : f64
    %gt = arith.cmpf ogt, %v, %ninf : f64
    %finite = arith.andi %lt, %gt : i1
    %term = arith.select %finite, %v, %z : f64
    %isneg = arith.cmpi uge, %i, %c128 : index
    %pterm = arith.select %isneg, %z, %term : f64
    %nterm = arith.select %isneg, %term, %z : f64
    %pos2 = arith.addf %pos, %pterm : f64
    %neg2 = arith.addf %neg, %nterm : f64
    %isnan = arith.cmpf uno, %v, %v : f64
    %isnan64 = arith.extui %isnan : i1 to i64
    %nans2 = arith.addi %nans, %isnan64 : i64
    %backcode = func.call @truncf_f64_f8E4M3FN_scalar(%v) : (f64) -> i8
    %ne = arith.cmpi ne, %backcode, %code : i8
    %ne64 = arith.extui %ne : i1 to i64
    %bad2 = arith.addi %bad, %ne64 : i64
    scf.yield %pos2, %neg2, %nans2, %bad2 : f64, f64, i64, i64
  }
  %units = arith.mulf %r#0, %scale : f64
  %unitsi = arith.fptosi %units : f64 to i64
  %all = arith.addf %r#0, %r#1 : f64
  vector.print %unitsi : i64
  vector.print %all : f64
  vector.print %r#2 : i64
  vector.print %r#3 : i64
  return
}

func.func @truncf_f64_f8E4M3FNUZ_scalar(%v: f64) -> i8 {
  %t = arith.truncf %v : f64 to f8E4M3FNUZ
  %c = arith.bitcast %t : f8E4M3FNUZ to i8
  return %c : i8
}

func.func @sweep_f8E4M3FNUZ(%scale: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %r:4 = scf.for %i = %c0 to %c256 step %c1
      iter_args(%pos = %z, %neg = %z, %nans = %zi, %bad = %zi) -> (f64, f64, i64, i64) {
    %code = arith.index_cast %i : index to i8
    %f = arith.bitcast %code : i8 to f8E4M3FNUZ
    %v = arith.extf %f : f8E4M3FNUZ to f64
    %lt = arith.cmpf olt, %v, %inf : f64
    %gt = arith.cmpf ogt, %v, %ninf : f64
    %finite = arith.andi %lt, %gt : i1
    %term = arith.select %finite, %v, %z : f64
    %isneg = arith.cmpi uge, %i, %c128 : index
    %pterm = arith.select %isneg, %z, %term : f64
    %nterm = arith.select %isneg, %term, %z : f64
    %pos2 = arith.addf %pos, %pterm : f64
    %neg2 = arith.addf %neg, %nterm : f64
    %isnan = arith.cmpf uno, %v, %v : f64
    %isnan64 = arith.extui %isnan : i1 to i64
    %nans2 = arith.addi %nans, %isnan64 : i64
    %backcode = func.call @truncf_f64_f8E4M3FNUZ_scalar(%v) : (f64) -> i8
    %ne = arith.cmpi ne, %backcode, %code : i8
    %ne64 = arith.extui %ne : i1 to i64
    %bad2 = arith.addi %bad, %ne64 : i64
    scf.yield %pos2, %neg2, %nans2, %bad2 : f64, f64, i64, i64
  }
  %units = arith.mulf %r#0, %scale : f64
  %unitsi = arith.fptosi %units : f64 to i64
  %all = arith.addf %r#0, %r#1 : f64
  vector.print %unitsi : i64
  vector.print %all : f64
  vector.print %r#2 : i64
  vector.print %r#3 : i64
  return
}

func.func @truncf_f64_f8E5M2_scalar(%v: f64) -> i8 {
  %t = arith.truncf %v : f64 to f8E5M2
  %c = arith.bitcast %t : f8E5M2 to i8
  return %c : i8
}

func.func @sweep_f8E5M2(%scale: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %r:4 = scf.for %i = %c0 to %c256 step %c1
      iter_args(%pos = %z, %neg = %z, %nans = %zi, %bad = %zi) -> (f64, f64, i64, i64) {
    %code = arith.index_cast %i : index to i8
    %f = arith.bitcast %code : i8 to f8E5M2
    %v = arith.extf %f : f8E5M2 to f64
    %lt = arith.cmpf olt, %v, %inf : f64
    %gt = arith.cmpf ogt, %v, %ninf : f64
    %finite = arith.andi %lt, %gt : i1
    %term = arith.select %finite, %v, %z : f64
    %isneg = arith.cmpi uge, %i, %c128 : index
    %pterm = arith.select %isneg, %z, %term : f64
    %nterm = arith.select %isneg, %term, %z : f64
    %pos2 = arith.addf %pos, %pterm : f64
    %neg2 = arith.addf %neg, %nterm : f64
    %isnan = arith.cmpf uno, %v, %v : f64
    %isnan64 = arith.extui %isnan : i1 to i64
    %nans2 = arith.addi %nans, %isnan64 : i64
    %backcode = func.call @truncf_f64_f8E5M2_scalar(%v) : (f64) -> i8
    %ne = arith.cmpi ne, %backcode, %code : i8
    %ne64 = arith.extui %ne : i1 to i64
    %bad2 = arith.addi %bad, %ne64 : i64
    scf.yield %pos2, %neg2, %nans2, %bad2 : f64, f64, i64, i64
  }
  %units = arith.mulf %r#0, %scale : f64
  %unitsi = arith.fptosi %units : f64 to i64
  %all = arith.addf %r#0, %r#1 : f64
  vector.print %unitsi : i64
  vector.print %all : f64
  vector.print %r#2 : i64
  vector.print %r#3 : i64
  return
}

func.func @truncf_f64_f8E5M2FNUZ_scalar(%v: f64) -> i8 {
  %t = arith.truncf %v : f64 to f8E5M2FNUZ
  %c = arith.bitcast %t : f8E5M2FNUZ to i8
  return %c : i8
}

func.func @sweep_f8E5M2FNUZ(%scale: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %r:4 = scf.for %i = %c0 to %c256 step %c1
      iter_args(%pos = %z, %neg = %z, %nans = %zi, %bad = %zi) -> (f64, f64, i64, i64) {
    %code = arith.index_cast %i : index to i8
    %f = arith.bitcast %code : i8 to f8E5M2FNUZ
    %v = arith.extf %f : f8E5M2FNUZ to f64
    %lt = arith.cmpf olt, %v, %inf : f64
    %gt = arith.cmpf ogt, %v, %ninf : f64
    %finite = arith.andi %lt, %gt : i1
    %term = arith.select %finite, %v, %z : f64
    %isneg = arith.cmpi uge, %i, %c128 : index
    %pterm = arith.select %isneg, %z, %term : f64
    %nterm = arith.select %isneg, %term, %z : f64
    %pos2 = arith.addf %pos, %pterm : f64
    %neg2 = arith.addf %neg, %nterm : f64
    %isnan = arith.cmpf uno, %v, %v : f64
    %isnan64 = arith.extui %isnan : i1 to i64
    %nans2 = arith.addi %nans, %isnan64 : i64
    %backcode = func.call @truncf_f64_f8E5M2FNUZ_scalar(%v) : (f64) -> i8
    %ne = arith.cmpi ne, %backcode, %code : i8
    %ne64 = arith.extui %ne : i1 to i64
    %bad2 = arith.addi %bad, %ne64 : i64
    scf.yield %pos2, %neg2, %nans2, %bad2 : f64, f64, i64, i64
  }
  %units = arith.mulf %r#0, %scale : f64
  %unitsi = arith.fptosi %units : f64 to i64
  %all = arith.addf %r#0, %r#1 : f64
  vector.print %unitsi : i64
  vector.print %all : f64
  vector.print %r#2 : i64
  vector.print %r#3 : i64
  return
}

// Vector paths: selected codes decoded to f32, selected f32 values encoded.
func.func @extf_f8E4M3FN(%c: vector<11xi8>) {
  %f = arith.bitcast %c : vector<11xi8> to vector<11xf8E4M3FN>
  %v = arith.extf %f : vector<11xf8E4M3FN> to vector<11xf32>
  vector.print %v : vector<11xf32>
  return
}
func.func @truncf_f8E4M3FN(%x: vector<18xf32>) {
  %t = arith.truncf %x : vector<18xf32> to vector<18xf8E4M3FN>
  %b = arith.bitcast %t : vector<18xf8E4M3FN> to vector<18xi8>
  %c = arith.extui %b : vector<18xi8> to vector<18xi32>
  vector.print %c : vector<18xi32>
  return
}
func.func @extf_f8E4M3FNUZ(%c: vector<7xi8>) {
  %f = arith.bitcast %c : vector<7xi8> to vector<7xf8E4M3FNUZ>
  %v = arith.extf %f : vector<7xf8E4M3FNUZ> to vector<7xf32>
  vector.print %v : vector<7xf32>
  return
}
func.func @truncf_f8E4M3FNUZ(%x: vector<17xf32>) {
  %t = arith.truncf %x : vector<17xf32> to vector<17xf8E4M3FNUZ>
  %b = arith.bitcast %t : vector<17xf8E4M3FNUZ> to vector<17xi8>
  %c = arith.extui %b : vector<17xi8> to vector<17xi32>
  vector.print %c : vector<17xi32>
  return
}
func.func @extf_f8E5M2(%c: vector<9xi8>) {
  %f = arith.bitcast %c : vector<9xi8> to vector<9xf8E5M2>
  %v = arith.extf %f : vector<9xf8E5M2> to vector<9xf32>
  vector.print %v : vector<9xf32>
  return
}
func.func @truncf_f8E5M2(%x: vector<17xf32>) {
  %t = arith.truncf %x : vector<17xf32> to vector<17xf8E5M2>
  %b = arith.bitcast %t : vector<17xf8E5M2> to vector<17xi8>
  %c = arith.extui %b : vector<17xi8> to vector<17xi32>
  vector.print %c : vector<17xi32>
  return
}
func.func @extf_f8E5M2FNUZ(%c: vector<7xi8>) {
  %f = arith.bitcast %c : vector<7xi8> to vector<7xf8E5M2FNUZ>
  %v = arith.extf %f : vector<7xf8E5M2FNUZ> to vector<7xf32>
  vector.print %v : vector<7xf32>
  return
}
func.func @truncf_f8E5M2FNUZ(%x: vector<15xf32>) {
  %t = arith.truncf %x : vector<15xf32> to vector<15xf8E5M2FNUZ>
  %b = arith.bitcast %t : vector<15xf8E5M2FNUZ> to vector<15xi8>
  %c = arith.extui %b : vector<15xi8> to vector<15xi32>
  vector.print %c : vector<15xi32>
  return
}

// Other wide types: f16 / bf16 results printed as bits, f64 sources.
func.func @extf_f8E5M2FNUZ_to_f16_bits(%c: vector<4xi8>) {
  %f = arith.bitcast %c : vector<4xi8> to vector<4xf8E5M2FNUZ>
  %v = arith.extf %f : vector<4xf8E5M2FNUZ> to vector<4xf16>
  %b = arith.bitcast %v : vector<4xf16> to vector<4xi16>
  %w = arith.extui %b : vector<4xi16> to vector<4xi32>
  vector.print %w : vector<4xi32>
  return
}
func.func @extf_f8E4M3FN_to_bf16_bits(%c: vector<2xi8>) {
  %f = arith.bitcast %c : vector<2xi8> to vector<2xf8E4M3FN>
  %v = arith.extf %f : vector<2xf8E4M3FN> to vector<2xbf16>
  %b = arith.bitcast %v : vector<2xbf16> to vector<2xi16>
  %w = arith.extui %b : vector<2xi16> to vector<2xi32>
  vector.print %w : vector<2xi32>
  return
}
func.func @truncf_f64_to_f8E4M3FN(%x: vector<3xf64>) {
  %t = arith.truncf %x : vector<3xf64> to vector<3xf8E4M3FN>
  %b = arith.bitcast %t : vector<3xf8E4M3FN> to vector<3xi8>
  %c = arith.extui %b : vector<3xi8> to vector<3xi32>
  vector.print %c : vector<3xi32>
  return
}
func.func @truncf_f16_to_f8E5M2FNUZ(%x: vector<4xi16>) {
  %h = arith.bitcast %x : vector<4xi16> to vector<4xf16>
  %t = arith.truncf %h : vector<4xf16> to vector<4xf8E5M2FNUZ>
  %b = arith.bitcast %t : vector<4xf8E5M2FNUZ> to vector<4xi8>
  %c = arith.extui %b : vector<4xi8> to vector<4xi32>
  vector.print %c : vector<4xi32>
  return
}
func.func @truncf_f16_to_f8E5M2(%x: vector<2xi16>) {
  %h = arith.bitcast %x : vector<2xi16> to vector<2xf16>
  %t = arith.truncf %h : vector<2xf16> to vector<2xf8E5M2>
  %b = arith.bitcast %t : vector<2xf8E5M2> to vector<2xi8>
  %c = arith.extui %b : vector<2xi8> to vector<2xi32>
  vector.print %c : vector<2xi32>
  return
}
func.func @truncf_bf16_to_f8E4M3FN(%x: vector<4xi16>) {
  %h = arith.bitcast %x : vector<4xi16> to vector<4xbf16>
  %t = arith.truncf %h : vector<4xbf16> to vector<4xf8E4M3FN>
  %b = arith.bitcast %t : vector<4xf8E4M3FN> to vector<4xi8>
  %c = arith.extui %b : vector<4xi8> to vector<4xi32>
  vector.print %c : vector<4xi32>
  return
}

// fp8 values moved around untouched (they lower as i8): memref and vector
// loads/stores, a shuffle, a broadcast, a select, shape_cast and transpose.
func.func @moves_f8E4M3FN(%codes: vector<8xi8>, %mask: vector<8xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %m = memref.alloca() : memref<2x8xf8E4M3FN>
  %f = arith.bitcast %codes : vector<8xi8> to vector<8xf8E4M3FN>
  vector.store %f, %m[%c0, %c0] : memref<2x8xf8E4M3FN>, vector<8xf8E4M3FN>
  vector.transfer_write %f, %m[%c1, %c0] : vector<8xf8E4M3FN>, memref<2x8xf8E4M3FN>
  %a = vector.load %m[%c1, %c0] : memref<2x8xf8E4M3FN>, vector<8xf8E4M3FN>
  %r = vector.shuffle %a, %a [7, 6, 5, 4, 3, 2, 1, 0] : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>
  %e = memref.load %m[%c0, %c5] : memref<2x8xf8E4M3FN>
  %b = vector.broadcast %e : f8E4M3FN to vector<8xf8E4M3FN>
  %sel = arith.select %mask, %r, %b : vector<8xi1>, vector<8xf8E4M3FN>
  %sc = vector.shape_cast %sel : vector<8xf8E4M3FN> to vector<2x4xf8E4M3FN>
  %tr = vector.transpose %sc, [1, 0] : vector<2x4xf8E4M3FN> to vector<4x2xf8E4M3FN>
  %flat = vector.shape_cast %tr : vector<4x2xf8E4M3FN> to vector<8xf8E4M3FN>
  %v = arith.extf %flat : vector<8xf8E4M3FN> to vector<8xf32>
  vector.print %v : vector<8xf32>
  return
}

func.func @main() {
  // Codes 0..127 sum (in units of u):
  //   E4M3FN:   28 + 92 * (2^14 - 1) + (8+...+14) * 2^14 = 28 + 1507236 + 1261568
  //             (e = 15 holds m = 0..6 only; 0x7F is NaN)
  //   E4M3FNUZ: 28 + 92 * (2^15 - 1)                      (e = 1..15)
  //   E5M2:     6 + 22 * (2^30 - 1)                       (e = 1..30; 31 is inf/NaN)
  //   E5M2FNUZ: 6 + 22 * (2^31 - 1)                       (e = 1..31)
  // NaN codes: 0x7F/0xFF; 0x80; 0x7D-0x7F/0xFD-0xFF; 0x80. truncf(extf(c)) != c
  // only for the f8E5M2 NaNs that are not the canonical 0x7E / 0xFE.
  // CHECK:      2768832
  // CHECK-NEXT: 0
  // CHECK-NEXT: 2
  // CHECK-NEXT: 0
  %s0 = arith.constant 512.0 : f64
  call @sweep_f8E4M3FN(%s0) : (f64) -> ()
  // CHECK-NEXT: 3014592
  // CHECK-NEXT: 0
  // CHECK-NEXT: 1
  // CHECK-NEXT: 0
  %s1 = arith.constant 1024.0 : f64
  call @sweep_f8E4M3FNUZ(%s1) : (f64) -> ()
  // CHECK-NEXT: 23622320112
  // CHECK-NEXT: 0
  // CHECK-NEXT: 6
  // CHECK-NEXT: 4
  %s2 = arith.constant 65536.0 : f64
  call @sweep_f8E5M2(%s2) : (f64) -> ()
  // CHECK-NEXT: 47244640240
  // CHECK-NEXT: 0
  // CHECK-NEXT: 1
  // CHECK-NEXT: 0
  %s3 = arith.constant 131072.0 : f64
  call @sweep_f8E5M2FNUZ(%s3) : (f64) -> ()

  // f8E4M3FN codes 0x00 0x01 0x07 0x08 0x38 0x3C 0x7E 0x7F 0x80 0xFE 0xFF:
  // 0, u, 7u, 2^-6, 1, 1.5, 448, NaN, -0, -448, -NaN.
  // CHECK-NEXT: ( 0, 0.00195312, 0.0136719, 0.015625, 1, 1.5, 448, nan, -0, -448, -nan )
  %e0 = arith.constant dense<[0, 1, 7, 8, 56, 60, 126, 127, -128, -2, -1]> : vector<11xi8>
  call @extf_f8E4M3FN(%e0) : (vector<11xi8>) -> ()
  // 448 -> 0x7E; 464 is the tie between 448 (m=6, even) and 480 (not a
  // value): 448; 465, 1e9, inf saturate to 0x7E and -0x7E (0xFE = 254); NaN
  // keeps its sign (0x7F, 0xFF); u -> 1; u/2 ties to 0; 0.75u -> 1; 1.5u ties
  // to 2; 2^-6 -> 0x08; 1.0625 ties between 1 (0x38) and 1.125: 0x38 = 56;
  // 1.1875 ties between 1.125 (m=1) and 1.25 (m=2): 0x3A = 58; -0 -> 0x80;
  // 7.5u ties between 7u (odd) and 8u = 2^-6 (0x08): 8.
  // CHECK-NEXT: ( 126, 126, 126, 126, 254, 126, 254, 127, 255, 1, 0, 1, 2, 8, 56, 58, 128, 8 )
  %t0 = arith.constant dense<[448.0, 464.0, 465.0, 1.0e9, -1.0e9, 0x7F800000, 0xFF800000,
      0x7FC00000, 0xFFC00000, 0.001953125, 0.0009765625, 0.00146484375,
      0.0029296875, 0.015625, 1.0625, 1.1875, -0.0, 0.0146484375]> : vector<18xf32>
  call @truncf_f8E4M3FN(%t0) : (vector<18xf32>) -> ()

  // f8E4M3FNUZ codes 0x01 0x08 0x40 0x7F 0x80 0xFF 0x00: u = 2^-10, 2^-7, 1,
  // 240, NaN (unsigned), -240, 0.
  // CHECK-NEXT: ( 0.000976562, 0.0078125, 1, 240, nan, -240, 0 )
  %e1 = arith.constant dense<[1, 8, 64, 127, -128, -1, 0]> : vector<7xi8>
  call @extf_f8E4M3FNUZ(%e1) : (vector<7xi8>) -> ()
  // 240 -> 0x7F; 248 ties between 240 (m=7, odd) and 256 (not a value):
  // rounds up, overflows, saturates to 0x7F; 247 -> 240; +-inf -> 0x7F / 0xFF;
  // both NaNs -> 0x80; -0 and -0.0001 (below u/2) -> 0x00 (no -0); u -> 1;
  // u/2 ties to 0; 1.5u ties to 2; 2^-7 -> 0x08; 1.0 -> 8 << 3 = 64; 1.0625
  // ties to 1.0: 64; -1.1875 ties to -1.25: 0x80 | 66 = 194; -240 -> 0xFF.
  // CHECK-NEXT: ( 127, 127, 127, 127, 255, 128, 128, 0, 0, 1, 0, 2, 8, 64, 64, 194, 255 )
  %t1 = arith.constant dense<[240.0, 248.0, 247.0, 0x7F800000, 0xFF800000, 0x7FC00000,
      0xFFC00000, -0.0, -0.0001, 0.0009765625, 0.00048828125, 0.00146484375,
      0.0078125, 1.0, 1.0625, -1.1875, -240.0]> : vector<17xf32>
  call @truncf_f8E4M3FNUZ(%t1) : (vector<17xf32>) -> ()

  // f8E5M2 codes 0x01 0x04 0x3C 0x7B 0x7C 0x7D 0xFC 0xFE 0x80: u = 2^-16,
  // 2^-14, 1, 57344, inf, NaN, -inf, -NaN, -0.
  // CHECK-NEXT: ( 1.52588e-05, 6.10352e-05, 1, 57344, inf, nan, -inf, -nan, -0 )
  %e2 = arith.constant dense<[1, 4, 60, 123, 124, 125, -4, -2, -128]> : vector<9xi8>
  call @extf_f8E5M2(%e2) : (vector<9xi8>) -> ()
  // 57344 -> 0x7B; 61440 ties between 57344 (m=3, odd) and 65536: overflows,
  // saturates to 0x7B; 61439 -> 0x7B; 1e9 -> 0x7B; inf stays inf (0x7C,
  // 0xFC); NaN -> 0x7E / 0xFE; -0 -> 0x80; u -> 1; u/2 ties to 0; 1.5u ties
  // to 2; 2^-14 -> 0x04; 1.0 -> 15 << 2 = 60; 1.125 ties to 1.0: 60; 1.375
  // ties between 1.25 (m=1) and 1.5 (m=2): 62; 3.5u ties between 3u (odd) and
  // 4u = 2^-14: 4.
  // CHECK-NEXT: ( 123, 123, 123, 123, 124, 252, 126, 254, 128, 1, 0, 2, 4, 60, 60, 62, 4 )
  %t2 = arith.constant dense<[57344.0, 61440.0, 61439.0, 1.0e9, 0x7F800000, 0xFF800000,
      0x7FC00000, 0xFFC00000, -0.0, 1.52587890625e-05, 7.62939453125e-06,
      2.288818359375e-05, 6.103515625e-05, 1.0, 1.125, 1.375,
      5.340576171875e-05]> : vector<17xf32>
  call @truncf_f8E5M2(%t2) : (vector<17xf32>) -> ()

  // f8E5M2FNUZ codes 0x01 0x04 0x40 0x7F 0x80 0xFF 0x00: u = 2^-17, 2^-15, 1,
  // 57344, NaN, -57344, 0.
  // CHECK-NEXT: ( 7.62939e-06, 3.05176e-05, 1, 57344, nan, -57344, 0 )
  %e3 = arith.constant dense<[1, 4, 64, 127, -128, -1, 0]> : vector<7xi8>
  call @extf_f8E5M2FNUZ(%e3) : (vector<7xi8>) -> ()
  // 57344 -> 0x7F; 61440 overflows -> 0x7F; +-inf -> 0x7F / 0xFF; NaN -> 0x80;
  // -0 -> 0; u -> 1; u/2 and -u/2 tie to +0; 1.5u -> 2; 2^-15 -> 4; 1.0 ->
  // 16 << 2 = 64; 1.375 -> 1.5: 66; -1.0 -> 0x80 | 64 = 192.
  // CHECK-NEXT: ( 127, 127, 127, 255, 128, 128, 0, 1, 0, 0, 2, 4, 64, 66, 192 )
  %t3 = arith.constant dense<[57344.0, 61440.0, 0x7F800000, 0xFF800000, 0x7FC00000,
      0xFFC00000, -0.0, 7.62939453125e-06, 3.814697265625e-06,
      -3.814697265625e-06, 1.1444091796875e-05, 3.0517578125e-05, 1.0, 1.375,
      -1.0]> : vector<15xf32>
  call @truncf_f8E5M2FNUZ(%t3) : (vector<15xf32>) -> ()

  // f8E5M2FNUZ -> f16 bits: 2^-17 is the f16 subnormal 2^-17 / 2^-24 = 128;
  // 2^-15 (f8's smallest normal) is the f16 subnormal 512; 1.25 * 2^-15 is
  // 640; 57344 = 1.75 * 2^15 is 0 11110 1100000000 = 0x7B00 = 31488.
  // CHECK-NEXT: ( 128, 512, 640, 31488 )
  %h0 = arith.constant dense<[1, 4, 5, 127]> : vector<4xi8>
  call @extf_f8E5M2FNUZ_to_f16_bits(%h0) : (vector<4xi8>) -> ()
  // f8E4M3FN -> bf16 bits: 448 = 1.75 * 2^8 is 0 10000111 1100000 = 0x43E0 =
  // 17376; 2^-9 is 0 01110110 0000000 = 0x3B00 = 15104.
  // CHECK-NEXT: ( 17376, 15104 )
  %h1 = arith.constant dense<[126, 1]> : vector<2xi8>
  call @extf_f8E4M3FN_to_bf16_bits(%h1) : (vector<2xi8>) -> ()
  // f64 -> f8E4M3FN rounds once: 1.0625 + 2^-40 is above the tie, so 1.125
  // (0x39 = 57), where a rounding through f32 would make it the tie (56);
  // 2^-1074 -> 0; 1e300 saturates to 0x7E.
  // CHECK-NEXT: ( 57, 0, 126 )
  %d0 = arith.constant dense<[1.0625000000009095, 4.9406564584124654e-324, 1.0e300]> : vector<3xf64>
  call @truncf_f64_to_f8E4M3FN(%d0) : (vector<3xf64>) -> ()
  // f16 -> f8E5M2FNUZ: 0x0001 = 2^-24 -> 0; 0x0100 = 2^-16 = 2u -> 2;
  // 0x0200 = 2^-15 -> 4; 0x0180 = 1.5 * 2^-16 = 3u -> 3.
  // CHECK-NEXT: ( 0, 2, 4, 3 )
  %f0 = arith.constant dense<[1, 256, 512, 384]> : vector<4xi16>
  call @truncf_f16_to_f8E5M2FNUZ(%f0) : (vector<4xi16>) -> ()
  // f16 -> f8E5M2: 65504 (0x7BFF) is past the 61440 tie: saturates to 0x7B;
  // f16 inf (0x7C00) stays inf 0x7C.
  // CHECK-NEXT: ( 123, 124 )
  %f1 = arith.constant dense<[31743, 31744]> : vector<2xi16>
  call @truncf_f16_to_f8E5M2(%f1) : (vector<2xi16>) -> ()
  // bf16 -> f8E4M3FN: 0x3F88 = 1.0625 ties to 56; 0x3F98 = 1.1875 ties to
  // 58; 0x43E8 = 464 ties to 448 (126); 0x7FC0 NaN -> 127.
  // CHECK-NEXT: ( 56, 58, 126, 127 )
  %f2 = arith.constant dense<[16264, 16280, 17384, 32704]> : vector<4xi16>
  call @truncf_bf16_to_f8E4M3FN(%f2) : (vector<4xi16>) -> ()

  // Codes 0x38 0x40 0x44 0x48 0xB8 0x7E 0x01 0x80 = 1, 2, 3, 4, -1, 448, 2^-9,
  // -0; reversed: -0, 2^-9, 448, -1, 4, 3, 2, 1; element 5 (448) broadcast
  // where the mask is 0: -0, 448, 448, 448, 4, 448, 2, 448; as 2x4,
  // transposed and flattened: x0 x4 x1 x5 x2 x6 x3 x7.
  // CHECK-NEXT: ( -0, 4, 448, 448, 448, 2, 448, 448 )
  %mv = arith.constant dense<[56, 64, 68, 72, -72, 126, 1, -128]> : vector<8xi8>
  %mk = arith.constant dense<[true, false, true, false, true, false, true, false]> : vector<8xi1>
  call @moves_f8E4M3FN(%mv, %mk) : (vector<8xi8>, vector<8xi1>) -> ()
  return
}
