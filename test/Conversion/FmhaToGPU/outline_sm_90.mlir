// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir | fmha-opt --fmha-select-config=chip=sm_90 --fmha-tile --convert-fmha-to-gpu="chip=sm_90 lower-tiles=false" | FileCheck %s

// The same outlining for sm_90: 4 warps of 32 threads, an NVVM target.
// CHECK: gpu.launch_func @fmha_kernels::@default_request_kernel {{.*}} threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: gpu.module @fmha_kernels [#nvvm.target<chip = "sm_90"
// CHECK: gpu.func @default_request_kernel({{.*}}) kernel attributes {fmha.config = #fmha.config<{{.*}}>, known_block_size = array<i32: 128, 1, 1>}
