// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-host-pipeline | FileCheck %s
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir "--fmha-to-host-pipeline=folds=false" | FileCheck %s --check-prefix=NOFOLD

// The default request all the way to the LLVM dialect: nothing of fmha, scf,
// vector, memref or arith is left; the softmax is exp2; the fp8 casts became
// integer code (no fptrunc to an fp8 type exists in LLVM).
// CHECK: llvm.func @default_request(
// CHECK: llvm.intr.exp2(
// CHECK-NOT: fmha.
// CHECK-NOT: scf.
// CHECK-NOT: vector.
// CHECK-NOT: memref.
// CHECK-NOT: arith.
// CHECK-NOT: math.
// CHECK-NOT: llvm.intr.exp(
// CHECK-NOT: unrealized_conversion_cast

// Without the folds the natural exp is still there.
// NOFOLD: llvm.intr.exp(
