// RUN: fmha-opt %s --fmha-outline-kernel=chip=gfx942 | FileCheck %s

// Where each kernel argument comes from, recorded on the kernel (fmha.abi):
// a named memref (pointer, dynamic size), a strided one (pointer, size,
// offset, strides), an unnamed scalar argument (argN) and a value computed in
// the function (hostK, no operand). An argument the grid does not use is no
// kernel argument. The launch passes the same flat values in the same order.
// A size of a memref the grid uses, and index adds / subs of such sizes and
// constants, are cloned in, not passed (the grid point's batch, qo_indptr's
// size - 1, is one).
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<?x4xf32> {fmha.operand_name = "q"}, %[[S:[a-z0-9]+]]: memref<?x4xf32, strided<[?, ?], offset: ?>> {fmha.operand_name = "k_descale"}, %[[N:[a-z0-9]+]]: index
// CHECK: %[[H:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK: %[[META:.*]], %[[OFF:.*]], %{{.*}}:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %[[S]]
// CHECK: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK: %[[ST0:.*]] = arith.index_cast %[[ST]]#0 : index to i64
// CHECK: %[[ST1:.*]] = arith.index_cast %[[ST]]#1 : index to i64
// CHECK: gpu.launch_func @fmha_kernels::@f_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : i64, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i64, %[[OFF64]] : i64, %[[ST0]] : i64, %[[ST1]] : i64, %[[N]] : index, %[[H]] : index)
// CHECK: gpu.func @f_kernel(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %[[SP:[a-z0-9]+]]: !llvm.ptr<1>, %[[SN:[a-z0-9]+]]: i64, %[[SO:[a-z0-9]+]]: i64, %[[SS0:[a-z0-9]+]]: i64, %[[SS1:[a-z0-9]+]]: i64, %[[KN:[a-z0-9]+]]: index, %[[KH:[a-z0-9]+]]: index)
// CHECK-SAME: fmha.abi = [
// CHECK-SAME: {name = "q", operand = 0 : i64, part = "pointer"},
// CHECK-SAME: {dim = 0 : i64, name = "q", operand = 0 : i64, part = "size"},
// CHECK-SAME: {name = "k_descale", operand = 1 : i64, part = "pointer"},
// CHECK-SAME: {dim = 0 : i64, name = "k_descale", operand = 1 : i64, part = "size"},
// CHECK-SAME: {name = "k_descale", operand = 1 : i64, part = "offset"},
// CHECK-SAME: {dim = 0 : i64, name = "k_descale", operand = 1 : i64, part = "stride"},
// CHECK-SAME: {dim = 1 : i64, name = "k_descale", operand = 1 : i64, part = "stride"},
// CHECK-SAME: {name = "arg2", operand = 2 : i64, part = "value"},
// CHECK-SAME: {name = "host0", part = "value"}]
// The strided memref's descriptor takes its offset and strides from the
// arguments, its static size 4 from a constant.
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[SP]], %{{.*}}[0]
// CHECK-NEXT: %[[D2:.*]] = llvm.insertvalue %[[SP]], %[[D1]][1]
// CHECK-NEXT: %[[D3:.*]] = llvm.insertvalue %[[SO]], %[[D2]][2]
// CHECK-NEXT: %[[D4:.*]] = llvm.insertvalue %[[SN]], %[[D3]][3, 0]
// CHECK-NEXT: %[[D5:.*]] = llvm.insertvalue %[[SS0]], %[[D4]][4, 0]
// CHECK-NEXT: %[[D6:.*]] = llvm.insertvalue %{{.*}}, %[[D5]][3, 1]
// CHECK-NEXT: %[[D7:.*]] = llvm.insertvalue %[[SS1]], %[[D6]][4, 1]
// CHECK-NEXT: %[[G:.*]] = builtin.unrealized_conversion_cast %[[D7]] : !llvm.struct<(ptr<1>, ptr<1>, i64, array<2 x i64>, array<2 x i64>)> to memref<?x4xf32, strided<[?, ?], offset: ?>, 1>
// CHECK-NEXT: %[[SM:.*]] = builtin.unrealized_conversion_cast %[[G]] : memref<?x4xf32, strided<[?, ?], offset: ?>, 1> to memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[KD:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x4xf32>
// CHECK: %[[KDM1:.*]] = arith.subi %[[KD]], %{{.*}} : index
// CHECK: %[[R0:.*]] = arith.addi %[[KN]], %[[KH]] : index
// CHECK: %[[R:.*]] = arith.addi %[[R0]], %[[KDM1]] : index
// CHECK: memref.store %{{.*}}, %[[SM]][%[[R]], %{{.*}}]
func.func @f(%q: memref<?x4xf32> {fmha.operand_name = "q"},
             %s: memref<?x4xf32, strided<[?, ?], offset: ?>> {fmha.operand_name = "k_descale"},
             %n: index, %unused: memref<?xi32> {fmha.operand_name = "unused"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = arith.muli %n, %n : index
  %d = memref.dim %q, %c0 : memref<?x4xf32>
  %dm1 = arith.subi %d, %c1 : index
  scf.forall (%i, %j, %k) in (4, 2, 1) {
    %x = memref.load %q[%i, %c1] : memref<?x4xf32>
    %r0 = arith.addi %n, %h : index
    %r = arith.addi %r0, %dm1 : index
    memref.store %x, %s[%r, %j] : memref<?x4xf32, strided<[?, ?], offset: ?>>
  } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  return
}
