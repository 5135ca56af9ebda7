// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids --fmha-outline-kernel=chip=gfx942 | FileCheck %s

// The default request's grid becomes one gfx942 kernel of 4 waves of 64
// lanes, launched over (q tiles, 32 query heads, sequences) workgroups. The
// arguments keep the op's operand order, each memref flattened to its
// aligned pointer and dynamic sizes on both sides of the launch; block ids
// replace the grid's induction variables; no block_dim / grid_dim (they need
// device libraries). The example's arguments carry no fmha.operand_name, so
// the record names them argN.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @default_request(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-NOT: scf.forall
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[QI:.*]] = memref.extract_aligned_pointer_as_index %[[Q]] : memref<?x32x128xf8E4M3FNUZ> -> index
// CHECK: %[[QI64:.*]] = arith.index_cast %[[QI]] : index to i64
// CHECK: %[[QP:.*]] = llvm.inttoptr %[[QI64]] : i64 to !llvm.ptr<1>
// CHECK: %[[QD:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x32x128xf8E4M3FNUZ>
// CHECK: %[[QN:.*]] = arith.index_cast %[[QD]] : index to i64
// CHECK: gpu.launch_func @fmha_kernels::@default_request_kernel blocks in (%{{.*}}, %[[C32]], %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}}) args(%[[QP]] : !llvm.ptr<1>, %[[QN]] : i64, %{{[0-9]+}} : !llvm.ptr<1>, %{{[0-9]+}} : i64,
// CHECK: gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">]
// CHECK: gpu.func @default_request_kernel(%[[P0:[a-z0-9]+]]: !llvm.ptr<1>, %[[N0:[a-z0-9]+]]: i64, %{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: kernel attributes {denormal_fp_math_f32 = "preserve-sign",
// CHECK-SAME: fmha.abi = [{name = "arg0", operand = 0 : i64, part = "pointer"}, {dim = 0 : i64, name = "arg0", operand = 0 : i64, part = "size"}, {name = "arg1", operand = 1 : i64, part = "pointer"},
// CHECK-SAME: {name = "arg7", operand = 7 : i64, part = "pointer"}, {name = "arg8", operand = 8 : i64, part = "pointer"},
// CHECK-SAME: {name = "arg10", operand = 10 : i64, part = "pointer"}, {dim = 0 : i64, name = "arg10", operand = 10 : i64, part = "size"}]
// CHECK-SAME: fmha.config = #fmha.config<{{.*}}>, known_block_size = array<i32: 256, 1, 1>, rocdl.waves_per_eu = 2 : i32}
// The prologue: q's descriptor (dynamic size 0, static 32 and 128, row-major
// strides), the memref it makes in the global space with fp8 as i8, and the
// cast back to q's own type for the tile ops.
// CHECK: %[[D0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr<1>, ptr<1>, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: llvm.insertvalue %[[P0]], %[[D0]][0]
// CHECK: llvm.insertvalue %[[P0]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[N0]], %{{.*}}[3, 0]
// CHECK: %[[G:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr<1>, ptr<1>, i64, array<3 x i64>, array<3 x i64>)> to memref<?x32x128xi8, 1>
// CHECK: %[[QK:.*]] = builtin.unrealized_conversion_cast %[[G]] : memref<?x32x128xi8, 1> to memref<?x32x128xf8E4M3FNUZ>
// CHECK: gpu.block_id x
// CHECK: gpu.block_id y
// CHECK: gpu.block_id z
// CHECK: fmha.load_rows %[[QK]]
// CHECK: scf.for
// CHECK: fmha.tile_mma
// CHECK: fmha.store_rows
// CHECK: gpu.return
// CHECK-NOT: gpu.block_dim
// CHECK-NOT: gpu.grid_dim
