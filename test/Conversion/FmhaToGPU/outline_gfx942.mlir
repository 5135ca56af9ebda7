// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --fmha-prefetch-page-ids --convert-fmha-to-gpu="chip=gfx942 lower-tiles=false" | FileCheck %s

// The default request's grid becomes one gfx942 kernel of 4 waves of 64
// lanes, launched over (q tiles, 32 query heads, sequences) workgroups. The
// arguments keep the op's operand order; block ids replace the grid's
// induction variables; no block_dim / grid_dim (they need device libraries).
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @default_request(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-NOT: scf.forall
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @fmha_kernels::@default_request_kernel blocks in (%{{.*}}, %[[C32]], %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}}) args(%[[Q]] : memref<?x32x128xf8E4M3FNUZ>, %{{.*}} : memref<?x1024x8x128xf8E4M3FNUZ>, %{{.*}} : memref<?x1024x8x128xf8E4M3FNUZ>, %{{.*}} : memref<?xi32>,
// CHECK: gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">]
// CHECK: gpu.func @default_request_kernel(%{{.*}}: memref<?x32x128xf8E4M3FNUZ>, %{{.*}}: memref<?x1024x8x128xf8E4M3FNUZ>
// CHECK-SAME: kernel attributes {fmha.config = #fmha.config<{{.*}}>, known_block_size = array<i32: 256, 1, 1>}
// CHECK: gpu.block_id x
// CHECK: gpu.block_id y
// CHECK: gpu.block_id z
// CHECK: fmha.load_rows
// CHECK: scf.for
// CHECK: fmha.tile_mma
// CHECK: fmha.store_rows
// CHECK: gpu.return
// CHECK-NOT: gpu.block_dim
// CHECK-NOT: gpu.grid_dim
