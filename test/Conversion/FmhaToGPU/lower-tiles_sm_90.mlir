// convert-fmha-to-gpu (after fmha-outline-kernel) for sm_90, the same conversion as gfx942's
// with the NVIDIA TargetInfo: BlockM 64 over 4 warps (16 query rows each, the
// m16n8k32 atom's M), BlockN 64. Per warp and KV tile:
//   QK: 64/8 key atoms x 128/32 k steps = 32 mma.sync; PV: 128/8 d atoms x
//   64/32 k steps = 32 -> 64;
//   P: 16 rows x 64 keys / 32 lanes = 32 values per lane, packed two per
//   cvt.rn.satfinite.e4m3x2 -> 16, each from an ex2.approx (32 + alpha for
//   the lane's 2 rows = 34);
//   row max and sum over a quad: shuffle xor 1 and 2, per row slot (2).
// No libdevice: max is llvm.intr.maxnum, never arith.maxnumf (__nv_fmaxf).
//
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale \
// RUN:   --fmha-prefetch-page-ids=per-token=false --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-outline-kernel=chip=sm_90 --convert-fmha-to-gpu=chip=sm_90 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" %t.mlir | FileCheck %s --check-prefix=MMA
// RUN: grep -c "ex2.approx.ftz.f32" %t.mlir | FileCheck %s --check-prefix=EXP
// RUN: grep -c "cvt.rn.satfinite.e4m3x2.f32" %t.mlir | FileCheck %s --check-prefix=CVT
// RUN: grep -c "gpu.shuffle  xor" %t.mlir | FileCheck %s --check-prefix=SHFL
// RUN: FileCheck %s --check-prefix=NEG < %t.mlir
//
// CHECK-LABEL: gpu.module @fmha_kernels [#nvvm.target<chip = "sm_90", features = "+ptx84">]
// CHECK: gpu.func @default_request_kernel(%{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// The prefetch prologue reads the first tile's page id only when that tile
// exists (Sk may be 0: the sequence then owns no page-table entry).
// CHECK: %[[ID0:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NOT: }
// CHECK: %[[P:.*]] = memref.load %subview[%{{.*}}] : memref<?xi32, strided<[1], offset: ?>, 1>
// CHECK-NEXT: scf.yield %[[P]] : i32
// CHECK-NEXT: } else {
// CHECK: scf.yield %c-1_i32 : i32
// CHECK: scf.for {{.*}} iter_args({{.*}}%[[ID0]]
// CHECK: llvm.intr.maxnum
// CHECK: gpu.barrier
// CHECK: gpu.return
// MMA: 64
// EXP: 34
// CVT: 16
// Max and sum (the row sum is finished per tile) for 2 row slots, 2 masks each.
// SHFL: 8
// NEG-NOT: arith.maxnumf
// NEG-NOT: math.exp2
// NEG-NOT: fmha.tile_mma
