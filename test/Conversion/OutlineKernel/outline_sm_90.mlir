// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir | fmha-opt --fmha-select-config=chip=sm_90 --fmha-tile --fmha-outline-kernel=chip=sm_90 | FileCheck %s

// The same outlining for sm_90: 4 warps of 32 threads, an NVVM target, the
// same flat ABI and record; no AMDGPU attributes.
// CHECK: gpu.launch_func @fmha_kernels::@default_request_kernel {{.*}} threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{[0-9]+}} : !llvm.ptr<1>, %{{[0-9]+}} : i64,
// CHECK: gpu.module @fmha_kernels [#nvvm.target<chip = "sm_90"
// CHECK: gpu.func @default_request_kernel(%{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: kernel attributes {fmha.abi = [{name = "arg0", operand = 0 : i64, part = "pointer"},
// CHECK-SAME: fmha.config = #fmha.config<{{.*}}>, known_block_size = array<i32: 128, 1, 1>}
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr<1>, ptr<1>, i64, array<3 x i64>, array<3 x i64>)> to memref<?x32x128xi8, 1>
// CHECK-NEXT: builtin.unrealized_conversion_cast %{{.*}} : memref<?x32x128xi8, 1> to memref<?x32x128xf8E4M3FN>
