// fmha-lanes-to-host{check-bounds} (the default): every memref / vector load
// and store of the kernel runs in an scf.if on its indices being in range
// (i < dim; for a vector along the last dim, i + length <= dim, against the
// memref's own dims: the host's sizes, a subview's, a workgroup buffer's
// static shape); the else branch calls fmha_lane_out_of_bounds(site, index,
// bound, dim) and a load yields zero. A subview must lie in its source. The
// access sites follow the wave-op sites (the barrier here is site 0). An
// access in range by construction is left alone.
// RUN: fmha-opt %s --fmha-lanes-to-host | FileCheck %s
// RUN: fmha-opt %s --fmha-lanes-to-host=check-bounds=false | FileCheck %s --check-prefix=UNCHECKED

// CHECK-DAG: func.func private @fmha_lane_out_of_bounds(i32, i64, i64, i32)
// CHECK-LABEL: func.func @k(
// CHECK-DAG: %[[C253:.*]] = arith.constant 253 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[LDS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<256xf32>
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi32, 1>
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = memref.dim %[[M]], %{{.*}} : memref<?xi32, 1>
// CHECK: %[[T:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: call @fmha_lane_barrier(%c0_i32
//
// A global load: t < n, else site 1 reports (index t, bound n, dim 0), zero.
// CHECK: %[[OK1:.*]] = arith.cmpi ult, %[[T]], %[[N]] : index
// CHECK-NEXT: %[[V:.*]] = scf.if %[[OK1]] -> (i32) {
// CHECK-NEXT:   %[[L:.*]] = memref.load %[[M]][%[[T]]] : memref<?xi32, 1>
// CHECK-NEXT:   scf.yield %[[L]] : i32
// CHECK-NEXT: } else {
// CHECK-DAG:    %[[D0:.*]] = arith.constant 0 : i32
// CHECK-DAG:    %[[S1:.*]] = arith.constant 1 : i32
// CHECK-DAG:    %[[I1:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK-DAG:    %[[B1:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:        func.call @fmha_lane_out_of_bounds(%[[S1]], %[[I1]], %[[B1]], %[[D0]]) : (i32, i64, i64, i32) -> ()
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   scf.yield %[[Z]] : i32
// CHECK-NEXT: }
//
// The subview [off][len]: off >= 0, len >= 0, off + len - 1 < n (off <= n when
// empty); else site 2 reports and the view is empty.
// CHECK: %[[SBAD:.*]] = arith.xori %[[SOK:[0-9]+]], %true : i1
// CHECK-NEXT: scf.if %[[SBAD]] {
// CHECK: func.call @fmha_lane_out_of_bounds(%c2_i32
// CHECK: }
// CHECK-NEXT: %[[VOFF:.*]] = arith.select %[[SOK]], %{{.*}}, %c0 : index
// CHECK-NEXT: %[[LEN:.*]] = arith.select %[[SOK]], %{{.*}}, %c0 : index
// CHECK-NEXT: %[[SV:.*]] = memref.subview %[[M]][%[[VOFF]]] [%[[LEN]]] [1]
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[SN:.*]] = memref.dim %[[SV]]
//
// A load through the subview is checked against the subview's size.
// CHECK: %[[OK3:.*]] = arith.cmpi ult, %[[T]], %[[SN]] : index
// CHECK-NEXT: scf.if %[[OK3]] -> (i32) {
// CHECK-NEXT:   memref.load %[[SV]][%[[T]]]
// CHECK: func.call @fmha_lane_out_of_bounds(%c3_i32
//
// A vector<4xf32> load of the workgroup buffer: t <= 256 - 4; the report
// names the last element when the first is in range.
// CHECK: %[[OK4:.*]] = arith.cmpi ult, %[[T]], %[[C253]] : index
// CHECK-NEXT: %[[X:.*]] = scf.if %[[OK4]] -> (vector<4xf32>) {
// CHECK-NEXT:   vector.load %[[LDS]][%[[T]]] : memref<256xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi ult, %[[T]], %[[C256]] : index
// CHECK-NEXT:   %[[LAST:.*]] = arith.addi %[[T]], %c3 : index
// CHECK-NEXT:   %[[BADI:.*]] = arith.select %[[FIRST]], %[[LAST]], %[[T]] : index
// CHECK:        func.call @fmha_lane_out_of_bounds(%c4_i32
// CHECK:        %[[ZV:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT:   scf.yield %[[ZV]] : vector<4xf32>
//
// In range by construction (index 0, 4 <= 256): no guard.
// CHECK-NOT: scf.if
// CHECK: vector.store %[[X]], %[[LDS]][%{{.*}}] : memref<256xf32>, vector<4xf32>
//
// A store: skipped out of range.
// CHECK: %[[OK5:.*]] = arith.cmpi ult, %[[T]], %[[N]] : index
// CHECK-NEXT: scf.if %[[OK5]] {
// CHECK-NEXT:   memref.store %{{.*}}, %[[M]][%[[T]]] : memref<?xi32, 1>
// CHECK-NEXT: } else {
// CHECK: func.call @fmha_lane_out_of_bounds(%c5_i32
// CHECK-NEXT: }
// CHECK-NEXT: return

// UNCHECKED-NOT: fmha_lane_out_of_bounds
// UNCHECKED-NOT: scf.if
// UNCHECKED: memref.load
module attributes {gpu.container_module} {
  func.func @host(%p: !llvm.ptr<1>, %n: i64, %off: i64, %len: i64) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%p : !llvm.ptr<1>, %n : i64, %off : i64, %len : i64)
    return
  }
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%p: !llvm.ptr<1>, %n: i64, %off: i64, %len: i64) workgroup(%lds : memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %z = llvm.mlir.constant(0 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      %d0 = llvm.mlir.poison : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %d1 = llvm.insertvalue %p, %d0[0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %d2 = llvm.insertvalue %p, %d1[1] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %d3 = llvm.insertvalue %z, %d2[2] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %d4 = llvm.insertvalue %n, %d3[3, 0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %d5 = llvm.insertvalue %one, %d4[4, 0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)>
      %m = builtin.unrealized_conversion_cast %d5 : !llvm.struct<(ptr<1>, ptr<1>, i64, array<1 x i64>, array<1 x i64>)> to memref<?xi32, 1>
      %t = gpu.thread_id x
      gpu.barrier
      %v = memref.load %m[%t] : memref<?xi32, 1>
      %o = arith.index_cast %off : i64 to index
      %s = arith.index_cast %len : i64 to index
      %sv = memref.subview %m[%o] [%s] [1] : memref<?xi32, 1> to memref<?xi32, strided<[1], offset: ?>, 1>
      %w = memref.load %sv[%t] : memref<?xi32, strided<[1], offset: ?>, 1>
      %x = vector.load %lds[%t] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %c0 = arith.constant 0 : index
      vector.store %x, %lds[%c0] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %vw = arith.addi %v, %w : i32
      memref.store %vw, %m[%t] : memref<?xi32, 1>
      gpu.return
    }
  }
}
