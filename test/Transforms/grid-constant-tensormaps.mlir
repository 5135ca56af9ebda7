// fmha-grid-constant-tensormaps: the arguments a kernel's fmha.abi record
// names as tensor maps become by-value grid constants (128 bytes, 64-aligned);
// the others stay as they were.
// RUN: fmha-opt %s --split-input-file --fmha-grid-constant-tensormaps --verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %arg0: !llvm.ptr<1>, %arg1: i64,
// CHECK-SAME: %arg2: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %arg3: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
llvm.func @k(%p: !llvm.ptr<1>, %n: i64, %km: !llvm.ptr, %vm: !llvm.ptr) attributes {
    fmha.abi = [{name = "k_cache", operand = 1 : i64, part = "pointer"},
                {dim = 0 : i64, name = "k_cache", operand = 1 : i64, part = "size"},
                {name = "k_cache", operand = 1 : i64, part = "tensormap"},
                {name = "v_cache", operand = 2 : i64, part = "tensormap"}],
    nvvm.kernel} {
  llvm.return
}

// -----

// A function without a record is left alone.
// CHECK-LABEL: llvm.func @plain(
// CHECK-SAME: %arg0: !llvm.ptr)
// CHECK-NOT: grid_constant
llvm.func @plain(%m: !llvm.ptr) {
  llvm.return
}

// -----

// expected-error @+1 {{fmha-grid-constant-tensormaps: fmha.abi entry 0 is a tensormap but argument 0 is not an !llvm.ptr}}
llvm.func @bad(%m: i64) attributes {fmha.abi = [{name = "k_cache", operand = 1 : i64, part = "tensormap"}]} {
  llvm.return
}
