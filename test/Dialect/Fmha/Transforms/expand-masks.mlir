// RUN: fmha-opt %s --split-input-file --fmha-expand-masks | FileCheck %s

// Query positions q + [0, 4) down the rows, keys t0 + [0, 8) along the
// columns; causal keeps key < sk and key <= query, -inf elsewhere.
// CHECK-LABEL: func @causal
// CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<4x8xf32>, %[[Q:[a-z0-9]+]]: index, %[[T0:[a-z0-9]+]]: index, %[[SK:[a-z0-9]+]]: index)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[NINFT:.*]] = vector.broadcast %[[NINF]] : f32 to vector<4x8xf32>
// CHECK: %[[RS:.*]] = vector.step : vector<4xindex>
// CHECK: %[[QB:.*]] = vector.broadcast %[[Q]] : index to vector<4xindex>
// CHECK: %[[ROWS:.*]] = arith.addi %[[RS]], %[[QB]] : vector<4xindex>
// CHECK: %[[CS:.*]] = vector.step : vector<8xindex>
// CHECK: %[[TB:.*]] = vector.broadcast %[[T0]] : index to vector<8xindex>
// CHECK: %[[COLS:.*]] = arith.addi %[[CS]], %[[TB]] : vector<8xindex>
// CHECK: %[[RC:.*]] = vector.shape_cast %[[ROWS]] : vector<4xindex> to vector<4x1xindex>
// CHECK: %[[A:.*]] = vector.broadcast %[[RC]] : vector<4x1xindex> to vector<4x8xindex>
// CHECK: %[[J:.*]] = vector.broadcast %[[COLS]] : vector<8xindex> to vector<4x8xindex>
// CHECK: %[[SKB:.*]] = vector.broadcast %[[SK]] : index to vector<4x8xindex>
// CHECK: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[SKB]] : vector<4x8xindex>
// CHECK: %[[BEFORE:.*]] = arith.cmpi sle, %[[J]], %[[A]] : vector<4x8xindex>
// CHECK: %[[VIS:.*]] = arith.andi %[[INLEN]], %[[BEFORE]] : vector<4x8xi1>
// CHECK: %[[R:.*]] = arith.select %[[VIS]], %[[S]], %[[NINFT]] : vector<4x8xi1>, vector<4x8xf32>
// CHECK: return %[[R]]
// CHECK-NOT: fmha.mask_tile
func.func @causal(%s: vector<4x8xf32>, %q: index, %t0: index, %sk: index) -> vector<4x8xf32> {
  %m = fmha.mask_tile %s rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<causal>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}

// -----

// No mask: only the sequence-length bound.
// CHECK-LABEL: func @none
// CHECK: %[[INLEN:.*]] = arith.cmpi slt
// CHECK-NOT: arith.cmpi
// CHECK: arith.select %[[INLEN]]
func.func @none(%s: vector<4x8xf32>, %q: index, %t0: index, %sk: index) -> vector<4x8xf32> {
  %m = fmha.mask_tile %s rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<none>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}

// -----

// A constant window: key <= query + 3 and key >= query - 100.
// CHECK-LABEL: func @window
// CHECK: %[[INLEN:.*]] = arith.cmpi slt
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[R3:.*]] = vector.broadcast %[[C3]] : index to vector<4x8xindex>
// CHECK: %[[HI:.*]] = arith.addi %[[A:.*]], %[[R3]]
// CHECK: arith.cmpi sle, %{{.*}}, %[[HI]]
// CHECK: %[[C100:.*]] = arith.constant 100 : index
// CHECK: %[[L100:.*]] = vector.broadcast %[[C100]] : index to vector<4x8xindex>
// CHECK: %[[LO:.*]] = arith.subi %[[A]], %[[L100]]
// CHECK: arith.cmpi sge, %{{.*}}, %[[LO]]
// CHECK: arith.select
func.func @window(%s: vector<4x8xf32>, %q: index, %t0: index, %sk: index) -> vector<4x8xf32> {
  %m = fmha.mask_tile %s rows(%q) keys(%t0) len(%sk) {mask = #fmha.mask<window, left = 100, right = 3>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}

// -----

// Run-time bounds: each bound cuts only when it is >= 0 (an or with
// "bound < 0" per bound).
// CHECK-LABEL: func @runtime_window
// CHECK-SAME: %[[WL:[a-z0-9]+]]: index, %[[WR:[a-z0-9]+]]: index)
// CHECK: %[[RNEG:.*]] = arith.cmpi slt, %[[WR]], %{{.*}} : index
// CHECK: %[[RNEGT:.*]] = vector.broadcast %[[RNEG]] : i1 to vector<4x8xi1>
// CHECK: %[[RCUT:.*]] = arith.cmpi sle
// CHECK: arith.ori %[[RNEGT]], %[[RCUT]]
// CHECK: %[[LNEG:.*]] = arith.cmpi slt, %[[WL]], %{{.*}} : index
// CHECK: %[[LNEGT:.*]] = vector.broadcast %[[LNEG]] : i1 to vector<4x8xi1>
// CHECK: %[[LCUT:.*]] = arith.cmpi sge
// CHECK: arith.ori %[[LNEGT]], %[[LCUT]]
// CHECK: arith.select
func.func @runtime_window(%s: vector<4x8xf32>, %q: index, %t0: index, %sk: index, %wl: index, %wr: index) -> vector<4x8xf32> {
  %m = fmha.mask_tile %s rows(%q) keys(%t0) len(%sk) window(%wl, %wr) {mask = #fmha.mask<window, left = -1, right = -1>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}
