// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=host --fmha-tile --convert-fmha-to-gpu=chip=gfx942 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not fmha-opt %s --convert-fmha-to-gpu=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=CHIP

// A grid tiled for another chip is not outlined.
// HOST: was tiled for chip 'host' but convert-fmha-to-gpu targets 'gfx942'

// An unknown chip is named.
// CHIP: convert-fmha-to-gpu: unknown chip 'gfx1100'; expected gfx942, gfx950 or sm_90

// A module without an fmha grid is left alone (no gpu.module appears).
// RUN: fmha-opt %s --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NONE
// NONE-LABEL: func @negative_no_grid
// NONE-NOT: gpu.module
func.func @negative_no_grid(%x: f32) -> f32 {
  return %x : f32
}
