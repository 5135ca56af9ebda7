// RUN: fmha-opt %s --split-input-file --convert-fmha-to-host | FileCheck %s

// Rows past the valid count are zero and never read: one guarded vector.load
// per row.
// CHECK-LABEL: func @load_rows
// CHECK-NOT: fmha.load_rows
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi sgt, %{{.*}}, %[[C0]] : index
// CHECK: scf.if %{{.*}} -> (vector<8xbf16>)
// CHECK: vector.load %{{.*}} : memref<?x2x8xbf16>, vector<8xbf16>
// CHECK: vector.insert {{.*}} [0] : vector<8xbf16> into vector<4x8xbf16>
// CHECK: vector.insert {{.*}} [3] : vector<8xbf16> into vector<4x8xbf16>
func.func @load_rows(%q: memref<?x2x8xbf16>, %row0: index, %h: index, %n: index) -> vector<4x8xbf16> {
  %t = fmha.load_rows %q[%row0, %h] rows(%n) : memref<?x2x8xbf16> -> vector<4x8xbf16>
  return %t : vector<4x8xbf16>
}

// -----

// Per-token page ids: a token at or past the end reads nothing and gets -1.
// CHECK-LABEL: func @page_ids_per_token
// CHECK-NOT: fmha.page_ids
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[P:.*]] = arith.constant 16 : index
// CHECK: scf.if
// CHECK: arith.divui %{{.*}}, %[[P]] : index
// CHECK: memref.load
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[M1]] : i32
func.func @page_ids_per_token(%pages: memref<?xi32, strided<[1], offset: ?>>, %t0: index, %sk: index) -> vector<4xi32> {
  %ids = fmha.page_ids %pages[%t0] len(%sk) {page_size = 16 : i64} : memref<?xi32, strided<[1], offset: ?>> -> vector<4xi32>
  return %ids : vector<4xi32>
}

// -----

// Q x K^T: fp8 operands widened to f32, row dot products into a stack buffer
// allocated at the function entry (the KV loop does not grow the stack).
// CHECK-LABEL: func @tile_mma_transposed
// CHECK-DAG: memref.alloca() : memref<4x16xf32>
// CHECK-DAG: memref.alloca() : memref<8x16xf32>
// CHECK-DAG: memref.alloca() : memref<4x8xf32>
// CHECK: arith.extf %{{.*}} : vector<4x16xf8E4M3FN> to vector<4x16xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.reduction <add>
// CHECK: vector.transfer_read
// CHECK-NOT: fmha.tile_mma
func.func @tile_mma_transposed(%a: vector<4x16xf8E4M3FN>, %b: vector<8x16xf8E4M3FN>, %acc: vector<4x8xf32>) -> vector<4x8xf32> {
  %r = fmha.tile_mma %a, %b, %acc {transpose_rhs} : vector<4x16xf8E4M3FN>, vector<8x16xf8E4M3FN> -> vector<4x8xf32>
  return %r : vector<4x8xf32>
}

// -----

// P x V with vd per V row: each term scaled by k_scale[k] before the AXPY.
// CHECK-LABEL: func @tile_mma_k_scale
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[A:.*]] = memref.load
// CHECK: %[[S:.*]] = memref.load
// CHECK: arith.mulf %[[A]], %[[S]] : f32
// CHECK: vector.fma
func.func @tile_mma_k_scale(%p: vector<4x8xf8E4M3FN>, %v: vector<8x16xf8E4M3FN>, %acc: vector<4x16xf32>, %vd: vector<8xf32>) -> vector<4x16xf32> {
  %r = fmha.tile_mma %p, %v, %acc k_scale(%vd : vector<8xf32>) : vector<4x8xf8E4M3FN>, vector<8x16xf8E4M3FN> -> vector<4x16xf32>
  return %r : vector<4x16xf32>
}

// -----

// Ops other than the tile ops are left alone.
// CHECK-LABEL: func @negative_untouched
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @negative_untouched(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
