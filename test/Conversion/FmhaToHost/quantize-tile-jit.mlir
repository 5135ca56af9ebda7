// REQUIRES: mlir-runner
// RUN: fmha-opt %s --convert-fmha-to-host --lower-vector-multi-reduction \
// RUN:   --fmha-expand-fp8-arith --arith-expand --convert-vector-to-scf \
// RUN:   --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-ub-to-llvm --convert-cf-to-llvm \
// RUN:   --convert-func-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

// fmha.quantize_tile's host lowering run on the CPU. Expected values from
// the op's definition, worked by hand: the tile's amax is 3, so
// e4m3fn (M = 448): inv = 448 / 3 = 149.33; 0.5 * inv = 74.67 lies between
// the e4m3 values 72 and 80 (step 8 in [64, 128)): 72; 1 * inv = 149.33
// between 144 and 160 (step 16): 144; -3 * inv = -448 (the largest);
// descale = 3 / 448 = 0.0066964.
// e4m3fnuz (M = 240): inv = 80; 0.5 -> 40, 1 -> 80, -3 -> -240 (all exact);
// descale = 3 / 240 = 0.0125.
// The zero rows (a load_rows past num_rows) change nothing; an all-zero tile
// gives zeros and the descale 2^-100 / 448 = 7.8886e-31 / 448 = 1.7609e-33.

func.func @main() {
  %t = arith.constant dense<[[0.5, -3.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]> : vector<2x4xbf16>
  %q, %d = fmha.quantize_tile %t : vector<2x4xbf16> -> vector<2x4xf8E4M3FN>
  %f = arith.extf %q : vector<2x4xf8E4M3FN> to vector<2x4xf32>
  vector.print %f : vector<2x4xf32>
  vector.print %d : f32
  // CHECK: ( ( 72, -448, 144, 0 ), ( 0, 0, 0, 0 ) )
  // CHECK-NEXT: 0.00669643

  %t16 = arith.constant dense<[[0.5, -3.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]> : vector<2x4xf16>
  %qn, %dn = fmha.quantize_tile %t16 : vector<2x4xf16> -> vector<2x4xf8E4M3FNUZ>
  %fn = arith.extf %qn : vector<2x4xf8E4M3FNUZ> to vector<2x4xf32>
  vector.print %fn : vector<2x4xf32>
  vector.print %dn : f32
  // CHECK-NEXT: ( ( 40, -240, 80, 0 ), ( 0, 0, 0, 0 ) )
  // CHECK-NEXT: 0.0125

  %z = arith.constant dense<0.0> : vector<2x4xbf16>
  %qz, %dz = fmha.quantize_tile %z : vector<2x4xbf16> -> vector<2x4xf8E4M3FN>
  %fz = arith.extf %qz : vector<2x4xf8E4M3FN> to vector<2x4xf32>
  vector.print %fz : vector<2x4xf32>
  vector.print %dz : f32
  // CHECK-NEXT: ( ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ) )
  // CHECK-NEXT: 1.7608{{[0-9]*}}e-33
  return
}
