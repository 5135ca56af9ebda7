// RUN: fmha-opt %s --split-input-file --fmha-expand-fp8-arith | FileCheck %s
// RUN: fmha-opt %s --split-input-file --fmha-expand-fp8-arith=saturate-inf=true | FileCheck %s --check-prefix=SAT

// The constants below follow from the formats: e.g. for f32 -> f8E4M3FN the
// exponent moves by 127 - 7 = 120 (120 << 23 = 1006632960), 23 - 3 = 20
// mantissa bits are dropped (rounding bias 2^19 - 1 = 524287), f8E4M3FN's
// smallest normal is f32 exponent 121 (121 << 23 = 1015021568), the largest
// finite code is 0x7E = 126 and the NaN magnitude is 0x7F = 127.

// CHECK-LABEL: func.func @truncf_f32_to_f8E4M3FN_scalar(
// CHECK-SAME:      %[[X:.*]]: f32) -> f8E4M3FN
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 127 : i32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 126 : i32
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 1006632960 : i32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 524287 : i32
// CHECK-DAG:     %[[DROP:.*]] = arith.constant 20 : i32
// CHECK-DAG:     %[[MINNORM:.*]] = arith.constant 1015021568 : i32
// CHECK-DAG:     %[[INF:.*]] = arith.constant 2139095040 : i32
// CHECK:         %[[B:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         %[[ABS:.*]] = arith.andi %[[B]], %{{.*}} : i32
// CHECK:         %[[ISNAN:.*]] = arith.cmpi ugt, %[[ABS]], %[[INF]] : i32
// CHECK:         %[[ISINF:.*]] = arith.cmpi eq, %[[ABS]], %[[INF]] : i32
// CHECK:         %[[REB:.*]] = arith.subi %[[ABS]], %[[REBIAS]] : i32
// CHECK:         arith.addi %[[REB]], %[[HALF]] : i32
// CHECK:         %[[NORMAL:.*]] = arith.shrui %{{.*}}, %[[DROP]] : i32
// CHECK:         %[[INSUB:.*]] = arith.cmpi ult, %[[ABS]], %[[MINNORM]] : i32
// CHECK:         %[[MAG:.*]] = arith.select %[[INSUB]], %{{.*}}, %[[NORMAL]] : i32
// CHECK:         %[[CLAMPED:.*]] = arith.minui %[[MAG]], %[[MAX]] : i32
// CHECK:         %[[M1:.*]] = arith.select %[[ISINF]], %[[MAX]], %[[CLAMPED]] : i32
// CHECK:         %[[M2:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[M1]] : i32
// CHECK:         %[[M8:.*]] = arith.trunci %[[M2]] : i32 to i8
// CHECK:         %[[CODE:.*]] = arith.ori %[[M8]], %{{.*}} : i8
// CHECK:         %[[R:.*]] = arith.bitcast %[[CODE]] : i8 to f8E4M3FN
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[R]] : f8E4M3FN
func.func @truncf_f32_to_f8E4M3FN_scalar(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// f16 -> f8E4M3FNUZ on a vector, in i16: exponent moves by 15 - 8 = 7
// (7 << 10 = 7168), 7 bits dropped (bias 63), smallest normal at f16 exponent
// 8 (8 << 10 = 8192). Largest finite 0x7F; NaN is 0x80 (-128 as i8); a zero
// magnitude drops the sign (no negative zero).

// CHECK-LABEL: func.func @truncf_f16_to_f8E4M3FNUZ_vector(
// CHECK-SAME:      %[[X:.*]]: vector<4xf16>) -> vector<4xf8E4M3FNUZ>
// CHECK-DAG:     %[[NAN8:.*]] = arith.constant dense<-128> : vector<4xi8>
// CHECK-DAG:     %[[ZERO8:.*]] = arith.constant dense<0> : vector<4xi8>
// CHECK-DAG:     %[[MAX:.*]] = arith.constant dense<127> : vector<4xi16>
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant dense<7168> : vector<4xi16>
// CHECK-DAG:     %[[HALF:.*]] = arith.constant dense<63> : vector<4xi16>
// CHECK-DAG:     %[[MINNORM:.*]] = arith.constant dense<8192> : vector<4xi16>
// CHECK:         %[[B:.*]] = arith.bitcast %[[X]] : vector<4xf16> to vector<4xi16>
// CHECK:         arith.subi %{{.*}}, %[[REBIAS]] : vector<4xi16>
// CHECK:         arith.cmpi ult, %{{.*}}, %[[MINNORM]] : vector<4xi16>
// CHECK:         arith.minui %{{.*}}, %[[MAX]] : vector<4xi16>
// CHECK:         %[[MAG:.*]] = arith.trunci %{{.*}} : vector<4xi16> to vector<4xi8>
// CHECK:         %[[ISZERO:.*]] = arith.cmpi eq, %[[MAG]], %[[ZERO8]] : vector<4xi8>
// CHECK:         %[[SIGN:.*]] = arith.select %[[ISZERO]], %[[ZERO8]], %{{.*}} : vector<4xi1>, vector<4xi8>
// CHECK:         %[[SIGNED:.*]] = arith.ori %[[MAG]], %[[SIGN]] : vector<4xi8>
// CHECK:         %[[CODE:.*]] = arith.select %{{.*}}, %[[NAN8]], %[[SIGNED]] : vector<4xi1>, vector<4xi8>
// CHECK:         %[[R:.*]] = arith.bitcast %[[CODE]] : vector<4xi8> to vector<4xf8E4M3FNUZ>
// CHECK:         return %[[R]]
func.func @truncf_f16_to_f8E4M3FNUZ_vector(%x: vector<4xf16>) -> vector<4xf8E4M3FNUZ> {
  %y = arith.truncf %x : vector<4xf16> to vector<4xf8E4M3FNUZ>
  return %y : vector<4xf8E4M3FNUZ>
}

// -----

// bf16 -> f8E5M2 on a 2-D vector: the same ops on vector<2x3xi16>. Exponent
// moves by 127 - 15 = 112 (112 << 7 = 14336), 5 bits dropped (bias 15).
// f8E5M2 has inf: largest finite 0x7B = 123, inf 0x7C = 124, NaN 0x7E = 126.

// CHECK-LABEL: func.func @truncf_bf16_to_f8E5M2_2d(
// CHECK-SAME:      %[[X:.*]]: vector<2x3xbf16>) -> vector<2x3xf8E5M2>
// CHECK-DAG:     %[[NAN:.*]] = arith.constant dense<126> : vector<2x3xi16>
// CHECK-DAG:     %[[INF:.*]] = arith.constant dense<124> : vector<2x3xi16>
// CHECK-DAG:     %[[MAX:.*]] = arith.constant dense<123> : vector<2x3xi16>
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant dense<14336> : vector<2x3xi16>
// CHECK-DAG:     %[[HALF:.*]] = arith.constant dense<15> : vector<2x3xi16>
// CHECK:         arith.bitcast %[[X]] : vector<2x3xbf16> to vector<2x3xi16>
// CHECK:         arith.subi %{{.*}}, %[[REBIAS]] : vector<2x3xi16>
// CHECK:         %[[CLAMPED:.*]] = arith.minui %{{.*}}, %[[MAX]] : vector<2x3xi16>
// CHECK:         %[[M1:.*]] = arith.select %{{.*}}, %[[INF]], %[[CLAMPED]] : vector<2x3xi1>, vector<2x3xi16>
// CHECK:         arith.select %{{.*}}, %[[NAN]], %[[M1]] : vector<2x3xi1>, vector<2x3xi16>
// CHECK:         arith.trunci %{{.*}} : vector<2x3xi16> to vector<2x3xi8>
// CHECK:         %[[R:.*]] = arith.bitcast %{{.*}} : vector<2x3xi8> to vector<2x3xf8E5M2>
// CHECK:         return %[[R]]
func.func @truncf_bf16_to_f8E5M2_2d(%x: vector<2x3xbf16>) -> vector<2x3xf8E5M2> {
  %y = arith.truncf %x : vector<2x3xbf16> to vector<2x3xf8E5M2>
  return %y : vector<2x3xf8E5M2>
}

// -----

// f64 -> f8E5M2FNUZ is rounded once, from the f64 bits (i64): exponent moves
// by 1023 - 16 = 1007 (1007 << 52), 50 bits dropped (bias 2^49 - 1), the
// smallest normal is f64 exponent 1008 (1008 << 52).

// CHECK-LABEL: func.func @truncf_f64_to_f8E5M2FNUZ_scalar(
// CHECK-SAME:      %[[X:.*]]: f64) -> f8E5M2FNUZ
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 4535124824762089472 : i64
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 562949953421311 : i64
// CHECK-DAG:     %[[MINNORM:.*]] = arith.constant 4539628424389459968 : i64
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 127 : i64
// CHECK-DAG:     %[[NAN8:.*]] = arith.constant -128 : i8
// CHECK:         arith.bitcast %[[X]] : f64 to i64
// CHECK:         arith.subi %{{.*}}, %[[REBIAS]] : i64
// CHECK:         arith.cmpi ult, %{{.*}}, %[[MINNORM]] : i64
// CHECK:         arith.minui %{{.*}}, %[[MAX]] : i64
// CHECK:         arith.trunci %{{.*}} : i64 to i8
// CHECK:         %[[CODE:.*]] = arith.select %{{.*}}, %[[NAN8]], %{{.*}} : i8
// CHECK:         arith.bitcast %[[CODE]] : i8 to f8E5M2FNUZ
// CHECK-NOT:     arith.truncf
func.func @truncf_f64_to_f8E5M2FNUZ_scalar(%x: f64) -> f8E5M2FNUZ {
  %y = arith.truncf %x : f64 to f8E5M2FNUZ
  return %y : f8E5M2FNUZ
}

// -----

// Scalable vectors take the same path (splat constants).

// CHECK-LABEL: func.func @truncf_f32_to_f8E5M2_scalable(
// CHECK:         arith.bitcast %{{.*}} : vector<[4]xf32> to vector<[4]xi32>
// CHECK:         arith.bitcast %{{.*}} : vector<[4]xi8> to vector<[4]xf8E5M2>
// CHECK-NOT:     arith.truncf
func.func @truncf_f32_to_f8E5M2_scalable(%x: vector<[4]xf32>) -> vector<[4]xf8E5M2> {
  %y = arith.truncf %x : vector<[4]xf32> to vector<[4]xf8E5M2>
  return %y : vector<[4]xf8E5M2>
}

// -----

// +-inf keeps f8E5M2's inf (0x7C) by default; saturate-inf=true makes it the
// largest finite value 0x7B, like the other formats.

// CHECK-LABEL: func.func @truncf_f32_to_f8E5M2_inf(
// CHECK-DAG:     %[[INF:.*]] = arith.constant 124 : i32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 123 : i32
// CHECK:         %[[CLAMPED:.*]] = arith.minui %{{.*}}, %[[MAX]] : i32
// CHECK:         arith.select %{{.*}}, %[[INF]], %[[CLAMPED]] : i32
// SAT-LABEL:   func.func @truncf_f32_to_f8E5M2_inf(
// SAT-NOT:       arith.constant 124 : i32
// SAT:           %[[MAX:.*]] = arith.constant 123 : i32
// SAT-NOT:       arith.constant 124 : i32
// SAT:           %[[CLAMPED:.*]] = arith.minui %{{.*}}, %[[MAX]] : i32
// SAT:           arith.select %{{.*}}, %[[MAX]], %[[CLAMPED]] : i32
func.func @truncf_f32_to_f8E5M2_inf(%x: f32) -> f8E5M2 {
  %y = arith.truncf %x : f32 to f8E5M2
  return %y : f8E5M2
}

// -----

// extf f8E4M3FN -> f32: exponent + (127 - 7), mantissa << 20; a subnormal is
// uitofp(mantissa) with its exponent field moved by 1 - 7 - 3 = -9
// (-9 << 23 = -75497472); 0x7F / 0xFF (magnitude 127) are NaN, built as the
// quiet NaN 0x7FC00000 with the payload << 20 and the sign.

// CHECK-LABEL: func.func @extf_f8E4M3FN_to_f32_scalar(
// CHECK-SAME:      %[[X:.*]]: f8E4M3FN) -> f32
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 120 : i32
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 20 : i32
// CHECK-DAG:     %[[SUBEXP:.*]] = arith.constant -75497472 : i32
// CHECK-DAG:     %[[NANMAG:.*]] = arith.constant 127 : i32
// CHECK-DAG:     %[[QNAN:.*]] = arith.constant 2143289344 : i32
// CHECK:         %[[CODE:.*]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK:         %[[C:.*]] = arith.extui %[[CODE]] : i8 to i32
// CHECK:         arith.addi %{{.*}}, %[[REBIAS]] : i32
// CHECK:         %[[MF:.*]] = arith.uitofp %{{.*}} : i32 to f32
// CHECK:         %[[MB:.*]] = arith.bitcast %[[MF]] : f32 to i32
// CHECK:         arith.addi %[[MB]], %[[SUBEXP]] : i32
// CHECK:         %[[ISNAN:.*]] = arith.cmpi eq, %{{.*}}, %[[NANMAG]] : i32
// CHECK:         arith.ori %{{.*}}, %[[QNAN]] : i32
// CHECK:         %[[BITS:.*]] = arith.select %[[ISNAN]], %{{.*}}, %{{.*}} : i32
// CHECK:         %[[R:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NOT:     arith.extf
// CHECK:         return %[[R]] : f32
func.func @extf_f8E4M3FN_to_f32_scalar(%x: f8E4M3FN) -> f32 {
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// extf f8E4M3FNUZ -> f16: the f32 image is narrowed to f16 (exactly), and the
// single NaN code 0x80 becomes the positive quiet NaN 0x7E00 = 32256.

// CHECK-LABEL: func.func @extf_f8E4M3FNUZ_to_f16_vector(
// CHECK-SAME:      %[[X:.*]]: vector<8xf8E4M3FNUZ>) -> vector<8xf16>
// CHECK-DAG:     %[[QNAN:.*]] = arith.constant dense<32256> : vector<8xi16>
// CHECK-DAG:     %[[NANCODE:.*]] = arith.constant dense<128> : vector<8xi32>
// CHECK:         arith.bitcast %[[X]] : vector<8xf8E4M3FNUZ> to vector<8xi8>
// CHECK:         %[[ISNAN:.*]] = arith.cmpi eq, %{{.*}}, %[[NANCODE]] : vector<8xi32>
// CHECK:         %[[BITS:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %{{.*}} : vector<8xi1>, vector<8xi16>
// CHECK:         %[[R:.*]] = arith.bitcast %[[BITS]] : vector<8xi16> to vector<8xf16>
// CHECK:         return %[[R]]
func.func @extf_f8E4M3FNUZ_to_f16_vector(%x: vector<8xf8E4M3FNUZ>) -> vector<8xf16> {
  %y = arith.extf %x : vector<8xf8E4M3FNUZ> to vector<8xf16>
  return %y : vector<8xf16>
}

// -----

// extf f8E5M2 -> bf16 on a 2-D vector: magnitude 0x7C is inf (bf16 0x7F80 =
// 32640 with the sign), above it NaN.

// CHECK-LABEL: func.func @extf_f8E5M2_to_bf16_2d(
// CHECK-SAME:      %[[X:.*]]: vector<2x4xf8E5M2>) -> vector<2x4xbf16>
// CHECK-DAG:     %[[INFCODE:.*]] = arith.constant dense<124> : vector<2x4xi32>
// CHECK-DAG:     %[[INF16:.*]] = arith.constant dense<32640> : vector<2x4xi16>
// CHECK:         arith.bitcast %[[X]] : vector<2x4xf8E5M2> to vector<2x4xi8>
// CHECK:         %[[ISNAN:.*]] = arith.cmpi ugt, %[[ABS:.*]], %[[INFCODE]] : vector<2x4xi32>
// CHECK:         %[[ISINF:.*]] = arith.cmpi eq, %[[ABS]], %[[INFCODE]] : vector<2x4xi32>
// CHECK:         %[[SINF:.*]] = arith.ori %{{.*}}, %[[INF16]] : vector<2x4xi16>
// CHECK:         %[[B1:.*]] = arith.select %[[ISINF]], %[[SINF]], %{{.*}} : vector<2x4xi1>, vector<2x4xi16>
// CHECK:         %[[B2:.*]] = arith.select %[[ISNAN]], %{{.*}}, %[[B1]] : vector<2x4xi1>, vector<2x4xi16>
// CHECK:         arith.bitcast %[[B2]] : vector<2x4xi16> to vector<2x4xbf16>
func.func @extf_f8E5M2_to_bf16_2d(%x: vector<2x4xf8E5M2>) -> vector<2x4xbf16> {
  %y = arith.extf %x : vector<2x4xf8E5M2> to vector<2x4xbf16>
  return %y : vector<2x4xbf16>
}

// -----

// extf f8E5M2FNUZ -> f64: the f32 image widened in i64 (exponent + 896 << 52,
// mantissa << 29); NaN 0x80 is the f64 quiet NaN 0x7FF8000000000000.

// CHECK-LABEL: func.func @extf_f8E5M2FNUZ_to_f64_scalar(
// CHECK-DAG:     %[[QNAN:.*]] = arith.constant 9221120237041090560 : i64
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 4035225266123964416 : i64
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 29 : i64
// CHECK:         arith.shli %{{.*}}, %[[SHIFT]] : i64
// CHECK:         arith.addi %{{.*}}, %[[REBIAS]] : i64
// CHECK:         %[[BITS:.*]] = arith.select %{{.*}}, %[[QNAN]], %{{.*}} : i64
// CHECK:         arith.bitcast %[[BITS]] : i64 to f64
// CHECK-NOT:     arith.extf
func.func @extf_f8E5M2FNUZ_to_f64_scalar(%x: f8E5M2FNUZ) -> f64 {
  %y = arith.extf %x : f8E5M2FNUZ to f64
  return %y : f64
}

// -----

// A constant operand folds away: 1.5 is f8E4M3FN code 0x3C, exactly 1.5.

// CHECK-LABEL: func.func @extf_f8E4M3FN_constant_folds(
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    return %[[C]] : f32
func.func @extf_f8E4M3FN_constant_folds() -> f32 {
  %c = arith.constant 1.5 : f8E4M3FN
  %y = arith.extf %c : f8E4M3FN to f32
  return %y : f32
}

// -----

// Not fp8, or not one of the four handled fp8 types, or a rounding mode other
// than to_nearest_even, or a tensor: left alone.

// CHECK-LABEL: func.func @negative_extf_f16_to_f32(
// CHECK-NEXT:    arith.extf %{{.*}} : f16 to f32
func.func @negative_extf_f16_to_f32(%x: f16) -> f32 {
  %y = arith.extf %x : f16 to f32
  return %y : f32
}

// CHECK-LABEL: func.func @negative_truncf_f32_to_bf16(
// CHECK-NEXT:    arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
func.func @negative_truncf_f32_to_bf16(%x: vector<4xf32>) -> vector<4xbf16> {
  %y = arith.truncf %x : vector<4xf32> to vector<4xbf16>
  return %y : vector<4xbf16>
}

// CHECK-LABEL: func.func @negative_extf_f8E4M3_ieee_to_f32(
// CHECK-NEXT:    arith.extf %{{.*}} : f8E4M3 to f32
func.func @negative_extf_f8E4M3_ieee_to_f32(%x: f8E4M3) -> f32 {
  %y = arith.extf %x : f8E4M3 to f32
  return %y : f32
}

// CHECK-LABEL: func.func @negative_truncf_f32_to_f8E4M3FN_downward(
// CHECK-NEXT:    arith.truncf %{{.*}} downward : f32 to f8E4M3FN
func.func @negative_truncf_f32_to_f8E4M3FN_downward(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x downward : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// CHECK-LABEL: func.func @negative_truncf_tensor(
// CHECK-NEXT:    arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf8E5M2>
func.func @negative_truncf_tensor(%x: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %y = arith.truncf %x : tensor<4xf32> to tensor<4xf8E5M2>
  return %y : tensor<4xf8E5M2>
}

// CHECK-LABEL: func.func @negative_fp8_constant(
// CHECK-NEXT:    arith.constant dense<[1.000000e+00, 4.480000e+02]> : vector<2xf8E4M3FN>
func.func @negative_fp8_constant() -> vector<2xf8E4M3FN> {
  %c = arith.constant dense<[1.0, 448.0]> : vector<2xf8E4M3FN>
  return %c : vector<2xf8E4M3FN>
}
