// convert-fmha-to-gpu (after fmha-outline-kernel) on the default request
// (gfx942): the kernel body is one lane's code. The flat ABI (a global pointer per memref, i64 per
// dynamic size, offset and strides of the strided descales), two 16 KiB LDS
// tiles (K row-major, V transposed), the wave index made uniform, 64 fp8
// MFMAs per KV tile per wave (32 for S^T = K Q^T, 32 for O^T = V^T P^T), P
// packed by cvt.pk.fp8 straight from rocdl.exp2, the row max finished across
// lane halves, and no tile op or math.exp2 left.
//
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir \
// RUN:   --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift --fmha-fold-vd-rescale \
// RUN:   --fmha-prefetch-page-ids=per-token=false --fmha-expand-masks --canonicalize --cse \
// RUN:   --fmha-outline-kernel=chip=gfx942 --convert-fmha-to-gpu=chip=gfx942 -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=NEG < %t.mlir
// RUN: grep -c "amdgpu.mfma 32x32x16" %t.mlir | FileCheck %s --check-prefix=MFMA
// RUN: grep -c "rocdl.cvt.pk.fp8.f32" %t.mlir | FileCheck %s --check-prefix=CVT
// RUN: grep -c "rocdl.exp2" %t.mlir | FileCheck %s --check-prefix=EXP
//
// CHECK-LABEL: gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">]
// CHECK: gpu.func @default_request_kernel(%{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: workgroup(%[[K:.*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: kernel
// CHECK-SAME: denormal_fp_math_f32 = "preserve-sign"
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: rocdl.waves_per_eu = 2 : i32
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr<1>, ptr<1>, i64, array<3 x i64>, array<3 x i64>)> to memref<?x32x128xi8, 1>
// CHECK: gpu.thread_id x
// CHECK: rocdl.readfirstlane
// CHECK: scf.for
// CHECK: rocdl.readfirstlane
// CHECK: vector.store %{{.*}}, %[[K]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[K]]
// CHECK: amdgpu.mfma 32x32x16 {{.*}} blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
// CHECK: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: rocdl.exp2
// CHECK: rocdl.cvt.pk.fp8.f32
// CHECK: vector.load %[[V]]
// CHECK: amdgpu.mfma 32x32x16
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: vector.store %{{.*}} : memref<?x32x128xbf16, 1>, vector<4xbf16>
// CHECK: gpu.return
//
// The host side passes the flattened arguments.
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// HOST: func.func @default_request
// HOST: memref.extract_aligned_pointer_as_index
// HOST: llvm.inttoptr
// HOST: gpu.launch_func @fmha_kernels::@default_request_kernel
//
// NEG-NOT: fmha.gather_kv
// NEG-NOT: fmha.tile_mma
// NEG-NOT: math.exp2
// NEG-NOT: gpu.block_dim
// NEG-NOT: gpu.grid_dim
//
// 64 MFMAs: one KV tile, per wave.
// MFMA: 64
// Two words per 8 fp8 of P: 16 PV steps' operands x 2.
// CVT: 32
// 64 P elements per lane + alpha.
// EXP: 65
