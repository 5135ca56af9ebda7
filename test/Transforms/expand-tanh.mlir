// RUN: fmha-opt %s --fmha-expand-tanh | FileCheck %s

// fmha-expand-tanh: tanh(x) = 1 - 2 / (1 + e), e = exp2(2 log2(e) x), on
// vectors and scalars of f32; nothing of math.tanh is left.
// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[X:.*]]: vector<4x8xf32>)
// CHECK-NOT: math.tanh
// CHECK: %[[K:.*]] = arith.constant dense<2.88539{{[0-9]*}}e+00> : vector<4x8xf32>
// CHECK: %[[ARG:.*]] = arith.mulf %[[X]], %[[K]]
// CHECK: %[[E:.*]] = math.exp2 %[[ARG]]
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<4x8xf32>
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<4x8xf32>
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE]], %[[E]]
// CHECK: %[[Q:.*]] = arith.divf %[[TWO]], %[[DEN]] fastmath<arcp,afn>
// CHECK: %[[ONE2:.*]] = arith.constant dense<1.000000e+00> : vector<4x8xf32>
// CHECK: %[[R:.*]] = arith.subf %[[ONE2]], %[[Q]]
// CHECK: return %[[R]]
func.func @tile(%x: vector<4x8xf32>) -> vector<4x8xf32> {
  %t = math.tanh %x : vector<4x8xf32>
  return %t : vector<4x8xf32>
}

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: math.tanh
// CHECK: math.exp2 %{{.*}} : f32
func.func @scalar(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

// Only f32 is expanded: an f16 tanh is left for the target to refuse.
// CHECK-LABEL: func.func @negative_f16
// CHECK: math.tanh %{{.*}} : vector<8xf16>
// CHECK-NOT: math.exp2
func.func @negative_f16(%x: vector<8xf16>) -> vector<8xf16> {
  %t = math.tanh %x : vector<8xf16>
  return %t : vector<8xf16>
}
