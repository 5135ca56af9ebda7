// REQUIRES: mlir-runner
// RUN: fmha-opt %s --fmha-expand-tanh --convert-scf-to-cf --convert-math-to-llvm \
// RUN:   --convert-vector-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

// fmha-expand-tanh run on the CPU against tanh computed in f64 from its
// definition, (exp(2x) - 1) / (exp(2x) + 1) (1 - 2 / (exp(2x) + 1), which
// does not overflow to inf / inf), for x = k / 256, k = -8192..8192 (|x| <= 32):
// the largest absolute error in units of 2^-24 (the pass states about 2 ulp
// of 1, i.e. 2^-23 = 2 units; allowed here: 8), and the special values.

func.func @tanh32(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

func.func @sweep() -> f64 {
  %lo = arith.constant -8192 : index
  %hi = arith.constant 8193 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %step = arith.constant 0.00390625 : f64
  %ulp = arith.constant 16777216.0 : f64
  %worst = scf.for %k = %lo to %hi step %c1 iter_args(%w = %z) -> f64 {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %x = arith.mulf %kf, %step : f64
    %x32 = arith.truncf %x : f64 to f32
    %t32 = func.call @tanh32(%x32) : (f32) -> f32
    %t = arith.extf %t32 : f32 to f64
    %e = math.exp %x : f64
    %e2 = arith.mulf %e, %e : f64
    %den = arith.addf %e2, %one : f64
    %q = arith.divf %two, %den : f64
    %ref = arith.subf %one, %q : f64
    %d = arith.subf %t, %ref : f64
    %ad = math.absf %d : f64
    %u = arith.mulf %ad, %ulp : f64
    %m = arith.maximumf %w, %u : f64
    scf.yield %m : f64
  }
  return %worst : f64
}

func.func @main() {
  %w = func.call @sweep() : () -> f64
  %bound = arith.constant 8.0 : f64
  %ok = arith.cmpf ole, %w, %bound : f64
  %oki = arith.extui %ok : i1 to i32
  // CHECK: error within 8 units: 1
  vector.print str "error within 8 units: "
  vector.print %oki : i32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %big = arith.constant 40.0 : f32
  %nbig = arith.constant -40.0 : f32
  %zero = arith.constant 0.0 : f32
  // CHECK-NEXT: 1
  // CHECK-NEXT: -1
  // CHECK-NEXT: 1
  // CHECK-NEXT: -1
  // CHECK-NEXT: nan
  // CHECK-NEXT: 0
  %a = func.call @tanh32(%inf) : (f32) -> f32
  vector.print %a : f32
  %b = func.call @tanh32(%ninf) : (f32) -> f32
  vector.print %b : f32
  %c = func.call @tanh32(%big) : (f32) -> f32
  vector.print %c : f32
  %d = func.call @tanh32(%nbig) : (f32) -> f32
  vector.print %d : f32
  %e = func.call @tanh32(%nan) : (f32) -> f32
  vector.print %e : f32
  %f = func.call @tanh32(%zero) : (f32) -> f32
  vector.print %f : f32
  return
}
