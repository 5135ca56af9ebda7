// The GPU pipelines' warp-specialization options on sm_90a (the lane
// pipeline, whose kernel runs on the lane emulator): on by default, with
// the chip's choice of TMA at page 1024 (the handoff's 6 mbarriers,
// initialised by thread 0: 2 stages x filled, free and landed, the TMA
// boxes' barrier; 4 named-barrier calls: the consumer's before its
// pipelined loop (its Q writes) and three in its masked-tile loop (before
// the tile's writes, after them before the products, at the iteration's
// end): the producer waits for the boxes at the landed barrier before its V
// transpose); with tma=false (cp.async) 4 mbarriers and the producer's
// named barrier before its V transpose, 5;
// warp-specialize=false gives the one-warpgroup kernel (no mbarrier, no
// named barrier); ping-pong=true adds the consumers' turns (6 more named
// barrier calls: a take and a pass in each of the 2 KV loops, the last
// consumer's first pass and consumer 0's last take:
// test/Target/NVVM/warp-specialize_sm_90a.test).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir > %t.mlir
// RUN: fmha-opt %t.mlir --fmha-to-lanes-pipeline=chip=sm_90a | FileCheck %s --check-prefix=WS
// WS-COUNT-6: llvm.call @fmha_lane_mbarrier_init
// WS-NOT: llvm.call @fmha_lane_mbarrier_init
// RUN: fmha-opt %t.mlir --fmha-to-lanes-pipeline=chip=sm_90a | grep -c 'llvm.call @fmha_lane_named_barrier' | FileCheck %s --check-prefix=NAMED
// NAMED: {{^}}4{{$}}
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a tma=false" | FileCheck %s --check-prefix=CPASYNC
// CPASYNC-COUNT-4: llvm.call @fmha_lane_mbarrier_init
// CPASYNC-NOT: llvm.call @fmha_lane_mbarrier_init
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a tma=false" | grep -c 'llvm.call @fmha_lane_named_barrier' | FileCheck %s --check-prefix=NAMED5
// NAMED5: {{^}}5{{$}}
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a warp-specialize=false" | FileCheck %s --check-prefix=ONE
// ONE-NOT: @fmha_lane_mbarrier_init
// ONE-NOT: llvm.call @fmha_lane_named_barrier
// RUN: fmha-opt %t.mlir "--fmha-to-lanes-pipeline=chip=sm_90a ping-pong=true" | grep -c 'llvm.call @fmha_lane_named_barrier' | FileCheck %s --check-prefix=PP
// PP: {{^}}10{{$}}
