// fmha.quantize_tile: round trip and every verifier rule.
// RUN: fmha-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @round_trip
// CHECK: %{{.*}}, %{{.*}} = fmha.quantize_tile %{{.*}} : vector<64x128xbf16> -> vector<64x128xf8E4M3FN>
func.func @round_trip(%q: vector<64x128xbf16>) -> (vector<64x128xf8E4M3FN>, f32) {
  %q8, %ds = fmha.quantize_tile %q : vector<64x128xbf16> -> vector<64x128xf8E4M3FN>
  return %q8, %ds : vector<64x128xf8E4M3FN>, f32
}

// -----

func.func @f32_input(%q: vector<64x128xf32>) {
  // expected-error @+1 {{quantizes a bf16 or f16 tile, got 'vector<64x128xf32>'}}
  %q8, %ds = fmha.quantize_tile %q : vector<64x128xf32> -> vector<64x128xf8E4M3FN>
  return
}

// -----

func.func @to_bf16(%q: vector<64x128xf16>) {
  // expected-error @+1 {{result must be an fp8 tile, got 'vector<64x128xbf16>'}}
  %q8, %ds = fmha.quantize_tile %q : vector<64x128xf16> -> vector<64x128xbf16>
  return
}

// -----

func.func @shape(%q: vector<64x128xbf16>) {
  // expected-error @+1 {{result 'vector<64x64xf8E4M3FN>' must have the shape of 'vector<64x128xbf16>'}}
  %q8, %ds = fmha.quantize_tile %q : vector<64x128xbf16> -> vector<64x64xf8E4M3FN>
  return
}
