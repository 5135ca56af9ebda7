// The GPU pipelines' warp-specialization options on sm_90a (the lane
// pipeline, whose kernel runs on the lane emulator): on by default (the
// handoff's 4 mbarriers, initialised by thread 0: 2 stages x filled and
// free; the named barriers of the consumers and the producer);
// warp-specialize=false gives the one-warpgroup kernel (no mbarrier, no
// named barrier); ping-pong=true adds the consumers' turns (6 more named
// barrier calls: 3 takes and 3 passes, test/Target/NVVM/warp-specialize_sm_90a.test).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir > %t.mlir
// RUN: fmha-opt %t.mlir --fmha-to-lanes-pipeline=chip=sm_90a | FileCheck %s --check-prefix=WS
// WS-COUNT-4: llvm.call @fmha_lane_mbarrier_init
// WS-NOT: llvm.call @fmha_lane_mbarrier_init
// RUN: fmha-opt %t.mlir --fmha-to-lanes-pipeline=chip=sm_90a | grep -c 'llvm.call @fmha_lane_named_barrier' | FileCheck %s --check-prefix=NAMED
// NAMED: {{^}}5{{$}}
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a warp-specialize=false" | FileCheck %s --check-prefix=ONE
// ONE-NOT: @fmha_lane_mbarrier_init
// ONE-NOT: llvm.call @fmha_lane_named_barrier
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a ping-pong=true" | grep -c 'llvm.call @fmha_lane_named_barrier' | FileCheck %s --check-prefix=PP
// PP: {{^}}11{{$}}
