// The registered GPU pipelines take the lane kernel's AMDGPU knobs as
// fmha-compile does (LaneKernelOptions): warps=N, fmha-select-config's wave
// count (8: block_m 256, a workgroup of 512 lanes), and kv-unroll=N,
// fmha-unroll-kv-loop's factor. The default request at format=none (the
// ROCDL-level LLVM dialect).
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none" | FileCheck %s --check-prefix=DEF
// DEF: block_m = 128
// DEF-SAME: warps = 4
// DEF: rocdl.flat_work_group_size = "256,256"
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none warps=8" | FileCheck %s --check-prefix=W8
// W8: block_m = 256
// W8-SAME: warps = 8
// W8: rocdl.flat_work_group_size = "512,512"
// A refused count is an error naming the rule, through the pipeline too.
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none warps=6" 2>&1 | FileCheck %s --check-prefix=W6
// W6: config warps = 6 is not a power of two
// The unroll factor: a tile's 64 MFMAs a wave in the masked loop, then
// the steady loop's (factor copies of 64) and the odd tiles' loop (64):
// 256 MFMAs at the rule's 2, 128 at 1 (no odd-tile loop), 320 at 3.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none" | grep -c rocdl.mfma | FileCheck %s --check-prefix=U2
// U2: {{^}}256{{$}}
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none kv-unroll=1" | grep -c rocdl.mfma | FileCheck %s --check-prefix=U1
// U1: {{^}}128{{$}}
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline="format=none kv-unroll=3" | grep -c rocdl.mfma | FileCheck %s --check-prefix=U3
// U3: {{^}}320{{$}}
