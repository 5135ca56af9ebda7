// convert-fmha-to-gpu lowers kernels fmha-outline-kernel wrote; anything else
// is named.
// RUN: not fmha-opt %s --convert-fmha-to-gpu=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fmha-opt %s "--convert-fmha-to-gpu=chip=sm_90 lds-bank-swizzle=true" 2>&1 | FileCheck %s --check-prefix=SWIZZLE
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 --fmha-tile --convert-fmha-to-gpu=chip=gfx942 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=gfx942 --fmha-tile --fmha-outline-kernel=chip=gfx942 --convert-fmha-to-gpu=chip=gfx950 2>&1 | FileCheck %s --check-prefix=OTHER

// An unknown chip is named.
// CHIP: convert-fmha-to-gpu: unknown chip 'gfx1100'; expected gfx942, gfx950, sm_90 or sm_90a

// The chunk-major LDS layout is AMDGPU's (NVIDIA's rings are row-major).
// SWIZZLE: convert-fmha-to-gpu: lds-bank-swizzle is an AMDGPU LDS layout; chip 'sm_90' is not an AMDGPU chip

// A grid that was not outlined: the lowering starts from the kernel.
// GRID: 'scf.forall' op convert-fmha-to-gpu: the grid is not outlined (run fmha-outline-kernel first)

// A kernel outlined for another chip.
// OTHER: 'gpu.func' op was outlined for chip 'gfx942' but convert-fmha-to-gpu targets 'gfx950'

// A module without kernels is left alone (no gpu.module appears).
// RUN: fmha-opt %s --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NONE
// NONE-LABEL: func @negative_no_kernel
// NONE-NOT: gpu.module
func.func @negative_no_kernel(%x: f32) -> f32 {
  return %x : f32
}
