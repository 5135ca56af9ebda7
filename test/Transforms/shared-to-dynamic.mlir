// fmha-shared-to-dynamic: the workgroup globals of a module in one external
// (dynamic) shared array, each at the next multiple of its alignment.
// RUN: fmha-opt %s --split-input-file --fmha-shared-to-dynamic --verify-diagnostics | FileCheck %s
// With min-bytes at or above a layout's total (9223 bytes for @layout) the
// globals stay static.
// RUN: fmha-opt %s --split-input-file --fmha-shared-to-dynamic=min-bytes=9223 --verify-diagnostics | FileCheck %s --check-prefix=STATIC
// STATIC-LABEL: module @layout
// STATIC-NOT: fmha_dynamic_shared
// STATIC: llvm.mlir.global internal @__wg_a()
// STATIC-LABEL: module @widths

// 100 bytes at 0 (alignment 16), then 8192 bytes aligned to 1024: 1024, then
// 7 bytes without an alignment (16): 1024 + 8192 = 9216. The block takes the
// largest alignment. The global in another address space stays.
// CHECK-LABEL: module @layout
// CHECK: llvm.mlir.global external @fmha_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: @__wg_
// CHECK: llvm.mlir.global internal @other() {addr_space = 1 : i32} : !llvm.array<4 x i8>
// CHECK-LABEL: llvm.func @kernel
// CHECK: %[[B0:.*]] = llvm.mlir.addressof @fmha_dynamic_shared : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %[[B0]] : i8, !llvm.ptr<3>
// CHECK: %[[B1:.*]] = llvm.mlir.addressof @fmha_dynamic_shared : !llvm.ptr<3>
// CHECK: %[[P1:.*]] = llvm.getelementptr inbounds %[[B1]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[P1]] : i8, !llvm.ptr<3>
// CHECK: %[[B2:.*]] = llvm.mlir.addressof @fmha_dynamic_shared : !llvm.ptr<3>
// CHECK: %[[P2:.*]] = llvm.getelementptr inbounds %[[B2]][9216] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[P2]] : i8, !llvm.ptr<3>
module @layout {
  llvm.mlir.global internal @__wg_a() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<100 x i8>
  llvm.mlir.global internal @__wg_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @__wg_c() {addr_space = 3 : i32} : !llvm.array<7 x i8>
  llvm.mlir.global internal @other() {addr_space = 1 : i32} : !llvm.array<4 x i8>
  llvm.func @kernel(%v: i8) {
    %a = llvm.mlir.addressof @__wg_a : !llvm.ptr<3>
    llvm.store %v, %a : i8, !llvm.ptr<3>
    %b = llvm.mlir.addressof @__wg_b : !llvm.ptr<3>
    llvm.store %v, %b : i8, !llvm.ptr<3>
    %c = llvm.mlir.addressof @__wg_c : !llvm.ptr<3>
    llvm.store %v, %c : i8, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// f32 elements count 4 bytes: 4 x 4 = 16, then the i8 array at 16.
// CHECK-LABEL: module @widths
// CHECK: llvm.getelementptr inbounds %{{.*}}[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module @widths {
  llvm.mlir.global internal @__wg_f() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
  llvm.mlir.global internal @__wg_g() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x i8>
  llvm.func @kernel(%v: i8) {
    %f = llvm.mlir.addressof @__wg_f : !llvm.ptr<3>
    %g = llvm.mlir.addressof @__wg_g : !llvm.ptr<3>
    llvm.store %v, %g : i8, !llvm.ptr<3>
    llvm.return
  }
}

// -----

module @initialized {
  // expected-error @+1 {{fmha-shared-to-dynamic: a workgroup global must be an array without an initializer}}
  llvm.mlir.global internal @__wg_i(dense<0> : tensor<4xi8>) {addr_space = 3 : i32} : !llvm.array<4 x i8>
}
