// RUN: sed s/FNUZ/FN/g %fmha_src_root/examples/default_request.mlir | fmha-opt --fmha-select-config=chip=sm_90 | sed 's/k_step = 32/k_step = 16/' | not fmha-opt --fmha-tile --fmha-outline-kernel=chip=sm_90 --convert-fmha-to-gpu=chip=sm_90 2>&1 | FileCheck %s
// RUN: sed s/FNUZ/FN/g %fmha_src_root/examples/default_request.mlir | fmha-opt --fmha-to-nvvm-pipeline=format=none | FileCheck %s --check-prefix=K32

// sm_90 has one fp8 MMA in the chip table, mma.sync m16n8k32: a config with
// another k_step (16 here, which verifyConfig allows: D = 128 is a multiple)
// is an error naming the rule, not a kernel built with the k 32 MMA.
// CHECK: convert-fmha-to-gpu (sm_90): no MMA with k_step 16
// The config fmha-select-config picks (k_step 32) builds with that MMA.
// K32: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
