// fmha-lanes-to-host on amdgpu.fat_raw_buffer_cast (TargetInfo::boundedView):
// a load through the buffer reads its source where its bytes [off, off +
// len) lie below validBytes, and zero where they lie at or above it (the
// buffer's range check); one across validBytes is reported with dim -1
// (kStraddle) under check-bounds. off is the load's indices times the
// source's strides (extract_strided_metadata) times the element's bytes.
// The view's report is site 0; the subview (site 1) and the load left on
// the source (site 2) are then guarded like any others.
// RUN: fmha-opt %s --fmha-lanes-to-host | FileCheck %s
// RUN: fmha-opt %s --fmha-lanes-to-host=check-bounds=false | FileCheck %s --check-prefix=UNCHECKED

// CHECK-LABEL: func.func @k(
// CHECK: %[[SV:.*]] = memref.subview
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STR:.*]]:2 = memref.extract_strided_metadata %[[SV]]
// CHECK: %[[VB:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[A:.*]] = arith.muli %[[R:.*]], %[[STR]]#0 : index
// CHECK: %[[B:.*]] = arith.muli %[[C:.*]], %[[STR]]#1 : index
// CHECK: %[[ELEMS:.*]] = arith.addi %{{.*}}, %[[B]] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[ELEMS]], %c1{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %[[OFF]], %c16{{.*}} : index
// CHECK: %[[BELOW:.*]] = arith.cmpi ule, %[[END]], %[[VB]] : index
// CHECK: %[[ABOVE:.*]] = arith.cmpi uge, %[[OFF]], %[[VB]] : index
// CHECK: scf.if %[[BELOW]] -> (vector<16xi8>) {
// The source's load, checked against the subview's dims (site 2).
// CHECK:   scf.if
// CHECK:     vector.load %[[SV]][%[[R]], %[[C]]] : memref<?x128xi8, strided<[128, 1], offset: ?>, 1>, vector<16xi8>
// CHECK:     func.call @fmha_lane_out_of_bounds(%c2_i32
// CHECK: } else {
// CHECK:   %[[ACROSS:.*]] = arith.xori %[[ABOVE]], %true{{.*}} : i1
// CHECK:   scf.if %[[ACROSS]] {
// CHECK-DAG: %[[SITE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[DIM:.*]] = arith.constant -1 : i32
// CHECK:     func.call @fmha_lane_out_of_bounds(%[[SITE]], %{{.*}}, %{{.*}}, %[[DIM]])
// CHECK:   }
// CHECK:   %[[Z:.*]] = arith.constant dense<0> : vector<16xi8>
// CHECK:   scf.yield %[[Z]] : vector<16xi8>
// CHECK: }
// CHECK-NOT: amdgpu.fat_raw_buffer_cast

// UNCHECKED-NOT: fmha_lane_out_of_bounds
// UNCHECKED: %[[BELOW:.*]] = arith.cmpi ule
// UNCHECKED: scf.if %[[BELOW]] -> (vector<16xi8>) {
// UNCHECKED-NEXT: vector.load
// UNCHECKED: } else {
// UNCHECKED-NEXT: arith.constant dense<0> : vector<16xi8>
module attributes {gpu.container_module} {
  func.func @host(%p: !llvm.ptr<1>, %n: i64, %off: i64, %vb: i64) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%p : !llvm.ptr<1>, %n : i64, %off : i64, %vb : i64)
    return
  }
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%p: !llvm.ptr<1>, %n: i64, %off: i64, %vb: i64) kernel {
      %z = llvm.mlir.constant(0 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      %c128 = llvm.mlir.constant(128 : i64) : i64
      %d0 = llvm.mlir.poison : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d1 = llvm.insertvalue %p, %d0[0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d2 = llvm.insertvalue %p, %d1[1] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d3 = llvm.insertvalue %z, %d2[2] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d4 = llvm.insertvalue %n, %d3[3, 0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d5 = llvm.insertvalue %c128, %d4[3, 1] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d6 = llvm.insertvalue %c128, %d5[4, 0] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %d7 = llvm.insertvalue %one, %d6[4, 1] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)>
      %m = builtin.unrealized_conversion_cast %d7 : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)> to memref<?x128xi8, 1>
      %t = gpu.thread_id x
      %o = arith.index_cast %off : i64 to index
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : index
      %sv = memref.subview %m[%o, 0] [%c4, 128] [1, 1] : memref<?x128xi8, 1> to memref<?x128xi8, strided<[128, 1], offset: ?>, 1>
      %buf = amdgpu.fat_raw_buffer_cast %sv validBytes(%vb) resetOffset : memref<?x128xi8, strided<[128, 1], offset: ?>, 1> to memref<?x128xi8, strided<[128, 1]>, #amdgpu.address_space<fat_raw_buffer>>
      %r = arith.divui %t, %c16 : index
      %c = arith.remui %t, %c16 : index
      %col = arith.muli %c, %c16 : index
      %x = vector.load %buf[%r, %col] : memref<?x128xi8, strided<[128, 1]>, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
      vector.store %x, %sv[%c0, %c0] : memref<?x128xi8, strided<[128, 1], offset: ?>, 1>, vector<16xi8>
      gpu.return
    }
  }
}
