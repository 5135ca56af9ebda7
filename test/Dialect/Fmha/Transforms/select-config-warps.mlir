// fmha-select-config{warps}: the workgroup's waves stated instead of the
// chip's (AMDGPU), block_m following at the chip's 32 rows a wave.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=8" | FileCheck %s --check-prefix=W8
// W8: #fmha.config<chip = "gfx942", block_m = 256, block_n = 128, k_step = 16, warps = 8,
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=2" | FileCheck %s --check-prefix=W2
// W2: #fmha.config<chip = "gfx942", block_m = 64, block_n = 128, k_step = 16, warps = 2,
// 0 is the chip's (4 waves, block_m 128).
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=0" | FileCheck %s --check-prefix=W0
// W0: #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4,
//
// Refused, each naming its rule: D 256 at 8 waves (its S and O accumulators,
// 192 values a lane, do not fit two waves a SIMD), 16 waves (4 a SIMD), a
// negative count, another count on NVIDIA (sm_90a's warpgroup MMA takes one
// warpgroup of 4), and a hand-written config stating another count.
// RUN: sed 's/x128xf8/x256xf8/g; s/x128xbf16/x256xbf16/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | not fmha-opt --fmha-select-config="chip=gfx942 warps=8" 2>&1 | FileCheck %s --check-prefix=D256
// D256: config warps = 8 puts 2 waves on each SIMD, whose lanes then hold at most 128 accumulator values (half of 256 registers); block_m (block_n + Dv) / threads = 192 (head dim Dv = 256)
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=16" 2>&1 | FileCheck %s --check-prefix=W16
// W16: config warps = 16 puts 4 waves on each of gfx942's 4 SIMDs; at most 2 (warps <= 8)
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: fmha-select-config: warps must be >= 0 (0: the chip's), got -1
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir \
// RUN:   | not fmha-opt --fmha-select-config="chip=sm_90a warps=8" 2>&1 | FileCheck %s --check-prefix=NV
// NV: fmha-select-config: warps 8 on sm_90a, whose lowering takes 4 (another wave count is an AMDGPU option)
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 \
// RUN:   | not fmha-opt --fmha-select-config="chip=gfx942 warps=8" 2>&1 | FileCheck %s --check-prefix=HAND
// HAND: fmha-select-config: warps 8 but the config states 4
// A config that states 8 is kept when the option states 8 too.
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=8" \
// RUN:   | fmha-opt --fmha-select-config="chip=gfx942 warps=8" | FileCheck %s --check-prefix=W8
// 6 waves (no power of two) is refused by the rule too.
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 warps=6" 2>&1 | FileCheck %s --check-prefix=W6
// W6: config warps = 6 is not a power of two (the staged K/V tiles' chunks are spread evenly over the lanes)
