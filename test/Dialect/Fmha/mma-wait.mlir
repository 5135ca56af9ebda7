// fmha.mma_wait (written by fmha-overlap-score-mma): a round trip, then
// every verifier rule, one case each.
// RUN: fmha-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @started_then_waited
// CHECK: %[[S:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} {transpose_rhs}
// CHECK-NEXT: %[[W:.*]] = fmha.mma_wait %[[S]] : vector<64x128xf32>
// CHECK-NEXT: return %[[W]]
func.func @started_then_waited(%q: vector<64x128xf8E4M3FN>, %k: vector<128x128xf8E4M3FN>,
    %z: vector<64x128xf32>) -> vector<64x128xf32> {
  %s = fmha.tile_mma %q, %k, %z {transpose_rhs}
      : vector<64x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<64x128xf32>
  %w = fmha.mma_wait %s : vector<64x128xf32>
  return %w : vector<64x128xf32>
}

// -----

func.func @not_a_product(%z: vector<64x128xf32>) -> vector<64x128xf32> {
  // expected-error @+1 {{waits for the result of an fmha.tile_mma}}
  %w = fmha.mma_wait %z : vector<64x128xf32>
  return %w : vector<64x128xf32>
}

// -----

// The product is also read directly: it would be read before it finished.
func.func @read_unwaited(%q: vector<64x128xf8E4M3FN>, %k: vector<128x128xf8E4M3FN>,
    %z: vector<64x128xf32>) -> vector<64x128xf32> {
  %s = fmha.tile_mma %q, %k, %z {transpose_rhs}
      : vector<64x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<64x128xf32>
  // expected-error @+1 {{waits for an fmha.tile_mma whose users are not all fmha.mma_wait}}
  %w = fmha.mma_wait %s : vector<64x128xf32>
  %x = arith.addf %w, %s : vector<64x128xf32>
  return %x : vector<64x128xf32>
}
